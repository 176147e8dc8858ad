// Reading VNG into column vectors: every path's column holds, row by row,
// what the query engine's field access gives on the value the whole-value
// reader reads, and the record shape rebuilds the rows' records of the
// top-level fields; with many small segments per column, nulls, several
// super types and nested records.

import fc from 'fast-check';
import { formatValue } from '../../../src/formats/zson';
import { VngReader, VngWriter } from '../../../src/formats/vng';
import { readLayout, reassemblyRange } from '../../../src/formats/vng/project';
import {
  chunkSource,
  planVectors,
  readColumn,
  readRecordNulls,
  readSuperOf,
  recordShape,
} from '../../../src/formats/vng/vectors';
import { BufferSink, sourceFromBuffer } from '../../../src/formats/io';
import { parseValues } from '../../../src/formats/zson';
import { fieldPath } from '../../../src/query/expr/path';
import { materialize } from '../../../src/query/vector/batch';
import { TypeContext } from '../../../src/zed/context';
import { Value } from '../../../src/zed/value';
import { arbRecord } from '../../helpers/arbitrary';

async function vng(vals: Value[], segmentThresh: number): Promise<Buffer> {
  const sink = new BufferSink();
  const w = new VngWriter(sink, { segmentThresh });
  await w.write(vals);
  await w.close();
  return sink.bytes();
}

async function readAll(buf: Buffer, ctx: TypeContext): Promise<Value[]> {
  const r = new VngReader(sourceFromBuffer(buf), ctx);
  const out: Value[] = [];
  for (let b = await r.read(); b; b = await r.read()) out.push(...b);
  return out;
}

/** Checks every path's column and the rows' shape against the whole values. */
async function check(
  vals: Value[],
  paths: string[][],
  segmentThresh: number,
  expectPlan?: boolean,
): Promise<void> {
  const file = await vng(vals, segmentThresh);
  const ctx = new TypeContext();
  const rows = await readAll(file, ctx);
  const r = reassemblyRange(file.subarray(Math.max(0, file.length - 4096)));
  const layout = readLayout(r.offset, file.subarray(r.offset, r.offset + r.length));
  const plan = planVectors(layout, paths);
  // Null when some value is not a record, or a path crosses a union or map.
  expect(plan !== null).toBe(expectPlan ?? plan !== null);
  if (plan === null) return;
  const src = chunkSource(layout, [{ offset: 0, buf: file }]);
  const n = rows.length;
  const superOf = readSuperOf(plan, src, n);
  const nulls = readRecordNulls(plan, src, n, superOf);
  const cols = paths.map((_, p) => readColumn(plan, p, src, n, superOf, ctx));
  const scratch = Value.null();
  paths.forEach((path, p) => {
    const e = fieldPath(ctx, path);
    const want = rows.map((v) => formatValue(e.eval(v)));
    const got = rows.map((_, i) => formatValue(cols[p].at(i, scratch)));
    expect({ path, got }).toEqual({ path, got: want });
  });
  const top = [...new Set(paths.filter((x) => x.length === 1).map((x) => x[0]))];
  const shape = recordShape(
    plan,
    ctx,
    top,
    (f) => paths.findIndex((x) => x.length === 1 && x[0] === f),
    superOf,
    nulls,
  );
  const made = materialize({ n, cols, sel: null, rows: null, shape }, 0, n);
  for (let i = 0; i < n; i++) {
    const v = rows[i];
    for (const f of top) {
      expect(formatValue(fieldPath(ctx, [f]).eval(made[i]))).toBe(
        formatValue(fieldPath(ctx, [f]).eval(v)),
      );
    }
  }
}

test('columns of many segments, nulls and two super types', async () => {
  const ctx = new TypeContext();
  const text: string[] = [];
  for (let i = 0; i < 3000; i++) {
    if (i % 11 === 0) text.push(`{a:"other ${i}",z:${i}}`);
    else if (i % 17 === 0) text.push('null({a:string,n:{b:int64,c:string},t:time})');
    else
      text.push(
        `{a:"s${i % 37}",n:${i % 5 === 0 ? 'null({b:int64,c:string})' : `{b:${i},c:${i % 3 === 0 ? 'null' : `"c${i}"`}}`},t:${new Date(1_700_000_000_000 + i * 1000).toISOString()}}`,
      );
  }
  const vals = parseValues(ctx, text.join('\n'));
  await check(
    vals,
    [['a'], ['n', 'b'], ['n', 'c'], ['t'], ['z'], ['n'], ['nosuch'], ['a', 'x']],
    256,
    true,
  );
});

test('one super type: columns as their segments end to end, compressed or not', async () => {
  const ctx = new TypeContext();
  const text = Array.from(
    { length: 5000 },
    (_, i) =>
      `{s:"name-${i % 50}.example.com",n:${i},f:${i % 7 === 0 ? 'null(float64)' : `${i}.5`}}`,
  );
  const vals = parseValues(ctx, text.join('\n'));
  expect(new Set(vals.map((v) => v.type)).size).toBe(1);
  await check(vals, [['s'], ['n'], ['f']], 1000, true);
});

test('random records', async () => {
  const ctx = new TypeContext();
  await fc.assert(
    fc.asyncProperty(
      fc.array(arbRecord(ctx, { maxDepth: 2, kinds: ['record', 'array', 'named', 'union'] }), {
        minLength: 1,
        maxLength: 30,
      }),
      fc.integer({ min: 16, max: 2048 }),
      async (vals, thresh) => {
        const names = new Set<string>();
        const nested: string[][] = [];
        for (const v of vals) {
          const t = v.type.under as { fields?: { name: string; type: { under: unknown } }[] };
          for (const f of t.fields ?? []) {
            names.add(f.name);
            const ft = f.type.under as { fields?: { name: string }[] };
            for (const g of ft.fields ?? []) nested.push([f.name, g.name]);
          }
        }
        const filtered = vals.filter((v) => !formatValue(v).includes('{}'));
        if (filtered.length === 0) return;
        await check(filtered, [...[...names].map((n) => [n]), ...nested.slice(0, 4)], thresh);
      },
    ),
    { numRuns: 80 },
  );
});
