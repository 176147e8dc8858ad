// Lateral expressions: `(over exprs [with x=e] | subquery)` inside an
// expression. Expressions evaluate synchronously, so the subquery runs here
// as a sequence of steps over an array of values (the traversed values of
// one input are few and in memory), not as the dataflow operators. The
// result is null for no values, the value for one, and an array (of a
// union when the types differ) for several, as in the reference.

import { compareTypes } from '../../zed/compare';
import { TypeContext } from '../../zed/context';
import { Type, TypeNull, TypeUint64, TypeUnion } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { Aggregator, AggFunction } from '../aggregates';
import { isMissing, isQuiet } from '../expr/errors';
import { Expr } from '../expr/expr';
import { appendTagged, RecordBuilder } from '../expr/recordbuilder';
import { Traversal } from '../expr/traverse';
import { Frame } from '../expr/vars';
import { ValueArena } from '../runtime/arena';
import { Cutter } from '../runtime/ops/cut';
import { Dropper } from '../runtime/ops/drop';
import { FilterFn } from '../runtime/ops/filter';
import { Putter } from '../runtime/ops/put';
import { Renamer } from '../runtime/ops/rename';
import { guessedKeyExpr, sortValues } from '../runtime/ops/sort-keys';
import type { Builder } from './builder';
import * as dag from './dag';
import { CompileError } from './errors';

/** One operator of a lateral subquery: the values in, the values out. */
type Step = (vals: Value[], arena: ValueArena) => Value[];

/** Runs a traversal and (when there is one) the subquery steps for each value. */
function overStep(b: Builder, defs: dag.Def[], exprs: Expr[], steps: Step[] | null): Step {
  const frame = b.frame;
  const locals = defs.map((d) => ({ slot: d.slot, expr: b.expr(d.expr) }));
  const trav = new Traversal(b.zctx);
  return (vals, arena) => {
    const out: Value[] = [];
    for (const self of vals) {
      for (const l of locals) frame.vals[l.slot] = l.expr.eval(self).copy();
      const inner: Value[] = [];
      // self is sealed, its buffer lasting: elements of it are views.
      for (const e of exprs) trav.traverse(e.eval(self), arena, inner, self.buf);
      arena.seal();
      out.push(...(steps === null ? inner : run(steps, inner, arena)));
    }
    return out;
  };
}

function run(steps: Step[], vals: Value[], arena: ValueArena): Value[] {
  for (const s of steps) {
    vals = s(vals, arena);
    arena.seal();
  }
  return vals;
}

/**
 * A step that maps each value through fn (null drops it). A result built
 * in the arena (its body not yet sealed: buf is EMPTY) is kept as it is;
 * other new results are copied.
 */
function mapStep(fn: (v: Value, arena: ValueArena) => Value | null): Step {
  return (vals, arena) => {
    const out: Value[] = [];
    for (const v of vals) {
      const r = fn(v, arena);
      if (r === null || (r.type.kind === 7 && (isMissing(r) || isQuiet(r)))) continue;
      out.push(r === v || r.buf === EMPTY ? r : arena.copy(r));
    }
    return out;
  };
}

/** An in-memory summarize: groups in order of first appearance. */
function summarizeStep(b: Builder, o: dag.Summarize): Step {
  const keys = o.keys.map((k) => b.expr(k.rhs));
  const aggs: Aggregator[] = o.aggs.map((a) => b.aggregator(a.agg));
  const rb = new RecordBuilder(b.zctx, [...o.keys.map((k) => k.lhs), ...o.aggs.map((a) => a.lhs)]);
  return (vals, arena) => {
    const groups = new Map<string, { keys: Value[]; funcs: AggFunction[] }>();
    for (const v of vals) {
      const kv: Value[] = [];
      let id = '';
      let quiet = false;
      for (const k of keys) {
        const x = k.eval(v);
        if (x.type.kind === 7 && isQuiet(x)) quiet = true;
        kv.push(x.copy());
        id += `${x.type.id}:${x.len < 0 ? '-' : x.buf.toString('latin1', x.off, x.off + x.len)};`;
      }
      if (quiet) continue;
      let g = groups.get(id);
      if (g === undefined) {
        g = { keys: kv, funcs: aggs.map((a) => a.newFunction()) };
        groups.set(id, g);
      }
      for (let i = 0; i < aggs.length; i++) aggs[i].apply(g.funcs[i], v);
    }
    const out: Value[] = [];
    for (const g of groups.values()) {
      const results = g.funcs.map((f) => f.result(b.zctx).copy());
      const all = [...g.keys, ...results];
      const t = rb.type(all.map((x) => x.type));
      arena.begin();
      rb.into(arena.b);
      for (const x of all) rb.append(x.buf, x.off, x.len);
      out.push(arena.end(t));
    }
    return out;
  };
}

/** Same body bytes, whatever the types (a null equals an empty body), as uniq compares. */
function sameBody(a: Value, b: Value): boolean {
  const al = Math.max(a.len, 0);
  const bl = Math.max(b.len, 0);
  return al === bl && a.buf.compare(b.buf, b.off, b.off + bl, a.off, a.off + al) === 0;
}

function uniqStep(b: Builder, cflag: boolean): Step {
  return (vals, arena) => {
    const out: Value[] = [];
    let i = 0;
    while (i < vals.length) {
      let j = i + 1;
      const v = vals[i];
      while (j < vals.length && sameBody(v, vals[j])) j++;
      if (!cflag) out.push(v);
      else {
        const rt = b.zctx.lookupTypeRecord([
          { name: 'value', type: v.type },
          { name: 'count', type: TypeUint64 },
        ]);
        arena.begin();
        appendTagged(arena.b, v.buf, v.off, v.len);
        arena.b.appendUint(j - i);
        out.push(arena.end(rt));
      }
      i = j;
    }
    return out;
  };
}

function step(b: Builder, o: dag.Op): Step {
  const zctx = b.zctx;
  switch (o.kind) {
    case 'Pass':
      return (vals) => vals;
    case 'Filter': {
      const f = new FilterFn(zctx, b.expr(o.expr));
      return mapStep((v) => f.test(v));
    }
    case 'Yield': {
      const exprs = b.exprs(o.exprs);
      return (vals, arena) => {
        const out: Value[] = [];
        for (const v of vals) {
          for (const e of exprs) {
            const r = e.eval(v);
            if (r.type.kind === 7 && isQuiet(r)) continue;
            out.push(r === v ? v : arena.copy(r));
          }
        }
        return out;
      };
    }
    case 'Put': {
      const p = new Putter(
        zctx,
        o.args.map((a) => ({ lhs: a.lhs, rhs: b.expr(a.rhs) })),
      );
      return mapStep((v, arena) => p.apply(v, arena));
    }
    case 'Cut': {
      const c = new Cutter(
        zctx,
        o.args.map((a) => ({ lhs: a.lhs, rhs: b.expr(a.rhs) })),
      );
      return mapStep((v, arena) => c.apply(v, arena));
    }
    case 'Drop': {
      const d = new Dropper(zctx, o.args);
      return mapStep((v, arena) => d.apply(v, arena));
    }
    case 'Rename': {
      const r = new Renamer(zctx, o.args);
      return mapStep((v) => r.apply(v));
    }
    case 'Head':
      return (vals) => vals.slice(0, o.count);
    case 'Tail':
      return (vals) => vals.slice(Math.max(0, vals.length - o.count));
    case 'Sort': {
      const keys = b.exprs(o.args);
      return (vals) => {
        if (vals.length === 0) return vals;
        const exprs = keys.length > 0 ? keys : [guessedKeyExpr(zctx, vals[0])];
        return sortValues(vals, { exprs, reverse: o.order === 'desc', nullsFirst: o.nullsFirst });
      };
    }
    case 'Uniq':
      return uniqStep(b, o.cflag);
    case 'Summarize':
      return summarizeStep(b, o);
    case 'Over':
      return overStep(
        b,
        o.defs,
        b.exprs(o.exprs),
        o.body === null ? null : o.body.map((x) => step(b, x)),
      );
  }
  throw new CompileError(`${o.kind.toLowerCase()}: operator not supported in a lateral expression`);
}

/** The result of a subquery as one value: null, the value, or an array of them. */
function combine(zctx: TypeContext, vals: Value[], out: ValueArena): Value {
  if (vals.length === 0) return Value.null(TypeNull);
  if (vals.length === 1) return vals[0];
  const types: Type[] = [];
  for (const v of vals) if (!types.includes(v.type)) types.push(v.type);
  out.begin();
  if (types.length === 1) {
    for (const v of vals) appendTagged(out.b, v.buf, v.off, v.len);
    return out.end(zctx.lookupTypeArray(types[0]));
  }
  const u: TypeUnion = zctx.lookupTypeUnion(types.slice().sort(compareTypes));
  for (const v of vals) {
    if (v.len < 0) {
      out.b.appendNull();
      continue;
    }
    out.b.beginContainer();
    out.b.appendInt(u.tagOf(v.type));
    appendTagged(out.b, v.buf, v.off, v.len);
    out.b.endContainer();
  }
  return out.end(zctx.lookupTypeArray(u));
}

/** `(over exprs with defs | body)` as an expression. */
export class LateralExpr implements Expr {
  private readonly arena = new ValueArena();
  private readonly result = new ValueArena();
  private readonly over: Step;

  constructor(
    private readonly zctx: TypeContext,
    readonly frame: Frame,
    over: Step,
  ) {
    this.over = over;
  }

  eval(self: Value): Value {
    const vals = this.over([self], this.arena);
    this.arena.seal();
    const r = combine(this.zctx, vals, this.result);
    this.result.seal();
    return r;
  }
}

/** Compiles a lateral expression (its body's operators must be ones steps support). */
export function lateralExpr(b: Builder, e: dag.OverExpr): Expr {
  const body = e.body.map((o) => step(b, o));
  return new LateralExpr(b.zctx, b.frame, overStep(b, e.defs, b.exprs(e.exprs), body));
}

/** Can every operator of seq run as an in-memory step? */
export function stepsSupport(seq: dag.Seq): boolean {
  return seq.every((o) => {
    switch (o.kind) {
      case 'Pass':
      case 'Filter':
      case 'Yield':
      case 'Put':
      case 'Cut':
      case 'Drop':
      case 'Rename':
      case 'Head':
      case 'Tail':
      case 'Sort':
      case 'Uniq':
      case 'Summarize':
        return true;
      case 'Over':
        return o.body === null || stepsSupport(o.body);
    }
    return false;
  });
}

/**
 * A lateral query (the body of `over ... => (...)`) compiled once into
 * steps: a function from the traversed values of one input value to the
 * body's results, which the over operator calls for each input value in
 * turn, filling its batches. Building operators anew for each input value
 * (and pulling a batch of a few values from each) would cost far more than
 * running the steps.
 */
export function stepsQuery(b: Builder, seq: dag.Seq): (vals: Value[]) => Value[] {
  const steps = seq.map((o) => step(b, o));
  const arena = new ValueArena();
  return (vals) => run(steps, vals, arena);
}
