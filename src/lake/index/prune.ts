// Pruning a scan with index objects: before a pool scan reads a data
// object, the indexes it has are asked whether any of its values can pass
// the query's filter. An object whose indexes say no is skipped; one they
// say yes to is read only in the streams holding the matching values.
//
// The query layer hands the lake the part of the filter an index can
// answer (the lake knows no query language): equality of a field with a
// constant, joined by `and` and `or`. A comparison is answered by a field
// rule on that field, or by a type rule of the constant's type (a string,
// ip or bool constant can only equal values of that type). An `and` skips
// an object when either side does and reads only the rows both allow; an
// `or` skips it only when both sides can tell and both say no.

import { formatType } from '../../zed/typestring';
import { ID, TypePrimitive } from '../../zed/types';
import { Value } from '../../zed/value';
import { PoolConfig } from '../config';
import { DataObject } from '../object';
import { KeyRange, overlaps } from '../seekindex';
import { Snapshot } from '../snapshot';
import { IndexObject } from './object';
import { IndexReader, IndexStats, Predicate, RowSpan } from './lookup';

export type { Predicate, RowSpan } from './lookup';

/** The part of a filter indexes can answer. */
export type IndexFilter =
  | { kind: 'and' | 'or'; lhs: IndexFilter; rhs: IndexFilter }
  | {
      kind: 'equals';
      /** The field compared (a path from the value). */
      path: readonly string[];
      /** The constant. */
      value: Value;
      /** True for the values the comparison holds for. */
      test: Predicate;
    };

export interface ScanPlan {
  /** The objects to read. */
  objects: DataObject[];
  /** For objects to read only in part, the value ordinals that may match. */
  rows: Map<string, RowSpan[]>;
  /** Objects the indexes ruled out. */
  pruned: number;
  stats: IndexStats;
}

/** Index lookups in flight at once. */
const CONCURRENCY = 16;

/**
 * Decides which objects (of those overlapping range) a scan with filter
 * must read, and which rows of them. Objects without a usable index are
 * read whole.
 */
export async function planScan(
  reader: IndexReader,
  pool: PoolConfig,
  snap: Snapshot,
  objects: readonly DataObject[],
  filter: IndexFilter,
  range?: KeyRange,
): Promise<ScanPlan> {
  const stats: IndexStats = { lookups: 0, bytesRead: 0 };
  const verdicts: (RowSpan[] | null)[] = new Array(objects.length).fill(null);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < objects.length; i = next++) {
      const o = objects[i];
      const indexes = snap.indexesOf(o.id);
      if (indexes.size === 0 || !overlaps(o.min, o.max, range)) continue;
      verdicts[i] = await evaluate(reader, pool, filter, indexes, stats);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, objects.length) }, worker));
  const plan: ScanPlan = { objects: [], rows: new Map(), pruned: 0, stats };
  objects.forEach((o, i) => {
    const v = verdicts[i];
    if (v === null) plan.objects.push(o);
    else if (v.length === 0) plan.pruned++;
    else {
      plan.objects.push(o);
      plan.rows.set(o.id.toString(), v);
    }
  });
  return plan;
}

/** The rows of an object that may pass f (empty: none), or null when its indexes cannot tell. */
async function evaluate(
  reader: IndexReader,
  pool: PoolConfig,
  f: IndexFilter,
  indexes: ReadonlyMap<string, IndexObject>,
  stats: IndexStats,
): Promise<RowSpan[] | null> {
  if (f.kind === 'equals') {
    const x = answerer(f, indexes);
    if (x === null) return null;
    return normalize(await reader.lookup(pool.id, x, f.value, f.test, stats));
  }
  const l = await evaluate(reader, pool, f.lhs, indexes, stats);
  if (f.kind === 'and') {
    if (l !== null && l.length === 0) return l;
    const r = await evaluate(reader, pool, f.rhs, indexes, stats);
    if (l === null) return r;
    if (r === null) return l;
    return intersect(l, r);
  }
  if (l === null) return null;
  const r = await evaluate(reader, pool, f.rhs, indexes, stats);
  if (r === null) return null;
  return normalize([...l, ...r]);
}

/** Constants a type rule can answer for: they only ever equal values of their own type. */
const TYPE_ANSWERABLE = new Set<number>([ID.String, ID.IP, ID.Bool]);

/** The index object that can answer an equality, if the object has one. */
function answerer(
  f: Extract<IndexFilter, { kind: 'equals' }>,
  indexes: ReadonlyMap<string, IndexObject>,
): IndexObject | null {
  for (const x of indexes.values()) {
    const r = x.rule;
    if (r.kind !== 'field') continue;
    const p = r.fields[0];
    if (p.length === f.path.length && p.every((s, i) => s === f.path[i])) return x;
  }
  const t = f.value.type.under;
  if (!(t instanceof TypePrimitive) || !TYPE_ANSWERABLE.has(t.id)) return null;
  const name = formatType(t);
  for (const x of indexes.values()) if (x.rule.kind === 'type' && x.rule.type === name) return x;
  return null;
}

/** Spans sorted and merged where they overlap or touch. */
function normalize(spans: RowSpan[] | null): RowSpan[] | null {
  if (spans === null || spans.length <= 1) return spans;
  spans.sort((a, b) => a.first - b.first);
  const out: RowSpan[] = [{ ...spans[0] }];
  for (let i = 1; i < spans.length; i++) {
    const last = out[out.length - 1];
    const s = spans[i];
    if (s.first <= last.last + 1) last.last = Math.max(last.last, s.last);
    else out.push({ ...s });
  }
  return out;
}

/** The ordinals in both lists of spans (each sorted and merged). */
function intersect(a: RowSpan[], b: RowSpan[]): RowSpan[] {
  const out: RowSpan[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const first = Math.max(a[i].first, b[j].first);
    const last = Math.min(a[i].last, b[j].last);
    if (first <= last) out.push({ first, last });
    if (a[i].last < b[j].last) i++;
    else j++;
  }
  return out;
}
