// ValueArena builds many new values into one buffer per batch, so
// value-creating operators (put, yield, cut...) pay one allocation per batch
// rather than one per value. Each outermost value's body follows two
// reserved bytes, set to a spare byte and the value's tag when the tag
// fits in one byte: values laid out so, end to end, are copied by the ZNG
// writer as runs (formats/zng/writer.ts) rather than one by one.

import { Builder } from '../../zed/zcode';
import { Type } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';

export class ValueArena {
  readonly b = new Builder(64 * 1024);
  private pending: Value[] = [];
  private starts: number[] = [];

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
    this.pending.push(v);
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
   * Moves the built bytes into their own buffer and points every value
   * built since the last seal at it. Call before handing values downstream.
   */
  seal(): void {
    if (this.pending.length === 0) return;
    const buf = Buffer.from(this.b.buf.subarray(0, this.b.len));
    for (const v of this.pending) v.buf = buf;
    this.pending.length = 0;
    this.b.reset();
  }
}
