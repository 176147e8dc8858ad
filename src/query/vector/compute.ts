// Columns computed from columns: a summarize whose keys or aggregate
// arguments are expressions of one field (`count() by lower(qtype_name)`,
// `sum(rtt*1000)`, `count() by bucket(ts, 1h)`) groups on a column of the
// expression's values instead of leaving the vector engine. Each
// expression is compiled as the row engine compiles it, with the field
// replaced by `this` (as a filter's leaf is), and evaluated on the
// field's values, so the answer is the row engine's, value for value.
//
// Where the field's values repeat (strings, or a column with a dictionary
// already) and are few, the expression is evaluated once per distinct
// value, and the computed column comes with its own dictionary, made from
// those results; otherwise it is evaluated row by row, and the column gets
// a dictionary where its values turn out few. Either way a group-by on it
// then works per distinct value too.

import { Type, TypeNull } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import {
  buildDict,
  buildDictIfFew,
  Column,
  ColumnBuilder,
  ColumnData,
  Dict,
  VecBatch,
} from '../../zed/vector';
import { Expr } from '../expr/expr';
import { isStringy } from './filter';
import { VecOperator } from './operator';

/** A column to compute: expr of column col's values (col -1: of no field, a constant). */
export interface ComputeSpec {
  col: number;
  expr: Expr;
  /**
   * expr's answer for a value without evaluating it, where that is quick
   * (bucket's common case, bucketFast), else null: then expr is evaluated.
   */
  fast?: ((v: Value) => Value | null) | null;
}

/**
 * Whether a column's values repeat (as a filter's leaf decides): it has a
 * dictionary already, or holds bytes, strings, IPs, nets or types.
 */
function repeats(c: Column): boolean {
  const t = c.type;
  return c.data.dict !== null || (t !== null && isStringy(t.under.id));
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
    for (const s of this.specs) cols.push(this.compute(b, s));
    return { n: b.n, cols, sel: b.sel, rows: b.rows, shape: b.shape, errors: b.errors ?? null };
  }

  close(): Promise<void> {
    return this.parent.close();
  }

  rowsAtMost(): number {
    return this.parent.rowsAtMost();
  }

  private compute(b: VecBatch, s: ComputeSpec): Column {
    if (s.col < 0) return constant(b.n, s.expr.eval(this.v));
    const c = b.cols[s.col];
    if (repeats(c)) {
      // A dictionary made here only where the values are few (a first
      // query over 313k names of 1M rows took twice the time by one).
      const d = c.data.dict ?? (c.data.dict = buildDictIfFew(c.data, c.typeIndex));
      if (d !== null && d.count < (b.sel === null ? b.n : b.sel.length))
        return byDict(c, d, s.expr, this.v);
    }
    return byRow(b, c, s, this.v);
  }
}

/** n rows of the value r (an expression of no field). */
function constant(n: number, r: Value): Column {
  const out = new ColumnBuilder(n, n * (r.len + 2));
  for (let i = 0; i < n; i++) out.append(r.type, r.buf, r.off, r.len);
  return out.finish();
}

/**
 * expr of each selected row's value. A row not selected gets a null of
 * the next selected row's type (nothing reads it), so a column of one
 * result type stays a column of one type. Where the results take few
 * distinct values (`bucket(ts, 1h)`, `len(s)`), the column gets a
 * dictionary (a run of one value costs a comparison with the row
 * before), for the group-by to work per distinct value.
 */
function byRow(b: VecBatch, c: Column, s: ComputeSpec, v: Value): Column {
  const expr = s.expr;
  const fast = s.fast ?? null;
  const n = b.n;
  const sel = b.sel;
  const m = sel === null ? n : sel.length;
  const out = new ColumnBuilder(n, n * 10);
  let row = 0;
  let last: Type = TypeNull;
  for (let k = 0; k < m; k++) {
    const i = sel === null ? k : sel[k];
    c.at(i, v);
    const r = (fast !== null ? fast(v) : null) ?? expr.eval(v);
    for (; row < i; row++) out.append(r.type, EMPTY, 0, -1);
    out.append(r.type, r.buf, r.off, r.len);
    last = r.type;
    row = i + 1;
  }
  for (; row < n; row++) out.append(last, EMPTY, 0, -1);
  const col = out.finish();
  col.data.dict = buildDictIfFew(col.data, col.typeIndex);
  return col;
}

/**
 * expr of every row's value, evaluated once per code of the column's
 * dictionary d, with a dictionary of the results: equal results (of
 * distinct values: `lower` of "A" and "a") share a code.
 */
function byDict(c: Column, d: Dict, expr: Expr, v: Value): Column {
  // The results by input code, as a column of d.count rows.
  const count = d.count;
  const rb = new ColumnBuilder(count, count * 8);
  for (let code = 0; code < count; code++) rb.appendValue(expr.eval(c.at(d.rows[code], v)));
  const results = rb.finish();
  const roff = results.data.off;
  const rtix = results.typeIndex;
  // Their distinct values: rd.codes maps an input code to an output code.
  const rd = buildDict(results.data, rtix);
  const outOf = rd.codes;
  // Each row's result, copied from the results' bytes.
  const n = c.n;
  const codes = d.codes;
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
  for (let oc = 0; oc < rd.count; oc++) rows[oc] = d.rows[rd.rows[oc]];
  // rd's index hashes the results' tagged bytes and type numbers, which
  // the rows' are.
  data.dict = new Dict(outCodes, rows, rd.slots, data, tix);
  const types = results.types;
  return tix === null ? Column.uniform(data, types[0]) : new Column(data, null, types, tix);
}
