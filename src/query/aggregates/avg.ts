// avg(number): the mean of the values that convert to a float64 (numbers,
// durations and times as nanoseconds, and strings that parse as floats,
// as the reference's coercion does), as a float64; null(float64) when
// none did. Its partial is the record {sum:float64,count:uint64}.

import { formatValue } from '../../formats/zson';
import { TypeContext } from '../../zed/context';
import {
  decodeFloat,
  decodeInt,
  decodeIntBig,
  decodeString,
  decodeUint,
  decodeUintBig,
  isMinInt64,
} from '../../zed/primitive';
import { fieldAt } from '../../zed/record';
import { ID, isFloat, TypeFloat64, TypeRecord, TypeUint64 } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { Builder } from '../../zed/zcode';
import { parseFloatText } from '../expr/cast';
import { Scratch } from '../expr/scratch';
import { AggColumn, AggDef } from './agg';
import { growFloat64 } from './grow';

const out = new Scratch();
const builder = new Builder(32);
const field = new Value(TypeFloat64, EMPTY, 0, -1);

/** The value as a float64 (the reference's coerce.ToFloat), or undefined. */
export function toFloat64(v: Value): number | undefined {
  const id = v.type.under.id;
  const { buf, off, len } = v;
  if (isFloat(id)) return decodeFloat(buf, off, len);
  if (id <= ID.Time) {
    // Integers, durations and times.
    const signed = id >= ID.Int8;
    if (len <= 6 && !(signed && isMinInt64(buf, off, len))) {
      return signed ? decodeInt(buf, off, len) : decodeUint(buf, off, len);
    }
    return Number(signed ? decodeIntBig(buf, off, len) : decodeUintBig(buf, off, len));
  }
  if (id === ID.String) return parseFloatText(decodeString(buf, off, len));
  return undefined;
}

export class AvgColumn implements AggColumn {
  // In V8's heap (64 bytes or less: see CountColumn).
  private sum = new Float64Array(8);
  private count = new Float64Array(8);
  private partialType: TypeRecord | null = null;
  private partialCtx: TypeContext | null = null;
  size = 0;

  add(): void {
    if (this.size === this.sum.length) {
      this.sum = growFloat64(this.sum);
      this.count = growFloat64(this.count);
    }
    this.sum[this.size] = 0;
    this.count[this.size++] = 0;
  }

  consume(g: number, v: Value): void {
    if (v.len < 0) return;
    const f = toFloat64(v);
    if (f === undefined) return;
    this.sum[g] += f;
    this.count[g]++;
  }

  /**
   * Consumes numbers given as exact float64s (vals, with nulls) for groups
   * grp[k] and rows sel[k] (k when sel is null), k in [from, to).
   */
  consumeNumbers(
    grp: Int32Array,
    sel: Int32Array | null,
    from: number,
    to: number,
    vals: Float64Array,
    nulls: Uint8Array | null,
  ): void {
    const sum = this.sum;
    const count = this.count;
    for (let k = from; k < to; k++) {
      const g = grp[k];
      if (g < 0) continue;
      const i = sel === null ? k : sel[k];
      if (nulls !== null && nulls[i] === 1) continue;
      sum[g] += vals[i];
      count[g]++;
    }
  }

  consumePartial(g: number, v: Value): void {
    const rt = v.type instanceof TypeRecord ? v.type : null;
    const sum = this.partialField(v, rt, 'sum');
    if (sum.type !== TypeFloat64) {
      throw new Error(`avg: partial sum has bad type: ${formatValue(sum)}`);
    }
    const s = decodeFloat(sum.buf, sum.off, sum.len);
    const count = this.partialField(v, rt, 'count');
    if (count.type !== TypeUint64) {
      throw new Error(`avg: partial count has bad type: ${formatValue(count)}`);
    }
    this.sum[g] += s;
    this.count[g] += decodeUint(count.buf, count.off, count.len);
  }

  /** The named field of a partial (an error when it is absent or null). */
  private partialField(v: Value, rt: TypeRecord | null, name: string): Value {
    const i = rt === null || v.len < 0 ? -1 : rt.indexOf(name);
    if (i < 0 || !fieldAt(v, rt!, i, field) || field.len < 0) {
      throw new Error(`avg: partial ${name} is missing`);
    }
    return field;
  }

  result(g: number, _zctx: TypeContext): Value {
    const n = this.count[g];
    return n > 0 ? out.float(TypeFloat64, this.sum[g] / n) : out.null(TypeFloat64);
  }

  resultPartial(g: number, zctx: TypeContext): Value {
    if (this.partialCtx !== zctx) {
      this.partialCtx = zctx;
      this.partialType = zctx.lookupTypeRecord([
        { name: 'sum', type: TypeFloat64 },
        { name: 'count', type: TypeUint64 },
      ]);
    }
    const b = builder;
    b.reset();
    b.grow(9);
    b.buf[0] = 9;
    b.buf.writeDoubleLE(this.sum[g], 1);
    b.len = 9;
    b.appendUint(this.count[g]);
    return out.copy(this.partialType!, b.buf, 0, b.len);
  }

  clear(): void {
    this.size = 0;
  }

  keep(groups: readonly number[]): void {
    groups.forEach((g, i) => {
      this.sum[i] = this.sum[g];
      this.count[i] = this.count[g];
    });
    this.size = groups.length;
  }
}

export const avg: AggDef = {
  name: 'avg',
  needsArg: true,
  column: () => new AvgColumn(),
};
