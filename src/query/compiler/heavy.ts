// Wiring of the operators with their own state machines (fork, switch,
// join, merge, combine, summarize, top, uniq, fuse, shape, explode, over)
// into the graph. Kept apart from builder.ts so each operator's
// constructor is called in one place.

import { Operator } from '../runtime/operator';
import * as dag from './dag';
import { CompileError } from './errors';
import { Expr } from '../expr/expr';
import { RecordBuilderError } from '../expr/recordbuilder';
import { isError } from '../expr/errors';
import { Builder, evalAtCompileTime } from './builder';
import { Combine } from '../runtime/ops/combine';
import { Explode } from '../runtime/ops/explode';
import { Fork } from '../runtime/ops/fork';
import { Join } from '../runtime/ops/join';
import { Merge } from '../runtime/ops/merge';
import { Over } from '../runtime/ops/over';
import { ArraySource } from '../runtime/operator';
import { lateralExpr, stepsQuery, stepsSupport } from './lateral';
import { ExprSwitch, Switch } from '../runtime/ops/switch';
import { Fuse } from '../runtime/ops/fuse';
import { Shape } from '../runtime/ops/shape';
import { orderedKeyType, Summarize, SummarizeOptions } from '../runtime/ops/summarize';
import { DataId, DataSource, KeyRange, PoolHandle } from '../data/source';
import { DuplicateFieldError } from '../../zed/context';
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
  return buildSummarize(b, o, (opts) => new Summarize(b.env.ctx, parent, opts));
}

/** A summarize made by make from o's compiled options (its errors are compile errors). */
export function buildSummarize<T>(
  b: Builder,
  o: dag.Summarize,
  make: (opts: SummarizeOptions) => T,
): T {
  const source = b.env.source;
  const scan = o.inputScan;
  const opts: SummarizeOptions = {
    keys: o.keys.map((k) => ({ lhs: k.lhs, expr: b.expr(k.rhs) })),
    aggs: o.aggs.map((a) => ({ lhs: a.lhs, agg: b.aggregator(a.agg) })),
    limit: o.limit,
    inputSortDir: o.inputSortDir,
    ...(o.inputSortDir !== 0 && scan && source
      ? { inputOrderCheck: () => poolKeysOrdered(source, scan.pool, scan.commit, scan.range) }
      : {}),
  };
  try {
    return make(opts);
  } catch (e) {
    if (e instanceof DuplicateFieldError || e instanceof RecordBuilderError)
      throw new CompileError(e.message);
    throw e;
  }
}

/**
 * Whether a scan of the pool at the commit (within range) comes out in the
 * order a sorted summarize takes it in: the keys (nulls and missing ones
 * aside) are of one type that orderedKeyType accepts. Keys of mixed types
 * merge in no order, and a group the summarize emitted could come back.
 * Where the source knows the keys only by each object's first and last,
 * the summarize catches a key of another type between them as it arrives
 * (too late for a group emitted before it: docs/compatibility.md).
 */
async function poolKeysOrdered(
  source: DataSource,
  pool: PoolHandle,
  commit: DataId,
  range: KeyRange | null,
): Promise<boolean> {
  if (!source.poolKeyType) return false;
  try {
    const k = await source.poolKeyType(pool, commit, range);
    return k !== 'mixed' && k.type !== null && orderedKeyType(k.type);
  } catch {
    // The scan reports what went wrong; without the keys' type, no early output.
    return false;
  }
}

/** Does the sequence begin with a source (so it takes no parent)? */
function isEntry(seq: dag.Seq): boolean {
  const op = seq[0];
  if (op === undefined) return false;
  if (dag.isSource(op)) return true;
  return op.kind === 'Fork' && op.paths.length > 0 && op.paths.every(isEntry);
}

/** The single input of an operator fed by parents (several are combined). */
function single(b: Builder, parents: Operator[]): Operator {
  return parents.length === 1 ? parents[0] : new Combine(b.env.ctx, parents);
}

function fork(b: Builder, o: dag.Fork, parents: Operator[]): Operator[] {
  const legs = o.paths.filter((p) => !isEntry(p)).length;
  let exits: Operator[] = [];
  if (parents.length > 0 && legs > 0) exits = new Fork(b.env.ctx, single(b, parents), legs).outputs;
  const out: Operator[] = [];
  let leg = 0;
  for (const path of o.paths) {
    const ins = isEntry(path) || exits.length === 0 ? [] : [exits[leg++]];
    out.push(...b.seq(path, ins));
  }
  return out;
}

function switchOp(b: Builder, o: dag.Switch, parents: Operator[]): Operator[] {
  const ctx = b.env.ctx;
  if (o.expr !== null) {
    if (parents.length !== 1) throw new CompileError('expression switch has multiple parents');
    const cases = o.cases.map((c) => {
      if (c.expr === null) return null;
      const v = evalAtCompileTime(b.zctx, c.expr);
      if (isError(v)) throw new CompileError('switch case is not a constant expression');
      return v.copy();
    });
    const sw = new ExprSwitch(ctx, parents[0], b.expr(o.expr), cases);
    return o.cases.flatMap((c, i) => b.seq(c.path, [sw.outputs[i]]));
  }
  let ins = parents;
  if (parents.length === 1) {
    ins = new Switch(
      ctx,
      parents[0],
      o.cases.map((c) => b.expr(c.expr!)),
    ).outputs;
  }
  if (ins.length !== o.cases.length) {
    throw new CompileError(`${ins.length} parents for switch with ${o.cases.length} branches`);
  }
  return o.cases.flatMap((c, i) => b.seq(c.path, [ins[i]]));
}

function over(b: Builder, o: dag.Over, parent: Operator): Operator {
  const exprs = b.exprs(o.exprs);
  const body = o.body;
  if (body === null) return new Over(b.env.ctx, parent, { exprs });
  const locals = o.defs.map((d) => ({ slot: d.slot, expr: b.expr(d.expr) }));
  const frame = b.frame;
  if (stepsSupport(body)) {
    return new Over(b.env.ctx, parent, {
      exprs,
      scope: { frame, locals, steps: stepsQuery(b, body) },
    });
  }
  // Operators hold state, so each input value gets the body built anew.
  // Build it once now so its compile errors come before the query runs.
  b.seq(body, [new ArraySource([])]);
  const make = (source: Operator) => single(b, b.seq(body, [source]));
  return new Over(b.env.ctx, parent, { exprs, scope: { frame, locals, body: make } });
}

export function buildHeavy(b: Builder): Heavy {
  return {
    fork: (o, parents) => fork(b, o, parents),
    switch: (o, parents) => switchOp(b, o, parents),
    join: (o, left, right) =>
      new Join(b.env.ctx, left, right, {
        style: o.style,
        leftKey: b.expr(o.leftKey),
        rightKey: b.expr(o.rightKey),
        assignments: o.args.map((a) => ({ lhs: a.lhs, rhs: b.expr(a.rhs) })),
      }),
    merge: (o, parents) => {
      if (parents.length < 2) throw new CompileError('merge: multiple upstream paths required');
      return new Merge(b.env.ctx, parents, [b.expr(o.expr)], o.order);
    },
    combine: (parents) => new Combine(b.env.ctx, parents),
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
        case 'Over':
          return over(b, o, parent);
      }
      return unavailable(o.kind.toLowerCase());
    },
    overExpr: (e) => lateralExpr(b, e),
  };
}
