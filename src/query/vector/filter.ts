// Filters on columns. A filter is a tree of and/or/not over leaves, each
// an expression of one column (a comparison with a constant, a search of a
// string field, a function of the field...) or of several (`a > b`, row by
// row: fieldvars.ts). A leaf is compiled as the row
// engine compiles it, with the field replaced by `this`, and evaluated on
// the column's values: once per distinct value when the column has a
// dictionary, so a string comparison over a million rows of 300k names
// costs 300k comparisons and a million array reads.
//
// Each row gets the code of the row engine's result: false, true,
// error("missing") (dropped silently, and false to `or`), or any other
// error or non-bool. and/or/not combine codes by the row engine's rules
// (logic.ts). A row whose filter yields another error is output as that
// error by the row engine (filter.ts): when a batch has one, the batch is
// materialized and filtered by the row engine instead, so the answer is
// the same whatever the data.

import { ID, Kind, TypeBool } from '../../zed/types';
import { Value, EMPTY } from '../../zed/value';
import { Column, ColumnBuilder, repeats, VecBatch } from '../../zed/vector';
import { Predicate, PredicateExpr } from '../expr/compare';
import { This } from '../expr/path';
import { isError, isMissing } from '../expr/errors';
import { Expr } from '../expr/expr';
import { QueryContext } from '../runtime/context';
import { ValueArena } from '../runtime/arena';
import { FilterFn } from '../runtime/ops/filter';
import { Putter } from '../runtime/ops/put';
import { materialize, selectedBytes, withSel } from './batch';
import { FieldVars } from './fieldvars';
import { identity, VecOperator } from './operator';

const FALSE = 0;
const TRUE = 1;
const MISSING = 2;
const OTHER = 3;

/** Whether a row with this code is true (an aggregate's where clause takes only those). */
export function holds(code: number): boolean {
  return code === TRUE;
}

/** Whether a row with this code may be output by the row engine's filter (kept, or as an error). */
export function mayPass(code: number): boolean {
  return code === TRUE || code === OTHER;
}

export type VecPredicate =
  /**
   * expr evaluated on the values of column col (col -1: on
   * error("missing"), for a constant), or with vars, on the values of
   * vars's columns bound row by row (an expression of several fields).
   */
  | { kind: 'leaf'; col: number; expr: Expr; vars?: FieldVars }
  | { kind: 'and' | 'or'; lhs: VecPredicate; rhs: VecPredicate }
  | { kind: 'not'; operand: VecPredicate };

/** The code of a result. */
function codeOf(r: Value): number {
  if (r.type.under === TypeBool) return r.len > 0 && r.buf[r.off] !== 0 ? TRUE : FALSE;
  if (isError(r)) return isMissing(r) ? MISSING : OTHER;
  return OTHER;
}

/** Evaluates predicates on batches. */
export class PredicateEval {
  private readonly scratch = new Value(TypeBool, EMPTY, 0, -1);

  constructor(private readonly missing: Value) {}

  /** The code of pred for each row rows[k], into out[k]. */
  eval(p: VecPredicate, b: VecBatch, rows: Int32Array, out: Int8Array): void {
    const n = rows.length;
    switch (p.kind) {
      case 'leaf':
        if (p.vars !== undefined) byVars(p.vars, p.expr, b, rows, out, this.scratch);
        else this.leaf(p.col, p.expr, b, rows, out);
        return;
      case 'not':
        this.eval(p.operand, b, rows, out);
        for (let k = 0; k < n; k++) {
          const c = out[k];
          if (c <= TRUE) out[k] = 1 - c;
        }
        return;
      case 'and':
      case 'or': {
        this.eval(p.lhs, b, rows, out);
        // The rows whose result the right side decides.
        const and = p.kind === 'and';
        let m = 0;
        for (let k = 0; k < n; k++) {
          const c = out[k];
          if (and ? c === TRUE : c === FALSE || c === MISSING) m++;
        }
        if (m === 0) return;
        const sub = new Int32Array(m);
        const at = new Int32Array(m);
        m = 0;
        for (let k = 0; k < n; k++) {
          const c = out[k];
          if (and ? c === TRUE : c === FALSE || c === MISSING) {
            sub[m] = rows[k];
            at[m++] = k;
          }
        }
        const r = new Int8Array(m);
        this.eval(p.rhs, b, sub, r);
        for (let j = 0; j < m; j++) out[at[j]] = r[j];
        return;
      }
    }
  }

  private leaf(col: number, expr: Expr, b: VecBatch, rows: Int32Array, out: Int8Array): void {
    const n = rows.length;
    if (col < 0) {
      out.fill(codeOf(expr.eval(this.missing)), 0, n);
      return;
    }
    const c = b.cols[col];
    const v = this.scratch;
    if (expr instanceof PredicateExpr && expr.operand instanceof This) {
      // A comparison of the field with a constant, on a column of one type
      // that is not an error: the row engine's result is its predicate's.
      const t = c.type;
      if (t !== null && t.kind !== Kind.Error) {
        if (expr.stringEq !== null) stringEq(c, expr.stringEq, rows, out);
        else predicate(c, expr.pred, rows, out, v);
        return;
      }
    }
    // A dictionary pays when it is built already, or values repeat
    // (strings) and a cache shares the column; on its first use, only
    // where the values are few (one of a million rows of 313k names costs
    // more than the expression it saves: VecCompute's rule).
    const data = c.data;
    data.uses++;
    const d = !repeats(c) ? null : data.uses > 1 ? c.dict() : c.dictIfFew();
    if (d !== null && d.count < n) {
      byCode(d.codes, d.rows, rows, out, (row) => codeOf(expr.eval(c.at(row, v))));
      return;
    }
    for (let k = 0; k < n; k++) out[k] = codeOf(expr.eval(c.at(rows[k], v)));
  }
}

/**
 * out[k]: the code of expr of row rows[k]'s fields, bound to vars: once
 * per distinct combination of their values where those are few.
 */
function byVars(
  vars: FieldVars,
  expr: Expr,
  b: VecBatch,
  rows: Int32Array,
  out: Int8Array,
  v: Value,
): void {
  const test = (row: number) => {
    vars.bind(b, row);
    return codeOf(expr.eval(v));
  };
  const c = vars.combos(b, rows.length);
  if (c !== null) byCode(c.codes, c.rows, rows, out, test);
  else for (let k = 0; k < rows.length; k++) out[k] = test(rows[k]);
}

/**
 * out[k]: f of row rows[k], worked out once per code (codes: each row's;
 * reps: a row of each code), where rows of a code give the same answer.
 */
function byCode(
  codes: Int32Array,
  reps: Int32Array,
  rows: Int32Array,
  out: Int8Array,
  f: (row: number) => number,
): void {
  const memo = new Int8Array(reps.length).fill(-1);
  for (let k = 0; k < rows.length; k++) {
    const code = codes[rows[k]];
    let r = memo[code];
    if (r < 0) {
      r = f(reps[code]);
      memo[code] = r;
    }
    out[k] = r;
  }
}

/** The tagged bytes of a null (the tag 0 alone). */
const NULL_TAGGED = new Uint8Array([0]);

/**
 * `field == <string constant>` on a one-type column, with the constant's
 * tagged bytes lit: the row engine's predicate (compare.ts) holds for a
 * string equal to the constant, and for a null when the constant is ""
 * (a null's tag alone is as long as an empty string's tagged bytes).
 * Where the column has a dictionary (or a cache shares it, so one pays)
 * the constant's code is looked up once and the rows' codes compared;
 * else only rows whose tagged bytes are as long as the constant's are
 * compared (most cost a subtraction).
 */
function stringEq(c: Column, lit: Buffer, rows: Int32Array, out: Int8Array): void {
  const n = rows.length;
  if (c.type!.under.id !== ID.String) {
    out.fill(FALSE, 0, n);
    return;
  }
  const data = c.data;
  const tlen = lit.length;
  data.uses++;
  const d = data.dict ?? (data.uses > 1 ? c.dict() : null);
  if (d !== null) {
    const codes = d.codes;
    const a = d.find(lit, 0);
    const b = tlen === 1 ? d.find(NULL_TAGGED, 0) : -1;
    if (a < 0 && b < 0) out.fill(FALSE, 0, n);
    else
      for (let k = 0; k < n; k++) {
        const code = codes[rows[k]];
        out[k] = code === a || code === b ? TRUE : FALSE;
      }
    return;
  }
  const { buf, off } = data;
  for (let k = 0; k < n; k++) {
    const i = rows[k];
    const p = off[i];
    let r = FALSE;
    if (off[i + 1] - p === tlen) {
      if (tlen === 1) r = TRUE;
      else {
        let j = 0;
        while (j < tlen && buf[p + j] === lit[j]) j++;
        if (j === tlen) r = TRUE;
      }
    }
    out[k] = r;
  }
}

/** A predicate on a one-type column: once per distinct value where a dictionary is built. */
function predicate(c: Column, pred: Predicate, rows: Int32Array, out: Int8Array, v: Value): void {
  const n = rows.length;
  const d = c.data.dict;
  const test = (row: number) => {
    c.at(row, v);
    return pred(v.type, v.buf, v.off, v.len) ? TRUE : FALSE;
  };
  if (d !== null && d.count < n) byCode(d.codes, d.rows, rows, out, test);
  else for (let k = 0; k < n; k++) out[k] = test(rows[k]);
}

/** Rows of a batch the row engine filters at a time (VecFilter.byRows). */
const ROWS_AT_ONCE = 8192;

/** A batch whose rows VecFilter.byRows goes through: the rows, their codes, and how far it is. */
interface Pending {
  b: VecBatch;
  rows: Int32Array;
  codes: Int8Array;
  at: number;
}

/** where on columns. */
export class VecFilter implements VecOperator {
  private readonly pe: PredicateEval;
  private readonly fn: FilterFn;
  private readonly arena = new ValueArena();
  private readonly putArena = new ValueArena();
  private readonly missing: Value;
  private codes = new Int8Array(0);
  private pending: Pending | null = null;

  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: VecOperator,
    private readonly pred: VecPredicate,
    /** The filter as the row engine runs it, for batches with errors. */
    rowFilter: Expr,
    /** The scan's paths, to make columns of the errors the row engine outputs. */
    private readonly paths: readonly Expr[],
    /** Count the rows passing as matched in the query's stats (a filter lifted into the scan). */
    private readonly countMatched: boolean,
    /**
     * The puts between the scan and the filter, in order (their fields
     * are the batch's columns after the scan's): the row engine filters
     * the rows as they made them.
     */
    private readonly puts: readonly Putter[] = [],
  ) {
    this.pe = new PredicateEval(ctx.zctx.missing());
    this.fn = new FilterFn(ctx.zctx, rowFilter);
    this.missing = ctx.zctx.missing();
  }

  async pull(): Promise<VecBatch | null> {
    for (;;) {
      if (this.pending !== null) {
        const p = this.pending;
        const out = this.byRows(p);
        if (p.at === p.rows.length) this.pending = null;
        if (out !== null) return out;
        continue;
      }
      const b = await this.parent.pull();
      if (b === null) return null;
      const rows = b.sel ?? identity(b.n);
      const n = rows.length;
      if (this.codes.length < n) this.codes = new Int8Array(n);
      const codes = this.codes.subarray(0, n);
      this.pe.eval(this.pred, b, rows, codes);
      let kept = 0;
      let other = false;
      for (let k = 0; k < n; k++) {
        const c = codes[k];
        if (c === TRUE) kept++;
        else if (c === OTHER) other = true;
      }
      if (other) {
        this.pending = { b, rows, codes: codes.slice(), at: 0 };
        continue;
      }
      if (kept === 0) continue;
      let sel = rows;
      if (kept < n) {
        sel = new Int32Array(kept);
        for (let k = 0, j = 0; k < n; k++) if (codes[k] === TRUE) sel[j++] = rows[k];
      }
      const out = withSel(b, sel);
      if (this.countMatched) {
        this.ctx.stats.recordsMatched += kept;
        this.ctx.stats.bytesMatched += selectedBytes(out);
      }
      return out;
    }
  }

  /**
   * The next rows of a batch holding rows the row engine outputs as
   * errors (code OTHER), as a batch of values: the rows kept (TRUE) as the
   * scan read them (a batch's rows are the scan's, which a put's columns
   * go with), and what the row engine's filter outputs for the others, as
   * it sees them (through the puts before the filter). A kept row's
   * columns are its own; an error's are what the scan's paths give of it,
   * and missing for a put's field, as a put's column is for a row that is
   * not a record (VecCompute). ROWS_AT_ONCE rows at a time, so that a big
   * batch is not made values all at once.
   */
  private byRows(p: Pending): VecBatch | null {
    const { b, rows, codes } = p;
    const from = p.at;
    const to = Math.min(rows.length, from + ROWS_AT_ONCE);
    p.at = to;
    const at: number[] = [];
    for (let k = from; k < to; k++) if (mayPass(codes[k])) at.push(k);
    const m0 = at.length;
    if (m0 === 0) return null;
    const vals = materialize(
      withSel(
        b,
        Int32Array.from(at, (k) => rows[k]),
      ),
      0,
      m0,
    );
    // The rows the row engine decides, as the filter sees them.
    const others: number[] = [];
    for (let j = 0; j < m0; j++) if (codes[at[j]] === OTHER) others.push(j);
    let seen = others.map((j) => vals[j]);
    for (const put of this.puts) {
      seen = seen.map((v) => put.apply(v, this.putArena));
      this.putArena.seal();
    }
    const out: Value[] = [];
    // Each output row's row in b, or -1: an error the filter outputs.
    const src: number[] = [];
    let matched = 0;
    let matchedBytes = 0;
    for (let j = 0, o = 0; j < m0; j++) {
      const v = vals[j];
      if (o < others.length && others[o] === j) {
        const r = this.fn.test(seen[o]);
        const was = seen[o++];
        if (r === null) continue;
        if (r !== was) {
          out.push(this.arena.copy(r));
          src.push(-1);
          continue;
        }
      }
      matched++;
      if (v.len > 0) matchedBytes += v.len;
      out.push(v);
      src.push(rows[at[j]]);
    }
    this.arena.seal();
    if (this.countMatched) {
      this.ctx.stats.recordsMatched += matched;
      this.ctx.stats.bytesMatched += matchedBytes;
    }
    const m = out.length;
    if (m === 0) return null;
    const scratch = new Value(TypeBool, EMPTY, 0, -1);
    const cols = b.cols.map((c, i) => {
      const cb = new ColumnBuilder(m, m * 16);
      for (let j = 0; j < m; j++) {
        const row = src[j];
        if (row >= 0) cb.appendValue(c.at(row, scratch));
        else cb.appendValue(i < this.paths.length ? this.paths[i].eval(out[j]) : this.missing);
      }
      return cb.finish();
    });
    const errors = new Uint8Array(m);
    for (let j = 0; j < m; j++) if (src[j] < 0) errors[j] = 1;
    return { n: m, cols, sel: null, rows: out, shape: null, errors };
  }

  async close(): Promise<void> {
    await this.parent.close();
  }

  rowsAtMost(): number {
    return this.parent.rowsAtMost();
  }
}
