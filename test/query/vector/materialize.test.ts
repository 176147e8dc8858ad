// Materialized rows from columns: each record's body is its fields' tagged
// values end to end, after one spare byte (0) and its tag, and the records
// lie end to end in one buffer (the layout the ZNG writer copies in runs),
// for records of one, two and more fields, short and long values (long
// bodies take two-byte tags), with and without a selection; and the same
// rows where each call reuses the memory of the call before (RowScratch,
// for a query's output that is written out batch by batch).

import fc from 'fast-check';
import { materialize, RowScratch } from '../../../src/query/vector/batch';
import { TypeContext } from '../../../src/zed/context';
import { TypeString } from '../../../src/zed/types';
import { ColumnBuilder, RecordRecipe, VecBatch } from '../../../src/zed/vector';
import { putUvarint } from '../../../src/zed/zcode';

/** The tag of a body of len bytes. */
function tag(len: number): Buffer {
  const b = Buffer.alloc(10);
  return b.subarray(0, putUvarint(b, 0, len + 1));
}

/** A value's tagged bytes. */
const tagged = (body: Uint8Array) => Buffer.concat([tag(body.length), body]);

const column = (n: number) =>
  fc.array(
    fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ minLength: 100, maxLength: 300 })),
    { minLength: n, maxLength: n },
  );

test.each([
  ['new memory', false],
  ['memory reused call by call', true],
])('records of columns: bodies, tags and spare bytes end to end (%s)', (_, reuse) => {
  const zctx = new TypeContext();
  // One scratch for every run: each call's rows overwrite the last's.
  const scratch = reuse ? new RowScratch() : null;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 60 }).chain((n) =>
        fc.record({
          n: fc.constant(n),
          cols: fc.array(column(n), { minLength: 1, maxLength: 3 }),
          sel: fc.option(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: n })),
          cut: fc.nat(),
        }),
      ),
      ({ n, cols: data, sel: picked, cut }) => {
        const cols = data.map((vals) => {
          const b = new ColumnBuilder(n);
          for (const v of vals) b.append(TypeString, v, 0, v.length);
          return b.finish();
        });
        const type = zctx.lookupTypeRecord(
          cols.map((_, f) => ({ name: `f${f}`, type: TypeString })),
        );
        const recipe: RecordRecipe = { type, cols: cols.map((_, f) => f), nulls: null };
        const sel = picked === null ? null : Int32Array.from(picked.sort((a, b) => a - b));
        const batch: VecBatch = { n, cols, sel, rows: null, shape: null };
        const m = sel === null ? n : sel.length;
        const from = m === 0 ? 0 : cut % m;
        const got = materialize(batch, from, m, recipe, scratch);
        expect(got.length).toBe(m - from);
        let end = -1;
        got.forEach((v, k) => {
          const i = sel === null ? from + k : sel[from + k];
          const body = Buffer.concat(data.map((vals) => tagged(vals[i])));
          const head = tag(body.length);
          expect(v.type).toBe(type);
          expect(Buffer.from(v.buf.subarray(v.off, v.off + v.len))).toEqual(body);
          const at = v.off - head.length - 1;
          expect(Buffer.from(v.buf.subarray(at, v.off))).toEqual(
            Buffer.concat([Buffer.of(0), head]),
          );
          if (k > 0) {
            expect(v.buf).toBe(got[0].buf);
            expect(at).toBe(end);
          } else expect(at).toBe(0);
          end = v.off + v.len;
        });
      },
    ),
    { numRuns: 300 },
  );
});

test('a scratch gives the next call the same values and buffer, set to its rows', () => {
  const zctx = new TypeContext();
  const type = zctx.lookupTypeRecord([{ name: 'a', type: TypeString }]);
  const col = (words: string[]) => {
    const b = new ColumnBuilder(words.length);
    for (const w of words) b.append(TypeString, Buffer.from(w), 0, w.length);
    return b.finish();
  };
  const batch = (words: string[]): VecBatch => ({
    n: words.length,
    cols: [col(words)],
    sel: null,
    rows: null,
    shape: null,
  });
  const recipe: RecordRecipe = { type, cols: [0], nulls: null };
  const scratch = new RowScratch();
  const first = materialize(batch(['x', 'yy', 'zzz']), 0, 3, recipe, scratch);
  const firstValue = first[0];
  const firstBuf = first[0].buf;
  const second = materialize(batch(['p', 'qq']), 0, 2, recipe, scratch);
  expect(second).toHaveLength(2);
  expect(second[0]).toBe(firstValue);
  expect(second[0].buf).toBe(firstBuf);
  expect(second.map((v) => v.buf.subarray(v.off + 1, v.off + v.len).toString())).toEqual([
    'p',
    'qq',
  ]);
});
