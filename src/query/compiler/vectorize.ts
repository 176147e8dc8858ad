// The switch between the two execution paths. A query that starts with a
// pool scan (or, with the vector engine forced on, any input) runs its
// leading operators on columns (src/query/vector) as far as they can:
// filters whose leaves read fields, head, tail, and a summarize whose
// keys, aggregate arguments and where clauses are fields or expressions
// of fields (computed as columns, VecCompute; a where clause as a
// filter), also after puts of top-level fields and filters of those. An
// expression of one field is evaluated on its column's values (once per
// distinct value where they repeat); of several, with the fields bound
// to variables row by row (FieldVars). At the first operator
// that cannot (or after a summarize, whose output is new records), the
// selected rows are materialized as records of the fields the rest of the
// query reads, and the row engine takes over. A query whose rest reads
// whole values (they reach the output) stays on the row engine.

import { lookupFunction, SHAPERS } from '../functions/registry';
import { bucketFast } from '../functions/time';
import { Value } from '../../zed/value';
import { DataSource, VectorMode } from '../data/source';
import { Operator } from '../runtime/operator';
import { Putter } from '../runtime/ops/put';
import { mayPass, PredicateEval, VecPredicate, VecFilter } from '../vector/filter';
import { pathExprs } from '../vector/batch';
import { VecBatch } from '../../zed/vector';
import {
  identity,
  Materialize,
  VecHead,
  rowParts,
  VecOperator,
  VecSourceScan,
  VecTail,
} from '../vector/operator';
import { ComputeSpec, VecCompute } from '../vector/compute';
import { FieldVars } from '../vector/fieldvars';
import { Expr } from '../expr/expr';
import { VecSort } from '../vector/sort';
import { VecSummarize } from '../vector/summarize';
import type { Builder } from './builder';
import * as dag from './dag';
import { fieldDemand } from './demand';
import { buildSummarize } from './heavy';
import { indexFilter } from './indexfilter';

/** The mode from ZLAKE_VECTOR_SCAN (auto when unset or unknown). */
export function envVectorMode(): VectorMode {
  const s = process.env.ZLAKE_VECTOR_SCAN;
  return s === 'on' || s === 'off' ? s : 'auto';
}

/** Functions whose value changes from call to call (a leaf is evaluated once per distinct value). */
const VOLATILE = new Set(['now', 'ksuid']);

/**
 * Collects the field paths e reads into out (by their JSON); false when e
 * looks at more than fields (this, a search of this, a function that reads
 * a field of this itself, a user function, an aggregate, a variable) or is
 * not a pure function of them.
 */
function exprPaths(e: dag.Expr | null, out: Map<string, string[]>): boolean {
  if (e === null) return true;
  switch (e.kind) {
    case 'Literal':
      return true;
    case 'This':
      if (e.path.length === 0) return false;
      out.set(JSON.stringify(e.path), e.path);
      return true;
    case 'Dot':
      return exprPaths(e.lhs, out);
    case 'Unary':
      return exprPaths(e.operand, out);
    case 'Binary':
      return exprPaths(e.lhs, out) && exprPaths(e.rhs, out);
    case 'Slice':
      return exprPaths(e.lhs, out) && exprPaths(e.from, out) && exprPaths(e.to, out);
    case 'Conditional':
      return exprPaths(e.cond, out) && exprPaths(e.then, out) && exprPaths(e.else, out);
    case 'Call': {
      // A shaper's one-argument form shapes `this`.
      if ((SHAPERS.has(e.name) && e.args.length === 1) || VOLATILE.has(e.name)) return false;
      // A function that reads a field of `this` itself (every: ts) reads that field.
      const implied = lookupFunction(e.name)?.path;
      if (implied !== undefined) {
        if (implied.length === 0) return false;
        out.set(JSON.stringify(implied), [...implied]);
      }
      return e.args.every((a) => exprPaths(a, out));
    }
    case 'Search':
    case 'RegexpSearch':
    case 'RegexpMatch':
      return exprPaths(e.expr, out);
    case 'RecordExpr':
      return e.elems.every((el) => exprPaths(el.kind === 'Field' ? el.value : el.expr, out));
    case 'ArrayExpr':
    case 'SetExpr':
      return e.elems.every((el) => exprPaths(el.expr, out));
    case 'MapExpr':
      return e.entries.every((en) => exprPaths(en.key, out) && exprPaths(en.value, out));
    default:
      return false;
  }
}

/**
 * e with each reference to a field path in bind (by its JSON) made that
 * expression (a copy): `this` for the one field a leaf reads, a variable
 * for each of several.
 */
function rebind(e: dag.Expr, bind: ReadonlyMap<string, dag.Expr>): dag.Expr {
  const swap = (o: Record<string, unknown>): unknown => {
    if (o.kind === 'This' && Array.isArray(o.path)) return bind.get(JSON.stringify(o.path));
    if (o.kind === 'Call' && !o.given) {
      // every(1h) reads ts itself: give it ts's value.
      const call = o as unknown as dag.Call;
      const implied = lookupFunction(call.name)?.path;
      const to = implied === undefined ? undefined : bind.get(JSON.stringify(implied));
      if (to !== undefined) {
        const args = call.args.map((a) => dag.mapExpr(a, swap));
        return { ...call, args: [to, ...args], given: true };
      }
    }
    return undefined;
  };
  return dag.mapExpr(e, swap);
}

/** e with every reference to path made a reference to `this`. */
function onPath(e: dag.Expr, path: readonly string[]): dag.Expr {
  return rebind(e, new Map([[JSON.stringify(path), { kind: 'This', path: [] }]]));
}

/**
 * e of the fields paths, compiled to read them from variables, with what
 * binds those to the columns (colOf: a path's column) row by row.
 */
function onVars(
  b: Builder,
  e: dag.Expr,
  paths: readonly string[][],
  colOf: ReadonlyMap<string, number>,
): { expr: Expr; vars: FieldVars } {
  const bind = new Map<string, dag.Expr>();
  paths.forEach((p, slot) => bind.set(JSON.stringify(p), { kind: 'Var', name: p.join('.'), slot }));
  const vars = new FieldVars(paths.map((p) => colOf.get(JSON.stringify(p))!));
  return { expr: b.exprIn(vars.frame, rebind(e, bind)), vars };
}

/** A predicate's leaves compiled on the values of their columns (colOf: a path's column). */
function compilePredicate(b: Builder, pp: PredPlan, colOf: Map<string, number>): VecPredicate {
  switch (pp.kind) {
    case 'leaf': {
      const paths = pp.paths;
      if (paths.length === 0) return { kind: 'leaf', col: -1, expr: b.expr(pp.expr) };
      if (paths.length > 1) return { kind: 'leaf', col: -1, ...onVars(b, pp.expr, paths, colOf) };
      return {
        kind: 'leaf',
        col: colOf.get(JSON.stringify(paths[0]))!,
        expr: b.expr(onPath(pp.expr, paths[0])),
      };
    }
    case 'not':
      return { kind: 'not', operand: compilePredicate(b, pp.operand, colOf) };
    default:
      return {
        kind: pp.kind,
        lhs: compilePredicate(b, pp.lhs, colOf),
        rhs: compilePredicate(b, pp.rhs, colOf),
      };
  }
}

/**
 * A scan's filter as a test on columns, for a scan that reads whole values
 * but may find the rows worth reading by the filter's columns first: the
 * paths it reads, and the rows of a batch that may pass (those the filter
 * keeps, and those it turns into errors, which the row engine outputs).
 */
export function compileMatch(
  b: Builder,
  filter: dag.Expr,
): { paths: string[][]; select(batch: VecBatch): Int32Array } | null {
  const paths = new Map<string, string[]>();
  const pp = predPlan(filter, paths);
  if (pp === null) return null;
  const list = [...paths.values()];
  const colOf = new Map<string, number>();
  list.forEach((p, i) => colOf.set(JSON.stringify(p), i));
  const pred = compilePredicate(b, pp, colOf);
  const pe = new PredicateEval(b.env.ctx.zctx.missing());
  let buf = new Int8Array(0);
  return {
    paths: list,
    select: (batch) => {
      const rows = batch.sel ?? identity(batch.n);
      if (buf.length < rows.length) buf = new Int8Array(rows.length);
      const codes = buf.subarray(0, rows.length);
      pe.eval(pred, batch, rows, codes);
      // One pass; the hits are few where this pays (a needle search).
      const hits: number[] = [];
      for (let k = 0; k < codes.length; k++) if (mayPass(codes[k])) hits.push(rows[k]);
      return Int32Array.from(hits);
    },
  };
}

/**
 * A quick form of e on the values of path, where there is one:
 * bucket(path, <duration>), and every(<duration>) where path is the
 * field it reads (ts).
 */
function fastOf(e: dag.Expr, path: readonly string[]): ((v: Value) => Value | null) | null {
  if (e.kind !== 'Call') return null;
  const key = JSON.stringify(path);
  let bin: dag.Expr;
  if (e.name === 'every' && e.args.length === 1) {
    if (JSON.stringify(lookupFunction('every')?.path) !== key) return null;
    bin = e.args[0];
  } else if (e.name === 'bucket' && e.args.length === 2) {
    const at = e.args[0];
    if (at.kind !== 'This' || JSON.stringify(at.path) !== key) return null;
    bin = e.args[1];
  } else return null;
  return bin.kind === 'Literal' ? bucketFast(bin.value) : null;
}

/** A filter on columns, before compiling its leaves (each of the fields paths). */
type PredPlan =
  | { kind: 'leaf'; paths: string[][]; expr: dag.Expr }
  | { kind: 'and' | 'or'; lhs: PredPlan; rhs: PredPlan }
  | { kind: 'not'; operand: PredPlan };

function predPlan(e: dag.Expr, paths: Map<string, string[]>): PredPlan | null {
  if (e.kind === 'Binary' && (e.op === 'and' || e.op === 'or')) {
    const lhs = predPlan(e.lhs, paths);
    const rhs = lhs && predPlan(e.rhs, paths);
    return rhs && { kind: e.op, lhs: lhs!, rhs };
  }
  if (e.kind === 'Unary' && e.op === '!') {
    const operand = predPlan(e.operand, paths);
    return operand && { kind: 'not', operand };
  }
  const mine = new Map<string, string[]>();
  if (!exprPaths(e, mine)) return null;
  for (const [k, p] of mine) paths.set(k, p);
  return { kind: 'leaf', paths: [...mine.values()], expr: e };
}

type Step =
  | { kind: 'filter'; pred: PredPlan; expr: dag.Expr; lifted: boolean }
  | { kind: 'head' | 'tail'; count: number }
  | { kind: 'summarize'; op: dag.Summarize }
  | { kind: 'sort'; op: dag.Sort }
  | { kind: 'put'; op: dag.Put };

interface Plan {
  steps: Step[];
  /** Paths read (by their JSON). */
  paths: Map<string, string[]>;
  /** Top-level fields the rows are made of (materialized, or for a filter's row fallback). */
  shape: string[];
  /** The operators the row engine runs after the vector ones. */
  rest: dag.Op[];
  /** A projection lifted into the scan, applied to the rows as they are materialized. */
  project: dag.Assignment[] | null;
  /** The top-level fields the steps' puts assign (computed columns, not the scan's). */
  assigned: ReadonlySet<string>;
  /** Whether project is a cut after the steps' puts (not lifted into the scan). */
  cutAfterPut: boolean;
  /**
   * A yield of a record of top-level fields the rows are made as (its
   * record, and its fields as a cut's), or null.
   */
  literal: { expr: dag.RecordExpr; fields: dag.Assignment[] } | null;
}

/**
 * The record of a yield that is one record of distinct names, each a
 * top-level field or an expression of fields (`yield {q:lower(query),
 * rtt}`), or null; with the fields a cut of its fields would take, and as
 * assignments the expressions to compute as columns (named for their
 * fields, none of which may be a field the record reads). Each row gives
 * that record whatever it holds (error("missing") for a field it lacks).
 */
function fieldsLiteral(
  op: dag.Op | undefined,
  inputs: Map<string, string[]>,
): (Plan['literal'] & { computed: dag.Assignment[] }) | null {
  if (op?.kind !== 'Yield' || op.exprs.length !== 1) return null;
  const expr = op.exprs[0];
  if (expr.kind !== 'RecordExpr') return null;
  const fields: dag.Assignment[] = [];
  const computed: dag.Assignment[] = [];
  const names = new Set<string>();
  for (const el of expr.elems) {
    if (el.kind !== 'Field' || names.has(el.name) || !exprPaths(el.value, inputs)) return null;
    names.add(el.name);
    const plain = el.value.kind === 'This' && el.value.path.length === 1;
    fields.push({ lhs: [el.name], rhs: plain ? el.value : { kind: 'This', path: [el.name] } });
    if (!plain) computed.push({ lhs: [el.name], rhs: el.value });
  }
  for (const p of inputs.values()) if (computed.some((a) => a.lhs[0] === p[0])) return null;
  return { expr, fields, computed };
}

/**
 * Rows a head may take where puts before it run on rows: after a put and
 * a cut of 1M rows in one object, a head of 2 took 2 ms on rows and 60 ms
 * on columns, of 100k 82 ms and 123 ms, and all rows 446 ms and 158 ms.
 */
const FEW_ROWS = 262144;

/** The plan for running seq's leading operators on columns, or null. */
function plan(seq: dag.Seq): Plan | null {
  const src = seq[0];
  if (src.kind !== 'PoolScan' && src.kind !== 'Reader') return null;
  const ops: dag.Op[] = [];
  if (src.filter !== null) ops.push({ kind: 'Filter', expr: src.filter });
  if (src.project) ops.push({ kind: 'Cut', args: src.project });
  ops.push(...seq.slice(1));
  let paths = new Map<string, string[]>();
  const steps: Step[] = [];
  let k = 0;
  let terminal = false;
  // The top-level fields put assigns (columns computed, not scanned), and
  // the plan as it was before the first put.
  const assigned = new Set<string>();
  let beforePut: { k: number; steps: number; paths: Map<string, string[]> } | null = null;
  // Adds the paths a step reads to the scan's, but for fields put
  // assigned; false where it reads into one (its column holds it whole).
  const reads = (inputs: Map<string, string[]>): boolean => {
    for (const p of inputs.values()) if (assigned.has(p[0]) && p.length > 1) return false;
    for (const [key, p] of inputs) if (!assigned.has(p[0])) paths.set(key, p);
    return true;
  };
  // A cut of fields after puts: the rows are made as its records, from
  // the columns the puts computed and the scan's.
  let cutAfterPut: dag.Cut | null = null;
  for (; k < ops.length; k++) {
    const op = ops[k];
    if (assigned.size > 0 && op.kind === 'Cut') {
      const inputs = new Map<string, string[]>();
      const plain = op.args.every(
        (a) =>
          a.lhs.length === 1 &&
          a.rhs.kind === 'This' &&
          a.rhs.path.length === 1 &&
          exprPaths(a.rhs, inputs),
      );
      // A head of a few rows after it takes them sooner on rows: the puts
      // compute columns for a whole batch (an object's rows).
      const next = ops[k + 1];
      if (!plain || (next?.kind === 'Head' && next.count < FEW_ROWS) || !reads(inputs)) break;
      cutAfterPut = op;
      k++;
      break;
    }
    // After a put, only more puts, filters, a summarize and a cut (above):
    // rows built from the scan's columns (a sort's output) lack its fields.
    if (assigned.size > 0 && op.kind !== 'Put' && op.kind !== 'Filter' && op.kind !== 'Summarize')
      break;
    if (op.kind === 'Filter') {
      const inputs = new Map<string, string[]>();
      const pred = predPlan(op.expr, inputs);
      if (pred === null || !reads(inputs)) break;
      steps.push({ kind: 'filter', pred, expr: op.expr, lifted: k === 0 && src.filter !== null });
    } else if (op.kind === 'Head' || op.kind === 'Tail') {
      steps.push({ kind: op.kind === 'Head' ? 'head' : 'tail', count: op.count });
    } else if (op.kind === 'Put') {
      // Top-level fields assigned expressions of fields: computed columns.
      const inputs = new Map<string, string[]>();
      if (!op.args.every((a) => a.lhs.length === 1 && exprPaths(a.rhs, inputs))) break;
      if (!reads(inputs)) break;
      beforePut ??= { k, steps: steps.length, paths: new Map(paths) };
      // A field's own value, which it keeps where put's is quiet.
      for (const a of op.args) if (!assigned.has(a.lhs[0])) paths.set(JSON.stringify(a.lhs), a.lhs);
      for (const a of op.args) assigned.add(a.lhs[0]);
      steps.push({ kind: 'put', op });
    } else if (op.kind === 'Summarize') {
      // Keys and arguments are fields, or expressions of fields
      // (computed on their columns, VecCompute).
      const inputs = new Map<string, string[]>();
      const ok =
        op.keys.every((key) => exprPaths(key.rhs, inputs)) &&
        op.aggs.every(
          (a) =>
            (a.agg.where === null || predPlan(a.agg.where, inputs) !== null) &&
            (a.agg.expr === null || exprPaths(a.agg.expr, inputs)),
        );
      if (!ok || !reads(inputs)) break;
      steps.push({ kind: 'summarize', op });
      terminal = true;
      k++;
      break;
    } else if (op.kind === 'Sort') {
      // A sort by fields (a guessed key needs the first record) that a
      // head cuts short: the keys come from columns and only the rows
      // output are built. A sort whose rows are all wanted stays on rows,
      // which measured as fast or faster (docs/benchmarks.md).
      const inputs = new Map<string, string[]>();
      if (
        ops[k + 1]?.kind !== 'Head' ||
        op.args.length === 0 ||
        !op.args.every((e) => e.kind === 'This' && exprPaths(e, inputs))
      )
        break;
      for (const [key, p] of inputs) paths.set(key, p);
      steps.push({ kind: 'sort', op });
      k++;
      break;
    } else break;
  }
  // Puts that no summarize or cut follows run on rows.
  if (beforePut !== null && !terminal && cutAfterPut === null) {
    k = beforePut.k;
    steps.length = beforePut.steps;
    paths = beforePut.paths;
    assigned.clear();
  }
  // The lifted filter must run on columns, or none of it does.
  if (src.filter !== null && (steps.length === 0 || steps[0].kind !== 'filter')) return null;
  let rest = ops.slice(k);
  // The scan's lifted projection, if the vector operators reach it, is the
  // scan's: applied as the rows are materialized.
  let project: dag.Assignment[] | null = null;
  if (!terminal && src.project && k === (src.filter !== null ? 1 : 0)) {
    project = src.project;
    rest = rest.slice(1);
  } else if (cutAfterPut !== null) project = cutAfterPut.args;
  const shape = new Set<string>();
  let literal: Plan['literal'] = null;
  if (!terminal) {
    // What the rest reads, or where seq is the input of a TopN (whose sort
    // and head read fields), what the whole query reads of the pool.
    const demand =
      fieldDemand(null, project ?? undefined, rest) ??
      (rest.length === 0 && src.kind === 'PoolScan' ? (src.fields ?? null) : null);
    if (demand === null) return null;
    for (const f of demand) shape.add(f);
    // A yield of a record of fields first: the rows are made as its
    // records, its expressions computed as columns (as a put's are:
    // where one gives an error, the rows are made by the record instead).
    // A head of a few rows after it takes them sooner on rows.
    const inputs = new Map<string, string[]>();
    const lit = project === null ? fieldsLiteral(rest[0], inputs) : null;
    const next = rest[1];
    if (
      lit !== null &&
      (lit.computed.length === 0 || !(next?.kind === 'Head' && next.count < FEW_ROWS))
    ) {
      literal = { expr: lit.expr, fields: lit.fields };
      rest = rest.slice(1);
      for (const [key, p] of inputs) paths.set(key, p);
      if (lit.computed.length > 0)
        steps.push({ kind: 'put', op: { kind: 'Put', args: lit.computed } });
    }
  }
  // A filter may hand a batch to the row engine (its errors), and a cut
  // after puts makes rows that differ in type by running the puts on rows:
  // those rows must then hold every field the vector operators read.
  if (cutAfterPut !== null || steps.some((s) => s.kind === 'filter'))
    for (const p of paths.values()) shape.add(p[0]);
  for (const f of shape) paths.set(JSON.stringify([f]), [f]);
  return {
    steps,
    paths,
    shape: [...shape],
    rest,
    project,
    assigned,
    cutAfterPut: cutAfterPut !== null,
    literal,
  };
}

/**
 * At most how many rows the query takes from the scan: a head first, on
 * columns or (after the scan's projection, which keeps every row) on rows;
 * null where it may take them all.
 */
function scanLimit(p: Plan): number | null {
  // Puts keep every row, as a cut of fields after them does.
  const first = p.steps.find((s) => s.kind !== 'put');
  if (first !== undefined) return first.kind === 'head' ? first.count : null;
  const op = p.rest[0];
  return op?.kind === 'Head' ? op.count : null;
}

/**
 * The paths whose columns' dictionaries a summarize will use (a single
 * key's, dcount's arguments'): a source that decodes columns on other
 * threads builds those there.
 */
function dictPaths(p: Plan): string[][] {
  const out: string[][] = [];
  const scanned = (e: dag.Expr | null): e is dag.This =>
    e?.kind === 'This' && !p.assigned.has(e.path[0]);
  for (const s of p.steps) {
    if (s.kind !== 'summarize') continue;
    const keys = s.op.keys;
    if (keys.length === 1 && scanned(keys[0].rhs)) out.push(keys[0].rhs.path);
    for (const a of s.op.aggs)
      if (a.agg.name === 'dcount' && scanned(a.agg.expr)) out.push(a.agg.expr.path);
  }
  return out;
}

/** The plan for seq on columns, when mode and the query allow one. */
function vectorPlan(b: Builder, seq: dag.Seq, mode: VectorMode): Plan | null {
  if (mode === 'off' || seq.length === 0) return null;
  const src = seq[0];
  const source: DataSource | undefined = b.env.source;
  if (src.kind === 'Reader') {
    if (mode !== 'on' || b.env.readers?.[src.index] === undefined) return null;
  } else if (src.kind === 'PoolScan') {
    if (source === undefined || (source.scanVectors === undefined && mode !== 'on')) return null;
  } else return null;
  return plan(seq);
}

/**
 * Builds seq (which starts with a source) with its leading operators on
 * columns, when mode and the query allow; returns the outputs of the
 * whole sequence, or null to build it all on the row engine.
 */
export function buildVectorized(b: Builder, seq: dag.Seq, mode: VectorMode): Operator[] | null {
  const p = vectorPlan(b, seq, mode);
  if (p === null) return null;
  const src = seq[0];
  const source: DataSource | undefined = b.env.source;
  const ctx = b.env.ctx;
  const zctx = ctx.zctx;
  const pathList = [...p.paths.values()];
  // A path's column: the scan's, or after a put, the one it computed.
  let colOf = new Map<string, number>();
  pathList.forEach((path, i) => colOf.set(JSON.stringify(path), i));
  // The batches' columns: the scan's, then those computed (VecCompute).
  let ncols = pathList.length;
  const exprs = pathExprs(zctx, pathList);
  const liftedFilter = p.steps.some((s) => s.kind === 'filter' && s.lifted);
  let op: VecOperator;
  if (src.kind === 'Reader') {
    op = new VecSourceScan(ctx, rowParts(b.env.readers![src.index]), exprs, !liftedFilter);
  } else {
    const scan = src as dag.PoolScan;
    const lake = source!;
    const fields = [...new Set(pathList.map((x) => x[0]))];
    const index = indexFilter(scan.filter);
    const dicts = dictPaths(p);
    const limit = scanLimit(p);
    op = lake.scanVectors
      ? new VecSourceScan(
          ctx,
          () =>
            lake.scanVectors!(scan.pool, scan.commit, {
              ctx: zctx,
              range: scan.range,
              paths: pathList,
              shape: p.shape,
              index,
              end: scan.end ?? null,
              ...(dicts.length > 0 ? { dicts } : {}),
              ...(limit !== null ? { limit } : {}),
            }),
          exprs,
          !liftedFilter,
        )
      : new VecSourceScan(
          ctx,
          rowParts(() =>
            lake.scan(scan.pool, scan.commit, {
              ctx: zctx,
              range: scan.range,
              fields,
              match: null,
              index,
              end: scan.end ?? null,
            }),
          ),
          exprs,
          !liftedFilter,
        );
  }
  const compilePred = (pp: PredPlan) => compilePredicate(b, pp, colOf);
  // How to compute e's column from the fields it reads.
  const specOf = (e: dag.Expr): ComputeSpec => {
    const mine = new Map<string, string[]>();
    exprPaths(e, mine);
    const paths = [...mine.values()];
    if (paths.length === 0) return { col: -1, expr: b.expr(e) };
    if (paths.length > 1) return { col: -1, ...onVars(b, e, paths, colOf) };
    return {
      col: colOf.get(JSON.stringify(paths[0]))!,
      expr: b.expr(onPath(e, paths[0])),
      fast: fastOf(e, paths[0]),
    };
  };
  // The puts so far, as the row engine runs them (a filter's row fallback).
  const puts: Putter[] = [];
  let out: Operator | null = null;
  for (const s of p.steps) {
    switch (s.kind) {
      case 'filter':
        op = new VecFilter(ctx, op, compilePred(s.pred), b.expr(s.expr), exprs, s.lifted, [
          ...puts,
        ]);
        break;
      case 'head':
        op = new VecHead(op, s.count);
        break;
      case 'tail':
        op = new VecTail(ctx, op, s.count);
        break;
      case 'put': {
        // Each field's column computed from the columns before the put
        // (put's expressions see its input), then the field's path is it.
        const next = new Map(colOf);
        const missing = zctx.missing();
        const specs = s.op.args.map((a, j): ComputeSpec => {
          const key = JSON.stringify(a.lhs);
          next.set(key, ncols + j);
          return { ...specOf(a.rhs), put: { orig: colOf.get(key) ?? -1, missing } };
        });
        op = new VecCompute(op, specs);
        ncols += specs.length;
        colOf = next;
        puts.push(b.putter(s.op));
        break;
      }
      case 'summarize': {
        // A field's column, or one computed after the batch's own.
        const specs: ComputeSpec[] = [];
        const col = (e: dag.Expr): number => {
          if (e.kind === 'This') return colOf.get(JSON.stringify(e.path))!;
          specs.push(specOf(e));
          return ncols + specs.length - 1;
        };
        const inputs = {
          keys: s.op.keys.map((key) => col(key.rhs)),
          args: s.op.aggs.map((a) => (a.agg.expr === null ? null : col(a.agg.expr))),
          wheres: s.op.aggs.map((a) => {
            const where = a.agg.where;
            return where === null ? null : compilePred(predPlan(where, new Map())!);
          }),
        };
        const parent = specs.length > 0 ? new VecCompute(op, specs) : op;
        out = buildSummarize(b, s.op, (opts) => new VecSummarize(ctx, parent, opts, inputs));
        break;
      }
      case 'sort': {
        const col = (e: dag.Expr) => colOf.get(JSON.stringify((e as dag.This).path))!;
        const opts = {
          keys: s.op.args.map(col),
          reverse: s.op.order === 'desc',
          nullsFirst: s.op.nullsFirst,
        };
        out = new VecSort(ctx, op, opts, (rows) => b.seq([s.op], [rows])[0]);
        break;
      }
    }
  }
  // A yield of a record of fields is projected as a cut of them would be,
  // where a recipe makes the rows, and else evaluated row by row.
  const literal = p.literal;
  out ??= new Materialize(
    op,
    ctx,
    b.projection(literal?.fields ?? p.project ?? undefined),
    (f) => colOf.get(JSON.stringify([f])) ?? -1,
    p.cutAfterPut ? puts : null,
    literal === null ? null : b.expr(literal.expr),
  );
  return b.seq(p.rest, [out]);
}
