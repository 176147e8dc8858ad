// Write-through for the scan cache: the lake writer hands each ZNG stream it
// writes to a data object to a StreamCacher, which builds the cache entry a
// scan would make by decoding that stream from storage, without encoding,
// compressing or decoding anything twice.
//
// A scan caches each values frame as its decompressed payload (the values
// as <type ID><tag><body>) with each value's body offset, length and type
// in the cache's context (cache.ts). The payload and the frame boundaries
// are fixed by the ZNG writer: a stream's types are numbered from 30 by a
// TypeEncoder in order of first use, and a frame ends after the value that
// brings the values or the pending typedefs to the frame threshold. The
// cacher follows the same rules with its own TypeEncoder, so its entries
// are byte for byte the ones a scan would build.

import { TypeEncoder } from '../formats/zng/encoder';
import { DEFAULT_FRAME_THRESHOLD } from '../formats/zng/frame';
import { Type } from '../zed/types';
import { Value } from '../zed/value';
import { putUvarint, uvarintSize } from '../zed/zcode';
import { CachedFrame, CachedStream, ENTRY_OVERHEAD, FRAME_OVERHEAD, ScanCache } from './cache';
import { TypeNumbering } from '../zed/vector';

/** Below this many bytes a body is moved byte by byte. */
const SHORT_MOVE = 16;

export class StreamCacher {
  private enc = new TypeEncoder();
  /** Types of written values mapped into the cache's context. */
  private types = new Map<Type, Type>();
  /** Per value of the stream: its stream type ID. */
  private ids = new Int32Array(1024);
  /** Per frame of the stream: index after its last value, payload bytes. */
  private ends: number[] = [];
  private sizes: number[] = [];

  constructor(
    private cache: ScanCache,
    /** The ZNG writer's frame threshold. */
    private threshold = DEFAULT_FRAME_THRESHOLD,
  ) {}

  /**
   * Caches vals[from, to), written as one ZNG stream of `size` bytes at
   * byte `offset` of `object` (pool/id), as a scan would on decoding it.
   * A stream larger than the cache's budget is not built.
   */
  put(
    object: string,
    offset: number,
    size: number,
    vals: readonly Value[],
    from: number,
    to: number,
  ): void {
    const n = to - from;
    if (n <= 0) return;
    if (this.ids.length < n) this.ids = new Int32Array(Math.max(n, 2 * this.ids.length));
    const ids = this.ids;
    const enc = this.enc;
    const threshold = this.threshold;
    const ends = this.ends;
    const sizes = this.sizes;
    ends.length = 0;
    sizes.length = 0;
    // First pass: type IDs, frame boundaries and payload sizes, as the
    // writer assigns them (types forgotten at each stream's start).
    enc.reset();
    let lastType: Type | null = null;
    let lastId = 0;
    let pos = 0;
    let bytes = ENTRY_OVERHEAD;
    let frameStart = 0;
    let multi = false;
    for (let k = 0; k < n; k++) {
      const v = vals[from + k];
      if (v.type !== lastType) {
        lastType = v.type;
        lastId = enc.id(v.type);
      }
      ids[k] = lastId;
      if (lastId !== ids[frameStart]) multi = true;
      const len = v.len;
      pos += (lastId < 0x80 ? 1 : uvarintSize(lastId)) + (len < 0 ? 1 : uvarintSize(len + 1) + len);
      if (pos >= threshold || enc.out.len >= threshold) {
        bytes += frameBytes(pos, k + 1 - frameStart, multi);
        ends.push(k + 1);
        sizes.push(pos);
        pos = 0;
        enc.out.len = 0;
        frameStart = k + 1;
        multi = false;
      }
    }
    if (frameStart < n) {
      bytes += frameBytes(pos, n - frameStart, multi);
      ends.push(n);
      sizes.push(pos);
    }
    // A stream the cache would not keep is not built.
    if (bytes > this.cache.budget) return;
    const frames: CachedFrame[] = [];
    let start = 0;
    for (let f = 0; f < ends.length; f++) {
      frames.push(this.frame(vals, from, start, ends[f], sizes[f]));
      start = ends[f];
    }
    this.cache.put(object, offset, new CachedStream(size, frames));
  }

  /**
   * The frame of values [from + start, from + end) with a payload of size
   * bytes. The bodies go in first, a run at a time (see place), then the
   * type IDs and tags in the gaps between them.
   */
  private frame(
    vals: readonly Value[],
    from: number,
    start: number,
    end: number,
    size: number,
  ): CachedFrame {
    const n = end - start;
    const base = from + start;
    const buf = Buffer.allocUnsafe(size);
    const offs = new Int32Array(n);
    const lens = new Int32Array(n);
    const ft = new TypeNumbering(n);
    let last: Type | null = null;
    let cached: Type | null = null;
    const ids = this.ids;
    // The run of bodies being gathered: its first value, its source buffer,
    // where its first body is in the source and in buf, and the source
    // offset after its last body.
    let run = -1;
    let runBuf: Buffer | null = null;
    let s0 = 0;
    let d0 = 0;
    let runEnd = 0;
    let o = 0;
    for (let i = 0; i < n; i++) {
      const v = vals[base + i];
      if (v.type !== last) {
        last = v.type;
        cached = this.cacheType(last);
      }
      ft.set(i, cached!);
      const id = ids[start + i];
      const len = v.len;
      o += id < 0x80 ? 1 : uvarintSize(id);
      if (len < 0) {
        o += 1;
        offs[i] = o;
        lens[i] = -1;
        continue;
      }
      o += len < 0x7f ? 1 : uvarintSize(len + 1);
      offs[i] = o;
      lens[i] = len;
      o += len;
      if (len === 0) continue;
      // A body joins the run if it follows the run's last in the source
      // and is no further from the run's first there than in buf.
      if (v.buf !== runBuf || v.off < runEnd || v.off - s0 > offs[i] - d0) {
        if (run >= 0) place(vals, base, buf, offs, lens, run, i, runEnd);
        run = i;
        runBuf = v.buf;
        s0 = v.off;
        d0 = offs[i];
      }
      runEnd = v.off + len;
    }
    if (run >= 0) place(vals, base, buf, offs, lens, run, n, runEnd);
    for (let i = 0; i < n; i++) {
      const id = ids[start + i];
      const len = lens[i];
      const tag = len + 1;
      let p = offs[i] - (tag < 0x80 ? 1 : uvarintSize(tag)) - (id < 0x80 ? 1 : uvarintSize(id));
      if (id < 0x80) buf[p++] = id;
      else p = putUvarint(buf, p, id);
      if (tag < 0x80) buf[p] = tag;
      else putUvarint(buf, p, tag);
    }
    return new CachedFrame(buf, ft.types, ft.typeIndex, offs, lens);
  }

  /** Drops what was cached for object (pool/id): it was not written after all. */
  drop(object: string): void {
    this.cache.dropObject(object);
  }

  private cacheType(t: Type): Type {
    let u = this.types.get(t);
    if (u === undefined) {
      u = this.cache.ctx.translate(t);
      this.types.set(t, u);
    }
    return u;
  }
}

/** Bytes a cached frame takes (CachedFrame.bytes): n values, a payload of size bytes. */
function frameBytes(size: number, n: number, multiType: boolean): number {
  return size + (multiType ? 12 : 8) * n + FRAME_OVERHEAD;
}

/**
 * Puts the bodies of values [a, b) (of those from base), which lie in
 * order in one source buffer from the first's offset to srcEnd, each no
 * further from the first there than in buf, at their offsets in buf: the
 * span is copied whole to where the first body goes, then each of the
 * other bodies, last first, is moved up to its place (past the headers
 * before it; whatever lay between the bodies in the source is overwritten
 * by the headers). One copy of the span and a move within buf per value
 * cost less than a copy from the source per value. A body moved never
 * lands on one not yet moved, which lies lower.
 */
function place(
  vals: readonly Value[],
  base: number,
  buf: Buffer,
  offs: Int32Array,
  lens: Int32Array,
  a: number,
  b: number,
  srcEnd: number,
): void {
  const first = vals[base + a];
  const s0 = first.off;
  const d0 = offs[a];
  first.buf.copy(buf, d0, s0, srcEnd);
  for (let k = b - 1; k > a; k--) {
    const len = lens[k];
    if (len <= 0) continue;
    const at = d0 + vals[base + k].off - s0;
    const to = offs[k];
    if (len < SHORT_MOVE) {
      for (let x = len - 1; x >= 0; x--) buf[to + x] = buf[at + x];
    } else {
      buf.copyWithin(to, at, at + len);
    }
  }
}
