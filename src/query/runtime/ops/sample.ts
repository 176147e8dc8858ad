// The sample operator: `sample [expr]` emits one value of each type of
// expr (default this). As the reference defines it, it is
// `val:=any(expr) by typeof(expr) | yield val`: a summarize (so the same
// output order and spilling), then each group's value.

import { Type } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { fieldAt } from '../../../zed/record';
import { TypeRecord } from '../../../zed/types';
import { Aggregator } from '../../aggregates';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { Summarize } from './summarize';

/** typeof(e), with the type value cached per type. */
class TypeOf implements Expr {
  private lastType: Type | null = null;
  private lastVal: Value | null = null;

  constructor(
    private readonly ctx: QueryContext,
    private readonly e: Expr,
  ) {}

  eval(self: Value): Value {
    const t = this.e.eval(self).type;
    if (t !== this.lastType) {
      this.lastType = t;
      this.lastVal = this.ctx.zctx.typeValueOf(t);
    }
    return this.lastVal!;
  }
}

export class Sample implements Operator {
  private readonly sum: Summarize;

  constructor(ctx: QueryContext, parent: Operator, expr: Expr) {
    this.sum = new Summarize(ctx, parent, {
      keys: [{ lhs: ['typeof'], expr: new TypeOf(ctx, expr) }],
      aggs: [{ lhs: ['val'], agg: new Aggregator('any', expr) }],
    });
  }

  async pull(): Promise<Value[] | null> {
    const batch = await this.sum.pull();
    if (batch === null) return null;
    return batch.map((rec) => {
      const out = new Value(rec.type, rec.buf, 0, -1);
      fieldAt(rec, rec.type as TypeRecord, 1, out);
      return out;
    });
  }

  close(): Promise<void> {
    return this.sum.close();
  }
}
