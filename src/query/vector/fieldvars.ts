// An expression of several fields on columns. The compiler replaces each
// field the expression reads by a variable of a frame of its own (slot j:
// the j-th field), and the vector operator binds the slots to the
// values of the fields' columns row by row before evaluating it: the
// row engine's expression, with no record built for a row. Where every
// field's column has a dictionary (strings, few distinct values), rows
// with the same combination of values share a code (combos), and the
// expression is evaluated once per combination.

import { TypeNull } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { Dict, repeats, VecBatch } from '../../zed/vector';
import { Frame } from '../expr/vars';

/** At most this many combinations of dictionary codes are numbered (a table of as many slots). */
const MAX_COMBOS = 1 << 16;

/** Each row's combination of values as a code, and a row of each code. */
export interface Combos {
  codes: Int32Array;
  rows: Int32Array;
}

export class FieldVars {
  readonly frame = new Frame();
  private readonly views: Value[];
  /** By combination of codes, its code + 1 (0: not seen), reused batch to batch. */
  private table = new Int32Array(0);

  /** cols[j]: the batch column whose values slot j takes. */
  constructor(readonly cols: readonly number[]) {
    this.views = cols.map(() => new Value(TypeNull, EMPTY, 0, -1));
    this.frame.vals = this.views.slice();
  }

  /** Binds each slot to its column's value at row. */
  bind(b: VecBatch, row: number): void {
    const cols = this.cols;
    const views = this.views;
    for (let j = 0; j < cols.length; j++) b.cols[cols[j]].at(row, views[j]);
  }

  /**
   * The rows' combinations of the fields' values, where every field's
   * column has a dictionary (or gets one, its values being few) and
   * there are fewer combinations than the m rows to evaluate; else null.
   */
  combos(b: VecBatch, m: number): Combos | null {
    const dicts: Dict[] = [];
    let size = 1;
    for (const col of this.cols) {
      const c = b.cols[col];
      if (!repeats(c)) return null;
      const d = c.dictIfFew();
      if (d === null) return null;
      size *= d.count;
      if (size > MAX_COMBOS) return null;
      dicts.push(d);
    }
    if (this.table.length < size) this.table = new Int32Array(Math.max(size, 256));
    const table = this.table;
    table.fill(0, 0, size);
    const n = b.n;
    const codes = new Int32Array(n);
    const reps: number[] = [];
    for (let i = 0; i < n; i++) {
      let key = 0;
      for (let j = 0; j < dicts.length; j++) {
        const d = dicts[j];
        key = key * d.count + d.codes[i];
      }
      let code = table[key] - 1;
      if (code < 0) {
        code = reps.length;
        reps.push(i);
        table[key] = code + 1;
        if (code >= m) return null;
      }
      codes[i] = code;
    }
    return { codes, rows: Int32Array.from(reps) };
  }
}
