// Overlapping objects read by columns and merged by key (vectormerge.ts)
// must answer as the row scan's merge does, byte for byte: ties between
// objects (the object listed first goes first), both pool orders, fields
// of several types and record types, null keys, and the keys the merge
// refuses (NaNs, several types, records without the key), which are read
// by rows.

import { openLake } from '../../src/backend/open';
import { Lake, VectorScanMode } from '../../src/lake/lake';
import * as vectormerge from '../../src/lake/vectormerge';
import { parseValues } from '../../src/formats/zson';
import { arrayReader } from '../../src/query/runtime/ops/scan';
import { TypeContext } from '../../src/zed/context';
import { run, tempLakes } from './vectordata';

const lakes = tempLakes();

/** The key of record i of load l: ties within and across loads. */
const KEYS: Record<string, { key: (l: number, i: number) => string; merged: boolean }> = {
  int64: { key: (l, i) => `${(i * 7 + l) % 50}`, merged: true },
  // Long shared prefixes (compared four bytes at a time), and keys that are prefixes of others.
  string: {
    key: (l, i) => {
      const n = (i * 3 + l * 5) % 40;
      return n % 7 === 0
        ? `"key-0${'0'.repeat(n % 3)}"`
        : `"key-${String(n * 997).padStart(6, '0')}"`;
    },
    merged: true,
  },
  // Bodies past 126 bytes have tags of two bytes.
  long: {
    key: (l, i) => `"${'x'.repeat(120 + ((i * 5 + l) % 13))}${(i * 3 + l) % 17}"`,
    merged: true,
  },
  time: {
    key: (l, i) => `2024-01-01T00:00:${String((i + l) % 60).padStart(2, '0')}Z`,
    merged: true,
  },
  // Ties between -0 and 0 (equal keys, different bytes) within and across loads.
  float: { key: (l, i) => floatKey((i * 7 + l) % 30, Math.floor(i / 30) + l, ''), merged: true },
  float32: {
    key: (l, i) => floatKey((i * 3) % 30, Math.floor(i / 30) + l, '(float32)'),
    merged: true,
  },
  // A NaN equals every number: no order to merge by.
  nan: { key: (l, i) => (i === 150 + l ? 'NaN' : floatKey(i % 30, 0, '')), merged: false },
  mixed: { key: (l, i) => (i % 9 === 0 ? `"s${i % 5}"` : `${i % 20}`), merged: false },
  // Null keys go after the others (before them in a descending pool).
  nulls: { key: (l, i) => (i % 13 === l ? 'null(int64)' : `${i % 25}`), merged: true },
  nullStrings: {
    key: (l, i) => (i % 11 === l ? 'null(string)' : `"s${(i * 7) % 25}"`),
    merged: true,
  },
  // A record without the key: read by rows.
  missing: { key: (l, i) => (i % 13 === l ? '' : `${i % 25}`), merged: false },
};

/** The float n/4 - 3 in ZSON (with a decimal point), -0 where n/4 is 3 and odd is. */
function floatKey(n: number, odd: number, cast: string): string {
  const v = n / 4 - 3;
  const z = v === 0 && odd % 2 === 1 ? '-0.' : Number.isInteger(v) ? `${v}.` : `${v}`;
  return z + cast;
}

/** Record i of load l (without k where key is ''): a second record type, a field of several types, a null field. */
function record(l: number, i: number, key: string): string {
  const v = i % 4 === 0 ? `"v${i % 7}"` : `${i % 11}`;
  const extra = i % 5 === 0 ? `,e:{a:${i},b:[${l}]}` : '';
  const n = i % 6 === 0 ? 'null(float64)' : `${i / 2}`;
  return `{${key === '' ? '' : `k:${key},`}l:${l},i:${i},v:${v},n:${n}${extra}}`;
}

const QUERIES = [
  'yield this',
  'cut k, i, l',
  'cut l, v',
  'count()',
  'count() by v',
  'summarize sum(n), min(i), max(i), count() by l',
  'i > 20 | cut k, l, i',
  'v == "v3" | cut k, l',
  'head 17 | cut k, l, i',
  'tail 9 | cut k, l, i',
  'sort v, i | head 5 | cut v, i, l',
  'has(e) | cut k, e',
  'has(e) | cut e.b, e.a, k',
  'summarize sum(e.a), count(e.b) by l',
  'count() by k',
];

async function lakeWith(mode: VectorScanMode, sub: string, cache: number): Promise<Lake> {
  const l = await openLake({
    lake: `${lakes.dir}/${sub}`,
    vectorScan: mode,
    cacheSize: 0,
    vectorCacheSize: cache,
  });
  lakes.open.push(l);
  return l;
}

/**
 * Pool p, keyed by k, in each lake, loaded once for each l < loads with n
 * records rec(l, i): loads over the same keys make one run of
 * overlapping objects.
 */
async function loadRun(
  lakes: Lake[],
  loads: number,
  n: number,
  rec: (l: number, i: number) => string,
  order: 'asc' | 'desc' = 'asc',
): Promise<void> {
  for (const lake of lakes) {
    await lake.createPool('p', { layout: { keys: [['k']], order } });
    for (let l = 0; l < loads; l++) {
      const recs = Array.from({ length: n }, (_, i) => rec(l, i));
      await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs.join('\n'))));
    }
  }
}

describe.each([
  ['asc', 2],
  ['asc', 3],
  ['desc', 2],
  ['desc', 3],
] as const)('pool order %s, %d loads', (order, loads) => {
  test.each(Object.keys(KEYS))('%s keys: merged by columns as by rows', async (kind) => {
    const { key, merged } = KEYS[kind];
    const off = await lakeWith('off', 'off', 0);
    const on = await lakeWith('on', 'on', 0);
    const cached = await lakeWith('on', 'cached', 64 << 20);
    await loadRun([off, on, cached], loads, 400, (l, i) => record(l, i, key(l, i)), order);
    const orders = { on: 0, cached: 0 };
    {
      for (const q of QUERIES) {
        const want = (await run(off, `from p | ${q}`)).out;
        for (const [name, lake] of [
          ['on', on],
          ['cached', cached],
          ['cached again', cached],
        ] as const) {
          const before = vectormerge.mergeCounts.merged;
          const ordered = vectormerge.mergeCounts.orders;
          const got = (await run(lake, `from p | ${q}`)).out;
          orders[name === 'on' ? 'on' : 'cached'] += vectormerge.mergeCounts.orders - ordered;
          expect({ q, name, got }).toEqual({ q, name, got: want });
          // Keys the merge takes are merged by columns; the rest read by rows.
          const calls = vectormerge.mergeCounts.merged - before;
          if (q !== 'count()' && q !== 'yield this' && !merged)
            expect({ q, calls }).toEqual({ q, calls: 0 });
          if (q === 'cut k, i, l')
            expect({ q, name, merged: calls > 0 }).toEqual({ q, name, merged });
          // A query that reads no field takes the rows as they come: each
          // is the empty record, whatever its type in the pool.
          if (q === 'count()') {
            expect({ q, name, calls, ordered: vectormerge.mergeCounts.orders - ordered }).toEqual({
              q,
              name,
              calls: 1,
              ordered: 0,
            });
          }
        }
      }
    }
    // The first query that reads fields by columns works the merge order
    // out, with the column cache or without it; the lake keeps it for the
    // rest (which read the key's column only if they use it).
    if (merged) expect(orders).toEqual({ on: 1, cached: 1 });
  });
});

test('a query that reads no field of records of one type takes the overlapping objects as they come', async () => {
  const off = await lakeWith('off', 'off', 0);
  const on = await lakeWith('on', 'on', 0);
  await loadRun([off, on], 2, 300, (l, i) => `{k:${(i * 7) % 40},l:${l}}`);
  for (const q of ['count()', 'l > 0 | count()', 'yield 1 | count()']) {
    const before = { ...vectormerge.mergeCounts };
    const got = (await run(on, `from p | ${q}`)).out;
    expect({ q, got }).toEqual({ q, got: (await run(off, `from p | ${q}`)).out });
    const after = vectormerge.mergeCounts;
    const alike = q !== 'l > 0 | count()';
    expect({
      q,
      merged: after.merged - before.merged,
      ordered: after.orders - before.orders,
    }).toEqual({ q, merged: 1, ordered: alike ? 0 : 1 });
  }
});

test('without the column cache, a run whose merge order the lake keeps is read without its key', async () => {
  const off = await lakeWith('off', 'off', 0);
  const on = await lakeWith('on', 'on', 0);
  const fresh = await lakeWith('on', 'fresh', 0);
  await loadRun([off, on, fresh], 2, 300, (l, i) =>
    record(l, i, `"key-${String((i * 7 + l) % 50).padStart(40, '0')}"`),
  );
  await run(on, 'from p | cut k, i');
  const fetched = async (lake: Lake) => {
    const before = lake.scanTotals.bytesRead;
    const orders = vectormerge.mergeCounts.orders;
    const got = await run(lake, 'from p | cut l, i');
    expect(got.out).toEqual((await run(off, 'from p | cut l, i')).out);
    return {
      bytes: lake.scanTotals.bytesRead - before,
      orders: vectormerge.mergeCounts.orders - orders,
    };
  };
  const known = await fetched(on);
  const first = await fetched(fresh);
  expect({ known: known.orders, first: first.orders }).toEqual({ known: 0, first: 1 });
  // The keys are 40-byte strings: 24,000 bytes of them, stored compressed.
  expect(known.bytes).toBeLessThan(first.bytes);
});

test('a run whose keys hold a NaN is read by rows, its columns read only once to find out', async () => {
  const off = await lakeWith('off', 'off', 0);
  const on = await lakeWith('on', 'on', 0);
  const cached = await lakeWith('on', 'cached', 64 << 20);
  await loadRun([off, on, cached], 2, 300, (l, i) =>
    record(l, i, i === 100 + l ? 'NaN' : floatKey(i % 30, 0, '')),
  );
  for (const lake of [on, cached]) {
    for (const [q, refused] of [
      ['cut k, l, i', 1],
      ['cut k, l, i', 0],
      ['cut l', 0],
    ] as const) {
      const before = { ...vectormerge.mergeCounts };
      expect((await run(lake, `from p | ${q}`)).out).toEqual((await run(off, `from p | ${q}`)).out);
      const after = vectormerge.mergeCounts;
      expect({
        q,
        refused: after.refused - before.refused,
        merged: after.merged - before.merged,
      }).toEqual({
        q,
        refused,
        merged: 0,
      });
    }
  }
});

test('a run of overlapping objects past the merge limits is read by rows, with the same answer', async () => {
  const off = await lakeWith('off', 'off', 0);
  const on = await lakeWith('on', 'on', 0);
  await loadRun([off, on], 2, 300, (l, i) => record(l, i, `${i % 40}`));
  const saved = { ...vectormerge.mergeLimits };
  try {
    // [limits, query, merged, refused after reading the columns]
    for (const [limits, q, merged, refused] of [
      [{ bytes: 100 }, 'cut k, l, i', false, false],
      // The key's column alone comes to 13,174 bytes (18 a row of offsets
      // and the merge's arrays, its values, and the objects' record-type
      // column): it fits in 13,500, counted once; three columns (20,416
      // bytes), or the key's twice, do not.
      [{ bytes: 13_500 }, 'cut k, l, i', false, false],
      [{ bytes: 13_500 }, 'cut k', true, false],
      // A merged column too large for int32 offsets, found once read.
      [{ columnBytes: 100 }, 'cut k, l, i', false, true],
      [{}, 'cut k, l, i', true, false],
    ] as const) {
      Object.assign(vectormerge.mergeLimits, saved, limits);
      const before = { ...vectormerge.mergeCounts };
      expect((await run(on, `from p | ${q}`)).out).toEqual((await run(off, `from p | ${q}`)).out);
      const after = vectormerge.mergeCounts;
      expect({
        limits,
        q,
        merged: after.merged > before.merged,
        refused: after.refused > before.refused,
      }).toEqual({ limits, q, merged, refused });
      // A query that reads no field holds no column: the limits do not apply.
      const count = { ...vectormerge.mergeCounts };
      expect((await run(on, 'from p | count()')).out).toEqual(['600(uint64)']);
      expect({ limits, merged: vectormerge.mergeCounts.merged - count.merged }).toEqual({
        limits,
        merged: 1,
      });
    }
  } finally {
    Object.assign(vectormerge.mergeLimits, saved);
  }
});

test('with the column cache on, a run keeps its merged columns and their dictionaries until one of its objects goes', async () => {
  const off = await lakeWith('off', 'off', 0);
  const cached = await lakeWith('on', 'cached', 64 << 20);
  await loadRun([off, cached], 2, 300, (l, i) => `{k:${(i * 7 + l) % 50},l:${l},v:"v${i % 7}"}`);
  const same = async (q: string) => {
    const got = await run(cached, `from p | ${q}`);
    expect({ q, got: got.out }).toEqual({ q, got: (await run(off, `from p | ${q}`)).out });
    return got.stats;
  };
  const runs = () => [...cached.columnCache.objects()].filter((k) => k.includes('+'));
  // Columns merged by one query serve the next, which merges only what it lacks.
  await same('cut k, v');
  const ordered = vectormerge.mergeCounts.orders;
  for (const q of ['count() by v', 'count() by v', 'cut l, v', 'v == "v3" | cut k, l'])
    await same(q);
  expect(vectormerge.mergeCounts.orders).toBe(ordered);
  expect(runs()).toHaveLength(1);
  const [key] = runs();
  for (const path of [['k'], ['l'], ['v']])
    expect(cached.columnCache.column(key, path)).toBeDefined();
  // The grouping built the merged column's dictionary, kept with it.
  expect(cached.columnCache.column(key, ['v'])!.data.dict).not.toBeNull();
  // The cache holds the merged columns in place of the objects' own.
  expect([...cached.columnCache.objects()]).toEqual([key]);
  // An object of the run vacuumed takes the run's columns with it.
  const objects = await cached.objects('p', 'main');
  await cached.deleteObjects('p', 'main', [objects[0].id]);
  await off.deleteObjects('p', 'main', [(await off.objects('p', 'main'))[0].id]);
  expect(await cached.vacuum('p', 'main', false)).toHaveLength(1);
  expect(runs()).toEqual([]);
  await same('cut k, l, v');
});

test('a head that takes a few rows of a run reads it by rows, stopping early, unless the cache holds its merged columns', async () => {
  const off = await lakeWith('off', 'off', 0);
  const on = await lakeWith('on', 'on', 0);
  const cached = await lakeWith('on', 'cached', 64 << 20);
  await loadRun([off, on, cached], 2, 400, (l, i) => record(l, i, `${(i * 7 + l) % 90}`));
  // [query, lake, merged by columns]: the run holds 800 rows, a quarter is 200.
  for (const [q, name, merged] of [
    ['cut k, l, i | head 5', 'on', false],
    ['head 7 | cut k, l, v', 'on', false],
    ['head 200 | cut k, i', 'on', true],
    ['cut k, i | head 201', 'on', true],
    ['i > 3 | head 5 | cut k, i', 'on', true],
    ['head 5 | cut k, l, i', 'cached', false],
    ['cut k, l, i', 'cached', true],
    ['head 5 | cut k, l, i', 'cached', true],
    ['head 5 | cut k, v', 'cached', false],
  ] as const) {
    const lake = name === 'on' ? on : cached;
    const before = vectormerge.mergeCounts.merged;
    const got = await run(lake, `from p | ${q}`);
    const want = await run(off, `from p | ${q}`);
    expect({ q, name, got: got.out }).toEqual({ q, name, got: want.out });
    expect({ q, name, merged: vectormerge.mergeCounts.merged > before }).toEqual({
      q,
      name,
      merged,
    });
    // By rows, the scan stops within the first frames of the objects.
    if (!merged) expect({ q, records: got.stats.recordsRead < 800 }).toEqual({ q, records: true });
  }
});

test('kept merged columns serve queries over other fields, the merge order worked out again where it was dropped', async () => {
  const off = await lakeWith('off', 'off', 0);
  const cached = await lakeWith('on', 'cached', 64 << 20);
  await loadRun([off, cached], 3, 300, (l, i) => record(l, i, `${(i * 7 + l) % 60}`), 'desc');
  // Each query finds some of its columns kept and some not, and no kept
  // order: the key's column is read for the order, kept or not.
  for (const q of [
    'cut l, i',
    'cut i, k',
    'cut v, l, k',
    'cut k, i, l, v',
    'count() by v',
    'cut n, v, i',
    'cut i, n',
  ]) {
    cached['merges'].deleteWhere(() => true);
    const got = (await run(cached, `from p | ${q}`)).out;
    expect({ q, got }).toEqual({ q, got: (await run(off, `from p | ${q}`)).out });
  }
});

test('kept merged columns of record types are mapped into each query’s types', async () => {
  const off = await lakeWith('off', 'off', 0);
  const cached = await lakeWith('on', 'cached', 64 << 20);
  for (const lake of [off, cached]) {
    // Another pool's types first, so the cache's type IDs are not the query's.
    await lake.createPool('other', { layout: { keys: [['k']] } });
    await lake.load(
      'other',
      'main',
      arrayReader(parseValues(new TypeContext(), '{k:1,a:{b:"x",c:[1]}}\n{k:2,z:1.5}')),
    );
  }
  // Two loads over the same keys and a third past them: a run and an object.
  await loadRun(
    [off, cached],
    3,
    200,
    (l, i) => `{k:${(l === 2 ? 1000 : 0) + ((i * 7 + l) % 50)},v:{x:${i % 7}}}`,
  );
  await run(cached, 'from other | yield this');
  for (const q of ['count() by v | sort v', 'count() by v | sort v', 'cut v | tail 3']) {
    const got = (await run(cached, `from p | ${q}`)).out;
    expect({ q, got }).toEqual({ q, got: (await run(off, `from p | ${q}`)).out });
  }
});
