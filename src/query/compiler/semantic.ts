// The semantic pass: syntax tree → dataflow graph (compiler/dag.ts), as
// the reference's compiler/semantic does. It resolves names (constants are
// folded to literals, functions and lateral variables bound statically),
// decides the implied operators (a bare expression is a filter or a yield,
// a bare assignment list a put or a summarize, a bare aggregate call a
// summarize), converts SQL, resolves pools and commits, and reports the
// reference's errors.

import * as ast from '../ast';
import { DataId, DataSource, PoolHandle } from '../data/source';
import { TypeContext } from '../../zed/context';
import { ID, TypeBool, TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { isAggregate } from '../aggregates';
import { isError, isMissing } from '../expr/errors';
import { compileRegexp, reglob } from '../expr/regexp';
import { hasBoolResult } from '../functions';
import { decodeIntExact, decodeUintExact } from '../../zed/primitive';
import { formatValue } from '../../formats/zson';
import * as dag from './dag';
import { CompileError, goQuoted, pathString } from './errors';
import { primitiveValue, translateType } from './literals';
import { convertSQL } from './sql';

/** Evaluates an expression at compile time: its value, or error("missing") when it depends on the input. */
export type ConstEval = (e: dag.Expr) => Value;

export interface SemanticEnv {
  zctx: TypeContext;
  evalConst: ConstEval;
  /** The lake `from` reads pools of; absent outside the service. */
  source?: DataSource;
  /** The pool and branch a query without `from` reads (HEAD). */
  head?: { pool: string; branch: string };
}

type Binding =
  { kind: 'expr'; expr: dag.Literal | dag.Var | dag.Param } | { kind: 'func'; fn: dag.Func };

/** Nested scopes of declarations and variables. */
export class Scope {
  private stack: Map<string, Binding>[] = [new Map()];
  private nvars: number[] = [0];

  enter(): void {
    this.stack.push(new Map());
    this.nvars.push(0);
  }

  exit(): void {
    this.stack.pop();
    this.nvars.pop();
  }

  private define(name: string, b: Binding): void {
    const top = this.stack[this.stack.length - 1];
    if (top.has(name)) throw new CompileError(`symbol ${goQuoted(name)} redefined`);
    top.set(name, b);
  }

  defineConst(name: string, lit: dag.Literal): void {
    this.define(name, { kind: 'expr', expr: lit });
  }

  /** A lateral variable; its slot is the number of variables in scope. */
  defineVar(name: string): dag.Var {
    let slot = 0;
    for (const n of this.nvars) slot += n;
    const v: dag.Var = { kind: 'Var', name, slot };
    this.define(name, { kind: 'expr', expr: v });
    this.nvars[this.nvars.length - 1]++;
    return v;
  }

  defineParam(fn: dag.Func, index: number): void {
    const name = fn.params[index];
    this.define(name, { kind: 'expr', expr: { kind: 'Param', fn, name, index } });
  }

  defineFunc(fn: dag.Func): void {
    this.define(fn.name, { kind: 'func', fn });
  }

  lookup(name: string): Binding | undefined {
    for (let k = this.stack.length - 1; k >= 0; k--) {
      const b = this.stack[k].get(name);
      if (b) return b;
    }
    return undefined;
  }
}

function thisOf(name: string): dag.This {
  return { kind: 'This', path: name === 'this' ? [] : [name] };
}

function wrap(prefix: string, e: unknown): never {
  if (e instanceof CompileError) throw new CompileError(`${prefix}${e.message}`);
  throw e;
}

export class Analyzer {
  readonly scope = new Scope();
  readonly zctx: TypeContext;
  /** The sources of `from` pools and the targets of `load`, looked up by resolve(). */
  private readonly resolved = new Map<ast.Pool | ast.Load, dag.Op[]>();

  constructor(readonly env: SemanticEnv) {
    this.zctx = env.zctx;
  }

  // -------------------------------------------------------------------------
  // Expressions

  expr(e: ast.Expr): dag.Expr {
    switch (e.kind) {
      case 'Regexp':
        return { kind: 'RegexpSearch', pattern: e.pattern, expr: thisOf('this') };
      case 'Glob':
        return { kind: 'RegexpSearch', pattern: reglob(e.pattern), expr: thisOf('this') };
      case 'Grep':
        return this.grep(e);
      case 'Primitive':
        return dag.lit(primitiveValue(this.zctx, e));
      case 'ID':
        return this.id(e.name);
      case 'Term':
        return this.term(e);
      case 'UnaryExpr':
        return { kind: 'Unary', op: e.op, operand: this.expr(e.operand) };
      case 'BinaryExpr':
        return this.binary(e);
      case 'Conditional':
        return {
          kind: 'Conditional',
          cond: this.expr(e.cond),
          then: this.expr(e.then),
          else: this.expr(e.else),
        };
      case 'Call':
        return this.call(e);
      case 'Cast':
        return { kind: 'Call', name: 'cast', args: [this.expr(e.expr), this.expr(e.type)] };
      case 'TypeValue':
        return this.typeValue(e);
      case 'RecordExpr':
        return {
          kind: 'RecordExpr',
          elems: e.elems.map((el): dag.RecordElem => {
            switch (el.kind) {
              case 'Field':
                return { kind: 'Field', name: el.name, value: this.expr(el.value) };
              case 'ID':
                return { kind: 'Field', name: el.name, value: this.id(el.name) };
              case 'Spread':
                return { kind: 'Spread', expr: this.expr(el.expr) };
            }
          }),
        };
      case 'ArrayExpr':
        return { kind: 'ArrayExpr', elems: this.vectorElems(e.elems) };
      case 'SetExpr':
        return { kind: 'SetExpr', elems: this.vectorElems(e.elems) };
      case 'MapExpr':
        return {
          kind: 'MapExpr',
          entries: e.entries.map((en) => ({ key: this.expr(en.key), value: this.expr(en.value) })),
        };
      case 'OverExpr':
        return this.overExpr(e);
    }
  }

  /** An aggregate of a summarize. */
  agg(a: ast.Agg): dag.Agg {
    const expr = a.expr === null ? null : this.expr(a.expr);
    if (expr === null && a.name !== 'count')
      throw new CompileError(`aggregator '${a.name}' requires argument`);
    const where = a.where === null ? null : this.expr(a.where);
    return { kind: 'Agg', name: a.name, expr, where };
  }

  private vectorElems(elems: ast.VectorElem[]): dag.VectorElem[] {
    return elems.map((el) => ({ spread: el.kind === 'Spread', expr: this.expr(el.expr) }));
  }

  id(name: string): dag.Expr {
    const b = this.scope.lookup(name);
    if (b?.kind === 'expr') return b.expr;
    if (b?.kind === 'func') {
      // The reference returns the function itself, which no operator accepts.
      throw new CompileError(`${name}: function used as a value`);
    }
    return thisOf(name);
  }

  private grep(g: ast.Grep): dag.Expr {
    const e = this.expr(g.expr);
    switch (g.pattern.kind) {
      case 'String':
        return {
          kind: 'Search',
          text: g.pattern.text,
          value: Value.fromBytes(TypeString, Buffer.from(g.pattern.text, 'utf8')),
          expr: e,
        };
      case 'Regexp':
        return { kind: 'RegexpSearch', pattern: g.pattern.pattern, expr: e };
      case 'Glob':
        return { kind: 'RegexpSearch', pattern: reglob(g.pattern.pattern), expr: e };
    }
  }

  private term(t: ast.Term): dag.Expr {
    let value: Value;
    switch (t.value.kind) {
      case 'Primitive':
        value = primitiveValue(this.zctx, t.value);
        break;
      case 'TypeValue':
        value = this.zctx.typeValueOf(translateType(this.zctx, t.value.value));
        break;
      default:
        throw new CompileError(`unexpected term value: ${t.value.kind}`);
    }
    return { kind: 'Search', text: t.text, value, expr: thisOf('this') };
  }

  private typeValue(tv: ast.TypeValue): dag.Expr {
    try {
      return dag.lit(this.zctx.typeValueOf(translateType(this.zctx, tv.value)));
    } catch (e) {
      // An unknown type name may be defined by the data: look it up then.
      if (tv.value.kind === 'TypeName') return typenameCall(tv.value.name);
      throw e;
    }
  }

  private binary(e: ast.BinaryExpr | ast.DotExpr | ast.IndexExpr): dag.Expr {
    if (e.op === '~') {
      if (e.rhs.kind !== 'Regexp')
        throw new CompileError('right-hand side of ~ expression must be a regular expression');
      try {
        compileRegexp(e.rhs.pattern);
      } catch (err) {
        throw new CompileError((err as Error).message);
      }
      return { kind: 'RegexpMatch', pattern: e.rhs.pattern, expr: this.expr(e.lhs) };
    }
    if (e.op === '.') {
      const lhs = this.expr(e.lhs);
      const name = (e.rhs as ast.ID).name;
      if (lhs.kind === 'This') return { kind: 'This', path: [...lhs.path, name] };
      return { kind: 'Dot', lhs, rhs: name };
    }
    if (e.op === '[' && e.rhs.kind === 'BinaryExpr' && e.rhs.op === ':') {
      const r = e.rhs as ast.SliceRange;
      const lhs = this.expr(e.lhs);
      return {
        kind: 'Slice',
        lhs,
        from: r.lhs === null ? null : this.expr(r.lhs),
        to: r.rhs === null ? null : this.expr(r.rhs),
      };
    }
    const lhs = this.expr(e.lhs);
    const rhs = this.expr(e.rhs as ast.Expr);
    if (e.op === '[' && lhs.kind === 'This') {
      const s = this.stringConst(rhs);
      if (s !== null) return { kind: 'This', path: [...lhs.path, s] };
    }
    return dag.binary(e.op as dag.BinaryOp, lhs, rhs);
  }

  /** The value of e at compile time, or error("missing") (compile errors are left for later). */
  private tryConst(e: dag.Expr): Value {
    try {
      return this.env.evalConst(e);
    } catch {
      return this.zctx.missing();
    }
  }

  private stringConst(e: dag.Expr): string | null {
    const v = this.tryConst(e);
    if (isError(v) || v.type.under !== TypeString) return null;
    return v.buf.toString('utf8', v.off, v.off + Math.max(v.len, 0));
  }

  /** An aggregate call, or null when name is not an aggregate (or min/max with several args). */
  private maybeAgg(call: ast.Call): dag.Agg | null {
    if (!isAggregate(call.name)) return null;
    if (call.args.length > 1) {
      // min and max are functions too; so is map (map(v, f) over arrays).
      if (call.name === 'min' || call.name === 'max' || call.name === 'map') return null;
      throw new CompileError(`${call.name}: wrong number of arguments`);
    }
    const expr = call.args.length === 1 ? this.expr(call.args[0]) : null;
    const where = call.where === null ? null : this.expr(call.where);
    return { kind: 'Agg', name: call.name, expr, where };
  }

  call(call: ast.Call): dag.Expr {
    const agg = this.maybeAgg(call);
    if (agg !== null) return agg;
    if (call.where !== null)
      throw new CompileError(`'where' clause on non-aggregation function: ${call.name}`);
    const mapped = this.mapOfUserFunc(call);
    if (mapped !== null) return mapped;
    let args: dag.Expr[];
    try {
      args = call.args.map((a) => this.expr(a));
    } catch (e) {
      wrap(`${call.name}: bad argument: `, e);
    }
    const b = this.scope.lookup(call.name);
    if (b !== undefined) {
      if (b.kind !== 'func') {
        throw new CompileError(
          `${call.name}(): definition is not a function type: *dag.${b.expr.kind}`,
        );
      }
      if (b.fn.params.length !== args.length) {
        throw new CompileError(`${call.name}(): expects ${b.fn.params.length} argument(s)`);
      }
      return { kind: 'UserCall', fn: b.fn, args };
    }
    return { kind: 'Call', name: call.name, args };
  }

  /**
   * map(v, f) where f names a user function: as the reference's later
   * releases do, the inner call is f(this), evaluated with each element as
   * this. Built-in functions and types are left to the map function.
   */
  private mapOfUserFunc(call: ast.Call): dag.Expr | null {
    if (call.name !== 'map' || call.args.length !== 2) return null;
    const f = call.args[1];
    if (this.scope.lookup('map') !== undefined) return null;
    if (f.kind === 'Call') {
      // Not f(this) written out: the function is named, not called.
      throw new CompileError('map(): second argument must be the identifier of a function');
    }
    if (f.kind !== 'ID') return null;
    if (this.scope.lookup(f.name)?.kind !== 'func') return null;
    let operand: dag.Expr;
    try {
      operand = this.expr(call.args[0]);
    } catch (e) {
      wrap(`${call.name}: bad argument: `, e);
    }
    const self: ast.ID = { kind: 'ID', name: 'this' };
    const inner = this.call({ kind: 'Call', name: f.name, args: [self], where: null });
    return { kind: 'Call', name: 'map', args: [operand, inner] };
  }

  private overExpr(e: ast.OverExpr): dag.Expr {
    const exprs = e.exprs.map((x) => this.expr(x));
    this.scope.enter();
    try {
      const defs = this.vars(e.locals);
      const body = this.seq(e.body);
      return { kind: 'OverExpr', defs, exprs, body };
    } finally {
      this.scope.exit();
    }
  }

  private vars(locals: ast.Def[]): dag.Def[] {
    return locals.map((d) => {
      const expr = this.expr(d.expr);
      const v = this.scope.defineVar(d.name);
      return { name: d.name, slot: v.slot, expr };
    });
  }

  // -------------------------------------------------------------------------
  // Assignments and fields

  assignment(
    a: ast.Assignment | ast.AggAssignment,
    summarize: boolean,
  ): { lhs: string[]; rhs: dag.Expr } {
    let rhs: dag.Expr;
    try {
      rhs = a.rhs.kind === 'Agg' ? this.agg(a.rhs) : this.expr(a.rhs);
    } catch (e) {
      wrap('rhs of assignment expression: ', e);
    }
    if (rhs.kind === 'Agg') summarize = true;
    let lhs: dag.Expr;
    if (a.lhs !== null) {
      try {
        lhs = this.expr(a.lhs);
      } catch (e) {
        wrap('lhs of assigment expression: ', e);
      }
    } else if (a.rhs.kind === 'Call') {
      let path = [a.rhs.name];
      if (a.rhs.name === 'every') path = ['ts'];
      else if (
        a.rhs.name === 'quiet' &&
        rhs.kind === 'Call' &&
        rhs.args.length > 0 &&
        rhs.args[0].kind === 'This'
      ) {
        path = (rhs.args[0] as dag.This).path;
      }
      lhs = { kind: 'This', path };
    } else if (a.rhs.kind === 'Agg') {
      lhs = { kind: 'This', path: [a.rhs.name] };
    } else if (rhs.kind === 'Var') {
      lhs = { kind: 'This', path: [rhs.name] };
    } else {
      try {
        lhs = this.expr(a.rhs);
      } catch {
        throw new CompileError('assignment name could not be inferred from rhs expression');
      }
    }
    if (summarize && lhs.kind === 'Dot' && lhs.lhs.kind === 'Var' && lhs.lhs.name === 'this') {
      lhs = { kind: 'This', path: [lhs.rhs] };
    }
    if (lhs.kind !== 'This') throw new CompileError('illegal left-hand side of assignment');
    if (lhs.path.length === 0) throw new CompileError("cannot assign to 'this'");
    return { lhs: lhs.path, rhs };
  }

  assignments(
    list: (ast.Assignment | ast.AggAssignment)[],
    summarize: boolean,
  ): { lhs: string[]; rhs: dag.Expr }[] {
    return list.map((a) => this.assignment(a, summarize));
  }

  /** A field reference (a non-empty path of this). */
  field(e: ast.Expr): string[] {
    let d: dag.Expr;
    try {
      d = this.expr(e);
    } catch {
      throw new CompileError('invalid expression used as a field');
    }
    if (d.kind !== 'This') throw new CompileError('invalid expression used as a field');
    if (d.path.length === 0) throw new CompileError("cannot use 'this' as a field reference");
    return d.path;
  }

  // -------------------------------------------------------------------------
  // Declarations

  decls(decls: ast.Decl[]): void {
    const funcs: [dag.Func, ast.FuncDecl][] = [];
    for (const d of decls) {
      if (d.kind === 'ConstDecl') this.constDecl(d);
      else funcs.push([{ kind: 'Func', name: d.name, params: d.params.slice(), expr: null }, d]);
    }
    for (const [fn] of funcs) this.scope.defineFunc(fn);
    for (const [fn, d] of funcs) {
      this.scope.enter();
      try {
        fn.params.forEach((_, i) => this.scope.defineParam(fn, i));
        fn.expr = this.expr(d.expr);
      } finally {
        this.scope.exit();
      }
    }
  }

  private constDecl(c: ast.ConstDecl): void {
    const e = this.expr(c.expr);
    const v = this.env.evalConst(e);
    if (isError(v)) {
      if (isMissing(v))
        throw new CompileError(`const ${goQuoted(c.name)}: cannot have variable dependency`);
      throw new CompileError(
        `const ${goQuoted(c.name)}: ${goQuoted(v.buf.toString('utf8', v.off, v.off + Math.max(v.len, 0)))}`,
      );
    }
    this.scope.defineConst(c.name, dag.lit(v.copy()));
  }

  // -------------------------------------------------------------------------
  // Operators

  seq(seq: ast.Seq | null): dag.Seq {
    let out: dag.Seq = [];
    for (const op of seq ?? []) out = this.op(op, out);
    return out;
  }

  /**
   * Looks up the pools, branches and commits that `from` and `load`
   * operators name (the lake is asynchronous; the rest of the pass is not).
   * Call before seq().
   */
  async resolve(seq: ast.Seq | null): Promise<void> {
    for (const o of seq ?? []) {
      switch (o.kind) {
        case 'From':
          for (const t of o.trunks) {
            if (t.source.kind === 'Pool') this.resolved.set(t.source, await this.pool(t.source));
            await this.resolve(t.seq);
          }
          break;
        case 'Load':
          this.resolved.set(o, [await this.load(o)]);
          break;
        case 'Parallel':
          for (const p of o.paths) await this.resolve(p);
          break;
        case 'Scope':
          await this.resolve(o.body);
          break;
        case 'Switch':
          for (const c of o.cases) await this.resolve(c.path);
          break;
        case 'Join':
          await this.resolve(o.rightInput);
          break;
        case 'Over':
          await this.resolve(o.body);
          break;
      }
    }
  }

  private resolvedOf(node: ast.Pool | ast.Load): dag.Op[] {
    const r = this.resolved.get(node);
    if (r === undefined) throw new CompileError('internal error: source not resolved');
    return r;
  }

  private op(o: ast.Op, seq: dag.Seq): dag.Seq {
    switch (o.kind) {
      case 'From':
        return this.from(o, seq);
      case 'Load':
        return [...seq, ...this.resolvedOf(o)];
      case 'Summarize':
        return this.summarize(o, seq);
      case 'Parallel':
        return [...seq, { kind: 'Fork', paths: o.paths.map((p) => this.seq(p)) }];
      case 'Scope': {
        this.scope.enter();
        try {
          this.decls(o.decls);
          return [...seq, ...this.seq(o.body)];
        } finally {
          this.scope.exit();
        }
      }
      case 'Switch': {
        const expr = o.expr === null ? null : this.expr(o.expr);
        const cases = o.cases.map((c) => {
          let e: dag.Expr | null = null;
          if (c.expr !== null) e = this.expr(c.expr);
          else if (o.expr === null) e = dag.lit(Value.fromBytes(TypeBool, Buffer.from([1])));
          return { expr: e, path: this.seq(c.path) };
        });
        return [...seq, { kind: 'Switch', expr, cases }];
      }
      case 'Join': {
        const right = o.rightInput === null ? [] : this.seq(o.rightInput);
        const join = this.join(o);
        if (right.length > 0)
          return [...seq, { kind: 'Fork', paths: [[{ kind: 'Pass' }], right] }, join];
        return [...seq, join];
      }
      case 'Over': {
        if (o.locals.length !== 0 && o.body === null) {
          throw new CompileError(
            'over operator: cannot have a with clause without a lateral query',
          );
        }
        this.scope.enter();
        try {
          const defs = this.vars(o.locals);
          const exprs = o.exprs.map((e) => this.expr(e));
          const body = o.body === null ? null : this.seq(o.body);
          return [...seq, { kind: 'Over', defs, exprs, body }];
        } finally {
          this.scope.exit();
        }
      }
      case 'Shape':
        return [...seq, { kind: 'Shape' }];
      case 'Fuse':
        return [...seq, { kind: 'Fuse' }];
      case 'Cut':
        return [...seq, { kind: 'Cut', args: this.assignments(o.args, false) }];
      case 'Drop': {
        let args: string[][];
        try {
          args = o.args.map((a) => this.field(a));
        } catch (e) {
          wrap('drop: ', e);
        }
        if (args.length === 0) throw new CompileError('drop: no fields given');
        return [...seq, { kind: 'Drop', args }];
      }
      case 'Sort': {
        let args: dag.Expr[];
        try {
          args = o.args.map((a) => this.expr(a));
        } catch (e) {
          wrap('sort: ', e);
        }
        return [...seq, { kind: 'Sort', args, order: o.order, nullsFirst: o.nullsFirst }];
      }
      case 'Head':
        return [...seq, { kind: 'Head', count: this.positiveCount('head', o.count) }];
      case 'Tail':
        return [...seq, { kind: 'Tail', count: this.positiveCount('tail', o.count) }];
      case 'Uniq':
        return [...seq, { kind: 'Uniq', cflag: o.cflag }];
      case 'Pass':
        return [...seq, { kind: 'Pass' }];
      case 'OpExpr':
        return this.opExpr(o.expr, seq);
      case 'Search':
      case 'Where':
        return [...seq, { kind: 'Filter', expr: this.expr(o.expr) }];
      case 'Top': {
        let args: dag.Expr[];
        try {
          args = o.args.map((a) => this.expr(a));
        } catch (e) {
          wrap('top: ', e);
        }
        if (args.length === 0) throw new CompileError('top: no arguments given');
        return [...seq, { kind: 'Top', args, limit: o.limit, flush: o.flush }];
      }
      case 'Put':
        return [...seq, { kind: 'Put', args: this.assignments(o.args, false) }];
      case 'OpAssignment':
        return [...seq, this.opAssignment(o)];
      case 'Rename':
        return [...seq, this.rename(o)];
      case 'SQLExpr':
        return convertSQL(this, o, seq);
      case 'Explode': {
        const type = translateType(this.zctx, o.type);
        const args = o.args.map((a) => this.expr(a));
        let as: string[] = ['value'];
        if (o.as !== null) {
          const e = this.expr(o.as);
          if (e.kind !== 'This') throw new CompileError('invalid expression on lhs of assignment');
          as = e.path;
        }
        if (as.length !== 1) throw new CompileError('explode field must be a top-level field');
        return [...seq, { kind: 'Explode', args, type, as: as[0] }];
      }
      case 'Merge': {
        let expr: dag.Expr;
        try {
          expr = this.expr(o.expr);
        } catch (e) {
          wrap('merge: ', e);
        }
        return [...seq, { kind: 'Merge', expr, order: 'asc' }];
      }
      case 'Sample': {
        const e = this.expr(o.expr);
        const typeOf: dag.Expr = { kind: 'Call', name: 'typeof', args: [e] };
        return [
          ...seq,
          {
            kind: 'Summarize',
            keys: [{ lhs: ['shape'], rhs: typeOf }],
            aggs: [{ lhs: ['sample'], agg: { kind: 'Agg', name: 'any', expr: e, where: null } }],
            limit: 0,
            inputSortDir: 0,
          },
          { kind: 'Yield', exprs: [{ kind: 'This', path: ['sample'] }] },
        ];
      }
      case 'Yield':
        return [...seq, { kind: 'Yield', exprs: o.exprs.map((e) => this.expr(e)) }];
    }
  }

  private join(o: ast.Join): dag.Join {
    return {
      kind: 'Join',
      style: o.style,
      leftKey: this.expr(o.leftKey),
      rightKey: this.expr(o.rightKey),
      args: this.assignments(o.args, false),
    };
  }

  private positiveCount(op: string, e: ast.Expr): number {
    let d: dag.Expr;
    try {
      d = this.expr(e);
    } catch (err) {
      wrap(`${op}: `, err);
    }
    let v: Value;
    try {
      v = this.env.evalConst(d);
    } catch (err) {
      wrap(`${op}: `, err);
    }
    const id = v.type.under.id;
    let n = 0;
    if (id >= ID.Int8 && id <= ID.Int64) n = Number(decodeIntExact(v.buf, v.off, v.len));
    else if (id <= ID.Uint64) n = Number(decodeUintExact(v.buf, v.off, v.len));
    if (n < 1)
      throw new CompileError(
        `${op}: expression value is not a positive integer: ${formatValue(v)}`,
      );
    return n;
  }

  private summarize(o: ast.Summarize, seq: dag.Seq): dag.Seq {
    const keys = this.assignments(o.keys, true);
    if (keys.length === 0 && o.aggs.length === 1 && o.aggs[0].lhs === null) {
      const a = this.assignment(o.aggs[0], true);
      if (a.rhs.kind === 'Agg' && a.lhs.length === 1) {
        return [
          ...seq,
          {
            kind: 'Summarize',
            keys: [],
            aggs: [{ lhs: a.lhs, agg: a.rhs }],
            limit: 0,
            inputSortDir: 0,
          },
          { kind: 'Yield', exprs: [{ kind: 'This', path: a.lhs }] },
        ];
      }
    }
    const aggs = this.assignments(o.aggs, true).map((a) => {
      if (a.rhs.kind !== 'Agg')
        throw new CompileError('aggregator is not an aggregation expression');
      return { lhs: a.lhs, agg: a.rhs };
    });
    return [...seq, { kind: 'Summarize', keys, aggs, limit: o.limit, inputSortDir: 0 }];
  }

  private opAssignment(o: ast.OpAssignment): dag.Op {
    const aggs: { lhs: string[]; agg: dag.Agg }[] = [];
    const puts: dag.Assignment[] = [];
    for (const a of o.assignments) {
      const x = this.assignment(a, false);
      if (x.rhs.kind === 'Agg') aggs.push({ lhs: x.lhs, agg: x.rhs });
      else puts.push(x);
    }
    if (puts.length > 0 && aggs.length > 0) {
      throw new CompileError('mix of aggregations and non-aggregations in assignment list');
    }
    if (puts.length > 0) return { kind: 'Put', args: puts };
    return { kind: 'Summarize', keys: [], aggs, limit: 0, inputSortDir: 0 };
  }

  private opExpr(e: ast.Expr, seq: dag.Seq): dag.Seq {
    if (e.kind === 'Call') {
      let agg: dag.Agg | null = null;
      try {
        agg = this.maybeAgg(e);
      } catch {
        agg = null;
      }
      if (agg !== null) {
        return [
          ...seq,
          {
            kind: 'Summarize',
            keys: [],
            aggs: [{ lhs: [e.name], agg }],
            limit: 0,
            inputSortDir: 0,
          },
          { kind: 'Yield', exprs: [{ kind: 'This', path: [e.name] }] },
        ];
      }
      if (hasBoolResult(e.name) && this.scope.lookup(e.name) === undefined) {
        return [...seq, { kind: 'Filter', expr: this.call(e) }];
      }
    }
    const out = this.expr(e);
    if (isBool(out)) return [...seq, { kind: 'Filter', expr: out }];
    return [...seq, { kind: 'Yield', exprs: [out] }];
  }

  private rename(o: ast.Rename): dag.Rename {
    const args = o.args.map((a) => {
      let dst: string[];
      let src: string[];
      try {
        dst = this.field(a.lhs!);
        src = this.field(a.rhs);
      } catch {
        throw new CompileError("'rename' requires explicit field references");
      }
      if (dst.length !== src.length) {
        throw new CompileError(`cannot rename ${pathString(src)} to ${pathString(dst)}`);
      }
      for (let i = 0; i <= src.length - 2; i++) {
        if (src[i] !== dst[i]) {
          throw new CompileError(
            `cannot rename ${pathString(src)} to ${pathString(dst)} (differ in ${src[i]} vs ${dst[i]})`,
          );
        }
      }
      return { dst, src };
    });
    return { kind: 'Rename', args };
  }

  // -------------------------------------------------------------------------
  // Sources

  private from(o: ast.From, seq: dag.Seq): dag.Seq {
    if (o.trunks.length === 0) throw new CompileError('internal error: from operator has no paths');
    if (o.trunks.length === 1) return [...seq, ...this.trunk(o.trunks[0])];
    return [...seq, { kind: 'Fork', paths: o.trunks.map((t) => this.trunk(t)) }];
  }

  private trunk(t: ast.Trunk): dag.Seq {
    if (
      t.source.kind === 'Pool' &&
      t.seq !== null &&
      t.source.spec.pool !== null &&
      t.source.spec.pool.kind !== 'String'
    ) {
      throw new CompileError("=> not allowed after pool pattern in 'from' operator");
    }
    const sources = this.source(t.source);
    if (sources.length === 1) return [sources[0], ...this.seq(t.seq)];
    // Each source runs its own copy of the trunk's pipeline.
    return [{ kind: 'Fork', paths: sources.map((s) => [s, ...this.seq(t.seq)]) }];
  }

  private source(s: ast.Source | ReaderSource): dag.Op[] {
    switch (s.kind) {
      case 'File':
        return [
          {
            kind: 'FileScan',
            path: s.path,
            format: s.format,
            sortKey: sortKey(s.sortKey),
            filter: null,
          },
        ];
      case 'HTTP':
        return [{ kind: 'HTTPScan', url: s.url, format: s.format, sortKey: sortKey(s.sortKey) }];
      case 'Pool':
        return this.resolvedOf(s);
      case 'Pass':
        return [{ kind: 'Pass' }];
      case 'Reader':
        return [{ kind: 'Reader', index: s.index, filter: null }];
    }
  }

  private async pool(p: ast.Pool): Promise<dag.Op[]> {
    const lake = this.env.source;
    if (!lake) throw new CompileError('semantic analyzer: from pool cannot be used without a lake');
    const spec = p.spec;
    let names: string[];
    if (spec.pool === null) names = [''];
    else if (spec.pool.kind === 'String') names = [spec.pool.text];
    else {
      const isGlob = spec.pool.kind === 'Glob';
      const pattern = spec.pool.pattern;
      let re: RegExp;
      try {
        re = compileRegexp(isGlob ? reglob(pattern) : pattern);
      } catch (e) {
        throw new CompileError((e as Error).message);
      }
      names = (await lake.listPools()).map((x) => x.name).filter((n) => re.test(n));
      if (names.length === 0) {
        throw new CompileError(`${pattern}: pool matching ${isGlob ? 'glob' : 'regexp'} not found`);
      }
    }
    const out: dag.Op[] = [];
    for (const name of names) out.push(await this.poolNamed(p, name, lake));
    return out;
  }

  private async poolNamed(p: ast.Pool, name: string, lake: DataSource): Promise<dag.Op> {
    let commit = p.spec.commit;
    if (name === 'HEAD') {
      if (!this.env.head) throw new CompileError('cannot scan from unknown HEAD');
      name = this.env.head.pool;
      commit = this.env.head.branch;
    }
    const meta = p.spec.meta;
    if (name === '') {
      if (!meta) throw new CompileError('pool name missing');
      if (!['branches', 'index_rules', 'pools'].includes(meta)) {
        throw new CompileError(`unknown lake metadata type ${goQuoted(meta)} in from operator`);
      }
      return { kind: 'LakeMetaScan', meta };
    }
    const pool = await lake.lookupPool(name);
    if (p.at !== null) throw new CompileError('TBD: at clause in from operator needs to use time');
    let commitId: DataId | null = null;
    if (commit) commitId = await lake.resolveRevision(pool, commit!);
    if (meta) {
      if (['indexes', 'log', 'objects', 'partitions', 'rawlog', 'vectors'].includes(meta)) {
        commitId ??= await lake.resolveRevision(pool, 'main');
        return { kind: 'CommitMetaScan', pool, commit: commitId, meta, tap: p.spec.tap };
      }
      if (meta === 'branches') return { kind: 'PoolMetaScan', pool, meta };
      throw new CompileError(`unknown metadata type ${goQuoted(meta)} in from operator`);
    }
    commitId ??= await lake.resolveRevision(pool, 'main');
    return { kind: 'PoolScan', pool, commit: commitId, filter: null, range: null };
  }

  private async load(o: ast.Load): Promise<dag.Load> {
    const lake = this.env.source;
    if (!lake) throw new CompileError('load operator cannot be used without a lake');
    const pool: PoolHandle = await lake.lookupPool(o.pool);
    return {
      kind: 'Load',
      pool,
      branch: o.branch ?? 'main',
      author: o.author,
      message: o.message,
      meta: o.meta,
    };
  }
}

/** A synthetic source: the caller's input number index. */
export interface ReaderSource {
  kind: 'Reader';
  index: number;
}

function sortKey(k: ast.SortKey | null): dag.SortKey | null {
  if (k === null) return null;
  const keys = k.keys.map((e) => {
    const p = dotPath(e);
    if (p === null) throw new CompileError(`bad key expr of type ${e.kind} in file operator`);
    return p;
  });
  return { keys, order: k.order };
}

/** The field path of a dotted expression (`a.b`, `a["b"]`), or null. */
export function dotPath(e: ast.Expr): string[] | null {
  if (e.kind === 'ID') return e.name === 'this' ? [] : [e.name];
  if (e.kind === 'BinaryExpr' && e.op === '.') {
    const l = dotPath(e.lhs);
    return l === null ? null : [...l, (e.rhs as ast.ID).name];
  }
  if (
    e.kind === 'BinaryExpr' &&
    e.op === '[' &&
    e.rhs.kind === 'Primitive' &&
    e.rhs.type === 'string'
  ) {
    const l = dotPath(e.lhs);
    return l === null ? null : [...l, e.rhs.text];
  }
  return null;
}

function typenameCall(name: string): dag.Call {
  return {
    kind: 'Call',
    name: 'typename',
    args: [dag.lit(Value.fromBytes(TypeString, Buffer.from(name, 'utf8')))],
  };
}

/** Does the expression certainly yield a bool (the implied-filter test)? */
export function isBool(e: dag.Expr): boolean {
  switch (e.kind) {
    case 'Literal':
      return e.value.type === TypeBool && e.value.len >= 0;
    case 'Unary':
      return isBool(e.operand);
    case 'Binary':
      switch (e.op) {
        case 'and':
        case 'or':
        case 'in':
        case '==':
        case '!=':
        case '<':
        case '<=':
        case '>':
        case '>=':
          return true;
      }
      return false;
    case 'Conditional':
      return isBool(e.then) && isBool(e.else);
    case 'Call':
      // The reference's test for a cast to bool compares a type literal
      // with the text "bool", which never matches: casts are not filters.
      if (e.name === 'cast') return false;
      return hasBoolResult(e.name);
    case 'Search':
    case 'RegexpMatch':
    case 'RegexpSearch':
      return true;
  }
  return false;
}

export { typenameCall };
