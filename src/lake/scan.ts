// Scans: the values of a pool at a commit, in pool-key order, optionally
// limited to a key range.
//
// The objects whose key spans overlap the range are ordered by where they
// start; runs of overlapping objects are merge-sorted (on equal keys the
// object listed first wins, so values loaded earlier come first), others
// are read one after another. Each object is read by byte ranges: with a
// key range only the streams its seek index says may hold matching keys,
// fetched a chunk at a time so memory stays bounded whatever the object's
// size.

import { ByteSource } from '../formats/io';
import { ZngReader } from '../formats/zng';
import { ObjectStore, isNotFound } from '../storage/storage';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { Order, PoolConfig, primaryKey } from './config';
import { notFound } from './errors';
import { KeyGetter, keyCompare } from './keys';
import { DataObject, dataKey, sortObjects } from './object';
import { KeyRange, overlaps, SeekEntry, selectSpans, Span } from './seekindex';

/** Bytes fetched from storage per read. */
const CHUNK = 1 << 20;
/** Values per batch out of a merge. */
const BATCH = 1024;

export interface ScanOptions {
  /** Context the values' types are made in. */
  ctx: TypeContext;
  /** Only keys in this range (value order). */
  range?: KeyRange;
  /**
   * Drop values outside the range (default true). With false the scan
   * returns the streams that may hold matching keys, whole, and leaves the
   * filtering to the caller.
   */
  exact?: boolean;
}

export interface ScanStats {
  /** Bytes fetched from storage. */
  bytesRead: number;
  /** Values decoded. */
  recordsRead: number;
  /** Objects read (in part or whole). */
  objectsRead: number;
  /** Objects skipped because their key span is outside the range. */
  objectsSkipped: number;
}

/** Reads the seek index of an object (cached by the lake). */
export type SeekIndexLoader = (o: DataObject) => Promise<SeekEntry[]>;

export class PoolScan {
  readonly stats: ScanStats = { bytesRead: 0, recordsRead: 0, objectsRead: 0, objectsSkipped: 0 };
  private groups: DataObject[][];
  private group = 0;
  private current: Source | null = null;
  private closed = false;
  private bounds: Bounds;

  constructor(
    private storage: ObjectStore,
    private pool: PoolConfig,
    objects: DataObject[],
    private seekIndex: SeekIndexLoader,
    private opts: ScanOptions,
    /** The commit scanned, for error messages. */
    private commit: string,
  ) {
    const range = opts.range && (opts.range.lower || opts.range.upper) ? opts.range : undefined;
    const selected = objects.filter((o) => overlaps(o.min, o.max, range));
    this.stats.objectsSkipped = objects.length - selected.length;
    this.groups = partition(sortObjects(selected, pool.layout.order), pool.layout.order);
    this.bounds = new Bounds(pool.layout.order, opts.exact === false ? undefined : range);
  }

  /** The next batch of values in pool order, or null at the end. */
  async pull(): Promise<Value[] | null> {
    for (;;) {
      if (this.closed) return null;
      if (!this.current) {
        if (this.group >= this.groups.length) return null;
        const objs = this.groups[this.group++];
        const cursors = objs.map((o, i) => this.cursor(o, i));
        this.current = cursors.length === 1 ? cursors[0] : new Merger(cursors, this.pool);
      }
      const batch = await this.current.next();
      if (batch) return batch;
      this.current = null;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.current = null;
  }

  private cursor(o: DataObject, ordinal: number): Cursor {
    const range = this.opts.range;
    const spans = async (): Promise<Span[]> => {
      if (!range || (!range.lower && !range.upper)) return [{ start: 0, end: o.size }];
      return selectSpans(await this.seekIndex(o), range);
    };
    this.stats.objectsRead++;
    return new Cursor(
      this,
      o,
      ordinal,
      spans,
      this.bounds,
      new KeyGetter(primaryKey(this.pool.layout)),
    );
  }

  /** A reader of one byte span of an object. */
  openSpan(o: DataObject, span: Span): ZngReader {
    const key = dataKey(this.pool.id, o.id);
    const src = new RangeSource(this.storage, key, span, this.stats, () =>
      notFound(`data object ${o.id} of commit ${this.commit} not found: it was removed by vacuum`),
    );
    return new ZngReader(src, { ctx: this.opts.ctx, name: key });
  }

  countRecords(n: number): void {
    this.stats.recordsRead += n;
  }
}

/** Groups objects (in pool order) into runs whose key spans overlap. */
function partition(objects: DataObject[], order: Order): DataObject[][] {
  const kc = keyCompare(order);
  const desc = order === 'desc';
  const out: DataObject[][] = [];
  let run: DataObject[] = [];
  let runEnd: Value | null = null;
  for (const o of objects) {
    const from = desc ? o.max : o.min;
    const to = desc ? o.min : o.max;
    if (runEnd && kc(from, runEnd) > 0) {
      out.push(run);
      run = [];
      runEnd = null;
    }
    run.push(o);
    if (!runEnd || kc(to, runEnd) > 0) runEnd = to;
  }
  if (run.length > 0) out.push(run);
  return out;
}

/** Where a key falls relative to the range, in pool order. */
const Place = { Before: 0, In: 1, After: 2 } as const;
type Place = (typeof Place)[keyof typeof Place];

class Bounds {
  private start?: Value;
  private end?: Value;
  private kc: (a: Value, b: Value) => number;
  readonly active: boolean;
  private desc: boolean;

  constructor(order: Order, range?: KeyRange) {
    this.desc = order === 'desc';
    this.kc = keyCompare(order);
    this.start = this.desc ? range?.upper : range?.lower;
    this.end = this.desc ? range?.lower : range?.upper;
    this.active = !!(this.start || this.end);
  }

  place(k: Value): Place {
    if (k.len < 0) return this.desc ? Place.Before : Place.After;
    if (this.start && this.kc(k, this.start) < 0) return Place.Before;
    if (this.end && this.kc(k, this.end) > 0) return Place.After;
    return Place.In;
  }
}

interface Source {
  next(): Promise<Value[] | null>;
}

/** Reads one object's values in order, trimmed to the range. */
class Cursor implements Source {
  private spans: Span[] | null = null;
  private span = 0;
  private reader: ZngReader | null = null;
  private done = false;
  private scratch = Value.null();

  constructor(
    private scan: PoolScan,
    private o: DataObject,
    readonly ordinal: number,
    private listSpans: () => Promise<Span[]>,
    private bounds: Bounds,
    readonly keys: KeyGetter,
  ) {}

  async next(): Promise<Value[] | null> {
    while (!this.done) {
      if (!this.reader) {
        if (!this.spans) this.spans = await this.listSpans();
        if (this.span >= this.spans.length) break;
        this.reader = this.scan.openSpan(this.o, this.spans[this.span++]);
      }
      const batch = await this.reader.read();
      if (!batch) {
        this.reader = null;
        continue;
      }
      this.scan.countRecords(batch.length);
      const out = this.trim(batch);
      if (out && out.length > 0) return out;
    }
    this.done = true;
    return null;
  }

  /** The part of a batch in range; marks the cursor done past its end. */
  private trim(batch: Value[]): Value[] | null {
    const b = this.bounds;
    if (!b.active) return batch;
    const n = batch.length;
    // Fast path: the whole batch is in range.
    if (b.place(this.keys.get(batch[0], this.scratch)) === Place.In) {
      if (b.place(this.keys.get(batch[n - 1], this.scratch)) === Place.In) return batch;
    }
    let i = 0;
    while (i < n && b.place(this.keys.get(batch[i], this.scratch)) === Place.Before) i++;
    let j = i;
    while (j < n && b.place(this.keys.get(batch[j], this.scratch)) === Place.In) j++;
    if (j < n) this.done = true;
    return i === 0 && j === n ? batch : batch.slice(i, j);
  }
}

/**
 * Merges cursors whose key spans overlap. On equal keys the cursor with
 * the lower ordinal (the object listed first) goes first.
 */
class Merger implements Source {
  private heap: Head[] = [];
  private started = false;
  private scratch = Value.null();
  private kc: (a: Value, b: Value) => number;

  constructor(
    private cursors: Cursor[],
    pool: PoolConfig,
  ) {
    this.kc = keyCompare(pool.layout.order);
  }

  private async refill(h: Head): Promise<boolean> {
    const batch = await h.cursor.next();
    if (!batch) return false;
    h.batch = batch;
    h.pos = 0;
    h.cursor.keys.get(batch[0], h.key);
    return true;
  }

  private less(a: Head, b: Head): boolean {
    const c = this.kc(a.key, b.key);
    return c < 0 || (c === 0 && a.cursor.ordinal < b.cursor.ordinal);
  }

  async next(): Promise<Value[] | null> {
    const heap = this.heap;
    if (!this.started) {
      this.started = true;
      for (const c of this.cursors) {
        const h: Head = { cursor: c, batch: [], pos: 0, key: Value.null() };
        if (await this.refill(h)) this.push(h);
      }
    }
    if (heap.length === 0) return null;
    const out: Value[] = [];
    while (heap.length > 0 && out.length < BATCH) {
      const h = heap[0];
      if (heap.length === 1 || this.runs(h)) {
        // What is left of the batch comes before every other cursor's
        // next value: hand it over whole.
        if (out.length > 0) break;
        const rest = h.pos === 0 ? h.batch : h.batch.slice(h.pos);
        if (!(await this.refill(h))) this.pop();
        else this.siftDown(0);
        return rest;
      }
      out.push(h.batch[h.pos++]);
      if (h.pos < h.batch.length) {
        h.cursor.keys.get(h.batch[h.pos], h.key);
      } else if (!(await this.refill(h))) {
        this.pop();
        continue;
      }
      this.siftDown(0);
    }
    return out;
  }

  /** True when the rest of h's batch precedes the heads of the other cursors. */
  private runs(h: Head): boolean {
    const heap = this.heap;
    let next = heap[1];
    if (heap.length > 2 && this.less(heap[2], next)) next = heap[2];
    const last = h.cursor.keys.get(h.batch[h.batch.length - 1], this.scratch);
    const c = this.kc(last, next.key);
    return c < 0 || (c === 0 && h.cursor.ordinal < next.cursor.ordinal);
  }

  private push(h: Head): void {
    const heap = this.heap;
    heap.push(h);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(heap[l], heap[m])) m = l;
      if (r < n && this.less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  }
}

interface Head {
  cursor: Cursor;
  batch: Value[];
  pos: number;
  key: Value;
}

/** Chunks of a byte span of an object, fetching the next while one is decoded. */
class RangeSource implements ByteSource {
  private pos: number;
  private pending: Promise<Buffer> | null = null;

  constructor(
    private storage: ObjectStore,
    private key: string,
    private span: Span,
    private stats: ScanStats,
    private missing: () => Error,
  ) {
    this.pos = span.start;
  }

  private fetch(): Promise<Buffer> | null {
    if (this.pos >= this.span.end) return null;
    const len = Math.min(CHUNK, this.span.end - this.pos);
    const p = this.storage.getRange(this.key, this.pos, len).catch((e) => {
      throw isNotFound(e) ? this.missing() : e;
    });
    this.pos += len;
    // Keep a rejected prefetch from being reported as unhandled.
    p.catch(() => undefined);
    return p;
  }

  async read(): Promise<Buffer | null> {
    const p = this.pending ?? this.fetch();
    if (!p) return null;
    const buf = await p;
    this.stats.bytesRead += buf.length;
    this.pending = this.fetch();
    return buf.length > 0 ? buf : null;
  }
}
