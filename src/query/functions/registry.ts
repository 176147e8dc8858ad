// The function registry: names → implementations with arity checks.
//
// A function is defined by its argument counts and a build step that turns
// the compiled argument expressions into an evaluator. Most functions are
// plain value functions (see valueFunction); some need the argument
// expressions themselves (casts with a constant type, lazy arguments).
//
// Adding a function: write it in a module of this folder that calls
// registerFunction(), and import that module from index.ts.

import { TypeContext } from '../../zed/context';
import { Value } from '../../zed/value';
import { Expr } from '../expr/expr';

/** What a function's build step may use. */
export interface FunctionEnv {
  zctx: TypeContext;
  /**
   * Evaluates an argument expression at compile time: its value when it is
   * a constant, or undefined (for casts and other functions that
   * specialise on constant arguments).
   */
  constant(e: Expr): Value | undefined;
}

export interface FunctionDef {
  /** Fewest and most arguments; maxArgs -1 means no limit. */
  minArgs: number;
  maxArgs: number;
  /**
   * The function always yields a bool, so a bare call of it used as an
   * operator is a filter (the reference's HasBoolResult).
   */
  boolResult?: boolean;
  /**
   * A field path passed as an extra first argument, as the reference does
   * for every() (ts), is() and nest_dotted() (this).
   */
  path?: readonly string[];
  /** Builds the evaluator (args already include the path argument). */
  build(args: Expr[], env: FunctionEnv): Expr;
}

const registry = new Map<string, FunctionDef>();

export function registerFunction(name: string, def: FunctionDef): void {
  registry.set(name, def);
}

/** The shaping functions, whose one-argument form shapes `this` (the compiler passes it). */
export const SHAPERS: ReadonlySet<string> = new Set([
  'cast',
  'crop',
  'fill',
  'fit',
  'order',
  'shape',
]);

export function lookupFunction(name: string): FunctionDef | undefined {
  return registry.get(name);
}

/** True when name is a function whose result is always a bool. */
export function hasBoolResult(name: string): boolean {
  return registry.get(name)?.boolResult === true;
}

/** An error in a call detected at compile time (the reference's texts). */
export class FunctionError extends Error {}

export const ERR_NO_SUCH_FUNCTION = 'no such function';
export const ERR_TOO_FEW = 'too few arguments';
export const ERR_TOO_MANY = 'too many arguments';

/** Checks the argument count of a call of def; returns an error text or null. */
export function checkArity(def: FunctionDef, n: number): string | null {
  if (def.minArgs >= 0 && n < def.minArgs) return ERR_TOO_FEW;
  if (def.maxArgs >= 0 && n > def.maxArgs) return ERR_TOO_MANY;
  return null;
}

/**
 * A function of argument values. The result may point into the
 * function's own memory (or its arguments): it is valid until the next
 * call, as Expr results are.
 */
export type ValueFn = (args: Value[]) => Value;

/** The evaluator of a call of a value function: evaluates the arguments, then calls fn. */
export class CallExpr implements Expr {
  private readonly vals: Value[];

  constructor(
    readonly fn: ValueFn,
    readonly args: Expr[],
  ) {
    this.vals = new Array<Value>(args.length);
  }

  eval(self: Value): Value {
    const vals = this.vals;
    const args = this.args;
    for (let i = 0; i < args.length; i++) vals[i] = args[i].eval(self);
    return this.fn(vals);
  }
}

/**
 * Defines a value function: make is called once per call site (so each
 * site has its own scratch memory) and returns the function.
 */
export function valueFunction(
  minArgs: number,
  maxArgs: number,
  make: (env: FunctionEnv) => ValueFn,
  opts: { boolResult?: boolean; path?: readonly string[] } = {},
): FunctionDef {
  return {
    minArgs,
    maxArgs,
    ...opts,
    build: (args, env) => new CallExpr(make(env), args),
  };
}
