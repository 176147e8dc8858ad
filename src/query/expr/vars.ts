// Variables: the locals of a lateral scope (`over ... with x=e => (...)`)
// and the parameters of user functions, with the reference's recursion
// limit.

import { TypeNull } from '../../zed/types';
import { Value } from '../../zed/value';
import { Expr } from './expr';

/**
 * The values of the lateral-scope variables of one query, by slot. The
 * `over` operator sets a scope's slots (to values it owns) before running
 * its body for an input value.
 */
export class Frame {
  vals: (Value | undefined)[] = [];
}

export class UnboundVariable extends Error {}

/** A lateral-scope variable. */
export class VarExpr implements Expr {
  constructor(
    readonly frame: Frame,
    readonly slot: number,
    readonly name: string,
  ) {}

  eval(): Value {
    const v = this.frame.vals[this.slot];
    if (v === undefined) throw new UnboundVariable(`variable ${this.name} is not bound`);
    return v;
  }
}

/** The reference's limit on nested user-function calls. */
export const MAX_STACK_DEPTH = 10_000;

export class StackOverflow extends Error {
  constructor() {
    super('stack overflow');
  }
}

/** Call depth shared by all user functions of a query. */
export class CallStack {
  depth = 0;
}

const NULL = Value.null(TypeNull);

/** A user function (`func name(params): (body)`). */
export class UserFunction {
  body: Expr | null = null;
  /** Arguments of the innermost active call. */
  args: Value[] = [];

  constructor(
    readonly name: string,
    readonly params: readonly string[],
    readonly stack: CallStack,
  ) {}
}

/** A parameter of a user function, read from its innermost call. */
export class ParamExpr implements Expr {
  constructor(
    readonly fn: UserFunction,
    readonly index: number,
  ) {}

  eval(): Value {
    return this.fn.args[this.index];
  }
}

/**
 * A call of a user function. Arguments and the result are copied: the
 * body may run this very node again (recursion), which would overwrite
 * memory its caller still holds.
 */
export class UserCall implements Expr {
  constructor(
    readonly fn: UserFunction,
    readonly args: Expr[],
  ) {}

  eval(self: Value): Value {
    const fn = this.fn;
    const args = new Array<Value>(this.args.length);
    for (let i = 0; i < args.length; i++) args[i] = this.args[i].eval(self).copy();
    const stack = fn.stack;
    if (stack.depth >= MAX_STACK_DEPTH) throw new StackOverflow();
    const saved = fn.args;
    fn.args = args;
    stack.depth++;
    try {
      return fn.body!.eval(NULL).copy();
    } catch (e) {
      if (e instanceof RangeError) throw new StackOverflow();
      throw e;
    } finally {
      stack.depth--;
      fn.args = saved;
    }
  }
}
