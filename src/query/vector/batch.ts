// The vector engine's batches (src/zed/vector.ts): made from a source's
// columns, or from values (rows read by rows, any other input) by
// evaluating the scan's paths on each, and turned back into values for
// the row engine (materialized) where a query leaves the vector engine.

import { TypeContext } from '../../zed/context';
import {
  Column,
  ColumnBuilder,
  ColumnData,
  copy32,
  RecordRecipe,
  VecBatch,
} from '../../zed/vector';
import { Type, TypeNull } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { putUvarint, uvarintSize } from '../../zed/zcode';
import { Expr } from '../expr/expr';
import { fieldPath } from '../expr/path';

/** Values per batch of materialized rows. */
export const ROW_BATCH = 1024;

/**
 * The memory of the rows materialize() built last, reused for the next
 * call where its caller has done with them by then (a query's output that
 * is written out before the next is asked for, Materialize.reuseOutput):
 * the Value objects and the buffer their records lie in. A cut of a
 * million rows otherwise allocates a million values and their 50 MB
 * afresh, which the collector then pays for.
 */
export class RowScratch {
  private buf: Buffer = Buffer.alloc(0);
  private vals: Value[] = [];

  /** A buffer of at least size bytes (its contents are overwritten). */
  buffer(size: number): Buffer {
    if (this.buf.length < size) this.buf = Buffer.allocUnsafe(Math.max(size, 2 * this.buf.length));
    return this.buf;
  }

  /** n Value objects to point at the new rows. */
  values(n: number): Value[] {
    const vals = this.vals;
    if (vals.length > n) vals.length = n;
    while (vals.length < n) vals.push(new Value(TypeNull, EMPTY, 0, -1));
    return vals;
  }
}

/** A batch of the columns a source read. */
export function columnsBatch(
  n: number,
  cols: Column[],
  shape: VecBatch['shape'],
  sel: Int32Array | null = null,
): VecBatch {
  return { n, cols, sel, rows: null, shape };
}

/** Evaluators of a scan's paths (the engine's field access). */
export function pathExprs(zctx: TypeContext, paths: readonly (readonly string[])[]): Expr[] {
  return paths.map((p) => fieldPath(zctx, p));
}

/** A batch of values: each path's column is its value in each row. */
export function rowsBatch(rows: Value[], paths: readonly Expr[]): VecBatch {
  const n = rows.length;
  const cols = paths.map((e) => {
    const b = new ColumnBuilder(n, n * 16);
    for (let i = 0; i < n; i++) b.appendValue(e.eval(rows[i]));
    return b.finish();
  });
  return { n, cols, sel: null, rows, shape: null };
}

/** The same batch with another selection. */
export function withSel(b: VecBatch, sel: Int32Array | null): VecBatch {
  return { n: b.n, cols: b.cols, sel, rows: b.rows, shape: b.shape, errors: b.errors ?? null };
}

/**
 * Copies src[from, to) to dst at o and returns the new o. Runs of up to
 * 128 bytes go 4 bytes at a time through the views (Buffer.copy costs
 * ~50 ns a call whatever the length, the views' loop ~0.35 ns a byte),
 * possibly writing up to 3 bytes past the run: dst needs that slack at
 * its end, and the bytes after o are written later anyway.
 */
function copyRun(
  dst: Buffer,
  dv: DataView,
  o: number,
  src: Buffer,
  sv: DataView,
  from: number,
  to: number,
): number {
  const n = to - from;
  if (n > 128) {
    src.copy(dst, o, from, to);
    return o + n;
  }
  if (to + 4 <= src.length) {
    for (let k = 0; k < n; k += 4) dv.setInt32(o + k, sv.getInt32(from + k, true), true);
    return o + n;
  }
  for (let k = from; k < to; k++) dst[o++] = src[k];
  return o;
}

/**
 * The rows sel[from, to) of a batch (all rows when sel is null) as values:
 * its own rows, or records built from its columns by its shape (or by
 * recipe, for every row: a cut of its columns), each row's fields'
 * tagged bytes end to end, in one buffer for the lot. Each record's body
 * follows its own tag and one spare byte, as a ZNG value follows its type
 * ID, so that a ZNG writer copies runs of them whole (writer.ts).
 */
export function materialize(
  b: VecBatch,
  from: number,
  to: number,
  recipe: RecordRecipe | null = null,
  /** Where the rows of one recipe are built, reused (see RowScratch); null: new memory. */
  scratch: RowScratch | null = null,
): Value[] {
  const sel = b.sel;
  const out = new Array<Value>(to - from);
  if (b.rows !== null) {
    const rows = b.rows;
    for (let k = from; k < to; k++) out[k - from] = rows[sel === null ? k : sel[k]];
    return out;
  }
  const shape = b.shape!;
  const recipes = recipe === null ? shape.recipes : [recipe];
  const recipeOf = recipe === null ? shape.recipeOf : null;
  if (recipeOf === null && recipes[0].nulls === null)
    return oneRecipe(b, from, to, recipes[0], scratch);
  const cols = b.cols;
  // Sizes first, so the records are built in one buffer.
  let size = 0;
  for (let k = from; k < to; k++) {
    const i = sel === null ? k : sel[k];
    const r = recipes[recipeOf === null ? 0 : recipeOf[i]];
    if (r.nulls !== null && r.nulls[i] === 1) continue;
    const rc = r.cols;
    let body = 0;
    for (let f = 0; f < rc.length; f++) {
      const off = cols[rc[f]].data.off;
      body += off[i + 1] - off[i];
    }
    size += body + (body < 0x7f ? 2 : 1 + uvarintSize(body + 1));
  }
  const buf = Buffer.allocUnsafe(size + 4);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.length);
  let o = 0;
  for (let k = from; k < to; k++) {
    const i = sel === null ? k : sel[k];
    const r: RecordRecipe = recipes[recipeOf === null ? 0 : recipeOf[i]];
    if (r.nulls !== null && r.nulls[i] === 1) {
      out[k - from] = new Value(r.type, EMPTY, 0, -1);
      continue;
    }
    const rc = r.cols;
    let body = 0;
    for (let f = 0; f < rc.length; f++) {
      const off = cols[rc[f]].data.off;
      body += off[i + 1] - off[i];
    }
    buf[o++] = 0;
    if (body < 0x7f) buf[o++] = body + 1;
    else o = putUvarint(buf, o, body + 1);
    const start = o;
    for (let f = 0; f < rc.length; f++) {
      const d = cols[rc[f]].data;
      o = copyRun(buf, dv, o, d.buf, d.view, d.off[i], d.off[i + 1]);
    }
    out[k - from] = new Value(r.type, buf, start, body);
  }
  return out;
}

/** materialize() where every row is a record of one recipe (the common case, made fast). */
function oneRecipe(
  b: VecBatch,
  from: number,
  to: number,
  r: RecordRecipe,
  scratch: RowScratch | null,
): Value[] {
  const sel = b.sel;
  const datas = r.cols.map((c) => b.cols[c].data);
  const nf = datas.length;
  // The bodies' sizes, then room for each record's spare byte and tag
  // (no body is longer than all of them).
  let size = 0;
  for (let f = 0; f < nf; f++) {
    const off = datas[f].off;
    if (sel === null) size += off[to] - off[from];
    else
      for (let k = from; k < to; k++) {
        const i = sel[k];
        size += off[i + 1] - off[i];
      }
  }
  size += (to - from) * (1 + uvarintSize(size + 1));
  // Slack for copy32() past the last run.
  const reuse = scratch !== null;
  const buf = reuse ? scratch.buffer(size + 32) : Buffer.allocUnsafe(size + 32);
  const out = reuse ? scratch.values(to - from) : new Array<Value>(to - from);
  if (nf === 1 || nf === 2)
    return upToTwo(b, from, to, r.type, datas[0], datas[nf - 1], nf, buf, out, reuse);
  const offs = datas.map((d) => d.off);
  const bufs = datas.map((d) => d.buf);
  const views = datas.map((d) => d.view);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.length);
  const t = r.type;
  let o = 0;
  for (let k = from; k < to; k++) {
    const i = sel === null ? k : sel[k];
    let body = 0;
    for (let f = 0; f < nf; f++) {
      const off = offs[f];
      body += off[i + 1] - off[i];
    }
    buf[o++] = 0;
    if (body < 0x7f) buf[o++] = body + 1;
    else o = putUvarint(buf, o, body + 1);
    const start = o;
    for (let f = 0; f < nf; f++) {
      const off = offs[f];
      o = copyRun(buf, dv, o, bufs[f], views[f], off[i], off[i + 1]);
    }
    if (reuse) out[k - from].set(t, buf, start, body);
    else out[k - from] = new Value(t, buf, start, body);
  }
  return out;
}

/**
 * oneRecipe()'s loop for records of one or two fields (d1 is d0 for one),
 * with each field's data in locals: through the per-field arrays the same
 * loop measured 1.6 times as slow. buf needs 32 bytes of slack (copy32).
 */
function upToTwo(
  b: VecBatch,
  from: number,
  to: number,
  t: Type,
  d0: ColumnData,
  d1: ColumnData,
  nf: number,
  buf: Buffer,
  /** to - from values: new ones go there, or (reuse) the ones there are set. */
  out: Value[],
  reuse: boolean,
): Value[] {
  const sel = b.sel;
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.length);
  const off0 = d0.off;
  const src0 = d0.buf;
  const view0 = d0.view;
  const off1 = d1.off;
  const src1 = d1.buf;
  const view1 = d1.view;
  const lim0 = src0.length - 32;
  const lim1 = src1.length - 32;
  const two = nf === 2;
  let o = 0;
  for (let k = from; k < to; k++) {
    const i = sel === null ? k : sel[k];
    const a0 = off0[i];
    const e0 = off0[i + 1];
    const a1 = off1[i];
    const e1 = off1[i + 1];
    const body = two ? e0 - a0 + e1 - a1 : e0 - a0;
    buf[o++] = 0;
    if (body < 0x7f) buf[o++] = body + 1;
    else o = putUvarint(buf, o, body + 1);
    const start = o;
    if (e0 - a0 <= 32 && a0 <= lim0) {
      copy32(dv, o, view0, a0);
      o += e0 - a0;
    } else o = copyRun(buf, dv, o, src0, view0, a0, e0);
    if (two) {
      if (e1 - a1 <= 32 && a1 <= lim1) {
        copy32(dv, o, view1, a1);
        o += e1 - a1;
      } else o = copyRun(buf, dv, o, src1, view1, a1, e1);
    }
    if (reuse) out[k - from].set(t, buf, start, body);
    else out[k - from] = new Value(t, buf, start, body);
  }
  return out;
}

/** Bytes of the values of a batch's selected rows: its rows' bodies, or its columns' tagged values. */
export function selectedBytes(b: VecBatch): number {
  const sel = b.sel;
  let bytes = 0;
  if (b.rows !== null) {
    const rows = b.rows;
    const m = sel === null ? b.n : sel.length;
    for (let k = 0; k < m; k++) {
      const len = rows[sel === null ? k : sel[k]].len;
      if (len > 0) bytes += len;
    }
    return bytes;
  }
  for (const c of b.cols) {
    const off = c.data.off;
    if (sel === null) bytes += off[b.n] - off[0];
    else for (let k = 0; k < sel.length; k++) bytes += off[sel[k] + 1] - off[sel[k]];
  }
  return bytes;
}
