// Scans by columns: a scan that names the fields it reads gets, from the
// objects with columnar copies, records of just those fields (and the
// pool key), equal to the row scan's values cut to those fields, in the
// same order; and queries answer the same with the column path forced on
// and off.

import fc from 'fast-check';
import { openLake } from '../../src/backend/open';
import { parseValues, formatValue } from '../../src/formats/zson';
import { Lake } from '../../src/lake';
import { VectorScanMode } from '../../src/lake/lake';
import { ColumnCache } from '../../src/lake/colcache';
import { VectorScan } from '../../src/lake/vectorscan';
import { asideConfig, asideCounts, asideLeased } from '../../src/query/aggregates/dcountaside';
import { Materialize } from '../../src/query/vector/operator';
import { chunkedFrom, VecSummarize } from '../../src/query/vector/summarize';
import { compileQuery, QueryContext } from '../../src/query';
import { LakeSource } from '../../src/lake/source';
import { arrayReader } from '../../src/query/runtime/ops/scan';
import { TypeContext } from '../../src/zed/context';
import { recordFields } from '../../src/zed/record';
import { TypeRecord } from '../../src/zed/types';
import { Value } from '../../src/zed/value';
import { Builder } from '../../src/zed/zcode';
import { arbRecord } from '../helpers/arbitrary';
import { DATA, loadDns, loadDnsObjects, QUERIES, run, tempLakes } from './vectordata';
import { zq } from '../query/helpers';

const lakes = tempLakes();

async function lakeWith(mode: VectorScanMode, sub = '', vectorCacheSize = 0): Promise<Lake> {
  const l = await openLake({
    lake: `${lakes.dir}/${sub || mode}`,
    vectorScan: mode,
    cacheSize: 0,
    vectorCacheSize,
  });
  lakes.open.push(l);
  return l;
}

/** The row value cut to the fields (records; other values whole), as ZSON. */
function cutTo(ctx: TypeContext, v: Value, fields: Set<string>): string {
  const t = v.type.under;
  if (!(t instanceof TypeRecord) || v.isNull) {
    if (t instanceof TypeRecord) {
      const kept = t.fields.filter((f) => fields.has(f.name));
      return formatValue(Value.null(ctx.lookupTypeRecord(kept)));
    }
    return formatValue(v);
  }
  const vals = recordFields(v);
  const kept = t.fields.map((f, i) => ({ f, v: vals[i] })).filter((x) => fields.has(x.f.name));
  const b = new Builder();
  b.beginContainer();
  for (const k of kept) b.append(k.v.buf, k.v.off, k.v.len);
  b.endContainer();
  const { buf, off, len } = b.body();
  const rt = ctx.lookupTypeRecord(kept.map((k) => k.f));
  return formatValue(new Value(rt, Buffer.from(buf.subarray(off, off + len)), 0, len));
}

async function scanAll(lake: Lake, fields: string[] | null, ctx: TypeContext) {
  const scan = await lake.scan('p', 'main', { ctx }, fields);
  const out: Value[] = [];
  for (let b = await scan.pull(); b; b = await scan.pull()) out.push(...b);
  return { out, stats: scan.stats };
}

test('a column scan is the row scan cut to the fields, in the same order', async () => {
  const lake = await lakeWith('on');
  await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 300 });
  const zctx = new TypeContext();
  const text = `
    {k:3,s:"c",x:{y:1},a:[1,2]}
    {k:1,s:"a",n:null}
    {k:2,s:"b"}
    5
    {k:2,s:"b2",s2:"z"}(=foo)
    null({k:int64,s:string})
    {k:null,s:"nk"}
    {s:"no key"}
    {k:2,u:1((int64,string)),m:|{"a":1}|,e:[1,2]}
  `;
  await lake.load('p', 'main', arrayReader(parseValues(zctx, text)));
  await lake.load('p', 'main', arrayReader(parseValues(zctx, '{k:2,s:"dd"} {k:0,t:1}')));
  // VNG has no error type: an object holding one is read by rows.
  await lake.load('p', 'main', arrayReader(parseValues(zctx, '{k:4,s:error("x")}')));
  expect((await lake.snapshot('p', 'main')).vectorIds()).toHaveLength(2);
  const rows = await scanAll(lake, null, new TypeContext());
  expect(rows.stats.objectsVector).toBe(0);
  for (const fields of [[], ['s'], ['s', 'x'], ['a', 'u', 'm', 'e', 'n'], ['nosuch']]) {
    const ctx = new TypeContext();
    const cols = await scanAll(lake, fields, ctx);
    expect(cols.stats.objectsRead).toBe(3);
    expect(cols.stats.objectsVector).toBe(2);
    const want = new Set(fields);
    // Objects read by rows come whole: what the fields hold is the same.
    expect(cols.out.map((v) => cutTo(ctx, v, want))).toEqual(
      rows.out.map((v) => cutTo(ctx, v, want)),
    );
  }
});

test('random records: columns equal rows cut to the fields', async () => {
  const lake = await lakeWith('on');
  await lake.createPool('p', { layout: { keys: [['a']] }, threshold: 2000 });
  const zctx = new TypeContext();
  const values = fc
    .sample(
      arbRecord(zctx, { maxDepth: 2, kinds: ['record', 'array', 'set', 'map', 'union', 'named'] }),
      { numRuns: 400, seed: 42 },
      // VNG cannot hold an empty record (the reference's neither): such an
      // object would be read by rows.
    )
    .filter((v) => !formatValue(v).includes('{}'));
  await lake.load('p', 'main', arrayReader(values));
  await lake.load('p', 'main', arrayReader(values.slice(0, 50)));
  const rows = await scanAll(lake, null, new TypeContext());
  for (const fields of [['b'], ['c', 'ts'], ['id', 'name', 'x1', '_y']]) {
    const ctx = new TypeContext();
    const cols = await scanAll(lake, fields, ctx);
    expect(cols.stats.objectsVector).toBeGreaterThan(0);
    const want = new Set(fields);
    // Objects read by rows come whole: what the fields hold is the same.
    expect(cols.out.map((v) => cutTo(ctx, v, want))).toEqual(
      rows.out.map((v) => cutTo(ctx, v, want)),
    );
  }
});

test('the modes: off never reads columns; auto only objects wholly in the key range', async () => {
  const off = await lakeWith('off');
  const auto = await lakeWith('auto');
  for (const lake of [off, auto]) {
    await lake.createPool('p', { layout: { keys: [['k']] } });
    const ctx = new TypeContext();
    await lake.load('p', 'main', arrayReader(parseValues(ctx, '{k:1} {k:2}')));
    await lake.load('p', 'main', arrayReader(parseValues(ctx, '{k:5} {k:6}')));
  }
  expect((await scanAll(off, ['k'], new TypeContext())).stats.objectsVector).toBe(0);
  expect((await scanAll(auto, ['k'], new TypeContext())).stats.objectsVector).toBe(2);
  const ctx = new TypeContext();
  const [lo, hi] = parseValues(ctx, '0 5');
  const scan = await auto.scan(
    'p',
    'main',
    { ctx, range: { lower: lo, upper: hi }, exact: false },
    ['k'],
  );
  while (await scan.pull());
  expect(scan.stats.objectsVector).toBe(1);
  expect(scan.stats.objectsRead).toBe(2);
});

test('auto reads by rows the objects whose rows the scan cache holds', async () => {
  const l = await openLake({ lake: `${lakes.dir}/cached`, vectorScan: 'auto' });
  lakes.open.push(l);
  await l.createPool('p', { layout: { keys: [['k']] } });
  // A load puts what it writes in the cache.
  await l.load('p', 'main', arrayReader(parseValues(new TypeContext(), '{k:1,s:"a"} {k:2}')));
  expect((await scanAll(l, ['s'], new TypeContext())).stats.objectsVector).toBe(0);
  l.cache.clear();
  const cols = await scanAll(l, ['s'], new TypeContext());
  expect(cols.stats.objectsVector).toBe(1);
  // A lone object is not merged, so its values need not carry the key.
  expect(cols.out.map((v) => formatValue(v))).toEqual(['{s:"a"}', '{}']);
});

/** A query's output as ZSON and its scan's stats, with the column path forced on or off. */

test('queries answer the same with the column path forced on and off', async () => {
  const on = await lakeWith('on');
  const off = await lakeWith('off');
  await loadDns(on, off);
  let vectored = 0;
  for (const q of QUERIES) {
    const a = await run(on, `from dns | ${q}`);
    const b = await run(off, `from dns | ${q}`);
    expect({ q, out: a.out }).toEqual({ q, out: b.out });
    if (a.stats.bytesRead < b.stats.bytesRead) vectored++;
  }
  // Most of them read only some columns.
  expect(vectored).toBeGreaterThanOrEqual(48);
});

test('keys left out of order by a NaN: a key range finds the same rows by rows as by columns', async () => {
  // NaN equals every number, so the load sort leaves the numbers around
  // it out of order (as the reference sorts them). In streams of three
  // records, a stream's bounds from its first and last keys would leave
  // keys out of its range (asc: 1 and -1; desc: 4, whose stream ends in
  // a NaN): a scan by rows would skip them, where one by columns finds
  // them.
  const modes: VectorScanMode[] = ['on', 'off', 'auto'];
  const lakes = await Promise.all(modes.map((m) => lakeWith(m)));
  const keys = {
    asc: ['8.', '4.', '8.', '0.', 'NaN', '3.', '1.', 'NaN', '-1.', '2.'],
    desc: ['3.', '1.', 'NaN', '7.', '5.', '2.', 'NaN', '6.', '0.', '4.'],
  };
  const stored = {
    asc: ['0.', '4.', '8.', '8.', 'NaN', '1.', '3.', 'NaN', '-1.', '2.'],
    desc: ['NaN', '7.', '6.', '5.', '4.', 'NaN', '3.', '2.', '1.', '0.'],
  };
  for (const [j, lake] of lakes.entries()) {
    for (const order of ['asc', 'desc'] as const) {
      const recs = keys[order].map((k, i) => `{v:${i},k:${k},s:"${'x'.repeat(40)}"}`).join('\n');
      await lake.createPool(order, { layout: { order, keys: [['k']] }, seekStride: 150 });
      await lake.load(order, 'main', arrayReader(parseValues(new TypeContext(), recs)));
      const got = (await run(lake, `from ${order} | yield k`)).out;
      expect({ mode: modes[j], order, got }).toEqual({ mode: modes[j], order, got: stored[order] });
    }
  }
  // The object's bounds are its first and last keys, as the reference's
  // are: 0 and 2 ascending; 0 and NaN descending, which every mode skips
  // for a range with an open lower bound (NaN equals 0.5 there). Wherever
  // the object is read, every row whose key is in the range is found.
  const filters: [string, (k: number) => boolean][] = [
    ['k<4.5', (k) => k < 4.5],
    ['k>=0. and k<=2.5', (k) => k >= 0 && k <= 2.5],
    ['k>0.5', (k) => k > 0.5],
    ['k<=0.', (k) => k <= 0],
    ['k>=1. and k<8.', (k) => k >= 1 && k < 8],
    ['k==1.', (k) => k === 1],
  ];
  for (const pool of ['asc', 'desc'] as const) {
    for (const [f, holds] of filters) {
      const skipped = pool === 'desc' && f === 'k>0.5';
      const want = skipped ? [] : keys[pool].flatMap((k, i) => (holds(Number(k)) ? [i] : []));
      for (const [j, lake] of lakes.entries()) {
        const got = (await run(lake, `from ${pool} | ${f} | sort v | yield v`)).out.map(Number);
        expect({ pool, f, mode: modes[j], got }).toEqual({ pool, f, mode: modes[j], got: want });
      }
    }
  }
});

test('keys of other types beside numbers: a stream is bounded by its first and last keys', async () => {
  // Numbers compare with other types by type name, so least and greatest
  // mean nothing there: the reference's first and last keys bound the
  // stream, and a key in the range between them is found.
  for (const mode of ['on', 'off'] as const) {
    const lake = await lakeWith(mode);
    const ks = ['-1.', '-0.5', '0.', '1(uint8)', '10.', '"s"'];
    const recs = ks.map((k, i) => `{v:${i},k:${k},s:"${'x'.repeat(20)}"}`).join('\n');
    await lake.createPool('p', { layout: { keys: [['k']] }, seekStride: 70 });
    await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs)));
    for (const f of ['k==1', 'k>=1 and k<5'])
      expect({ mode, f, out: (await run(lake, `from p | ${f} | yield v`)).out }).toEqual({
        mode,
        f,
        out: ['3'],
      });
  }
});

test('a key-range filter that gives errors passes on the same errors by rows and by columns', async () => {
  // Comparing nets with < is an error, which a filter passes on: the rows
  // a key range skips by the seek index give none. An object the range
  // covers in part is read by columns only for the rows of the streams a
  // row scan reads, so that the errors are those of the same rows.
  const recs = Array.from({ length: 3000 }, (_, k) => `{k:${k},n:10.0.0.0/8}`).join('\n');
  const outs: string[][] = [];
  for (const mode of ['on', 'off', 'auto'] as const) {
    const lake = await lakeWith(mode);
    await lake.createPool('p', { layout: { keys: [['k']] }, seekStride: 4000 });
    await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs)));
    const out: string[] = [];
    for (const f of ['k==2', 'k>2990', 'k>=0', 'k<0'])
      out.push(...(await run(lake, `from p | n < 10.0.0.0/16 and ${f} | count()`)).out);
    outs.push(out);
  }
  // The range k==2 skips all but the first stream; k>=0 skips none.
  expect(Number(outs[1][0].replace('(uint64)', ''))).toBeLessThan(3000);
  expect(outs[1][2]).toBe('3000(uint64)');
  expect(outs[0]).toEqual(outs[1]);
  expect(outs[2]).toEqual(outs[1]);
});

test("an object a key range covers in part is read by columns, its rows those of the range's streams, where they are many", async () => {
  // n is a net in every third record: comparing it with < is an error,
  // which the filter passes on, so the answer shows which rows were
  // tested: those of the seek-index streams the range meets.
  const recs = Array.from(
    { length: 3000 },
    (_, k) => `{k:${k},n:${k % 3 === 0 ? '10.0.0.0/8' : k % 7},s:"${'x'.repeat(k % 5)}"}`,
  ).join('\n');
  const net = 'n < 10.0.0.0/16';
  const queries = [
    'k>=500 and k<2600 | count()',
    `${net} and k>=500 and k<2600 | count() by s | sort s`,
    `${net} and k>=500 and k<2600 | yield k | tail 2`,
    'k<1000 | dcount(n), sum(k) by s | sort s',
    'k>2990 | count() by s | sort s',
    `${net} and k==2 | count()`,
  ];
  const reads = jest.spyOn(VectorScan.prototype, 'read');
  try {
    const outs: Record<string, string[]> = {};
    const partial: Record<string, boolean[]> = {};
    for (const mode of ['off', 'on', 'auto'] as const) {
      const lake = await lakeWith(mode);
      await lake.createPool('p', { layout: { keys: [['k']] }, seekStride: 2000 });
      await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs)));
      outs[mode] = [];
      partial[mode] = [];
      for (const q of queries) {
        reads.mockClear();
        outs[mode].push(`${q}: ${(await run(lake, `from p | ${q}`)).out.join(' ')}`);
        const parts = await Promise.all(reads.mock.results.map((r) => r.value));
        partial[mode].push(parts.some((x) => x?.kind === 'columns' && x.sel !== undefined));
      }
    }
    // Errors from the rows of the streams read (more than the range's), and only those.
    const errors = /s:error\("missing"\),count:(\d+)/.exec(outs.off[1]);
    expect(Number(errors?.[1])).toBeGreaterThan(2100 / 3);
    expect(Number(errors?.[1])).toBeLessThan(1000);
    expect(outs.on).toEqual(outs.off);
    expect(outs.auto).toEqual(outs.off);
    // Forced on, every range by columns; auto, where the range's streams
    // hold a quarter of the object's rows or more.
    expect(partial.on).toEqual([true, true, true, true, true, true]);
    expect(partial.auto).toEqual([true, true, true, true, false, false]);
    expect(partial.off).toEqual([false, false, false, false, false, false]);
  } finally {
    reads.mockRestore();
  }
});

test('a summarize by a later key that is the pool key keeps each group whole', async () => {
  // The input is sorted by k, not by h: a group of h is not complete when
  // a greater k comes (here none does), nor at a batch's end.
  const recs = ['{k:0,h:"a"}', ...Array<string>(20000).fill('{k:0,h:"b"}'), '{k:0,h:"a"}'];
  for (const mode of ['on', 'off'] as const) {
    const lake = await lakeWith(mode);
    await lake.createPool('p', { layout: { keys: [['k']] } });
    await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs.join('\n'))));
    for (const q of ['count() by h,k', 'count() by h,k | sort h']) {
      expect({ mode, q, out: (await run(lake, `from p | summarize ${q}`)).out }).toEqual({
        mode,
        q,
        out: ['{h:"a",k:0,count:2(uint64)}', '{h:"b",k:0,count:20000(uint64)}'],
      });
    }
  }
});

test("dcount on a worker thread answers as in-thread; a sorted input's stays in-thread", async () => {
  const on = await lakeWith('on');
  const off = await lakeWith('off');
  await loadDns(on, off);
  const saved = { ...asideConfig };
  Object.assign(asideConfig, { workers: 1, minRows: 1, rows: 7 });
  try {
    // [query, dcounts on the worker, dcounts in-thread for want of a free worker]
    for (const [q, aside, busy] of [
      ['summarize count(), sum(rtt), dcount(id.orig_h) by query | sort query', 1, 0],
      // One worker: the second dcount stays in-thread.
      ['q:=dcount(id.orig_h), r:=dcount(qtype_name) by query | sort query', 1, 1],
      // Grouped by the pool key: the summarize reads groups as they end.
      ['dcount(id.orig_h) by ts | sort ts', 0, 0],
    ] as const) {
      const before = { ...asideCounts };
      const a = await run(on, `from dns | ${q}`);
      expect({
        q,
        aside: asideCounts.aside - before.aside,
        busy: asideCounts.busy - before.busy,
      }).toEqual({ q, aside, busy });
      const b = await run(off, `from dns | ${q}`);
      expect({ q, out: a.out }).toEqual({ q, out: b.out });
      expect(asideLeased()).toBe(0);
    }
  } finally {
    Object.assign(asideConfig, saved);
  }
});

test('a pool of many objects: dcount goes aside from a small first batch; a cached dictionary groups a chunk of values at a time', async () => {
  const on = await lakeWith('on', 'cached', 64 << 20);
  const off = await lakeWith('off');
  // 3000 records of 600 keys, in objects of a few hundred rows each.
  const recs = Array.from(
    { length: 3000 },
    (_, i) => `{ts:${i},k:"k${(i * 37) % 600}",h:"h${i % 41}",n:${i % 10}}`,
  );
  await loadDnsObjects(6_000, recs.join('\n'), on, off);
  const objects = (await run(on, 'from dns@main:objects | count()')).out;
  expect(Number(/^(\d+)/.exec(objects[0])![1])).toBeGreaterThan(5);
  const dictChunks = jest.spyOn(
    VecSummarize.prototype as unknown as { dictChunks(): number },
    'dictChunks',
  );
  const saved = { aside: { ...asideConfig }, chunked: { ...chunkedFrom } };
  // Aside once the query will group 1000 rows (no batch holds that many);
  // the table past the cache from its first group, 3 values a chunk.
  Object.assign(asideConfig, { workers: 1, minRows: 1000 });
  Object.assign(chunkedFrom, { groups: 0, values: 3 });
  let runs = 0;
  try {
    for (const q of [
      'summarize count(), sum(n), dcount(h) by k',
      'n > 2 | summarize count(), dcount(h) by k',
      'dcount(k), count() by h',
    ]) {
      const want = (await run(off, `from dns | ${q}`)).out;
      // The first run of a column reads it; later ones group by its cached dictionary.
      for (const pass of ['first', 'cached']) {
        const before = asideCounts.aside;
        dictChunks.mockClear();
        const got = await run(on, `from dns | ${q}`);
        expect({ q, pass, out: got.out }).toEqual({ q, pass, out: want });
        expect({ q, pass, aside: asideCounts.aside - before }).toEqual({ q, pass, aside: 1 });
        // The columns' first use groups value by value (no dictionary yet).
        const first = runs++ === 0;
        expect({ q, pass, chunks: dictChunks.mock.calls.length > 0 }).toEqual({
          q,
          pass,
          chunks: !first,
        });
        expect(asideLeased()).toBe(0);
      }
      // A table that fills up (the memory limit) stops a chunk at a new value and spills.
      const ctx = new QueryContext({ memoryLimit: 20_000 });
      const spilled = await compileQuery(`from dns | ${q}`, { ctx, source: new LakeSource(on) });
      const out = (await spilled.all()).map((v) => formatValue(v));
      const sorted = (await run(off, `from dns | ${q} | sort this`)).out;
      expect({ q, out: [...out].sort() }).toEqual({ q, out: [...sorted].sort() });
    }
  } finally {
    Object.assign(asideConfig, saved.aside);
    Object.assign(chunkedFrom, saved.chunked);
    dictChunks.mockRestore();
  }
});

test('with the column cache on, whole-value filters find their rows on column vectors', async () => {
  const on = await lakeWith('on', 'cached', 64 << 20);
  const off = await lakeWith('off');
  await loadDns(on, off);
  const put = jest.spyOn(ColumnCache.prototype, 'putColumn');
  try {
    // A filter on whole values decodes (and keeps) just its field's column.
    const q = 'from dns | query=="host3.example"';
    expect((await run(on, q)).out).toEqual((await run(off, q)).out);
    expect(new Set(put.mock.calls.map(([, path]) => path.join('.')))).toEqual(new Set(['query']));
  } finally {
    put.mockRestore();
  }
  // Twice: the second pass tests the columns the first one left in the cache.
  for (const pass of [1, 2]) {
    for (const q of QUERIES) {
      const a = await run(on, `from dns | ${q}`);
      const b = await run(off, `from dns | ${q}`);
      expect({ pass, q, out: a.out }).toEqual({ pass, q, out: b.out });
    }
  }
});

test('cuts and yields of records of one-type columns are built from the columns, as the row engine makes them', async () => {
  const on = await lakeWith('on');
  const off = await lakeWith('off');
  // Records of one type (every column has one type) in objects that do not overlap.
  const text = Array.from(
    { length: 300 },
    (_, i) => `{ts:${i},s:"${'ab'[i % 2]}${'x'.repeat(i % 150)}",r:${i}.5,id:{h:10.0.0.${i % 5}}}`,
  ).join('\n');
  for (const lake of [on, off]) {
    await lake.createPool('u', { layout: { keys: [['ts']] }, threshold: 6000 });
    const vals = parseValues(new TypeContext(), text);
    await lake.load('u', 'main', arrayReader(vals.slice(0, 120)));
    await lake.load('u', 'main', arrayReader(vals.slice(120)));
  }
  const recipe = jest.spyOn(
    Materialize.prototype as unknown as { cutRecipe(b: unknown): unknown },
    'cutRecipe',
  );
  try {
    for (const q of [
      'cut ts, s',
      'cut x:=s, ts, id',
      's > "b" | cut s, r',
      'cut id',
      'cut r, ts | head 7',
      // A yield of a record of fields, made as a cut of them.
      'yield {t:ts, s, h:id}',
      's > "b" | yield {r, s} | tail 5',
      'yield {l:len(s), t:ts, h:id}',
    ]) {
      recipe.mockClear();
      const a = await run(on, `from u | ${q}`);
      const b = await run(off, `from u | ${q}`);
      expect({ q, out: a.out }).toEqual({ q, out: b.out });
      expect({ q, built: recipe.mock.results.some((r) => r.value !== null) }).toEqual({
        q,
        built: true,
      });
    }
  } finally {
    recipe.mockRestore();
  }
  // s is computed and read as it is for q: the yield is not made on
  // columns (the computed s would stand for the scanned one).
  for (const q of ['yield {s:upper(s), t:ts, q:s}']) {
    const a = await run(on, `from u | ${q}`);
    const b = await run(off, `from u | ${q}`);
    expect({ q, out: a.out }).toEqual({ q, out: b.out });
  }
});

test('keys, arguments, where clauses and fields put assigns, computed from fields, answer as the row engine over a pool, first and cached', async () => {
  const on = await lakeWith('on', 'computed', 64 << 20);
  const off = await lakeWith('off', 'computed-off');
  // 3000 records over 50 hours, in objects of a few hundred rows each.
  const recs = Array.from({ length: 3000 }, (_, i) => {
    const ts = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
    const k = i % 13 === 0 ? 'null(string)' : `"${i % 2 ? 'K' : 'k'}${(i * 37) % 600}"`;
    return `{ts:${ts},k:${k},h:"${i % 3 ? 'h' : 'H'}${i % 41}",n:${i % 10}}`;
  });
  await loadDnsObjects(6_000, recs.join('\n'), on, off);
  const feed = jest.spyOn(VecSummarize.prototype as unknown as { feed(): unknown }, 'feed');
  try {
    for (const q of [
      'count() by lower(k) | sort this',
      // h repeats within an object: lower(h) once per distinct h, "h1" and "H1" one group.
      'count(), sum(n) by lower(h) | sort this',
      'count(), sum(n*2) by every(1h) | sort this',
      'n > 2 | sum(n) by bucket(ts, 3h), upper(h) | sort this',
      'max(len(k)), dcount(lower(k)) by h | sort this',
      // Several fields, bound row by row.
      'n < len(h) | count() by k:=h+":"+string(n) | sort this',
      'sum(n*len(k)) by d:=every(1h) - ts | sort this',
      // Fields put assigns.
      'put m:=n*2, h:=lower(h), k:=quiet(k) | sum(m) by h, k | sort this',
      // Aggregates' where clauses.
      'c:=count() where n > 4, s:=sum(n) where h == lower(h) by lower(k) | sort this',
    ]) {
      const want = (await run(off, `from dns | ${q}`)).out;
      expect(want.length).toBeGreaterThan(3);
      for (const pass of ['first', 'cached']) {
        feed.mockClear();
        const got = await run(on, `from dns | ${q}`);
        expect({ q, pass, out: got.out }).toEqual({ q, pass, out: want });
        expect({ q, pass, onColumns: feed.mock.calls.length > 0 }).toEqual({
          q,
          pass,
          onColumns: true,
        });
      }
    }
  } finally {
    feed.mockRestore();
  }
});

test('a cut of fields before a summarize answers as the cut does, and the summarize runs on columns', async () => {
  const on = await lakeWith('on');
  const off = await lakeWith('off');
  await loadDns(on, off);
  const feed = jest.spyOn(
    VecSummarize.prototype as unknown as { feed(): Promise<boolean> },
    'feed',
  );
  try {
    const queries: [string, boolean][] = [
      ['cut qtype_name, rtt | count() by qtype_name', true],
      ['cut q:=query, r:=rtt | sum(r), avg(r) by q', true],
      ['cut q:=query, rtt | rtt > 1 | count() by q', true],
      ['cut o:=id.orig_h, qtype_name | count() by o', true],
      ['cut query, extra | count() where len(extra) > 1 by query', true],
      ['cut id | count() by id.orig_h', true],
      ['cut a:=query, b:=query | count() by a, b', true],
      ['cut ts, query | count() by every(10s)', true],
      ['cut query | count()', true],
      // A function reading ts itself after a cut that makes ts another field's.
      ['cut ts:=rtt, query | count() by every(10s)', false],
      // A field the cut leaves out, a search, and the whole value.
      ['cut query | count() by qtype_name', false],
      ['cut q:=query | "host1" | count()', false],
      ['cut q:=query | count() by typeof(this)', false],
    ];
    const ctx = new QueryContext();
    for (const [q, columns] of queries) {
      // The query on values from a reader keeps its cut.
      const want = (await zq(`${q} | sort this`, DATA, { ctx })).sort();
      for (const [mode, lake] of [
        ['on', on],
        ['off', off],
      ] as const) {
        feed.mockClear();
        const got = (await run(lake, `from dns | ${q} | sort this`)).out.sort();
        expect({ q, mode, got }).toEqual({ q, mode, got: want });
        if (mode === 'on')
          expect({ q, columns: feed.mock.calls.length > 0 }).toEqual({ q, columns });
      }
    }
    // A cut that names a field twice fails as it does on values from a reader.
    const dup = 'cut a:=query, a:=rtt | count() by a';
    await expect(zq(dup, DATA)).rejects.toThrow('duplicate field: "a"');
    for (const lake of [on, off])
      await expect(run(lake, `from dns | ${dup}`)).rejects.toThrow('duplicate field: "a"');
  } finally {
    feed.mockRestore();
  }
});
