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
import { appendElement, elementType, forEachElement, MAX_VALUE_SIZE, uniqueTypes } from './values';

const builder = new Builder();
const out = new Value(NULL.type, EMPTY, 0, -1);

class Collect implements AggFunction {
  /** The bodies, end to end from first (older ones dropped past the size limit). */
  private data = Buffer.allocUnsafe(64);
  private end = 0;
  private first = 0;
  private types: Type[] = [];
  private offs: number[] = [];
  private lens: number[] = [];
  /** Bytes of the values kept (the reference's measure). */
  private size = 0;

  consume(v: Value): void {
    if (v.len >= 0) this.add(v.type, v.buf, v.off, v.len);
  }

  private add(t: Type, buf: Uint8Array, off: number, len: number): void {
    const n = Math.max(len, 0);
    if (this.end + n > this.data.length) this.grow(n);
    for (let i = 0; i < n; i++) this.data[this.end + i] = buf[off + i];
    this.types.push(t);
    this.offs.push(this.end);
    this.lens.push(len);
    this.end += n;
    this.size += n;
    while (this.size > MAX_VALUE_SIZE) {
      this.size -= Math.max(this.lens[this.first], 0);
      this.first++;
    }
  }

  /** Makes room for n more bytes, compacting away dropped values. */
  private grow(n: number): void {
    const from = this.first < this.offs.length ? this.offs[this.first] : this.end;
    const live = this.end - from;
    const size = Math.max(this.data.length * 2, live + n);
    const data = live + n <= this.data.length / 2 ? this.data : Buffer.allocUnsafe(size);
    this.data.copy(data, 0, from, this.end);
    this.data = data;
    this.end = live;
    this.types = this.types.slice(this.first);
    this.lens = this.lens.slice(this.first);
    this.offs = this.offs.slice(this.first).map((o) => o - from);
    this.first = 0;
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
    const n = this.types.length;
    if (n === this.first) return NULL;
    const uniq = uniqueTypes(this.types.slice(this.first));
    const { type, union } = elementType(zctx, uniq, partial);
    const b = builder;
    b.reset();
    for (let i = this.first; i < n; i++) {
      appendElement(b, union, this.types[i], this.data, this.offs[i], this.lens[i]);
    }
    return out.set(zctx.lookupTypeArray(type), b.buf, 0, b.len);
  }
}

export const collect: AggDef = {
  name: 'collect',
  needsArg: true,
  create: () => new Collect(),
};
