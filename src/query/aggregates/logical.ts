// The state of and/or for many groups: one byte per group, -1 until a
// boolean arrives, then the running result. Values that are null or not
// (named) bools are skipped, never coerced for truthiness. The partial is
// the result (a bool, null when no boolean came).

import { TypeContext } from '../../zed/context';
import { TypeBool } from '../../zed/types';
import { Value } from '../../zed/value';
import { Scratch } from '../expr/scratch';
import { AggColumn } from './agg';
import { growInt8 } from './grow';

const out = new Scratch();

export class LogicalColumn implements AggColumn {
  private state = new Int8Array(16);
  size = 0;

  /** name names the aggregate in errors; and: true for AND, false for OR. */
  constructor(
    private readonly name: string,
    private readonly and: boolean,
  ) {}

  add(): void {
    if (this.size === this.state.length) this.state = growInt8(this.state);
    this.state[this.size++] = -1;
  }

  consume(g: number, v: Value): void {
    if (v.len < 0 || v.type.under !== TypeBool) return;
    const b = v.len > 0 && v.buf[v.off] !== 0;
    const s = this.state[g];
    if (this.and) this.state[g] = s !== 0 && b ? 1 : 0;
    else this.state[g] = s === 1 || b ? 1 : 0;
  }

  consumePartial(g: number, v: Value): void {
    if (v.type !== TypeBool) throw new Error(`${this.name}: partial not a bool`);
    this.consume(g, v);
  }

  result(g: number, _zctx: TypeContext): Value {
    const s = this.state[g];
    if (s < 0) return out.null(TypeBool);
    out.buf[0] = s;
    return out.view(TypeBool, out.buf, 0, 1);
  }

  resultPartial(g: number, zctx: TypeContext): Value {
    return this.result(g, zctx);
  }

  clear(): void {
    this.size = 0;
  }

  keep(groups: readonly number[]): void {
    groups.forEach((g, i) => (this.state[i] = this.state[g]));
    this.size = groups.length;
  }
}
