// Per-node result memory. An expression node that computes a value writes
// it here and returns the scratch Value; by the Expr contract the result is
// valid until the node's next eval, so one buffer per node serves every
// evaluation and the hot path allocates nothing.

import { writeFloat } from '../../zed/primitive';
import { ID, Type, TypeNull } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { writeIntLE, writeUintLE } from '../../zed/zcode';

export class Scratch {
  buf: Buffer = Buffer.allocUnsafe(16);
  readonly val = new Value(TypeNull, EMPTY, 0, -1);

  /** Room for n bytes at the start of buf (contents not kept). */
  reserve(n: number): Buffer {
    if (this.buf.length < n) this.buf = Buffer.allocUnsafe(Math.max(n, this.buf.length * 2));
    return this.buf;
  }

  int(type: Type, v: number | bigint): Value {
    const n = writeIntLE(this.buf, 0, v);
    return this.val.set(type, this.buf, 0, n);
  }

  uint(type: Type, v: number | bigint): Value {
    const n = writeUintLE(this.buf, 0, v);
    return this.val.set(type, this.buf, 0, n);
  }

  /** A float of type's width (float16/32/64). */
  float(type: Type, v: number): Value {
    const id = type.under.id;
    const w = id === ID.Float16 ? 2 : id === ID.Float32 ? 4 : 8;
    writeFloat(this.buf, 0, v, w);
    return this.val.set(type, this.buf, 0, w);
  }

  /** A copy of src[off, off+len) as a value of type (len -1 for null). */
  copy(type: Type, src: Uint8Array, off: number, len: number): Value {
    if (len < 0) return this.val.set(type, EMPTY, 0, -1);
    const buf = this.reserve(len);
    for (let i = 0; i < len; i++) buf[i] = src[off + i];
    return this.val.set(type, buf, 0, len);
  }

  /** Two byte ranges concatenated. */
  concat(
    type: Type,
    a: Uint8Array,
    aoff: number,
    alen: number,
    b: Uint8Array,
    boff: number,
    blen: number,
  ): Value {
    const buf = this.reserve(alen + blen);
    for (let i = 0; i < alen; i++) buf[i] = a[aoff + i];
    for (let i = 0; i < blen; i++) buf[alen + i] = b[boff + i];
    return this.val.set(type, buf, 0, alen + blen);
  }

  string(type: Type, s: string): Value {
    const buf = this.reserve(s.length * 3);
    const n = buf.write(s, 0, 'utf8');
    return this.val.set(type, buf, 0, n);
  }

  /** A null of type. */
  null(type: Type): Value {
    return this.val.set(type, EMPTY, 0, -1);
  }

  /** Points the scratch value at an existing body (no copy). */
  view(type: Type, buf: Buffer, off: number, len: number): Value {
    return this.val.set(type, buf, off, len);
  }
}
