// Columns computed from columns: a summarize whose keys or aggregate
// arguments are expressions of one field (`count() by lower(qtype_name)`,
// `sum(rtt*1000)`, `count() by bucket(ts, 1h)`) groups on a column of the
// expression's values instead of leaving the vector engine. Each
// expression is compiled as the row engine compiles it, with the field
// replaced by `this` (as a filter's leaf is), and evaluated on the
// field's values, so the answer is the row engine's, value for value.
// An expression of several fields (`sum(a+b)`) is evaluated on their
// columns' values, bound to variables (fieldvars.ts).
//
// Where the field's values repeat (strings, or a column with a dictionary
// already) and are few, the expression is evaluated once per distinct
// value (of several fields: per distinct combination of their values),
// and the computed column comes with its own dictionary, made from
// those results; otherwise it is evaluated row by row, and the column gets
// a dictionary where its values turn out few. Either way a group-by on it
// then works per distinct value too.

import { Kind, Type, TypeNull, TypeRecord } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import {
  buildDict,
  Column,
  ColumnBuilder,
  ColumnData,
  Dict,
  repeats,
  VecBatch,
} from '../../zed/vector';
import { isQuiet } from '../expr/errors';
import { Expr } from '../expr/expr';
import { FieldVars } from './fieldvars';
import { VecOperator } from './operator';

/**
 * A column to compute: expr of column col's values (col -1: of no field,
 * a constant), or with vars, of the values of vars's columns (several
 * fields), bound row by row.
 */
export interface ComputeSpec {
  col: number;
  expr: Expr;
  vars?: FieldVars;
  /**
   * expr's answer for a value without evaluating it, where that is quick
   * (bucket's common case, bucketFast), else null: then expr is evaluated.
   */
  fast?: ((v: Value) => Value | null) | null;
  /**
   * The column is a field `put` assigns, as the row engine's put would:
   * where expr is quiet the field keeps its value (the column orig, -1:
   * none, missing), and a row that is not a record (put makes it an
   * error, whose fields are missing) has missing.
   */
  put?: { orig: number; missing: Value };
}

/** Adds a column per spec to each batch, after the batch's own. */
export class VecCompute implements VecOperator {
  private readonly v = new Value(TypeNull, EMPTY, 0, -1);

  constructor(
    private readonly parent: VecOperator,
    private readonly specs: readonly ComputeSpec[],
  ) {}

  async pull(): Promise<VecBatch | null> {
    const b = await this.parent.pull();
    if (b === null) return null;
    const cols = b.cols.slice();
    for (const s of this.specs) {
      const c = this.compute(b, s);
      cols.push(s.put === undefined ? c : this.forPut(b, c, s.put.orig, s.put.missing));
    }
    return { n: b.n, cols, sel: b.sel, rows: b.rows, shape: b.shape, errors: b.errors ?? null };
  }

  close(): Promise<void> {
    return this.parent.close();
  }

  rowsAtMost(): number {
    return this.parent.rowsAtMost();
  }

  /** c as the field put assigns (ComputeSpec.put): c itself where no row differs. */
  private forPut(b: VecBatch, c: Column, orig: number, missing: Value): Column {
    const rows = b.rows;
    const quiet = c.types.some((t) => t.kind === Kind.Error);
    if (rows === null && !quiet) return c;
    const n = b.n;
    const v = this.v;
    const out = new ColumnBuilder(n, c.data.off[n] - c.data.off[0] + n);
    for (let i = 0; i < n; i++) {
      if (rows !== null && !(rows[i].type.under instanceof TypeRecord)) out.appendValue(missing);
      else if (quiet && isQuiet(c.at(i, v)))
        out.appendValue(orig < 0 ? missing : b.cols[orig].at(i, v));
      else out.appendValue(c.at(i, v));
    }
    const col = out.finish();
    col.dictIfFew(); // kept with the data, for the steps after
    return col;
  }

  private compute(b: VecBatch, s: ComputeSpec): Column {
    const v = this.v;
    const expr = s.expr;
    const m = b.sel === null ? b.n : b.sel.length;
    const vars = s.vars;
    if (vars !== undefined) {
      const c = vars.combos(b, m);
      if (c === null) return byRow(b, s, v);
      return byCode(b.n, c.codes, c.rows, (row) => {
        vars.bind(b, row);
        return expr.eval(v);
      });
    }
    if (s.col < 0) return constant(b.n, expr.eval(v));
    const c = b.cols[s.col];
    if (repeats(c)) {
      // A dictionary made here only where the values are few (a first
      // query over 313k names of 1M rows took twice the time by one).
      const d = c.dictIfFew();
      if (d !== null && d.count < m)
        return byCode(b.n, d.codes, d.rows, (row) => expr.eval(c.at(row, v)));
    }
    return byRow(b, s, v, c);
  }
}

/** n rows of the value r (an expression of no field). */
function constant(n: number, r: Value): Column {
  const out = new ColumnBuilder(n, n * (r.len + 2));
  for (let i = 0; i < n; i++) out.append(r.type, r.buf, r.off, r.len);
  return out.finish();
}

/**
 * expr of each selected row's value of column c (or of its fields, bound
 * to s.vars, where s has them). A row not selected gets a null of
 * the next selected row's type (nothing reads it), so a column of one
 * result type stays a column of one type. Where the results take few
 * distinct values (`bucket(ts, 1h)`, `len(s)`), the column gets a
 * dictionary (a run of one value costs a comparison with the row
 * before), for the group-by to work per distinct value.
 */
function byRow(b: VecBatch, s: ComputeSpec, v: Value, c: Column | null = null): Column {
  const expr = s.expr;
  const fast = s.fast ?? null;
  const vars = s.vars ?? null;
  const n = b.n;
  const sel = b.sel;
  const m = sel === null ? n : sel.length;
  const out = new ColumnBuilder(n, n * 10);
  let row = 0;
  let last: Type = TypeNull;
  for (let k = 0; k < m; k++) {
    const i = sel === null ? k : sel[k];
    if (vars !== null) vars.bind(b, i);
    else c!.at(i, v);
    const r = (fast !== null ? fast(v) : null) ?? expr.eval(v);
    for (; row < i; row++) out.append(r.type, EMPTY, 0, -1);
    out.append(r.type, r.buf, r.off, r.len);
    last = r.type;
    row = i + 1;
  }
  for (; row < n; row++) out.append(last, EMPTY, 0, -1);
  const col = out.finish();
  col.dictIfFew(); // kept with the data, for the steps after
  return col;
}

/**
 * The value of each of n rows, worked out once per code (codes: each
 * row's; reps: a row of each code; at: the value of a row), with a
 * dictionary of the results: equal results (of distinct values: `lower`
 * of "A" and "a") share a code.
 */
function byCode(
  n: number,
  codes: Int32Array,
  reps: Int32Array,
  at: (row: number) => Value,
): Column {
  // The results by input code, as a column of a row per code.
  const count = reps.length;
  const rb = new ColumnBuilder(count, count * 8);
  for (let code = 0; code < count; code++) rb.appendValue(at(reps[code]));
  const results = rb.finish();
  const roff = results.data.off;
  const rtix = results.typeIndex;
  // Their distinct values: rd.codes maps an input code to an output code.
  const rd = buildDict(results.data, rtix);
  const outOf = rd.codes;
  // Each row's result, copied from the results' bytes.
  const off = new Int32Array(n + 1);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const code = codes[i];
    off[i] = size;
    size += roff[code + 1] - roff[code];
  }
  off[n] = size;
  const buf = Buffer.allocUnsafe(size);
  const src = results.data.buf;
  const outCodes = new Int32Array(n);
  const tix = rtix === null ? null : new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const code = codes[i];
    const a = roff[code];
    const e = roff[code + 1];
    let o = off[i];
    if (e - a <= 16) for (let k = a; k < e; k++) buf[o++] = src[k];
    else src.copy(buf, o, a, e);
    outCodes[i] = outOf[code];
    if (tix !== null) tix[i] = rtix![code];
  }
  const data = new ColumnData(buf, off);
  // A row holding each output value: one of an input value it came from.
  const rows = new Int32Array(rd.count);
  for (let oc = 0; oc < rd.count; oc++) rows[oc] = reps[rd.rows[oc]];
  // rd's index hashes the results' tagged bytes and type numbers, which
  // the rows' are.
  data.dict = new Dict(outCodes, rows, rd.slots, data, tix);
  const types = results.types;
  return tix === null ? Column.uniform(data, types[0]) : new Column(data, null, types, tix);
}
