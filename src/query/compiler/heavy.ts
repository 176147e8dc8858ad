// Wiring of the operators with their own state machines (fork, switch,
// join, merge, combine, summarize, top, uniq, fuse, shape, explode, over)
// into the graph. Kept apart from builder.ts so each operator's
// constructor is called in one place.

import { Operator } from '../runtime/operator';
import type { Builder } from './builder';
import * as dag from './dag';
import { CompileError } from './errors';
import { Expr } from '../expr/expr';
import { DuplicateFieldError } from '../../zed/context';
import { RecordBuilderError } from '../expr/recordbuilder';
import { Explode } from '../runtime/ops/explode';
import { Fuse } from '../runtime/ops/fuse';
import { Shape } from '../runtime/ops/shape';
import { Summarize } from '../runtime/ops/summarize';
import { Top } from '../runtime/ops/top';
import { Uniq } from '../runtime/ops/uniq';

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

function summarize(b: Builder, o: dag.Summarize, parent: Operator): Operator {
  const opts = {
    keys: o.keys.map((k) => ({ lhs: k.lhs, expr: b.expr(k.rhs) })),
    aggs: o.aggs.map((a) => ({ lhs: a.lhs, agg: b.aggregator(a.agg) })),
    limit: o.limit,
    inputSortDir: o.inputSortDir,
  };
  try {
    return new Summarize(b.env.ctx, parent, opts);
  } catch (e) {
    if (e instanceof DuplicateFieldError || e instanceof RecordBuilderError)
      throw new CompileError(e.message);
    throw e;
  }
}

export function buildHeavy(b: Builder): Heavy {
  return {
    fork: () => unavailable('fork'),
    switch: () => unavailable('switch'),
    join: () => unavailable('join'),
    merge: () => unavailable('merge'),
    combine: () => unavailable('combine'),
    leaf: (o, parent) => {
      const ctx = b.env.ctx;
      switch (o.kind) {
        case 'Summarize':
          return summarize(b, o, parent);
        case 'Top':
          return new Top(ctx, parent, { keys: b.exprs(o.args), limit: o.limit, flush: o.flush });
        case 'Uniq':
          return new Uniq(ctx, parent, o.cflag);
        case 'Fuse':
          return new Fuse(ctx, parent);
        case 'Shape':
          return new Shape(ctx, parent);
        case 'Explode':
          return new Explode(ctx, parent, b.exprs(o.args), o.type, o.as);
      }
      return unavailable(o.kind.toLowerCase());
    },
    overExpr: () => unavailable('over'),
  };
}
