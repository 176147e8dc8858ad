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
import { TypeNumbering } from '../zed/vector';
import { CacheStats, ObjectCache } from './clock';

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
    const ft = new TypeNumbering(n);
    for (let i = 0; i < n; i++) {
      const v = vals[i];
      offs[i] = v.off - base;
      lens[i] = v.len;
      ft.set(i, v.type);
    }
    return new CachedFrame(buf, ft.types, ft.typeIndex, offs, lens);
  }
}

/** One decoded ZNG stream of a data object. */
export class CachedStream {
  bytes: number;
  /** Where the stream is cached: object (pool/id) and byte offset (set by ScanCache.put). */
  object = '';
  key = 0;
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

export type ScanCacheStats = CacheStats;

/** The scan cache: decoded streams by object (pool/id) and byte offset. */
export class ScanCache extends ObjectCache<number, CachedStream> {
  /** Types of the cached values. */
  readonly ctx = new TypeContext();

  /** Stored bytes of an object (pool/id) that its cached streams cover (no hits are counted). */
  storedBytes(object: string): number {
    let n = 0;
    for (const e of this.of(object) ?? []) n += e.size;
    return n;
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
