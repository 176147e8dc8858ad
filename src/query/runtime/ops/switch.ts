// The switch operator, in its two forms. Each case is a leg (an Operator
// among `outputs`) fed by a Router; the legs' results meet again in a
// Combine (or Merge).
//
// `switch ( case <bool-expr> => ... )` (Switch): each value goes to the
// first case whose expression is true. A case whose expression is an error
// gets that error value (and the next cases are still tried); a missing
// result just moves on. The compiler gives `default` the expression `true`,
// in its place among the cases, as the reference does.
//
// `switch <expr> ( case <const> => ... default => ... )` (ExprSwitch):
// each value goes to the case whose constant has the same bytes as expr's
// value (types are not compared, as in the reference), else to the default
// case if there is one; values whose expr is missing are dropped.

import { latin1 } from '../../../formats/zson/gotext';
import { TypeBool } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { isError, isMissing } from '../../expr/errors';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { Router } from './fork';

export class Switch {
  private readonly router: Router;

  constructor(ctx: QueryContext, parent: Operator, cases: Expr[]) {
    this.router = new Router(ctx, parent, cases.length, (batch, out) => {
      for (const self of batch) {
        for (let i = 0; i < cases.length; i++) {
          const v = cases[i].eval(self);
          if (isMissing(v)) continue;
          if (isError(v)) {
            out[i].push(v.copy());
            continue;
          }
          if (v.type === TypeBool && v.len > 0 && v.buf[v.off] !== 0) {
            out[i].push(self);
            break;
          }
        }
      }
    });
  }

  get outputs(): Operator[] {
    return this.router.outputs;
  }
}

function keyOf(v: Value): string {
  return v.len <= 0 ? '' : latin1(v.buf, v.off, v.off + v.len);
}

export class ExprSwitch {
  private readonly router: Router;

  /** cases[i] is case i's constant, or null for the default case. */
  constructor(ctx: QueryContext, parent: Operator, expr: Expr, cases: (Value | null)[]) {
    const index = new Map<string, number>();
    let dflt = -1;
    cases.forEach((c, i) => {
      if (c === null) dflt = i;
      else if (!index.has(keyOf(c))) index.set(keyOf(c), i);
    });
    this.router = new Router(ctx, parent, cases.length, (batch, out) => {
      for (const self of batch) {
        const v = expr.eval(self);
        if (isMissing(v)) continue;
        const i = index.get(keyOf(v)) ?? dflt;
        if (i >= 0) out[i].push(self);
      }
    });
  }

  get outputs(): Operator[] {
    return this.router.outputs;
  }
}
