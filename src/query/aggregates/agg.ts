// The aggregation framework: aggregate functions (count, sum, ...), the
// registry that names them, and the Aggregator that feeds one function the
// values of an aggregate call `name(expr) where pred`.
//
// An AggFunction holds the state of one aggregation (one group of a
// summarize, or one running aggregate in an expression). Besides consuming
// values it can export its state as a *partial* value and consume partials
// of other instances, so summarize can spill partial results to disk and
// merge them later (the reference's ResultAsPartial/ConsumeAsPartial).
//
// Adding an aggregate: write src/query/aggregates/<name>.ts exporting an
// AggDef, and add it to the list in index.ts.

import { TypeContext } from '../../zed/context';
import { TypeBool } from '../../zed/types';
import { Value } from '../../zed/value';
import { isMissing } from '../expr/errors';
import { Expr, TRUE } from '../expr/expr';

/** The state of one aggregation. */
export interface AggFunction {
  /** Adds a value (never error("missing"): the Aggregator drops those). */
  consume(v: Value): void;
  /** Adds a partial result produced by resultPartial() of another instance. */
  consumePartial(v: Value): void;
  /**
   * The aggregate's value. The result may point into memory shared by all
   * aggregate functions: it is valid until the next result()/resultPartial()
   * call on any AggFunction; copy it to keep it.
   */
  result(zctx: TypeContext): Value;
  /** The state as a value for consumePartial (same lifetime as result()). */
  resultPartial(zctx: TypeContext): Value;
}

/** An aggregate function's definition. */
export interface AggDef {
  name: string;
  /** False only for count, whose argument is optional. */
  needsArg: boolean;
  create(): AggFunction;
}

const registry = new Map<string, AggDef>();

export function registerAggregate(def: AggDef): void {
  registry.set(def.name, def);
}

/** The definition of the named aggregate, or undefined. */
export function lookupAggregate(name: string): AggDef | undefined {
  return registry.get(name);
}

/** True when name is an aggregate function (for the compiler's checks). */
export function isAggregate(name: string): boolean {
  return registry.has(name);
}

/** Names of all registered aggregates. */
export function aggregateNames(): string[] {
  return [...registry.keys()];
}

/** Thrown for an unknown aggregate or a missing argument (the reference's texts). */
export class AggregateError extends Error {}

/**
 * One aggregate call: `name([expr]) [where pred]`. It creates function
 * instances and applies values to them: a value is skipped when `where`
 * is not true, and when expr evaluates to error("missing").
 */
export class Aggregator {
  readonly def: AggDef;
  /** The argument; null for `count()`, which counts every value. */
  readonly expr: Expr | null;
  readonly where: Expr | null;

  constructor(name: string, expr: Expr | null, where: Expr | null = null) {
    const def = registry.get(name);
    if (!def) throw new AggregateError(`unknown aggregation function: ${name}`);
    if (def.needsArg && !expr) throw new AggregateError(`${name}: argument required`);
    this.def = def;
    this.expr = expr;
    this.where = where;
  }

  newFunction(): AggFunction {
    return this.def.create();
  }

  /** Feeds self (through where and expr) to f. */
  apply(f: AggFunction, self: Value): void {
    const where = this.where;
    if (where !== null) {
      const w = where.eval(self);
      // Only a true bool passes; null, errors and non-bools do not.
      if (w.type.under !== TypeBool || w.len <= 0 || w.buf[w.off] === 0) return;
    }
    if (this.expr === null) {
      f.consume(TRUE);
      return;
    }
    const v = this.expr.eval(self);
    if (!isMissing(v)) f.consume(v);
  }
}

/**
 * A running aggregate in an expression (`put x:=sum(y)`): each eval
 * applies the input to one function instance that lives as long as the
 * expression, and returns the aggregate so far. The compiler calls this
 * for an aggregate call outside summarize.
 */
export function newAggregatorExpr(zctx: TypeContext, agg: Aggregator): Expr {
  return new AggregatorExpr(zctx, agg);
}

class AggregatorExpr implements Expr {
  private fn: AggFunction | null = null;
  private buf = Buffer.allocUnsafe(16);
  private readonly out = new Value(TypeBool, this.buf, 0, -1);

  constructor(
    private readonly zctx: TypeContext,
    private readonly agg: Aggregator,
  ) {}

  eval(self: Value): Value {
    const fn = (this.fn ??= this.agg.newFunction());
    this.agg.apply(fn, self);
    const r = fn.result(this.zctx);
    // Results live in memory shared by all aggregates: copy into this
    // node's own memory so the value lasts until the node's next eval.
    if (r.len < 0) return this.out.set(r.type, this.buf, 0, -1);
    if (this.buf.length < r.len)
      this.buf = Buffer.allocUnsafe(Math.max(r.len, this.buf.length * 2));
    r.buf.copy(this.buf, 0, r.off, r.off + r.len);
    return this.out.set(r.type, this.buf, 0, r.len);
  }
}
