// When a filter's leaf is evaluated once per distinct value: a column with
// a dictionary, or whose values are few, gets one on its first use; one of
// mostly distinct values (313k names of 1M rows) is evaluated row by row
// until it is used again (a cache shares it), as building a dictionary
// costs more than the evaluations it saves on a first use.

import { TRUE, FALSE, Expr } from '../../../src/query/expr/expr';
import { PredicateEval } from '../../../src/query/vector/filter';
import { TypeContext } from '../../../src/zed/context';
import { TypeString } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { Column, ColumnBuilder, VecBatch } from '../../../src/zed/vector';

function column(words: string[]): Column {
  const b = new ColumnBuilder(words.length);
  for (const w of words) b.append(TypeString, Buffer.from(w), 0, w.length);
  return b.finish();
}

/** Evaluations of `len(this) > 3` on c's rows. */
function evaluations(c: Column): number {
  let calls = 0;
  const expr: Expr = {
    eval(v: Value) {
      calls++;
      return v.len > 3 ? TRUE : FALSE;
    },
  };
  const n = c.data.off.length - 1;
  const b: VecBatch = { n, cols: [c], sel: null, rows: null, shape: null };
  const out = new Int8Array(n);
  const rows = Int32Array.from({ length: n }, (_, i) => i);
  new PredicateEval(new TypeContext().missing()).eval({ kind: 'leaf', col: 0, expr }, b, rows, out);
  expect([...out]).toEqual(
    Array.from({ length: n }, (_, i) =>
      c.at(i, new Value(TypeString, c.data.buf, 0, 0)).len > 3 ? 1 : 0,
    ),
  );
  return calls;
}

test('a first use of mostly distinct values goes row by row, a second by distinct value', () => {
  const words = Array.from({ length: 4000 }, (_, i) => `w${i % 3000}`);
  const c = column(words);
  expect(evaluations(c)).toBe(4000);
  expect(c.data.dict).toBeNull();
  // Used again (a cache shares the column): the dictionary pays.
  expect(evaluations(c)).toBe(3000);
  expect(c.data.dict).not.toBeNull();
});

test('a first use of few values goes by distinct value', () => {
  const c = column(Array.from({ length: 4000 }, (_, i) => `w${i % 7}`));
  expect(evaluations(c)).toBe(7);
});
