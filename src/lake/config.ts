// Pool and branch configuration, and how each is kept in a coordination
// register (JSON text).

import { invalid } from './errors';
import { Ksuid } from './ksuid';

export type Order = 'asc' | 'desc';

/** The pool key: the field paths values are sorted by, and the direction. */
export interface SortKey {
  order: Order;
  /** Each key is a path of field names (["ts"], ["id","orig_h"]). */
  keys: string[][];
}

export const DEFAULT_SEEK_STRIDE = 64 * 1024;
export const DEFAULT_THRESHOLD = 500 * 1024 * 1024;

export interface PoolConfig {
  /** Creation time, ns since the epoch. */
  ts: bigint;
  name: string;
  id: Ksuid;
  layout: SortKey;
  /** Bytes of data between seek index entries. */
  seekStride: number;
  /** Target bytes of data per data object. */
  threshold: number;
  /** Loads write a columnar copy of each data object (vectors.ts). */
  vectors: boolean;
}

export interface BranchConfig {
  /** Creation time, ns since the epoch. */
  ts: bigint;
  name: string;
  /** The branch's tip; Ksuid.nil when the branch has no commit yet. */
  commit: Ksuid;
}

/** Parses "asc"/"desc" (any case), as the reference does. */
export function parseOrder(s: string): Order {
  const l = s.toLowerCase();
  if (l === 'asc' || l === 'desc') return l;
  throw invalid(`unknown order: ${s}`);
}

/**
 * Parses the `-orderby` form "key[,key...][:asc|:desc]" (dotted paths).
 * An empty string gives the default key, ts ascending.
 */
export function parseSortKey(s: string): SortKey {
  if (s === '') return { order: 'asc', keys: [['ts']] };
  const parts = s.split(':');
  if (parts.length > 2) throw invalid('only one order clause allowed in sortkey description');
  const order = parts.length > 1 ? parseOrder(parts[1]) : 'asc';
  const keys = parts[0].split(',').map((k) => k.split('.'));
  return { order, keys };
}

/** The path values are sorted by: the first key (the reference sorts by one key). */
export function primaryKey(layout: SortKey): string[] {
  return layout.keys.length > 0 ? layout.keys[0] : ['ts'];
}

interface PoolJSON {
  ts: string;
  name: string;
  id: string;
  layout: SortKey;
  seek_stride: number;
  threshold: number;
  /** Present (false) only when loads write no columnar copies. */
  vectors?: boolean;
}

export function poolToJSON(p: PoolConfig): PoolJSON {
  return {
    ts: p.ts.toString(),
    name: p.name,
    id: p.id.toString(),
    layout: p.layout,
    seek_stride: p.seekStride,
    threshold: p.threshold,
    ...(p.vectors ? {} : { vectors: false }),
  };
}

export function poolFromJSON(j: PoolJSON): PoolConfig {
  return {
    ts: BigInt(j.ts),
    name: j.name,
    id: Ksuid.mustParse(j.id),
    layout: { order: j.layout.order, keys: j.layout.keys },
    seekStride: j.seek_stride,
    threshold: j.threshold,
    vectors: j.vectors !== false,
  };
}

/** The pool catalog register: every pool, as one JSON array. */
export function encodeCatalog(pools: PoolConfig[]): string {
  return JSON.stringify(pools.map(poolToJSON));
}

export function decodeCatalog(s: string | null): PoolConfig[] {
  if (s === null) return [];
  return (JSON.parse(s) as PoolJSON[]).map(poolFromJSON);
}

/** A branch register's value (the name is in the register's key). */
export function encodeBranch(b: BranchConfig): string {
  return JSON.stringify({ ts: b.ts.toString(), commit: b.commit.toString() });
}

export function decodeBranch(name: string, s: string): BranchConfig {
  const j = JSON.parse(s) as { ts: string; commit: string };
  return { ts: BigInt(j.ts), name, commit: Ksuid.mustParse(j.commit) };
}

/** ns since the epoch, now. */
export function nowNs(): bigint {
  // performance.timeOrigin + now() gives sub-millisecond resolution.
  const ms = performance.timeOrigin + performance.now();
  return BigInt(Math.floor(ms * 1000)) * 1000n;
}
