// Wiring of the operators with their own state machines (fork, switch,
// join, merge, combine, summarize, top, uniq, fuse, shape, explode, over)
// into the graph. Kept apart from builder.ts so each operator's
// constructor is called in one place.

import { Operator } from '../runtime/operator';
import type { Builder } from './builder';
import * as dag from './dag';
import { CompileError } from './errors';
import { Expr } from '../expr/expr';

export interface Heavy {
  fork(o: dag.Fork, parents: Operator[]): Operator[];
  switch(o: dag.Switch, parents: Operator[]): Operator[];
  join(o: dag.Join, left: Operator, right: Operator): Operator;
  merge(o: dag.Merge, parents: Operator[]): Operator;
  combine(parents: Operator[]): Operator;
  leaf(o: dag.Op, parent: Operator): Operator;
  overExpr(e: dag.OverExpr): Expr;
}

function unavailable(what: string): never {
  throw new CompileError(`${what}: operator not available yet`);
}

export function buildHeavy(b: Builder): Heavy {
  void b;
  return {
    fork: () => unavailable('fork'),
    switch: () => unavailable('switch'),
    join: () => unavailable('join'),
    merge: () => unavailable('merge'),
    combine: () => unavailable('combine'),
    leaf: (o) => unavailable(o.kind.toLowerCase()),
    overExpr: () => unavailable('over'),
  };
}
