// Reading a data object through its columnar copy: only the columns of
// the top-level fields a query uses (and the pool key's when the object's
// values are merged with another's by key), fetched as ranged reads of `<id>.vng`, materialized as records
// of those fields. A scan picks this per object (scan.ts) when the query
// says which fields it reads and the object has a live copy; anything
// else reads the object's ZNG by rows.

import { FormatError } from '../formats/io';
import {
  Chunk,
  ChunkSource,
  projectionSegments,
  ProjectedReader,
  reassemblyRange,
  readLayout,
  TRAILER_BYTES,
  VngLayout,
} from '../formats/vng/project';
import { VngError } from '../formats/vng/reader';
import { Segment } from '../formats/vng/metadata';
import {
  chunkSource,
  leafTypeOf,
  memLength,
  packSegments,
  planVectors,
  primitiveSegments,
  primitiveType,
  readColumn,
  readRecordNulls,
  readSuperOf,
  recordShape,
  VectorPlan,
} from '../formats/vng/vectors';
import { Column, RecordShape, VecBatch } from '../zed/vector';
import { ScanTypes } from './cache';
import { ColumnCache, pathKey, RowLayout } from './colcache';
import type { DecodePool } from './decodepool';
import type { PoolScan, ScanStats } from './scan';
import { isNotFound, ObjectStore } from '../storage/storage';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { PoolConfig, primaryKey } from './config';
import { notFound } from './errors';
import { fetchAhead, firstRange, objectsAhead } from './ahead';
import { DataObject } from './object';
import { SeekEntry, Span } from './seekindex';
import { vectorKey } from './vectors';
import {
  mergeableKey,
  mergeCounts,
  mergeBytes,
  mergeLimits,
  mergeColumn,
  mergeOrder,
  refuse,
  mergeParts,
  mergeShape,
  alikeRows,
  Perm,
} from './vectormerge';
import { LRU } from './lru';

/** Ranges closer than this are fetched as one read. */
const COALESCE_GAP = 256 * 1024;

/** What a scan needs to read objects by columns. */
/**
 * A filter a scan may apply by columns: rows whose fields fail it are not
 * read; the rest are read whole by rows (the caller filters them again).
 * test must look at nothing but fields.
 */
export interface ColumnMatch {
  fields: ReadonlySet<string>;
  /** False when the row cannot pass (it sees records of just the fields). */
  test(v: Value): boolean;
  /**
   * The same test on column vectors: the paths it reads, and the rows of
   * a batch of their columns that may pass (ascending).
   */
  vectors?: { paths: readonly (readonly string[])[]; select(b: VecBatch): Int32Array } | null;
}

export interface ColumnScan {
  /** Top-level fields to read. */
  fields: ReadonlySet<string>;
  /** The same with the pool key's top-level field, for objects that are merged. */
  withKey: ReadonlySet<string>;
  /** Whether to read this object by columns. */
  use(o: DataObject): boolean;
  /** With a match, rows are read whole, but only those that may pass it. */
  match?: ColumnMatch;
  /** The object's VNG layout (cached by the lake). */
  layout(o: DataObject): Promise<VngLayout>;
  /** Decoded columns (for a match on vectors). */
  cache: ColumnCache;
}

/** Reads an object's VNG layout: its trailer, then its reassembly section. */
export async function loadLayout(
  storage: ObjectStore,
  pool: PoolConfig,
  o: DataObject,
  commit: string,
): Promise<VngLayout> {
  const key = vectorKey(pool.id, o.id);
  try {
    const size = await storage.size(key);
    const tailAt = Math.max(0, size - TRAILER_BYTES);
    const tail = await storage.getRange(key, tailAt, size - tailAt);
    const r = reassemblyRange(tail);
    const maps =
      r.offset >= tailAt
        ? tail.subarray(r.offset - tailAt, r.offset - tailAt + r.length)
        : await storage.getRange(key, r.offset, r.length);
    return readLayout(r.offset, maps);
  } catch (e) {
    throw wrap(e, o, commit);
  }
}

function wrap(e: unknown, o: DataObject, commit: string): unknown {
  if (isNotFound(e))
    return notFound(`data object ${o.id} of commit ${commit} not found: it was removed by vacuum`);
  if (e instanceof FormatError) return e;
  if (e instanceof VngError) return new FormatError('vng', `${o.id}.vng: ${e.message}`);
  return e;
}

/** Byte ranges covering the segments, near ones joined, in offset order. */
export function coalesce(segs: Segment[]): { offset: number; length: number }[] {
  const spans = segs
    .map((s) => ({
      offset: s.offset,
      end: s.offset + (s.compression === 0 ? s.memLength : s.length),
    }))
    .filter((s) => s.end > s.offset)
    .sort((a, b) => a.offset - b.offset);
  const out: { offset: number; length: number }[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.offset <= last.offset + last.length + COALESCE_GAP) {
      last.length = Math.max(last.length, s.end - last.offset);
    } else out.push({ offset: s.offset, length: s.end - s.offset });
  }
  return out;
}

/** The values of one object, by columns, in the object's order. */
export class VectorCursor {
  private reader: ProjectedReader | null = null;
  private done = false;

  constructor(
    private storage: ObjectStore,
    private pool: PoolConfig,
    private o: DataObject,
    private columns: ColumnScan,
    /** The fields to read. */
    private fields: ReadonlySet<string>,
    private ctx: TypeContext,
    private commit: string,
    /** Called with the stored bytes fetched and the values read. */
    private count: (bytes: number, values: number) => void,
  ) {}

  async next(): Promise<Value[] | null> {
    if (this.done) return null;
    if (!this.reader) this.reader = await this.open();
    let batch: Value[] | null;
    try {
      batch = this.reader.read();
    } catch (e) {
      throw wrap(e, this.o, this.commit);
    }
    if (batch === null) {
      this.done = true;
      return null;
    }
    this.count(0, batch.length);
    return batch;
  }

  private async open(): Promise<ProjectedReader> {
    const layout = await this.columns.layout(this.o);
    const fields = this.fields;
    const ranges = coalesce(projectionSegments(layout, fields));
    const key = vectorKey(this.pool.id, this.o.id);
    let chunks: Chunk[];
    try {
      chunks = await fetchAll(this.storage, key, ranges);
    } catch (e) {
      throw wrap(e, this.o, this.commit);
    }
    let bytes = 0;
    for (const c of chunks) bytes += c.buf.length;
    this.count(bytes, 0);
    try {
      return new ProjectedReader(layout, fields, chunks, this.ctx);
    } catch (e) {
      throw wrap(e, this.o, this.commit);
    }
  }
}

/** What a match cursor needs of its scan: the object's rows by byte span. */
export interface RowAccess {
  seekIndex(o: DataObject): Promise<SeekEntry[]>;
  openSpan(o: DataObject, span: Span): { read(): Promise<Value[] | null> };
}

/**
 * The rows of one object that may pass a filter: the filter's columns are
 * read and tested first (findHits: the ordinals of the rows that may
 * pass, ascending), then only the ZNG streams (seek-index entries) that
 * hold passing rows are read, and only those rows returned, whole, in the
 * object's order.
 */
export class MatchCursor {
  private entries: { e: SeekEntry; hits: ArrayLike<number> }[] | null = null;
  private at = 0;
  private reader: { read(): Promise<Value[] | null> } | null = null;
  /** Ordinal (in the object) of the next value the reader returns. */
  private ordinal = 0;
  private hit = 0;

  constructor(
    private findHits: () => Promise<ArrayLike<number>>,
    private rows: RowAccess,
    private o: DataObject,
  ) {}

  async next(): Promise<Value[] | null> {
    if (this.entries === null) this.entries = await this.plan();
    for (;;) {
      if (this.reader === null) {
        if (this.at >= this.entries.length) return null;
        const { e } = this.entries[this.at];
        this.reader = this.rows.openSpan(this.o, { start: e.offset, end: e.offset + e.length });
        this.ordinal = e.valOff;
        this.hit = 0;
      }
      const batch = await this.reader.read();
      const hits = this.entries[this.at].hits;
      if (batch === null || this.hit >= hits.length) {
        this.reader = null;
        this.at++;
        continue;
      }
      const out: Value[] = [];
      const end = this.ordinal + batch.length;
      while (this.hit < hits.length && hits[this.hit] < end)
        out.push(batch[hits[this.hit++] - this.ordinal]);
      this.ordinal = end;
      if (out.length > 0) return out;
    }
  }

  /** The seek-index entries holding passing rows, with those rows' ordinals. */
  private async plan(): Promise<{ e: SeekEntry; hits: ArrayLike<number> }[]> {
    const hits = await this.findHits();
    if (hits.length === 0) return [];
    const out: { e: SeekEntry; hits: number[] }[] = [];
    let h = 0;
    for (const e of await this.rows.seekIndex(this.o)) {
      const mine: number[] = [];
      while (h < hits.length && hits[h] < e.valOff + e.valCnt) mine.push(hits[h++]);
      if (mine.length > 0) out.push({ e, hits: mine });
    }
    return out;
  }
}

/** The ordinals of the rows of a projected read (by rows) that a match's test may pass. */
export async function testedHits(columns: VectorCursor, match: ColumnMatch): Promise<number[]> {
  const hits: number[] = [];
  let n = 0;
  for (let b = await columns.next(); b; b = await columns.next()) {
    for (let i = 0; i < b.length; i++) if (match.test(b[i])) hits.push(n + i);
    n += b.length;
  }
  return hits;
}

/**
 * Fetches the ranges, a few at a time (the store's read-ahead); once
 * stopped() (its scan closed), starts no more and fails.
 */
async function fetchAll(
  storage: ObjectStore,
  key: string,
  ranges: { offset: number; length: number }[],
  stopped?: () => boolean,
): Promise<Chunk[]> {
  const out: Chunk[] = new Array(ranges.length);
  const width = Math.max(1, storage.readAhead);
  let next = 0;
  const worker = async () => {
    while (next < ranges.length) {
      if (stopped?.()) throw new Error('the scan closed');
      const i = next++;
      const r = ranges[i];
      out[i] = { offset: r.offset, buf: await storage.getRange(key, r.offset, r.length) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, ranges.length) }, worker));
  return out;
}

/** One piece of a vector scan, in pool order. */
export type VectorPart =
  /**
   * An object's rows as the columns of the scan's paths; sel, where
   * present, the rows of them the scan reads (a key range's streams).
   */
  | { kind: 'columns'; n: number; cols: Column[]; shape: RecordShape; sel?: Int32Array }
  /** Rows read by rows: records holding (at least) the paths' top-level fields. */
  | { kind: 'rows'; rows: Value[] };

export interface VectorScanOptions {
  ctx: TypeContext;
  /** Field paths whose columns to read. */
  paths: readonly (readonly string[])[];
  /** Top-level fields (each also a one-element path) the rows are records of. */
  shape: readonly string[];
  /**
   * Paths (of paths) whose columns' dictionaries the reader will use
   * (group-by keys, dcount arguments): a worker that decodes such a
   * column builds its dictionary too.
   */
  dicts?: readonly (readonly string[])[];
  /** At most how many rows the query takes (VectorScanRequest.limit). */
  limit?: number;
}

/** What reading objects' columns needs of the lake. */
export interface ColumnEnv {
  storage: ObjectStore;
  pool: PoolConfig;
  /** The commit scanned, for error messages. */
  commit: string;
  cache: ColumnCache;
  /** The object's VNG layout (cached by the lake). */
  layout(o: DataObject): Promise<VngLayout>;
  /** Where the bytes fetched and objects read are counted. */
  stats: ScanStats;
  /** Worker threads that decode big primitive columns (absent or disabled: in-thread). */
  decoder?: DecodePool;
  /** Merge orders of runs of overlapping objects, kept while the column cache is on (mergeCache). */
  merges?: LRU<string, Perm | null>;
}

/** What a vector scan needs of its lake. */
export interface VectorScanEnv extends ColumnEnv {
  /** Whether to read the object by columns (it has a live copy, and the mode allows). */
  use(o: DataObject): boolean;
  /**
   * The rows of an object read by columns that the scan reads, where a key
   * range covers it in part (those of the seek-index streams the range
   * meets, as a row scan reads them); undefined for all of them.
   */
  rowsIn?(o: DataObject): Int32Array | undefined;
  /** A row scan of some objects, with the fields given (for what columns cannot read). */
  rows(objects: DataObject[]): PoolScan;
}

/**
 * A pool's values at a commit, in pool order, as columns where it can:
 * each object that overlaps no other, has a columnar copy and whose types
 * the columns can express is read (or taken from the column cache) as
 * columns; a run of overlapping objects too, merged by key
 * (vectormerge.ts), where each has a copy, their keys are of one type
 * with a total order, and the run is not too large; the rest (objects
 * without copies, other runs) are read by rows.
 */
export class VectorScan {
  private group = 0;
  private rowScan: PoolScan | null = null;
  private closed = false;
  /**
   * Reads started ahead of their turn, by group, while the query works on
   * this object's columns: whole reads of the next objects, as many as
   * there are decoding workers (decoded on the workers), and fetches of
   * the objects after (fetchAhead), decoded on this thread in their turn.
   * Parts are still returned in group order.
   */
  private ahead = new Map<number, Ahead>();

  constructor(
    private readonly env: VectorScanEnv,
    private readonly groups: DataObject[][],
    private readonly opts: VectorScanOptions,
  ) {
    let rows = 0;
    for (const g of groups) rows += rowsOf(g);
    this.rows = rows;
  }

  /** At most how many rows the scan gives: its objects' counts (a range or an end may read fewer). */
  readonly rows: number;

  /** Called once when the scan ends or is closed (the lake's totals). */
  onDone: (() => void) | null = null;

  private done(): void {
    const f = this.onDone;
    this.onDone = null;
    f?.();
  }

  /** The scan's stats (the lake's, with those of its row scans added as they end). */
  get stats(): ScanStats {
    return this.env.stats;
  }

  async read(): Promise<VectorPart | null> {
    for (;;) {
      if (this.closed) return null;
      if (this.rowScan !== null) {
        const b = await this.rowScan.pull();
        if (b !== null) return { kind: 'rows', rows: b };
        this.rowScan = null;
      }
      if (this.group >= this.groups.length) {
        this.done();
        return null;
      }
      const at = this.group++;
      const g = this.groups[at];
      const ahead = this.ahead.get(at);
      this.ahead.delete(at);
      if (ahead?.kind === 'rows') {
        this.readAhead(at);
        this.rowScan = ahead.scan;
        continue;
      }
      let started: Promise<ColumnsRead | null> | undefined;
      if (ahead !== undefined) started = this.readOf(ahead);
      else if (this.byColumns(g)) started = this.columns(g[0]);
      else if (this.mergeable(g) && !this.stopsEarly(g)) started = this.merged(g);
      this.readAhead(at);
      if (started !== undefined) {
        const r = await started;
        if (r !== null) {
          const sel = g.length === 1 ? this.env.rowsIn?.(g[0]) : undefined;
          const st = this.env.stats;
          st.objectsRead += g.length;
          st.objectsVector += g.length;
          st.recordsRead += sel === undefined ? r.n : sel.length;
          return sel === undefined ? { kind: 'columns', ...r } : { kind: 'columns', ...r, sel };
        }
        // Its types need rows.
      } else if (this.skipped(g)) continue;
      this.rowScan = this.env.rows(g);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // Reads started ahead finish on their own; nobody waits for them. Row
    // scans made ahead are dropped, not closed: closing one would count it
    // in the lake's scan totals, and it has read nothing.
    this.ahead.clear();
    await this.rowScan?.close();
    this.rowScan = null;
    this.done();
  }

  /** Whether a group is one empty object with a columnar copy, which has nothing to read. */
  private skipped(g: DataObject[]): boolean {
    return g.length === 1 && g[0].count === 0 && this.env.use(g[0]);
  }

  /** Whether a group is one object read by columns. */
  private byColumns(g: DataObject[]): boolean {
    return g.length === 1 && g[0].count > 0 && this.env.use(g[0]);
  }

  /**
   * Starts the reads of the groups after the current one (at: its index):
   * whole reads of as many of the next objects as there are decoding
   * workers; fetches of the objects after those, up to
   * fetchAhead.objects (by default the store's objectsAhead) but no more
   * than the scan has read already (so that a query that stops early, as
   * `head 1` does, leaves few fetches unused), and while their stored
   * sizes beyond the next object add up to at most fetchAhead.bytes.
   * Objects read by rows within those bounds get their row scan, which
   * fetches the object's first range (PoolScan.fetchFirst; that range
   * counts in the bytes). A group of overlapping objects is not fetched
   * ahead (it would be more objects than the bounds count): its row scan
   * starts all of their first ranges at once in its turn.
   */
  private readAhead(at: number): void {
    const d = this.env.decoder;
    const workers = d?.enabled ? d.size : 0;
    const fetches = Math.min(objectsAhead(this.env.storage), at);
    const window = Math.max(workers, fetches);
    const from = at + 1;
    let bytes = 0;
    for (let i = from; i < this.groups.length && i < from + window; i++) {
      const g = this.groups[i];
      if (!this.byColumns(g)) {
        if (i >= from + fetches || g.length > 1 || this.skipped(g)) continue;
        if (i > from) bytes += firstRange(this.env.storage, g[0]);
        if (bytes > fetchAhead.bytes) break;
        if (this.ahead.has(i)) continue;
        const scan = this.env.rows(g);
        scan.fetchFirst();
        this.ahead.set(i, { kind: 'rows', scan });
        continue;
      }
      const o = g[0];
      const a = this.ahead.get(i);
      // Never a row scan while byColumns answers the same for a group
      // every time (it does now); kept in case that changes.
      if (a?.kind === 'rows') continue;
      if (i < from + workers) {
        // The workers decode it ahead (a fetch started before moves on to them).
        if (a?.kind === 'read') continue;
        const read = a === undefined ? this.columns(o) : this.readOf(a);
        // Errors surface when their turn comes (or never, if the scan closes first).
        read.catch(() => {});
        this.ahead.set(i, { kind: 'read', read });
        continue;
      }
      if (i > from) bytes += o.size;
      if (bytes > fetchAhead.bytes) break;
      if (a !== undefined) continue;
      const fetch = fetchColumns(this.env, o, this.opts.paths, () => this.closed);
      fetch.catch(() => {});
      this.ahead.set(i, { kind: 'fetch', fetch });
    }
  }

  /**
   * Whether a group of overlapping objects may be read by columns and
   * merged (vectormerge.ts): each has rows and a copy to read (whether its
   * columns are too much to hold at once, merged tells from the copies'
   * metadata).
   */
  private mergeable(g: DataObject[]): boolean {
    return g.length > 1 && g.every((o) => o.count > 0 && this.env.use(o));
  }

  /**
   * Whether a query that takes at most a few rows (a head) should read a
   * group of overlapping objects by rows: the row scan's merge stops once
   * the query has its rows, having decoded a frame or so of each object,
   * where merging by columns reads and orders the whole run first (up to
   * 5× slower for `cut ts,query | head 5` over two overlapping loads of 1M
   * records, docs/benchmarks.md). A run whose merged columns the cache
   * holds is read whole: it costs no more.
   */
  private stopsEarly(g: DataObject[]): boolean {
    const limit = this.opts.limit;
    // A query that reads no field merges nothing (alikeRows).
    if (limit === undefined || this.opts.paths.length === 0) return false;
    if (limit * earlyStop.ratio >= rowsOf(g)) return false;
    const cache = this.env.cache;
    if (!cache.enabled) return true;
    const run = runKey(this.env.pool, g);
    return !this.opts.paths.every((p) => cache.has(run, pathKey(p)));
  }

  /**
   * A group of overlapping objects read by columns, merged in key order
   * with the key's column (read for it if the scan does not); null (read
   * by rows) where the copies' metadata do not show every object's key of
   * one mergeable type, or the columns with the key's hold more than
   * mergeLimits.bytes decoded, or their columns do not merge exactly. A
   * query that reads no field holds no column, whatever the run's size.
   */
  private async merged(g: DataObject[]): Promise<ColumnsRead | null> {
    const { paths, shape, ctx, dicts } = this.opts;
    // Reading no field, every row is the empty record (copies whose
    // records are null or not records aside): any order is the merged
    // one, so the keys do not matter.
    if (paths.length === 0) {
      const read = await Promise.all(g.map((o) => readColumns(this.env, o, [], shape, ctx)));
      return read.some((p) => p === null) ? null : alikeRows(read as ColumnsRead[]);
    }
    const run = runKey(this.env.pool, g);
    // The run's merge order where the lake keeps it; null: its keys have
    // no order (a NaN).
    const known = this.env.merges?.get(run);
    if (known === null) return null;
    const keyPath = primaryKey(this.env.pool.layout);
    const at = paths.findIndex(
      (p) => p.length === keyPath.length && p.every((f, i) => f === keyPath[i]),
    );
    const withKey = at < 0;
    const all = withKey ? [...paths, keyPath] : paths;
    let id = -1;
    let bytes = 0;
    for (const o of g) {
      let layout: VngLayout;
      try {
        layout = await this.env.layout(o);
      } catch (e) {
        throw wrap(e, o, this.env.commit);
      }
      const leaf = leafTypeOf(layout, keyPath);
      if (leaf === null || leaf.missing || !mergeableKey(leaf.type)) return null;
      if (id >= 0 && leaf.type.id !== id) return null;
      id = leaf.type.id;
      const plan = planVectors(layout, all);
      if (plan === null) return null;
      bytes += mergeBytes(memLength(plan.segments), o.count, all.length);
    }
    if (bytes > mergeLimits.bytes) return null;
    if (this.env.cache.enabled) return this.mergedCached(g, run, known, at, keyPath);
    // The column cache off: every query reads the objects' columns and
    // merges them, in the kept order where there is one (the key's column
    // is then read only if the query reads it).
    const keyed = known === undefined && withKey;
    const read = await Promise.all(
      g.map((o) => readColumns(this.env, o, keyed ? all : paths, shape, ctx, { dicts })),
    );
    if (read.some((p) => p === null)) return null;
    const parts = read as ColumnsRead[];
    const perm =
      known ??
      this.mergeOrder(
        run,
        parts.map((p) => p.cols[keyed ? paths.length : at]),
      );
    return perm === null ? null : mergeParts(parts, perm, keyed ? paths.length : -1);
  }

  /** The merge order of a run's key columns, kept by the lake (null too: no order, a NaN). */
  private mergeOrder(run: string, keys: Column[]): Perm | null {
    const perm = mergeOrder(keys, this.env.pool.layout.order);
    this.env.merges?.set(run, perm);
    return perm ?? refuse();
  }

  /**
   * A run merged with the column cache on: its merge order and its merged
   * columns are kept (the order in env.merges, the columns in the column
   * cache under the run's objects' IDs), so a later query over the same
   * fields gathers nothing, and what operators derive from a merged column
   * (its dictionary) is kept with it. Only the columns not kept are read
   * from the objects, with the key's where the order is not known.
   */
  private async mergedCached(
    g: DataObject[],
    run: string,
    known: Perm | undefined,
    at: number,
    keyPath: readonly string[],
  ): Promise<ColumnsRead | null> {
    const { paths, shape, ctx } = this.opts;
    const cache = this.env.cache;
    const cctx = cache.ctx;
    cache.recount(run);
    const cols = paths.map((p) => cache.column(run, p));
    const todo = paths.flatMap((_, i) => (cols[i] === undefined ? [i] : []));
    let perm = known;
    const read = todo.map((i) => paths[i]);
    let keyAt = perm === undefined ? todo.indexOf(at) : -1;
    if (perm === undefined && keyAt < 0) keyAt = read.push(keyPath) - 1;
    if (read.length > 0) {
      // In the cache's types, as the merged columns are kept (in place of
      // the objects' own, which only another merge would use).
      const got = await Promise.all(
        g.map((o) => readColumns(this.env, o, read, [], cctx, { keep: false })),
      );
      if (got.some((p) => p === null)) return null;
      const parts = got as ColumnsRead[];
      if (perm === undefined) {
        const order = this.mergeOrder(
          run,
          parts.map((p) => p.cols[keyAt]),
        );
        if (order === null) return null;
        perm = order;
      }
      for (const [j, i] of todo.entries()) {
        const c = mergeColumn(
          parts.map((p) => p.cols[j]),
          perm,
        );
        if (c === null) return null;
        cols[i] = c;
      }
    }
    // Shapes after the columns: a read of columns keeps the objects' row layouts.
    const shapes = await Promise.all(g.map((o) => readShape(this.env, o, paths, shape, ctx)));
    if (shapes.some((s) => s === null)) return null;
    const merged = mergeShape(shapes as RecordShape[], perm!);
    if (merged === null) return null;
    for (const i of todo) cache.putColumn(run, paths[i], cols[i]!);
    mergeCounts.merged++;
    const types = new ScanTypes(cctx, ctx);
    return {
      n: perm!.part.length,
      cols: cols.map((c) => c!.mapTypes((t) => types.get(t))),
      shape: merged,
    };
  }

  /** The object's columns, or null when its types need rows. */
  private columns(o: DataObject): Promise<ColumnsRead | null> {
    const { paths, shape, ctx, dicts } = this.opts;
    return readColumns(this.env, o, paths, shape, ctx, { dicts });
  }

  /** The read a read started ahead gives: its own, or its fetch decoded (null: its types need rows). */
  private async readOf(a: ColumnsAhead): Promise<ColumnsRead | null> {
    if (a.kind === 'read') return a.read;
    const f = await a.fetch;
    if (f === null) return null;
    const { shape, ctx, dicts } = this.opts;
    return decodeColumns(this.env, f, shape, ctx, { dicts });
  }
}

/**
 * A head takes at most 1/ratio of a run's rows for the scan to read the
 * run by rows, stopping early (VectorScan.stopsEarly).
 */
export const earlyStop = { ratio: 4 };

/** The rows of a group of objects. */
function rowsOf(g: readonly DataObject[]): number {
  let rows = 0;
  for (const o of g) rows += o.count;
  return rows;
}

/** The column cache's key of a run of overlapping objects: the pool and their IDs. */
function runKey(pool: PoolConfig, g: readonly DataObject[]): string {
  return `${pool.id}/${g.map((o) => o.id.toString()).join('+')}`;
}

/** A read of an object's columns started ahead of its turn. */
type ColumnsAhead =
  | { kind: 'read'; read: Promise<ColumnsRead | null> }
  | { kind: 'fetch'; fetch: Promise<ColumnFetch | null> };

/** A read started ahead of its turn (VectorScan.ahead): of columns, or a group's row scan. */
type Ahead = ColumnsAhead | { kind: 'rows'; scan: PoolScan };

/** An object's rows read as columns. */
type ColumnsRead = { n: number; cols: Column[]; shape: RecordShape };

/** Fetches the segments' byte ranges of an object's copy, and their bytes (for the stats). */
async function fetchSegments(
  env: ColumnEnv,
  o: DataObject,
  layout: VngLayout,
  segs: Segment[],
  stopped?: () => boolean,
): Promise<{ src: ChunkSource; bytes: number }> {
  let chunks: Chunk[];
  try {
    chunks = await fetchAll(env.storage, vectorKey(env.pool.id, o.id), coalesce(segs), stopped);
  } catch (e) {
    throw wrap(e, o, env.commit);
  }
  let bytes = 0;
  for (const c of chunks) bytes += c.buf.length;
  return { src: chunkSource(layout, chunks), bytes };
}

/**
 * An object's columns of the paths (from the column cache, or decoded
 * from its VNG copy and kept there), its rows' shape as records of the
 * shape's fields, in ctx; null when its types need rows.
 */
export async function readColumns(
  env: ColumnEnv,
  o: DataObject,
  paths: readonly (readonly string[])[],
  shape: readonly string[],
  ctx: TypeContext,
  opts: DecodeOptions = {},
): Promise<ColumnsRead | null> {
  const f = await fetchColumns(env, o, paths);
  return f === null ? null : decodeColumns(env, f, shape, ctx, opts);
}

/** How decodeColumns decodes. */
interface DecodeOptions {
  /** Paths whose dictionaries the caller will use (built by a worker that decodes them). */
  dicts?: readonly (readonly string[])[];
  /** The paths the shape's fields are columns of (the ones read, unless given). */
  shapePaths?: readonly (readonly string[])[];
  /**
   * Whether the columns decoded go to the column cache (default true);
   * a merge keeps the merged columns instead (VectorScan.mergedCached).
   */
  keep?: boolean;
}

/**
 * An object's rows' shape, as readColumns of the paths gives it, reading
 * none of their columns; null when its types need rows.
 */
async function readShape(
  env: ColumnEnv,
  o: DataObject,
  paths: readonly (readonly string[])[],
  shape: readonly string[],
  ctx: TypeContext,
): Promise<RecordShape | null> {
  const f = await fetchColumns(env, o, []);
  return f === null ? null : (await decodeColumns(env, f, shape, ctx, { shapePaths: paths })).shape;
}

/** What fetchColumns found of an object's columns: some in the cache, the rest's stored segments. */
interface ColumnFetch {
  o: DataObject;
  paths: readonly (readonly string[])[];
  plan: VectorPlan;
  /** The column cache's key for the object. */
  object: string;
  /** By path: the cached column, or undefined (decoded from src). */
  cols: (Column | undefined)[];
  /** The paths to decode (by index into paths). */
  todo: number[];
  /** The row layout from the cache, or null: decoded from fetched. */
  rows: RowLayout | null;
  /** The todo paths' plan, their segments and the bytes fetched (null: nothing to decode). */
  fetched: { sub: VectorPlan; src: ChunkSource; bytes: number } | null;
}

/**
 * The first half of readColumns, all of its I/O: the object's layout, its
 * columns in the cache, and the stored segments of the rest. A scan
 * fetches the next objects' this way while the query works on this one's
 * (VectorScan.readAhead). Null when the object's types need rows.
 */
async function fetchColumns(
  env: ColumnEnv,
  o: DataObject,
  paths: readonly (readonly string[])[],
  stopped?: () => boolean,
): Promise<ColumnFetch | null> {
  let layout: VngLayout;
  try {
    layout = await env.layout(o);
  } catch (e) {
    throw wrap(e, o, env.commit);
  }
  const plan = planVectors(layout, paths);
  if (plan === null) return null;
  const cache = env.cache;
  const object = `${env.pool.id}/${o.id}`;
  // What earlier queries derived from the columns (dictionaries...) counts now.
  cache.recount(object);
  const cols: (Column | undefined)[] = paths.map((p) =>
    cache.enabled ? cache.column(object, p) : undefined,
  );
  const simple = plan.supers.length === 1 && plan.supers[0].runs === null;
  const rows: RowLayout | null = simple
    ? { superOf: null, nulls: null }
    : cache.enabled
      ? (cache.rows(object) ?? null)
      : null;
  const todo = paths.map((_, i) => i).filter((i) => cols[i] === undefined);
  let fetched: ColumnFetch['fetched'] = null;
  if (todo.length > 0 || rows === null) {
    const sub = planVectors(
      layout,
      todo.map((i) => paths[i]),
    )!;
    fetched = { sub, ...(await fetchSegments(env, o, layout, sub.segments, stopped)) };
  }
  return { o, paths, plan, object, cols, todo, rows, fetched };
}

/** The second half of readColumns: decodes what fetchColumns fetched. */
async function decodeColumns(
  env: ColumnEnv,
  f: ColumnFetch,
  shape: readonly string[],
  ctx: TypeContext,
  opts: DecodeOptions = {},
): Promise<ColumnsRead> {
  const { dicts, shapePaths = f.paths, keep = true } = opts;
  const { o, paths, plan, object, cols, todo, fetched } = f;
  const cache = env.cache;
  const cctx = cache.enabled ? cache.ctx : ctx;
  const n = o.count;
  let rows = f.rows;
  if (fetched !== null) {
    // Counted in its turn, as the object is read (not when fetched ahead).
    env.stats.bytesRead += fetched.bytes;
    const { sub, src } = fetched;
    try {
      if (rows === null) {
        const superOf = readSuperOf(plan, src, n);
        rows = { superOf, nulls: readRecordNulls(plan, src, n, superOf) };
        cache.putRows(object, rows);
      }
      const superOf = rows.superOf;
      // Big primitive columns go to the workers first; the rest are
      // decoded here meanwhile.
      const dec = env.decoder;
      const wanted = new Set((dicts ?? []).map((p) => JSON.stringify(p)));
      const pending: Promise<void>[] = [];
      const here: number[] = [];
      // The error of the first column that fails, as the in-thread decode
      // of the columns in order would throw.
      const failures = new Map<number, unknown>();
      todo.forEach((i, j) => {
        const segs = dec?.enabled ? primitiveSegments(sub, j) : null;
        if (!dec || segs === null || !dec.wants(memLength(segs))) {
          here.push(j);
          return;
        }
        try {
          const packed = packSegments(src, segs);
          const type = primitiveType(sub, j, cctx);
          const dict = wanted.has(JSON.stringify(paths[i]));
          pending.push(
            dec.decode(packed.buf, packed.segs, n, dict).then(
              (data) => {
                cols[i] = Column.uniform(data, type);
              },
              (e: unknown) => void failures.set(j, e),
            ),
          );
        } catch (e) {
          failures.set(j, e);
        }
      });
      for (const j of here) {
        try {
          cols[todo[j]] = readColumn(sub, j, src, n, superOf, cctx);
        } catch (e) {
          failures.set(j, e);
          break;
        }
      }
      await Promise.all(pending);
      if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
      if (keep) for (const i of todo) cache.putColumn(object, paths[i], cols[i]!);
    } catch (e) {
      throw wrap(e, o, env.commit);
    }
  }
  // fetchColumns fetches whenever the cache lacks the row layout.
  if (rows === null) throw new Error('internal error: an object read by columns has no row layout');
  let out = cols as Column[];
  if (cctx !== ctx) {
    const types = new ScanTypes(cctx, ctx);
    out = out.map((c) => c.mapTypes((t) => types.get(t)));
  }
  const colOf = (fld: string) => shapePaths.findIndex((p) => p.length === 1 && p[0] === fld);
  return { n, cols: out, shape: recordShape(plan, ctx, shape, colOf, rows.superOf, rows.nulls) };
}
