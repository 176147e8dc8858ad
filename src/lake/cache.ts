// The scan cache: a buffer pool of decoded data-object streams.
//
// Data objects stay LZ4-compressed ZNG in storage. When a scan decodes one
// of an object's ZNG streams (the unit of the seek index, about seek_stride
// bytes of values ending with an end-of-stream marker) it keeps the result
// here, keyed by (pool, object, byte offset of the stream): each values
// frame as its decompressed payload plus the offset, length and type of
// every value in it. The lake writer puts the same entries here for the
// streams it writes (writethrough.ts), so data just loaded is warm. A later
// scan of the stream skips the fetch, the decompression and the value
// parsing, and only makes Values pointing into the payload. Objects are
// immutable, so entries never go stale; they are dropped when their object
// is deleted or vacuumed, and least recently used entries are evicted to
// keep the total under the byte budget.
//
// Types of cached values live in the cache's own type context; a scan maps
// them into its query's context (ScanTypes) once per type.

import { TypeContext } from '../zed/context';
import { Type } from '../zed/types';
import { Value } from '../zed/value';

/** Default budget: enough for a million DNS-log records (about 210 MB decoded). */
export const DEFAULT_CACHE_SIZE = 256 * 1024 * 1024;

/** Rough bytes of bookkeeping per entry and per frame (JS objects, map slot). */
export const ENTRY_OVERHEAD = 256;
export const FRAME_OVERHEAD = 160;

/** The values of one values frame. */
export class CachedFrame {
  constructor(
    /** The frame's decompressed payload. */
    readonly buf: Buffer,
    /** Distinct types of the values, in the cache's context. */
    readonly types: Type[],
    /** Index into types of each value (null when there is one type). */
    readonly typeIndex: Int32Array | null,
    /** Offset of each value's body in buf. */
    readonly offs: Int32Array,
    /** Length of each value's body (-1 for null). */
    readonly lens: Int32Array,
  ) {}

  get count(): number {
    return this.offs.length;
  }

  /** Bytes this frame holds. */
  get bytes(): number {
    return (
      this.buf.length +
      this.offs.byteLength +
      this.lens.byteLength +
      (this.typeIndex?.byteLength ?? 0) +
      FRAME_OVERHEAD
    );
  }

  /** Builds the frame from values decoded in the cache's context, all pointing into buf. */
  static of(vals: Value[], buf: Buffer, base: number): CachedFrame {
    const n = vals.length;
    const offs = new Int32Array(n);
    const lens = new Int32Array(n);
    const ft = new FrameTypes(n);
    for (let i = 0; i < n; i++) {
      const v = vals[i];
      offs[i] = v.off - base;
      lens[i] = v.len;
      ft.set(i, v.type);
    }
    return new CachedFrame(buf, ft.types, ft.typeIndex, offs, lens);
  }
}

/**
 * Numbers the distinct types of a frame's n values in order of first use,
 * as CachedFrame holds them: the index array appears with a second type.
 */
export class FrameTypes {
  readonly types: Type[] = [];
  typeIndex: Int32Array | null = null;
  private last: Type | null = null;
  private lastIdx = 0;

  constructor(private readonly n: number) {}

  /** Records that value i has type t. */
  set(i: number, t: Type): void {
    if (t !== this.last) {
      this.last = t;
      let idx = this.types.indexOf(t);
      if (idx < 0) {
        idx = this.types.length;
        this.types.push(t);
        if (idx === 1) this.typeIndex = new Int32Array(this.n);
      }
      this.lastIdx = idx;
    }
    if (this.typeIndex !== null) this.typeIndex[i] = this.lastIdx;
  }
}

/** One decoded ZNG stream of a data object. */
export class CachedStream {
  readonly bytes: number;
  /** Where the stream is cached (set by ScanCache.put). */
  object = '';
  offset = 0;
  /** Read since the clock hand last passed it. */
  used = false;

  constructor(
    /** Bytes the stream takes in the stored object (to the next stream). */
    readonly size: number,
    readonly frames: CachedFrame[],
  ) {
    let b = ENTRY_OVERHEAD;
    for (const f of frames) b += f.bytes;
    this.bytes = b;
  }
}

export interface ScanCacheStats {
  /** Streams served from the cache. */
  hits: number;
  /** Streams decoded from storage while the cache was on. */
  misses: number;
  /** Streams evicted to stay within the budget. */
  evictions: number;
  /** Bytes held. */
  bytes: number;
  /** Streams held. */
  entries: number;
}

export class ScanCache {
  /** Types of the cached values. */
  readonly ctx = new TypeContext();
  /**
   * The streams by object (pool/id) and offset: a lookup hashes the
   * caller's object string (its hash is kept in the string) and a small
   * integer, and builds no key.
   */
  private index = new Map<string, Map<number, CachedStream>>();
  /**
   * The entries, least recently inserted first. Eviction approximates
   * least-recently-used order with a clock (second chance): a hit only
   * marks its entry used, and the hand moves a used entry to the back
   * (clearing the mark) instead of evicting it. A hit so costs a property
   * write rather than a reordering of the map.
   */
  private order = new Set<CachedStream>();
  private total = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  /** budget: bytes the cache may hold; 0 turns it off. */
  constructor(readonly budget: number) {}

  get enabled(): boolean {
    return this.budget > 0;
  }

  /** The cached stream of object `object` (pool/id) at byte offset, counting a hit or miss. */
  get(object: string, offset: number): CachedStream | undefined {
    const e = this.index.get(object)?.get(offset);
    if (e !== undefined) {
      e.used = true;
      this.hits++;
    } else {
      this.misses++;
    }
    return e;
  }

  put(object: string, offset: number, stream: CachedStream): void {
    if (!this.enabled) return;
    const old = this.index.get(object)?.get(offset);
    if (old !== undefined) this.remove(old);
    if (stream.bytes > this.budget) return;
    let streams = this.index.get(object);
    stream.object = object;
    stream.offset = offset;
    stream.used = false;
    if (streams === undefined) {
      streams = new Map();
      this.index.set(object, streams);
    }
    streams.set(offset, stream);
    this.order.add(stream);
    this.total += stream.bytes;
    while (this.total > this.budget) {
      const e = this.order.values().next().value as CachedStream;
      this.order.delete(e);
      if (e.used) {
        e.used = false;
        this.order.add(e);
        continue;
      }
      this.total -= e.bytes;
      this.unindex(e);
      this.evictions++;
    }
  }

  /** Stored bytes of an object (pool/id) that its cached streams cover (no hits are counted). */
  storedBytes(object: string): number {
    const streams = this.index.get(object);
    if (streams === undefined) return 0;
    let n = 0;
    for (const e of streams.values()) n += e.size;
    return n;
  }

  /** Drops the streams of one object (pool/id). */
  dropObject(object: string): void {
    const streams = this.index.get(object);
    if (streams === undefined) return;
    for (const e of streams.values()) this.forget(e);
    this.index.delete(object);
  }

  /** Drops the streams of every object of a pool. */
  dropPool(poolId: string): void {
    for (const object of [...this.index.keys()])
      if (object.startsWith(`${poolId}/`)) this.dropObject(object);
  }

  /** The streams held, least recently inserted first (no hits are counted). */
  entries(): IterableIterator<CachedStream> {
    return this.order.values();
  }

  clear(): void {
    this.order.clear();
    this.index.clear();
    this.total = 0;
  }

  stats(): ScanCacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      bytes: this.total,
      entries: this.order.size,
    };
  }

  private remove(e: CachedStream): void {
    this.forget(e);
    this.unindex(e);
  }

  /** Takes an entry out of the eviction order and the total. */
  private forget(e: CachedStream): void {
    if (this.order.delete(e)) this.total -= e.bytes;
  }

  private unindex(e: CachedStream): void {
    const streams = this.index.get(e.object);
    if (streams === undefined || streams.get(e.offset) !== e) return;
    streams.delete(e.offset);
    if (streams.size === 0) this.index.delete(e.object);
  }
}

/** Maps cached types into a query's type context, once per type. */
export class ScanTypes {
  private map = new Map<Type, Type>();

  constructor(
    private readonly from: TypeContext,
    private readonly to: TypeContext,
  ) {}

  get(t: Type): Type {
    let u = this.map.get(t);
    if (u === undefined) {
      u = this.from === this.to ? t : this.to.translate(t);
      this.map.set(t, u);
    }
    return u;
  }

  /**
   * The frame's values as Values of the query's context, written to out
   * from out[at] (a fresh array when out is null); returns the array.
   */
  values(f: CachedFrame, out: Value[] | null = null, at = 0): Value[] {
    const n = f.count;
    if (out === null) out = new Array<Value>(n);
    const { buf, offs, lens, typeIndex } = f;
    if (typeIndex === null) {
      const t = this.get(f.types[0]);
      for (let i = 0; i < n; i++) out[at + i] = new Value(t, buf, offs[i], lens[i]);
    } else {
      const ts = f.types.map((t) => this.get(t));
      for (let i = 0; i < n; i++) out[at + i] = new Value(ts[typeIndex[i]], buf, offs[i], lens[i]);
    }
    return out;
  }
}
