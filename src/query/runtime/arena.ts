// ValueArena builds many new values into one buffer per batch, so
// value-creating operators (put, yield, cut...) pay one allocation per batch
// rather than one per value. Each outermost value's body follows two
// reserved bytes, set to a spare byte and the value's tag when the tag
// fits in one byte: values laid out so, end to end, are copied by the ZNG
// writer as runs (formats/zng/writer.ts) rather than one by one.

import { Builder } from '../../zed/zcode';
import { Type } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';

/** Seals of at most this many bytes are copied into a shared slab (ValueArena.seal). */
const SMALL_SEAL = 4096;
const SLAB = 256 * 1024;

export class ValueArena {
  readonly b = new Builder(64 * 1024);
  /** The values built since the last seal: pending[0, npending). */
  private pending: Value[] = [];
  private npending = 0;
  private starts: number[] = [];
  /** Where small seals go, end to end (one buffer for many, not one each). */
  private slab: Buffer | null = null;
  private slabPos = 0;

  /**
   * Starts a value: write its body with the builder's append methods (as a
   * sequence of tag-encoded children for a container body, or raw bytes via
   * appendRaw for a primitive body), then call end().
   */
  begin(): void {
    const b = this.b;
    if (this.starts.length === 0) {
      b.grow(2);
      b.buf[b.len] = 0;
      b.buf[b.len + 1] = 0;
      b.len += 2;
    }
    this.starts.push(b.len);
  }

  /** Ends the value begun last; the returned Value is usable after seal(). */
  end(type: Type): Value {
    const start = this.starts.pop()!;
    const len = this.b.len - start;
    // The tag in the reserved bytes (a longer tag does not fit: the writer then writes it).
    if (this.starts.length === 0 && len < 0x7f) this.b.buf[start - 1] = len + 1;
    const v = new Value(type, EMPTY, start, len);
    this.pending[this.npending++] = v;
    return v;
  }

  /** Adds a copy of an existing value. */
  copy(v: Value): Value {
    if (v.len < 0) return new Value(v.type, EMPTY, 0, -1);
    this.begin();
    this.b.appendRaw(v.buf, v.off, v.len);
    return this.end(v.type);
  }

  /** Bytes pending; callers seal a batch once this gets large. */
  get size(): number {
    return this.b.len;
  }

  /**
   * Moves the built bytes into a buffer of their own (a small seal, into a
   * slab shared with the seals before it: an over with a lateral body
   * seals once per input value) and points every value built since the
   * last seal at it. Call before handing values downstream.
   */
  seal(): void {
    const n = this.npending;
    if (n === 0) return;
    const len = this.b.len;
    const pending = this.pending;
    if (len <= SMALL_SEAL) {
      if (this.slab === null || this.slabPos + len > SLAB) {
        this.slab = Buffer.allocUnsafe(SLAB);
        this.slabPos = 0;
      }
      const at = this.slabPos;
      // A few bytes (a lateral body's value) are copied by hand: Buffer.copy
      // costs more to call than that.
      if (len <= 64) {
        const src = this.b.buf;
        const slab = this.slab;
        for (let i = 0; i < len; i++) slab[at + i] = src[i];
      } else this.b.buf.copy(this.slab, at, 0, len);
      this.slabPos = at + len;
      for (let i = 0; i < n; i++) {
        const v = pending[i];
        v.buf = this.slab;
        v.off += at;
      }
    } else {
      const buf = Buffer.from(this.b.buf.subarray(0, len));
      for (let i = 0; i < n; i++) pending[i].buf = buf;
    }
    // The array is kept for the next values; a long one is let go, so that
    // it does not hold a large batch's values (and their buffer).
    if (n > 1024) pending.length = 0;
    this.npending = 0;
    this.b.reset();
  }
}
