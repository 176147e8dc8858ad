// ValueArena builds many new values into one buffer per batch, so
// value-creating operators (put, yield, cut...) pay one allocation per batch
// rather than one per value.

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
    this.starts.push(this.b.len);
  }

  /** Ends the value begun last; the returned Value is usable after seal(). */
  end(type: Type): Value {
    const start = this.starts.pop()!;
    const v = new Value(type, EMPTY, start, this.b.len - start);
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
