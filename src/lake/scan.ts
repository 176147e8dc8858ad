// Scans: the values of a pool at a commit, in pool-key order, optionally
// limited to a key range.
//
// The objects whose key spans overlap the range are ordered by where they
// start; runs of overlapping objects are merge-sorted (on equal keys the
// object listed first wins, so values loaded earlier come first), others
// are read one after another. Each object is read by byte ranges: with a
// key range only the streams its seek index says may hold matching keys,
// fetched a chunk at a time so memory stays bounded whatever the object's
// size. Each ZNG stream decoded is offered to the lake's scan cache
// (cache.ts), and a stream found there is served without touching storage.

import { FormatError } from '../formats/io';
import { ZngDecoder } from '../formats/zng';
import { Frame, FORMAT } from '../formats/zng/decoder';
import { COMPRESSED, MAX_HEADER } from '../formats/zng/frame';
import { ObjectStore, isNotFound } from '../storage/storage';
import { TypeContext } from '../zed/context';
import { Type } from '../zed/types';
import { TypeNumbering } from '../zed/vector';
import { EMPTY, Value } from '../zed/value';
import { readUvarint, uv } from '../zed/zcode';
import { CachedFrame, CachedStream, ScanCache, ScanTypes } from './cache';
import { Order, PoolConfig, primaryKey } from './config';
import { fetchAhead, firstRange, objectsAhead } from './ahead';
import { notFound } from './errors';
import { KeyGetter, keyCompare } from './keys';
import { DataObject, dataKey, sortObjects } from './object';
import { RowSpan } from './index/lookup';
import { KeyRange, overlaps, SeekEntry, selectSpans, Span, strictlyWithin } from './seekindex';
import {
  ColumnMatch,
  ColumnScan,
  MatchCursor,
  readColumns,
  testedHits,
  VectorCursor,
} from './vectorscan';

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
  /**
   * For some objects (by ID), the value ordinals worth reading (an index
   * lookup's answer): only the streams holding them are read, whole.
   */
  rows?: ReadonlyMap<string, readonly RowSpan[]>;
  /**
   * A test of a values frame, before its values are handed over: false
   * when none of them can pass the query's filter (a keyword search's
   * frame test), and the frame is skipped. It gets the frame's
   * decompressed payload, buf[start, end), and its values' distinct types.
   */
  frames?: FrameTest | null;
  /**
   * Read the objects it chooses by columns (vectorscan.ts); only with
   * exact false or no range.
   */
  columns?: ColumnScan;
}

/** ScanOptions.frames. */
export type FrameTest = (
  buf: Uint8Array,
  start: number,
  end: number,
  types: readonly Type[],
) => boolean;

export interface ScanStats {
  /** Bytes of the stored objects scanned, whether fetched from storage or served by the cache. */
  bytesRead: number;
  /** Of bytesRead, the bytes served by the scan cache. */
  bytesCached: number;
  /** Values decoded. */
  recordsRead: number;
  /** Objects read (in part or whole). */
  objectsRead: number;
  /** Of objectsRead, the objects read by columns. */
  objectsVector: number;
  /** Objects skipped because their key span is outside the range. */
  objectsSkipped: number;
  /** Objects skipped because their indexes say no value can match (set by the lake). */
  objectsPruned: number;
  /** Bytes of index objects read to decide that (set by the lake). */
  indexBytesRead: number;
  /** ZNG streams served by the scan cache. */
  cacheHits: number;
  /** ZNG streams decoded from storage while the cache was on. */
  cacheMisses: number;
}

/** Stats of a scan that has read nothing yet. */
export function newScanStats(): ScanStats {
  return {
    bytesRead: 0,
    bytesCached: 0,
    recordsRead: 0,
    objectsRead: 0,
    objectsVector: 0,
    objectsSkipped: 0,
    objectsPruned: 0,
    indexBytesRead: 0,
    cacheHits: 0,
    cacheMisses: 0,
  };
}

/** Reads the seek index of an object (cached by the lake). */
export type SeekIndexLoader = (o: DataObject) => Promise<SeekEntry[]>;

export class PoolScan {
  readonly stats: ScanStats = newScanStats();
  private groups: DataObject[][];
  private group = 0;
  private current: Source | null = null;
  private closed = false;
  private bounds: Bounds;
  /** Maps cached types into the scan's context (null with the cache off). */
  private types: ScanTypes | null;
  /** The key range of the scan, if it has one. */
  private range: KeyRange | undefined;
  /** Objects whose turn has come (those of the groups started). */
  private turns = 0;
  /** Objects whose first range is being fetched ahead of their turn (readAhead). */
  private primed = new Map<DataObject, RangeSource>();

  constructor(
    private storage: ObjectStore,
    private pool: PoolConfig,
    objects: DataObject[],
    private seekIndex: SeekIndexLoader,
    private opts: ScanOptions,
    /** The commit scanned, for error messages. */
    private commit: string,
    private cache: ScanCache | null = null,
  ) {
    this.types = cache?.enabled ? new ScanTypes(cache.ctx, opts.ctx) : null;
    const range = opts.range && (opts.range.lower || opts.range.upper) ? opts.range : undefined;
    this.range = range;
    const selected = objects.filter((o) => overlaps(o.min, o.max, range));
    this.stats.objectsSkipped = objects.length - selected.length;
    this.groups = partition(sortObjects(selected, pool.layout.order), pool.layout.order);
    this.bounds = new Bounds(pool.layout.order, opts.exact === false ? undefined : range);
  }

  /** Called once with the scan's stats when it ends or is closed (the lake's totals). */
  onDone: ((stats: ScanStats) => void) | null = null;

  private done(): void {
    this.primed.clear();
    const f = this.onDone;
    this.onDone = null;
    f?.(this.stats);
  }

  /** The next batch of values in pool order, or null at the end. */
  async pull(): Promise<Value[] | null> {
    for (;;) {
      if (this.closed) return null;
      if (!this.current) {
        if (this.group >= this.groups.length) {
          this.done();
          return null;
        }
        const objs = this.groups[this.group++];
        this.readAhead(objs);
        const cursors = objs.map((o, i) => this.cursor(o, i, objs.length > 1));
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
    this.done();
  }

  /**
   * Starts fetching the first range of objects read by rows before their
   * turn, as VectorScan.readAhead does their columns: those of a group of
   * overlapping objects (merged, so all needed at once), and those of the
   * objects after it, up to objectsAhead (by default the store's: none on
   * a local disk) but no more than the scan has read already (so that a
   * query stopping early, as `head 1` does, leaves few fetches unused),
   * and while their first ranges beyond the next object add up to at most
   * fetchAhead.bytes. The rest of an object's ranges are fetched in its
   * turn (RangeSource keeps its window full from there).
   */
  private readAhead(group: DataObject[]): void {
    const at = this.turns;
    this.turns += group.length;
    const most = objectsAhead(this.storage);
    if (most === 0) return;
    if (group.length > 1) for (const o of group) this.prime(o);
    const ahead = Math.min(most, at);
    let n = 0;
    let bytes = 0;
    for (let g = this.group; g < this.groups.length; g++) {
      for (const o of this.groups[g]) {
        if (n >= ahead) return;
        if (n++ > 0) {
          bytes += firstRange(this.storage, o);
          if (bytes > fetchAhead.bytes) return;
        }
        this.prime(o);
      }
    }
  }

  /** Starts fetching the first ranges of the first group's objects (VectorScan.readAhead). */
  fetchFirst(): void {
    for (const o of this.groups[0] ?? []) this.prime(o);
  }

  /**
   * Starts fetching o's first range if it will be read whole by rows (with
   * a key range, if the range holds all of its keys: its seek index then
   * names all of its streams) and is not in the cache.
   */
  private prime(o: DataObject): void {
    if (this.closed || this.primed.has(o)) return;
    if (this.range !== undefined && !strictlyWithin(o.min, o.max, this.range)) return;
    if (this.opts.rows?.has(o.id.toString()) || this.byColumns(o)) return;
    if (this.types !== null && this.cache!.has(`${this.pool.id}/${o.id}`, 0)) return;
    const src = this.rangeSource(o, o.size);
    src.prime(0);
    this.primed.set(o, src);
  }

  /**
   * Whether o is read by its columns: with a column scan that chooses it,
   * unless an index lookup names its rows (a few streams, read by rows) or
   * the range is exact.
   */
  private byColumns(o: DataObject): boolean {
    const columns = this.opts.columns;
    if (!columns || this.bounds.active || this.opts.rows?.has(o.id.toString())) return false;
    return columns.use(o);
  }

  private cursor(o: DataObject, ordinal: number, merged: boolean): ObjectCursor {
    const columns = this.opts.columns;
    const rows = this.opts.rows?.get(o.id.toString());
    if (columns && this.byColumns(o)) {
      // Read by columns after all (the column scan's choice can change as
      // the cache does): a first range fetched ahead goes unused.
      this.primed.delete(o);
      this.stats.objectsRead++;
      this.stats.objectsVector++;
      const match = columns.match;
      const vc = new VectorCursor(
        this.storage,
        this.pool,
        o,
        columns,
        match ? match.fields : merged ? columns.withKey : columns.fields,
        this.opts.ctx,
        this.commit,
        (bytes, values) => {
          this.stats.bytesRead += bytes;
          if (!match) this.stats.recordsRead += values;
        },
      );
      const keys = new KeyGetter(primaryKey(this.pool.layout));
      if (match) {
        const rows = {
          seekIndex: this.seekIndex,
          openSpan: (o: DataObject, s: Span) => this.openSpan(o, s),
        };
        const mc = new MatchCursor(() => this.hits(o, vc, match), rows, o);
        return { ordinal, keys, next: () => mc.next() };
      }
      return { ordinal, keys, next: () => vc.next() };
    }
    const range = this.range;
    const spans = async (): Promise<Span[]> => {
      if (!range && !rows) return [{ start: 0, end: o.size }];
      const entries = await this.seekIndex(o);
      return selectSpans(rows ? entries.filter((e) => holdsRows(e, rows)) : entries, range);
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

  /**
   * The ordinals of an object's rows that may pass a match: tested on
   * column vectors (the column cache's, or decoded) where the match has a
   * vector test and the object's types allow, else on records of the
   * match's fields read by columns (vc).
   */
  private async hits(
    o: DataObject,
    vc: VectorCursor,
    match: ColumnMatch,
  ): Promise<ArrayLike<number>> {
    const columns = this.opts.columns!;
    // Decoding a column (a dictionary of its strings) pays only where the
    // column cache keeps it for the next query; else records of the
    // match's fields are cheaper to test.
    if (match.vectors && columns.cache.enabled) {
      const env = {
        storage: this.storage,
        pool: this.pool,
        commit: this.commit,
        cache: columns.cache,
        layout: (x: DataObject) => columns.layout(x),
        stats: this.stats,
      };
      const r = await readColumns(env, o, match.vectors.paths, [], this.opts.ctx);
      if (r !== null) return match.vectors.select({ ...r, sel: null, rows: null });
    }
    return testedHits(vc, match);
  }

  /** A reader of one byte span of an object. */
  openSpan(o: DataObject, span: Span): SpanReader {
    let src = this.primed.get(o);
    this.primed.delete(o);
    if (src === undefined || span.start !== 0 || span.end !== o.size)
      src = this.rangeSource(o, span.end);
    const cache = this.types !== null ? this.cache : null;
    return new SpanReader(
      src,
      span,
      this.stats,
      this.opts.ctx,
      cache,
      this.types,
      `${this.pool.id}/${o.id}`,
      this.opts.frames ?? null,
    );
  }

  /** A source of o's bytes up to end. */
  private rangeSource(o: DataObject, end: number): RangeSource {
    const key = dataKey(this.pool.id, o.id);
    return new RangeSource(this.storage, key, end, () =>
      notFound(`data object ${o.id} of commit ${this.commit} not found: it was removed by vacuum`),
    );
  }

  countRecords(n: number): void {
    this.stats.recordsRead += n;
  }
}

/** True when a seek index entry's values include any of the rows. */
function holdsRows(e: SeekEntry, rows: readonly RowSpan[]): boolean {
  const last = e.valOff + e.valCnt - 1;
  return rows.some((r) => r.first <= last && r.last >= e.valOff);
}

/** Groups objects (in pool order) into runs whose key spans overlap. */
export function partition(objects: DataObject[], order: Order): DataObject[][] {
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
  private startOpen: boolean;
  private endOpen: boolean;
  private kc: (a: Value, b: Value) => number;
  readonly active: boolean;
  private desc: boolean;

  constructor(order: Order, range?: KeyRange) {
    this.desc = order === 'desc';
    this.kc = keyCompare(order);
    this.start = this.desc ? range?.upper : range?.lower;
    this.end = this.desc ? range?.lower : range?.upper;
    this.startOpen = !!(this.desc ? range?.upperOpen : range?.lowerOpen);
    this.endOpen = !!(this.desc ? range?.lowerOpen : range?.upperOpen);
    this.active = !!(this.start || this.end);
  }

  place(k: Value): Place {
    if (k.len < 0) return this.desc ? Place.Before : Place.After;
    if (this.start) {
      const c = this.kc(k, this.start);
      if (c < 0 || (c === 0 && this.startOpen)) return Place.Before;
    }
    if (this.end) {
      const c = this.kc(k, this.end);
      if (c > 0 || (c === 0 && this.endOpen)) return Place.After;
    }
    return Place.In;
  }
}

interface Source {
  next(): Promise<Value[] | null>;
}

/** One object's values in pool order, and where it stands among a scan's objects. */
interface ObjectCursor extends Source {
  readonly ordinal: number;
  readonly keys: KeyGetter;
}

/** Reads one object's values in order, trimmed to the range. */
class Cursor implements ObjectCursor {
  private spans: Span[] | null = null;
  private span = 0;
  private reader: SpanReader | null = null;
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
    private cursors: ObjectCursor[],
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
  cursor: ObjectCursor;
  batch: Value[];
  pos: number;
  key: Value;
}

/**
 * Decodes the ZNG streams of one byte span of an object (which starts at a
 * stream boundary), a batch per values frame. With the cache on, a stream
 * found in it is served from there; one decoded from storage is offered to
 * it when it ends.
 */
class SpanReader {
  private pos: number;
  private dec: ZngDecoder;
  /** Frames of a cached stream being served, and the next one's index. */
  private hit: CachedFrame[] | null = null;
  private hitPos = 0;
  /** Cached frames waiting to be handed over as one batch, and their values. */
  private joined: CachedFrame[] = [];
  private joinedCount = 0;
  /** A stream found missing from the cache just before a batch was handed over. */
  private missAt = -1;
  /** Where the stream being decoded began, or -1 between streams. */
  private streamStart = -1;
  /** Frames of the stream being decoded, kept for the cache (null: not caching it). */
  private collected: CachedFrame[] | null = null;
  private collectedBytes = 0;

  constructor(
    private src: RangeSource,
    private span: Span,
    private stats: ScanStats,
    ctx: TypeContext,
    private cache: ScanCache | null,
    private types: ScanTypes | null,
    /** The object's cache key (pool/id). */
    private object: string,
    private readonly frames: FrameTest | null,
  ) {
    this.pos = span.start;
    this.dec = new ZngDecoder(cache !== null ? cache.ctx : ctx);
  }

  /**
   * The next batch. Cached frames are joined into batches of about BATCH
   * values (across streams too), so a warm scan hands fewer, fuller batches
   * down the pipeline.
   */
  async read(): Promise<Value[] | null> {
    for (;;) {
      const hit = this.hit;
      if (hit !== null) {
        while (this.hitPos < hit.length) {
          const f = hit[this.hitPos++];
          if (this.frames !== null && !this.frames(f.buf, 0, f.buf.length, f.types)) continue;
          this.joined.push(f);
          this.joinedCount += f.count;
          if (this.joinedCount >= BATCH) return this.flush();
        }
        this.hit = null;
      }
      if (this.pos >= this.span.end) {
        this.endStream();
        return this.flush();
      }
      if (this.streamStart < 0) {
        if (this.missAt !== this.pos) {
          const cached = this.cache?.get(this.object, this.pos);
          if (cached !== undefined) {
            this.stats.cacheHits++;
            this.stats.bytesRead += cached.size;
            this.stats.bytesCached += cached.size;
            this.pos += cached.size;
            this.hit = cached.frames;
            this.hitPos = 0;
            continue;
          }
          if (this.cache !== null) this.stats.cacheMisses++;
          if (this.joinedCount > 0) {
            // Hand over the cached values first; decode this stream next time.
            this.missAt = this.pos;
            return this.flush();
          }
        }
        this.streamStart = this.pos;
        this.collected = this.cache !== null ? [] : null;
        this.collectedBytes = 0;
        this.dec.reset();
      }
      const batch = await this.frame();
      if (batch !== null) return batch;
    }
  }

  /** The values of the cached frames joined so far, as one batch (null if none). */
  private flush(): Value[] | null {
    const frames = this.joined;
    const n = this.joinedCount;
    if (n === 0) return null;
    const types = this.types!;
    let out: Value[];
    if (frames.length === 1) out = types.values(frames[0]);
    else {
      out = new Array<Value>(n);
      let at = 0;
      for (const f of frames) {
        types.values(f, out, at);
        at += f.count;
      }
    }
    frames.length = 0;
    this.joinedCount = 0;
    return out;
  }

  /** Decodes the frame at pos: the values of a values frame, else null. */
  private async frame(): Promise<Value[] | null> {
    const src = this.src;
    const dec = this.dec;
    const offset = this.pos;
    if (!(await src.ensure(offset, 1))) throw new FormatError(FORMAT, TRUNCATED, offset);
    let at = offset - src.start;
    let size = dec.frameSize(src.buf, at, src.buf.length, offset);
    if (size < 0) {
      await src.ensure(offset, MAX_HEADER);
      at = offset - src.start;
      size = dec.frameSize(src.buf, at, src.buf.length, offset);
      if (size < 0) throw new FormatError(FORMAT, UNEXPECTED_EOF, offset);
    }
    if (!(await src.ensure(offset, size))) throw new FormatError(FORMAT, TRUNCATED, offset);
    at = offset - src.start;
    const buf = src.buf;
    const out: Value[] = [];
    const kind = dec.decodeFrame(buf, at, at + size, offset, out);
    this.pos += size;
    this.stats.bytesRead += size;
    if (kind === Frame.EOS) {
      this.endStream();
      return null;
    }
    if (kind !== Frame.Values || out.length === 0) return null;
    if (this.types === null) {
      if (this.frames === null) return out;
      const p = payloadOf(out, buf, at, at + size);
      const types = new TypeNumbering(out.length);
      out.forEach((v, i) => types.set(i, v.type));
      return this.frames(p.buf, p.start, p.end, types.types) ? out : null;
    }
    // Decoded in the cache's context: keep the frame (every frame, for the
    // cache), hand out its values in the scan's context.
    const frame = cachedFrame(out, buf, at, at + size);
    if (this.collected !== null) {
      this.collected.push(frame);
      this.collectedBytes += frame.bytes;
      if (this.collectedBytes > this.cache!.budget) this.collected = null;
    }
    if (this.frames !== null && !this.frames(frame.buf, 0, frame.buf.length, frame.types))
      return null;
    return this.types.values(frame);
  }

  /** Ends the stream being decoded, offering it to the cache. */
  private endStream(): void {
    if (this.streamStart < 0) return;
    if (this.collected !== null && this.collected.length > 0) {
      this.cache!.put(
        this.object,
        this.streamStart,
        new CachedStream(this.pos - this.streamStart, this.collected),
      );
    }
    this.streamStart = -1;
    this.collected = null;
  }
}

/**
 * A values frame's values (decoded in the cache's context) as a cache
 * entry, which holds the frame's decompressed payload. A compressed frame's
 * values point into their own decompressed payload; an uncompressed one's
 * into the fetched chunk (the frame is buf[at, end)), so its payload is
 * copied out of it. Either way the entry is the one the lake writer caches
 * for the stream (writethrough.ts).
 */
function cachedFrame(vals: Value[], buf: Buffer, at: number, end: number): CachedFrame {
  const p = payloadOf(vals, buf, at, end);
  if (p.buf !== buf) return CachedFrame.of(vals, p.buf, 0);
  return CachedFrame.of(vals, Buffer.from(buf.subarray(p.start, p.end)), p.start);
}

/**
 * Where the decompressed payload of the values frame buf[at, end) is: a
 * compressed frame's values point into their own buffer, an uncompressed
 * one's into buf, past the frame's header.
 */
function payloadOf(
  vals: Value[],
  buf: Buffer,
  at: number,
  end: number,
): { buf: Buffer; start: number; end: number } {
  if ((buf[at] & COMPRESSED) !== 0) return { buf: vals[0].buf, start: 0, end: vals[0].buf.length };
  readUvarint(buf, at + 1, end);
  return { buf, start: uv.end, end };
}

const TRUNCATED = 'truncated input';
const UNEXPECTED_EOF = 'unexpected EOF';

/**
 * The bytes of an object up to `end`, fetched a chunk at a time with the
 * next chunks prefetched while one is decoded: as many in flight as the
 * store's readAhead (one for a local disk; several for S3, where each
 * ranged GET is a round trip). Reading jumps forward when the cache serves
 * the streams in between.
 */
class RangeSource {
  /** Fetched bytes; buf[0] is at object offset start. */
  buf: Buffer = EMPTY;
  start = 0;
  /** Object offset the next fetch starts at. */
  private next = -1;
  /** Fetches under way, in object order. */
  private pending: Promise<Buffer>[] = [];

  constructor(
    private storage: ObjectStore,
    private key: string,
    private end: number,
    private missing: () => Error,
  ) {}

  private fetch(): Promise<Buffer> | null {
    if (this.next >= this.end) return null;
    const len = Math.min(this.storage.rangeSize, this.end - this.next);
    const p = this.storage.getRange(this.key, this.next, len).catch((e) => {
      throw isNotFound(e) ? this.missing() : e;
    });
    this.next += len;
    // Keep a rejected prefetch from being reported as unhandled.
    p.catch(() => undefined);
    return p;
  }

  /** Starts fetching the chunk at pos before the first ensure (PoolScan.readAhead). */
  prime(pos: number): void {
    this.start = pos;
    this.buf = EMPTY;
    this.next = pos;
    const p = this.fetch();
    if (p !== null) this.pending.push(p);
  }

  /** The next chunk in order, keeping the read-ahead window full. */
  private take(): Promise<Buffer> | null {
    const depth = Math.max(1, this.storage.readAhead);
    while (this.pending.length < depth + 1) {
      const p = this.fetch();
      if (p === null) break;
      this.pending.push(p);
    }
    return this.pending.shift() ?? null;
  }

  /**
   * Makes the n bytes from object offset pos available in buf (from
   * pos - start); false when the object ends first.
   */
  async ensure(pos: number, n: number): Promise<boolean> {
    const have = this.start + this.buf.length - pos;
    if (pos >= this.start && have >= n) return true;
    const parts: Buffer[] = [];
    let got = 0;
    if (pos >= this.start && have > 0) {
      parts.push(this.buf.subarray(pos - this.start));
      got = have;
    } else if (pos !== this.start + this.buf.length || this.next < 0) {
      // Not contiguous with what was fetched: start fetching at pos.
      this.pending = [];
      this.next = pos;
    }
    while (got < n) {
      const p = this.take();
      if (p === null) break;
      const chunk = await p;
      if (chunk.length === 0) break;
      parts.push(chunk);
      got += chunk.length;
    }
    this.buf =
      parts.length === 1 ? parts[0] : parts.length === 0 ? EMPTY : Buffer.concat(parts, got);
    this.start = pos;
    return got >= n;
  }
}
