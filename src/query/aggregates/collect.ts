// collect(any): the non-null values in an array, in order of arrival.
// Values of mixed types make an array of their union (members in the
// reference's type order). No values: null. Its partial is the array
// (see values.ts for the one case where a partial's element type differs
// from the result's); a partial's elements are appended in order.

import { formatValue } from '../../formats/zson';
import { TypeContext } from '../../zed/context';
import { Type, TypeArray } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { Builder } from '../../zed/zcode';
import { NULL } from '../expr/expr';
import { AggDef, AggFunction } from './agg';
import { growInt32 } from './grow';
import { appendElement, elementType, forEachElement, valueLimit, uniqueTypes } from './values';

const builder = new Builder();
const out = new Value(NULL.type, EMPTY, 0, -1);

class Collect implements AggFunction {
  /** The bodies, end to end from first (older ones dropped past the size limit). */
  private data = Buffer.allocUnsafe(64);
  private end = 0;
  /**
   * Values kept are first..count-1: each one's type (an index into types),
   * offset in data and length. Typed arrays: growing a JavaScript array a
   * value at a time measured about 130 ns a value here.
   */
  private first = 0;
  private count = 0;
  private tix = new Int32Array(8);
  private offs = new Int32Array(8);
  private lens = new Int32Array(8);
  /** The distinct types, by first arrival. */
  private types: Type[] = [];
  private lastType: Type | null = null;
  private lastTi = 0;
  /** Bytes of the values kept (the reference's measure). */
  private size = 0;

  consume(v: Value): void {
    if (v.len >= 0) this.add(v.type, v.buf, v.off, v.len);
  }

  private add(t: Type, buf: Uint8Array, off: number, len: number): void {
    const n = len > 0 ? len : 0;
    if (this.end + n > this.data.length) this.grow(n);
    const c = this.count;
    if (c === this.offs.length) this.growIndex();
    const data = this.data;
    const at = this.end;
    if (n > 32) data.set(buf.subarray(off, off + n), at);
    else for (let i = 0; i < n; i++) data[at + i] = buf[off + i];
    if (t !== this.lastType) {
      this.lastType = t;
      this.lastTi = this.types.indexOf(t);
      if (this.lastTi < 0) this.lastTi = this.types.push(t) - 1;
    }
    this.tix[c] = this.lastTi;
    this.offs[c] = at;
    this.lens[c] = len;
    this.count = c + 1;
    this.end = at + n;
    this.size += n;
    while (this.size > valueLimit.bytes) {
      this.size -= Math.max(this.lens[this.first], 0);
      this.first++;
    }
  }

  /** Makes room for n more bytes, compacting away dropped values. */
  private grow(n: number): void {
    const from = this.first < this.count ? this.offs[this.first] : this.end;
    const live = this.end - from;
    const size = Math.max(this.data.length * 2, live + n);
    const data = live + n <= this.data.length / 2 ? this.data : Buffer.allocUnsafe(size);
    this.data.copy(data, 0, from, this.end);
    this.data = data;
    this.end = live;
    const first = this.first;
    if (first === 0 && from === 0) return;
    const kept = this.count - first;
    this.tix.copyWithin(0, first, this.count);
    this.lens.copyWithin(0, first, this.count);
    this.offs.copyWithin(0, first, this.count);
    for (let i = 0; i < kept; i++) this.offs[i] -= from;
    this.count = kept;
    this.first = 0;
  }

  /** Doubles the room for values' types, offsets and lengths. */
  private growIndex(): void {
    this.tix = growInt32(this.tix);
    this.offs = growInt32(this.offs);
    this.lens = growInt32(this.lens);
  }

  consumePartial(v: Value): void {
    if (v.len <= 0) return;
    if (!(v.type instanceof TypeArray)) {
      throw new Error(`collect partial: partial not an array type: ${formatValue(v)}`);
    }
    // add() does not move the partial's bytes.
    forEachElement(v, v.type.type, (e) => this.add(e.type, e.buf, e.off, e.len));
  }

  result(zctx: TypeContext): Value {
    return this.build(zctx, false);
  }

  resultPartial(zctx: TypeContext): Value {
    return this.build(zctx, true);
  }

  private build(zctx: TypeContext, partial: boolean): Value {
    const n = this.count;
    if (n === this.first) return NULL;
    const tix = this.tix;
    const types = this.types;
    // The types of the values kept (older ones may have been dropped).
    const kept = new Set<Type>();
    for (let i = this.first; i < n && kept.size < types.length; i++) kept.add(types[tix[i]]);
    const { type, union } = elementType(zctx, uniqueTypes(kept), partial);
    const b = builder;
    b.reset();
    for (let i = this.first; i < n; i++) {
      appendElement(b, union, types[tix[i]], this.data, this.offs[i], this.lens[i]);
    }
    return out.set(zctx.lookupTypeArray(type), b.buf, 0, b.len);
  }
}

export const collect: AggDef = {
  name: 'collect',
  needsArg: true,
  create: () => new Collect(),
};
