// The vector engine's batches (src/zed/vector.ts): made from a source's
// columns, or from values (rows read by rows, any other input) by
// evaluating the scan's paths on each, and turned back into values for
// the row engine (materialized) where a query leaves the vector engine.

import { TypeContext } from '../../zed/context';
import { Column, ColumnBuilder, RecordRecipe, VecBatch } from '../../zed/vector';
import { EMPTY, Value } from '../../zed/value';
import { Expr } from '../expr/expr';
import { fieldPath } from '../expr/path';

/** Values per batch of materialized rows. */
export const ROW_BATCH = 1024;

/** A batch of the columns a source read. */
export function columnsBatch(n: number, cols: Column[], shape: VecBatch['shape']): VecBatch {
  return { n, cols, sel: null, rows: null, shape };
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

/** Copies the tagged bytes src[from, to) to dst at o; returns the new o. */
function copyRun(dst: Buffer, o: number, src: Buffer, from: number, to: number): number {
  if (to - from <= 32) {
    for (let k = from; k < to; k++) dst[o++] = src[k];
    return o;
  }
  src.copy(dst, o, from, to);
  return o + (to - from);
}

/**
 * The rows sel[from, to) of a batch (all rows when sel is null) as values:
 * its own rows, or records built from its columns by its shape (each
 * row's fields' tagged bytes end to end, one buffer for the lot).
 */
export function materialize(b: VecBatch, from: number, to: number): Value[] {
  const sel = b.sel;
  const out = new Array<Value>(to - from);
  if (b.rows !== null) {
    const rows = b.rows;
    for (let k = from; k < to; k++) out[k - from] = rows[sel === null ? k : sel[k]];
    return out;
  }
  const shape = b.shape!;
  const recipes = shape.recipes;
  const recipeOf = shape.recipeOf;
  const cols = b.cols;
  // Sizes first, so the records are built in one buffer.
  let size = 0;
  for (let k = from; k < to; k++) {
    const i = sel === null ? k : sel[k];
    const r = recipes[recipeOf === null ? 0 : recipeOf[i]];
    if (r.nulls !== null && r.nulls[i] === 1) continue;
    const rc = r.cols;
    for (let f = 0; f < rc.length; f++) {
      const off = cols[rc[f]].data.off;
      size += off[i + 1] - off[i];
    }
  }
  const buf = Buffer.allocUnsafe(size);
  let o = 0;
  for (let k = from; k < to; k++) {
    const i = sel === null ? k : sel[k];
    const r: RecordRecipe = recipes[recipeOf === null ? 0 : recipeOf[i]];
    if (r.nulls !== null && r.nulls[i] === 1) {
      out[k - from] = new Value(r.type, EMPTY, 0, -1);
      continue;
    }
    const start = o;
    const rc = r.cols;
    for (let f = 0; f < rc.length; f++) {
      const d = cols[rc[f]].data;
      o = copyRun(buf, o, d.buf, d.off[i], d.off[i + 1]);
    }
    out[k - from] = new Value(r.type, buf, start, o - start);
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
