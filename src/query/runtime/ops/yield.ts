// yield: each expression's value for each input value (error("quiet")
// values are dropped; other errors, including missing, are output).

import { Value } from '../../../zed/value';
import { isQuiet } from '../../expr/errors';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { BatchMap } from './apply';

export class Yield extends BatchMap {
  constructor(
    ctx: QueryContext,
    parent: Operator,
    private readonly exprs: Expr[],
  ) {
    super(ctx, parent);
  }

  protected map(batch: Value[], out: Value[]): void {
    const exprs = this.exprs;
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      for (let k = 0; k < exprs.length; k++) {
        const r = exprs[k].eval(v);
        if (r.type.kind === 7 && isQuiet(r)) continue;
        out.push(this.keep(r, v));
      }
    }
  }
}
