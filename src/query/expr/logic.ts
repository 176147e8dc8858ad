// Logic: `!`, `and`, `or` and `?:`, with the reference's handling of
// null (false), errors (passed through) and error("missing") (which `or`
// treats as false on its left).

import { TypeContext } from '../../zed/context';
import { formatValue } from '../../formats/zson';
import { ID, TypeBool } from '../../zed/types';
import { Value } from '../../zed/value';
import { isError, isMissing, newError } from './errors';
import { Expr, FALSE, TRUE } from './expr';

/** True for a non-null true of a bool type (named bools too). */
function truthy(v: Value): boolean {
  return v.len > 0 && v.buf[v.off] !== 0;
}

/**
 * Evaluates e as a boolean: the bool value, or (when it is not a bool)
 * an error: the value itself if it is one, else "not type bool: <v>".
 * Callers tell the cases apart with isBoolValue.
 */
export function evalBool(zctx: TypeContext, e: Expr, self: Value): Value {
  const v = e.eval(self);
  if (v.type.under === TypeBool || isError(v)) return v;
  return newError(zctx, `not type bool: ${formatValue(v)}`);
}

export function isBoolValue(v: Value): boolean {
  return v.type.under === TypeBool;
}

export class Not implements Expr {
  constructor(
    private readonly zctx: TypeContext,
    readonly operand: Expr,
  ) {}

  eval(self: Value): Value {
    const v = evalBool(this.zctx, this.operand, self);
    if (!isBoolValue(v)) return v;
    return truthy(v) ? FALSE : TRUE;
  }
}

export class And implements Expr {
  constructor(
    private readonly zctx: TypeContext,
    readonly lhs: Expr,
    readonly rhs: Expr,
  ) {}

  eval(self: Value): Value {
    const l = evalBool(this.zctx, this.lhs, self);
    if (!isBoolValue(l)) return l;
    if (!truthy(l)) return FALSE;
    const r = evalBool(this.zctx, this.rhs, self);
    if (!isBoolValue(r)) return r;
    return truthy(r) ? TRUE : FALSE;
  }
}

export class Or implements Expr {
  constructor(
    private readonly zctx: TypeContext,
    readonly lhs: Expr,
    readonly rhs: Expr,
  ) {}

  eval(self: Value): Value {
    const l = evalBool(this.zctx, this.lhs, self);
    if (isBoolValue(l)) {
      if (truthy(l)) return TRUE;
    } else if (!isMissing(l)) {
      return l;
    }
    const r = evalBool(this.zctx, this.rhs, self);
    if (!isBoolValue(r)) return r;
    return truthy(r) ? TRUE : FALSE;
  }
}

/** `cond ? then : else`: only the chosen branch is evaluated. */
export class Conditional implements Expr {
  constructor(
    private readonly zctx: TypeContext,
    readonly cond: Expr,
    readonly then: Expr,
    readonly otherwise: Expr,
  ) {}

  eval(self: Value): Value {
    const c = this.cond.eval(self);
    if (c.type.under.id !== ID.Bool)
      return newError(this.zctx, '?-operator: bool predicate required');
    return truthy(c) ? this.then.eval(self) : this.otherwise.eval(self);
  }
}
