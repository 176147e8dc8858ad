// The aggregation framework: aggregate functions (count, sum, ...), the
// registry that names them, and the Aggregator that feeds one function the
// values of an aggregate call `name(expr) where pred`.
//
// An AggFunction holds the state of one aggregation (one group of a
// summarize, or one running aggregate in an expression). Besides consuming
// values it can export its state as a *partial* value and consume partials
// of other instances, so summarize can spill partial results to disk and
// merge them later (the reference's ResultAsPartial/ConsumeAsPartial).
// An AggColumn is the same for many groups at once, numbered 0, 1, ...:
// summarize keeps one column per aggregate, so an aggregate that provides
// a column (count, sum) costs no object per group. An aggregate defines
// either or both; the other is derived.
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

/** The state of one aggregate for many groups (see AggFunction). */
export interface AggColumn {
  /** Number of groups. */
  readonly size: number;
  /** Adds a group, numbered size-1. */
  add(): void;
  consume(g: number, v: Value): void;
  consumePartial(g: number, v: Value): void;
  /** As AggFunction.result (same lifetime). */
  result(g: number, zctx: TypeContext): Value;
  resultPartial(g: number, zctx: TypeContext): Value;
  /** Removes every group. */
  clear(): void;
  /** Keeps the listed groups (ascending old numbers), renumbered 0, 1, ... */
  keep(groups: readonly number[]): void;
  /**
   * Optional: reads the state of groups[0, n) (entries below 0 are
   * skipped) so that consuming their values next hits the cache; the
   * reads are independent, so their cache misses overlap. Returns a
   * value derived from the reads, which callers keep.
   */
  touch?(groups: Int32Array, n: number): number;
  /**
   * Optional: readies the state that reading every group's result (or
   * partial) needs, waiting without blocking; Summarize calls it before
   * reading the groups out (a column that keeps its state on another
   * thread: dcountaside.ts).
   */
  prepare?(partial: boolean): Promise<void>;
}

/** An aggregate function's definition: create, column, or both. */
export interface AggDef {
  name: string;
  /** False only for count, whose argument is optional. */
  needsArg: boolean;
  create?(): AggFunction;
  column?(): AggColumn;
}

/** A column of AggFunction instances, for aggregates without their own column. */
class FunctionColumn implements AggColumn {
  private fns: AggFunction[] = [];
  constructor(private readonly create: () => AggFunction) {}
  get size(): number {
    return this.fns.length;
  }
  add(): void {
    this.fns.push(this.create());
  }
  consume(g: number, v: Value): void {
    this.fns[g].consume(v);
  }
  consumePartial(g: number, v: Value): void {
    this.fns[g].consumePartial(v);
  }
  result(g: number, zctx: TypeContext): Value {
    return this.fns[g].result(zctx);
  }
  resultPartial(g: number, zctx: TypeContext): Value {
    return this.fns[g].resultPartial(zctx);
  }
  clear(): void {
    this.fns = [];
  }
  keep(groups: readonly number[]): void {
    this.fns = groups.map((g) => this.fns[g]);
  }
}

/** An AggFunction over a one-group column. */
class ColumnFunction implements AggFunction {
  constructor(private readonly col: AggColumn) {
    col.add();
  }
  consume(v: Value): void {
    this.col.consume(0, v);
  }
  consumePartial(v: Value): void {
    this.col.consumePartial(0, v);
  }
  result(zctx: TypeContext): Value {
    return this.col.result(0, zctx);
  }
  resultPartial(zctx: TypeContext): Value {
    return this.col.resultPartial(0, zctx);
  }
}

/** A new function instance of def. */
export function newFunction(def: AggDef): AggFunction {
  return def.create ? def.create() : new ColumnFunction(def.column!());
}

/** A new (empty) column of def. */
export function newColumn(def: AggDef): AggColumn {
  return def.column ? def.column() : new FunctionColumn(def.create!);
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
    return newFunction(this.def);
  }

  newColumn(): AggColumn {
    return newColumn(this.def);
  }

  /**
   * The value self contributes: the argument's value (TRUE for count()),
   * or null when where is not true or the argument is missing.
   */
  input(self: Value): Value | null {
    const where = this.where;
    if (where !== null) {
      const w = where.eval(self);
      // Only a true bool passes; null, errors and non-bools do not.
      if (w.type.under !== TypeBool || w.len <= 0 || w.buf[w.off] === 0) return null;
    }
    if (this.expr === null) return TRUE;
    const v = this.expr.eval(self);
    return isMissing(v) ? null : v;
  }

  /** Feeds self (through where and expr) to f. */
  apply(f: AggFunction, self: Value): void {
    const v = this.input(self);
    if (v !== null) f.consume(v);
  }

  /** Feeds self (through where and expr) to group g of col. */
  applyTo(col: AggColumn, g: number, self: Value): void {
    const v = this.input(self);
    if (v !== null) col.consume(g, v);
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
