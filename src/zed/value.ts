// A Zed value: a type and the value's body in zcode form.
//
// The body is a byte range (buf, off, len) of a shared buffer, typically a
// whole decoded ZNG frame, so reading a value allocates one small object and
// copies nothing; fields are reached by walking tags, never materialised as
// JS objects. len is -1 for null. Holders that keep a value past the life of
// its source (sort buffers, aggregation keys) keep the buffer alive; call
// copy() to detach a small value from a large frame.

import { Type, TypeNull } from './types';

export const EMPTY = Buffer.alloc(0);

export class Value {
  constructor(
    public type: Type,
    public buf: Buffer,
    public off: number,
    public len: number,
  ) {}

  /** A value from a whole byte array (null → a null value). */
  static fromBytes(type: Type, bytes: Uint8Array | null): Value {
    if (bytes === null) return new Value(type, EMPTY, 0, -1);
    const buf = Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return new Value(type, buf, 0, buf.length);
  }

  static null(type: Type = TypeNull): Value {
    return new Value(type, EMPTY, 0, -1);
  }

  get isNull(): boolean {
    return this.len < 0;
  }

  /** The body as a view (null for a null value). Allocates: avoid in hot loops. */
  bytes(): Buffer | null {
    return this.len < 0 ? null : this.buf.subarray(this.off, this.off + this.len);
  }

  /** A value with its own copy of the body. */
  copy(): Value {
    if (this.len <= 0) return new Value(this.type, EMPTY, 0, this.len);
    return new Value(
      this.type,
      Buffer.from(this.buf.subarray(this.off, this.off + this.len)),
      0,
      this.len,
    );
  }

  /** Points this (reusable) value at another value's type and body. */
  set(type: Type, buf: Buffer, off: number, len: number): this {
    this.type = type;
    this.buf = buf;
    this.off = off;
    this.len = len;
    return this;
  }

  assign(v: Value): this {
    this.type = v.type;
    this.buf = v.buf;
    this.off = v.off;
    this.len = v.len;
    return this;
  }

  /** Same type and same bytes. */
  equals(v: Value): boolean {
    if (this.type !== v.type || this.len !== v.len) return false;
    const a = this.buf;
    const b = v.buf;
    for (let i = 0; i < this.len; i++) if (a[this.off + i] !== b[v.off + i]) return false;
    return true;
  }
}
