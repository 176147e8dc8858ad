// where / search / an implied filter: keeps the values for which the
// predicate is true. A predicate that is not a bool yields an error value
// in the output (the reference's behaviour), except error("missing") and
// error("quiet"), which drop the value silently.

import { TypeContext } from '../../../zed/context';
import { TypeBool } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { formatValue } from '../../../formats/zson';
import { isError, isMissing, isQuiet, newError } from '../../expr/errors';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { BatchMap } from './apply';

/**
 * Applies a filter to a batch in place of an operator (sources use this
 * for a pushed-down predicate). Returns the values to emit.
 */
export class FilterFn {
  constructor(
    private readonly zctx: TypeContext,
    readonly expr: Expr,
  ) {}

  /** v when the predicate holds, null to drop it, or an error value to emit instead. */
  test(v: Value): Value | null {
    const r = this.expr.eval(v);
    if (r.type.under === TypeBool) return r.len > 0 && r.buf[r.off] !== 0 ? v : null;
    if (isError(r)) return isMissing(r) || isQuiet(r) ? null : r;
    return newError(this.zctx, `not type bool: ${formatValue(r)}`);
  }
}

export class Filter extends BatchMap {
  private readonly fn: FilterFn;

  constructor(ctx: QueryContext, parent: Operator, expr: Expr) {
    super(ctx, parent);
    this.fn = new FilterFn(ctx.zctx, expr);
  }

  protected map(batch: Value[], out: Value[]): void {
    const fn = this.fn;
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      const r = fn.test(v);
      if (r === null) continue;
      out.push(r === v ? v : this.keep(r, v));
    }
  }
}
