// The builder: dataflow graph → running operators and expression
// evaluators (the reference's compiler/kernel). Comparisons against
// constants become specialised predicates; calls are resolved in the
// function registry (and checked for arity); aggregates become
// aggregators; sources get the filters and key ranges the optimizer
// pushed into them.

import { TypeContext, DuplicateFieldError } from '../../zed/context';
import { ID, TypeIP, TypeNet, TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { ValueReader } from '../../formats/io';
import { AggregateError, Aggregator, newAggregatorExpr } from '../aggregates';
import { Arith } from '../expr/arith';
import {
  comparison,
  Compare,
  CompareOp,
  contains,
  Equal,
  In,
  PredicateExpr,
  taggedBytes,
} from '../expr/compare';
import { MapExpr, recordExpr, VectorExpr } from '../expr/containers';
import { isError } from '../expr/errors';
import { Expr } from '../expr/expr';
import { IndexExpr, SliceExpr } from '../expr/index-expr';
import { Literal } from '../expr/literal';
import { And, Conditional, Not, Or } from '../expr/logic';
import { Negate } from '../expr/arith';
import { DotExpr, fieldPath } from '../expr/path';
import { RecordBuilder, RecordBuilderError } from '../expr/recordbuilder';
import { compileRegexp } from '../expr/regexp';
import { RegexpMatch, SearchNet, SearchPattern, SearchString, SearchValue } from '../expr/search';
import { CallStack, Frame, ParamExpr, UserCall, UserFunction, VarExpr } from '../expr/vars';
import { checkArity, FunctionEnv, lookupFunction, SHAPERS } from '../functions';
import { QueryContext } from '../runtime/context';
import { Operator } from '../runtime/operator';
import { Cut, CutField } from '../runtime/ops/cut';
import { Drop } from '../runtime/ops/drop';
import { Filter } from '../runtime/ops/filter';
import { Head } from '../runtime/ops/head';
import { Pass } from '../runtime/ops/pass';
import {
  commitMetaSource,
  lakeMetaSource,
  Load,
  PoolSource,
  poolMetaSource,
} from '../runtime/ops/pool';
import { Put, PutError, Putter } from '../runtime/ops/put';
import { Rename } from '../runtime/ops/rename';
import { openFile, openURL, ReaderScan } from '../runtime/ops/scan';
import { Sort } from '../runtime/ops/sort';
import { Tail } from '../runtime/ops/tail';
import { Yield } from '../runtime/ops/yield';
import { DataSource, poolKeyPath, VectorMode } from '../data/source';
import { frameFilter, patternFinder, searchFinder } from './bufferfilter';
import { buildTopN } from './topn';
import { buildVectorized, compileMatch, envVectorMode } from './vectorize';
import * as dag from './dag';
import { indexFilter } from './indexfilter';
import { CompileError } from './errors';
import { spanPruner } from './optimizer';
import { buildHeavy } from './heavy';

export interface BuildEnv {
  ctx: QueryContext;
  source?: DataSource;
  /** Inputs of Reader sources, by index (opened on first pull). */
  readers?: (() => Promise<ValueReader>)[];
  /** `file` may read local files. */
  allowFiles?: boolean;
  /** `get` may fetch URLs. */
  allowHTTP?: boolean;
  /** When sources feed the vector engine (default: the source's mode, else ZLAKE_VECTOR_SCAN). */
  vector?: VectorMode;
}

/**
 * Evaluates e against a missing `this`: constants give their value,
 * anything else error("missing"). Throws CompileError when e does not
 * compile (an unknown function...).
 */
export function evalAtCompileTime(zctx: TypeContext, e: dag.Expr): Value {
  const b = new Builder({ ctx: new QueryContext({ zctx }) });
  const x = b.expr(e);
  try {
    const v = x.eval(zctx.missing());
    return v === undefined ? zctx.missing() : v;
  } catch {
    return zctx.missing();
  }
}

export class Builder {
  readonly zctx: TypeContext;
  /** Values of lateral-scope variables (set by `over`). */
  get frame(): Frame {
    return this.vars;
  }
  private vars = new Frame();
  private readonly stack = new CallStack();
  private readonly funcs = new Map<dag.Func, UserFunction>();
  /**
   * While a user function's body is compiled: its running aggregates, which
   * every compiled copy of the body shares (one state, as the reference's
   * single body has).
   */
  private bodyAggs: Map<dag.Agg, Expr> | null = null;
  private readonly fenv: FunctionEnv;

  constructor(readonly env: BuildEnv) {
    this.zctx = env.ctx.zctx;
    this.fenv = {
      zctx: this.zctx,
      constant: (e) => this.constant(e),
    };
  }

  /** The value of an evaluator when it is a constant. */
  private constant(e: Expr): Value | undefined {
    if (e instanceof Literal) return e.value;
    return undefined;
  }

  // -------------------------------------------------------------------------
  // Expressions

  /**
   * e compiled with its variables read from frame instead of the query's
   * (a vector operator binds them to the values of columns, row by row).
   */
  exprIn(frame: Frame, e: dag.Expr): Expr {
    const saved = this.vars;
    this.vars = frame;
    try {
      return this.expr(e);
    } finally {
      this.vars = saved;
    }
  }

  exprs(es: dag.Expr[]): Expr[] {
    return es.map((e) => this.expr(e));
  }

  expr(e: dag.Expr): Expr {
    const zctx = this.zctx;
    switch (e.kind) {
      case 'Literal':
        return new Literal(e.value);
      case 'This':
        return fieldPath(zctx, e.path);
      case 'Var':
        return new VarExpr(this.vars, e.slot, e.name);
      case 'Param':
        return new ParamExpr(this.userFunction(e.fn), e.index);
      case 'Dot':
        return new DotExpr(zctx, this.expr(e.lhs), e.rhs);
      case 'Unary':
        return e.op === '-'
          ? new Negate(zctx, this.expr(e.operand))
          : new Not(zctx, this.expr(e.operand));
      case 'Binary':
        return this.binary(e);
      case 'Slice':
        return new SliceExpr(
          zctx,
          this.expr(e.lhs),
          e.from === null ? null : this.expr(e.from),
          e.to === null ? null : this.expr(e.to),
        );
      case 'Conditional':
        return new Conditional(zctx, this.expr(e.cond), this.expr(e.then), this.expr(e.else));
      case 'Call':
        return this.call(e);
      case 'UserCall':
        return new UserCall(this.userFunction(e.fn), this.exprs(e.args));
      case 'Agg': {
        const shared = this.bodyAggs?.get(e);
        if (shared !== undefined) return shared;
        const agg = newAggregatorExpr(zctx, this.aggregator(e));
        this.bodyAggs?.set(e, agg);
        return agg;
      }
      case 'Search':
        return this.search(e);
      case 'RegexpSearch': {
        const re = this.regexp(e.pattern);
        return new SearchPattern(re, this.expr(e.expr), patternFinder(re));
      }
      case 'RegexpMatch': {
        const re = this.regexp(e.pattern);
        return new RegexpMatch(re, this.expr(e.expr), patternFinder(re));
      }
      case 'RecordExpr':
        return recordExpr(
          zctx,
          e.elems.map((el) =>
            el.kind === 'Field'
              ? { name: el.name, expr: this.expr(el.value) }
              : { name: null, expr: this.expr(el.expr) },
          ),
        );
      case 'ArrayExpr':
        return new VectorExpr(
          zctx,
          e.elems.map((el) => ({ spread: el.spread, expr: this.expr(el.expr) })),
          false,
        );
      case 'SetExpr':
        return new VectorExpr(
          zctx,
          e.elems.map((el) => ({ spread: el.spread, expr: this.expr(el.expr) })),
          true,
        );
      case 'MapExpr':
        return new MapExpr(
          zctx,
          e.entries.map((en) => ({ key: this.expr(en.key), value: this.expr(en.value) })),
        );
      case 'OverExpr':
        return buildHeavy(this).overExpr(e);
    }
  }

  /** The runtime function of a user function (its body compiled on first use). */
  userFunction(fn: dag.Func): UserFunction {
    let u = this.funcs.get(fn);
    if (u === undefined) {
      u = new UserFunction(fn.name, fn.params, this.stack);
      this.funcs.set(fn, u);
      const body = fn.expr;
      if (body === null) throw new CompileError(`${fn.name}(): function body not defined`);
      const aggs = new Map<dag.Agg, Expr>();
      u.compile = () => {
        const saved = this.bodyAggs;
        this.bodyAggs = aggs;
        try {
          return this.expr(body);
        } finally {
          this.bodyAggs = saved;
        }
      };
      u.bodies.push(u.compile());
    }
    return u;
  }

  aggregator(a: dag.Agg): Aggregator {
    const expr = a.expr === null ? null : this.expr(a.expr);
    const where = a.where === null ? null : this.expr(a.where);
    try {
      return new Aggregator(a.name, expr, where);
    } catch (e) {
      if (e instanceof AggregateError) throw new CompileError(e.message);
      throw e;
    }
  }

  private regexp(pattern: string): RegExp {
    try {
      return compileRegexp(pattern);
    } catch (e) {
      throw new CompileError((e as Error).message);
    }
  }

  /** evalAtCompileTime, with compile errors left for the full compile to report. */
  private constValue(e: dag.Expr): Value {
    try {
      return evalAtCompileTime(this.zctx, e);
    } catch {
      return this.zctx.missing();
    }
  }

  private binary(e: dag.Binary): Expr {
    const zctx = this.zctx;
    const op = e.op;
    if (op === 'in') {
      const lit = this.constValue(e.lhs);
      if (!isError(lit)) {
        const pred = comparison('==', lit);
        if (pred !== null) return new PredicateExpr(this.expr(e.rhs), contains(pred));
      }
    }
    if (op === '==' || op === '!=' || op === '<' || op === '<=' || op === '>' || op === '>=') {
      const lit = this.constValue(e.rhs);
      if (!isError(lit)) {
        const c = lit.copy();
        const pred = comparison(op, c);
        if (pred !== null)
          return new PredicateExpr(
            this.expr(e.lhs),
            pred,
            op === '==' && c.type.under.id === ID.String ? taggedBytes(c) : null,
          );
      }
    }
    const lhs = this.expr(e.lhs);
    const rhs = this.expr(e.rhs);
    switch (op) {
      case 'and':
        return new And(zctx, lhs, rhs);
      case 'or':
        return new Or(zctx, lhs, rhs);
      case 'in':
        return new In(zctx, lhs, rhs);
      case '==':
      case '!=':
        return new Equal(lhs, rhs, op === '==');
      case '<':
      case '<=':
      case '>':
      case '>=':
        return new Compare(zctx, lhs, rhs, op as CompareOp);
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
        return new Arith(zctx, op, lhs, rhs);
      case '[':
        return new IndexExpr(zctx, lhs, rhs);
    }
  }

  private call(e: dag.Call): Expr {
    const name = e.name;
    if (name === 'grep') throw new CompileError('grep(): syntax error');
    const def = lookupFunction(name);
    if (def === undefined) throw new CompileError(`${name}(): no such function`);
    let args = e.args;
    if (SHAPERS.has(name)) {
      if (args.length === 1) args = [{ kind: 'This', path: [] }, ...args];
      const bad = checkArity(def, args.length);
      if (bad !== null) throw new CompileError(bad);
    } else {
      const given = def.path !== undefined && e.given === true;
      const bad = checkArity(def, args.length - (given ? 1 : 0));
      if (bad !== null) throw new CompileError(`${name}(): ${bad}`);
      if (def.path !== undefined && !given) args = [{ kind: 'This', path: [...def.path] }, ...args];
    }
    let compiled: Expr[];
    try {
      compiled = this.exprs(args);
    } catch (err) {
      if (err instanceof CompileError)
        throw new CompileError(`${name}(): bad argument: ${err.message}`);
      throw err;
    }
    return def.build(compiled, this.fenv);
  }

  private search(e: dag.Search): Expr {
    const operand = this.expr(e.expr);
    const v = e.value;
    if (v.type.under === TypeString) {
      const term = v.buf.toString('utf8', v.off, v.off + Math.max(v.len, 0));
      return new SearchString(term, operand, searchFinder(e));
    }
    if (v.type.under === TypeNet)
      return new SearchNet(Buffer.from(v.buf.subarray(v.off, v.off + v.len)), operand);
    const pred = comparison('==', v);
    if (pred === null)
      throw new CompileError(
        `literal comparison of type ${JSON.stringify(v.type.under.id)} unsupported`,
      );
    // An address, or its text in a string: where neither is, no match.
    return new SearchValue(e.text, pred, operand, v.type.under === TypeIP ? searchFinder(e) : null);
  }

  // -------------------------------------------------------------------------
  // Operators

  /** When sources feed the vector engine. */
  vectorMode(): VectorMode {
    return this.env.vector ?? this.env.source?.vectorMode ?? envVectorMode();
  }

  /** Builds a sequence fed by parents (none for a sequence that starts with a source); returns its outputs. */
  seq(seq: dag.Seq, parents: Operator[]): Operator[] {
    if (parents.length === 0 && seq.length > 0) {
      const top = buildTopN(this, seq);
      if (top !== null) return top;
      const vec = buildVectorized(this, seq, this.vectorMode());
      if (vec !== null) return vec;
    }
    for (const op of seq) parents = this.op(op, parents);
    return parents;
  }

  private op(o: dag.Op, parents: Operator[]): Operator[] {
    const heavy = buildHeavy(this);
    switch (o.kind) {
      case 'Fork':
        return heavy.fork(o, parents);
      case 'Switch':
        return heavy.switch(o, parents);
      case 'Join':
        if (parents.length !== 2)
          throw new CompileError('join requires two upstream parallel query paths');
        return [heavy.join(o, parents[0], parents[1])];
      case 'Merge':
        return [heavy.merge(o, parents)];
      case 'Combine':
        return [heavy.combine(parents)];
    }
    let parent: Operator | null = null;
    if (parents.length === 1) parent = parents[0];
    else if (parents.length > 1) parent = heavy.combine(parents);
    return [this.leaf(o, parent)];
  }

  private need(parent: Operator | null, what: string): Operator {
    if (parent === null) throw new CompileError(`internal error: ${what} has no input`);
    return parent;
  }

  private leaf(o: dag.Op, parent: Operator | null): Operator {
    const ctx = this.env.ctx;
    switch (o.kind) {
      case 'Filter':
        return new Filter(ctx, this.need(parent, 'filter'), this.expr(o.expr));
      case 'Yield':
        return new Yield(ctx, this.need(parent, 'yield'), this.exprs(o.exprs));
      case 'Put':
        return new Put(ctx, this.need(parent, 'put'), this.putter(o));
      case 'Cut':
        try {
          return new Cut(
            ctx,
            this.need(parent, 'cut'),
            o.args.map((a) => ({ lhs: a.lhs, rhs: this.expr(a.rhs) })),
          );
        } catch (e) {
          if (e instanceof DuplicateFieldError || e instanceof RecordBuilderError)
            throw new CompileError(e.message);
          throw e;
        }
      case 'Drop':
        return new Drop(ctx, this.need(parent, 'drop'), o.args);
      case 'Rename':
        return new Rename(ctx, this.need(parent, 'rename'), o.args);
      case 'Head':
        return new Head(this.need(parent, 'head'), o.count);
      case 'Tail':
        return new Tail(ctx, this.need(parent, 'tail'), o.count);
      case 'Pass':
        return new Pass(this.need(parent, 'pass'));
      case 'Sort':
        return new Sort(ctx, this.need(parent, 'sort'), {
          keys: this.exprs(o.args),
          reverse: o.order === 'desc',
          nullsFirst: o.nullsFirst,
        });
      case 'Top':
      case 'Uniq':
      case 'Summarize':
      case 'Fuse':
      case 'Shape':
      case 'Explode':
      case 'Over':
        return buildHeavy(this).leaf(o, this.need(parent, o.kind.toLowerCase()));
      case 'Load':
        return new Load(ctx, this.need(parent, 'load'), this.lake(), o.pool, {
          branch: o.branch,
          author: o.author,
          message: o.message,
          meta: o.meta,
        });
      default:
        if (parent !== null)
          throw new CompileError(`internal error: source ${o.kind} cannot have a parent operator`);
        return this.source(o as dag.Source);
    }
  }

  /** What a put does to a value, as its operator does it. */
  putter(o: dag.Put): Putter {
    try {
      return new Putter(
        this.env.ctx.zctx,
        o.args.map((a) => this.cutField(a)),
      );
    } catch (e) {
      if (e instanceof PutError) throw new CompileError(e.message);
      throw e;
    }
  }

  /** The compiled fields of a projection pushed into a source (its errors are cut's). */
  private cutField(a: dag.Assignment): CutField {
    const from = a.rhs.kind === 'This' && a.rhs.path.length === 1 ? a.rhs.path[0] : undefined;
    return { lhs: a.lhs, rhs: this.expr(a.rhs), ...(from !== undefined ? { from } : {}) };
  }

  /** A projection lifted into a source, compiled (null for none). */
  projection(args: dag.Assignment[] | undefined): CutField[] | null {
    if (args === undefined) return null;
    const fields = args.map((a) => this.cutField(a));
    try {
      new RecordBuilder(
        this.zctx,
        fields.map((f) => f.lhs),
      );
    } catch (e) {
      if (e instanceof DuplicateFieldError || e instanceof RecordBuilderError)
        throw new CompileError(e.message);
      throw e;
    }
    return fields;
  }

  private lake(): DataSource {
    if (!this.env.source)
      throw new CompileError('internal error: lake operation cannot be used in non-lake context');
    return this.env.source;
  }

  private source(o: dag.Source): Operator {
    const ctx = this.env.ctx;
    switch (o.kind) {
      case 'PoolScan':
        return new PoolSource(
          ctx,
          this.lake(),
          o.pool,
          o.commit,
          o.filter === null ? null : this.expr(o.filter),
          o.range,
          this.projection(o.project),
          o.fields ?? null,
          // The filter again, for the source to test on columns.
          o.filter !== null && o.matchFields
            ? {
                fields: o.matchFields,
                filter: this.expr(o.filter),
                vectors: this.vectorMode() === 'off' ? null : compileMatch(this, o.filter),
              }
            : null,
          indexFilter(o.filter),
          o.end ?? null,
          frameFilter(o.filter),
        );
      case 'LakeMetaScan':
        return lakeMetaSource(ctx, this.lake(), o.meta);
      case 'PoolMetaScan':
        return poolMetaSource(ctx, this.lake(), o.pool, o.meta);
      case 'CommitMetaScan':
        return commitMetaSource(
          ctx,
          this.lake(),
          o.pool,
          o.commit,
          o.meta,
          o.keyFilter ? spanPruner(o.keyFilter, poolKeyPath(o.pool.layout)) : null,
        );
      case 'FileScan': {
        if (!this.env.allowFiles) throw new CompileError('file operator is not allowed here');
        const path = o.path;
        const format = o.format;
        return new ReaderScan(
          ctx,
          () => openFile(ctx, path, format),
          o.filter === null ? null : this.expr(o.filter),
        );
      }
      case 'HTTPScan': {
        if (!this.env.allowHTTP) throw new CompileError('get operator is not allowed here');
        const url = o.url;
        const format = o.format;
        return new ReaderScan(ctx, () => openURL(ctx, url, format), null);
      }
      case 'Reader': {
        const open = this.env.readers?.[o.index];
        if (open === undefined)
          throw new CompileError(
            'no input specified: use a command-line file or a Zed source operator',
          );
        return new ReaderScan(
          ctx,
          open,
          o.filter === null ? null : this.expr(o.filter),
          this.projection(o.project),
        );
      }
    }
  }
}
