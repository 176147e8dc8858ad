// Scans: pool-key order across objects, key ranges that read only what
// they need, and the counts a query reports.

import { Lake, ScanOptions } from '../../src/lake';
import { Builder, encodeInt, newInt64, newTime, TypeContext, Value } from '../../src/zed';
import { arrayReader, int, rec, recs, show, testLake } from './helpers';

const t = testLake();
let lake: Lake;
let ctx: TypeContext;

beforeEach(() => {
  ({ lake, ctx } = t);
});

async function scanAll(pool: string, opts: Partial<ScanOptions> = {}) {
  const scan = await lake.scan(pool, 'main', { ctx, ...opts });
  const vals: Value[] = [];
  let batches = 0;
  for (let b = await scan.pull(); b; b = await scan.pull()) {
    batches++;
    for (const v of b) vals.push(v);
  }
  return {
    vals,
    stats: scan.stats,
    batches,
    get text() {
      return vals.map(show);
    },
  };
}

test('overlapping objects are merged in key order; equal keys keep load order', async () => {
  await lake.createPool('p', { layout: { keys: [['k']] } });
  await lake.load('p', 'main', arrayReader(recs(ctx, [1, 3, 5, 7, 9], () => ({ load: 1 }))));
  await lake.load('p', 'main', arrayReader(recs(ctx, [2, 3, 6, 10], () => ({ load: 2 }))));
  await lake.load('p', 'main', arrayReader(recs(ctx, [20, 21], () => ({ load: 3 }))));
  await lake.load('p', 'main', arrayReader(recs(ctx, [3, null], () => ({ load: 4 }))));
  const { text } = await scanAll('p');
  expect(text).toEqual([
    '{k:1,load:1}',
    '{k:2,load:2}',
    '{k:3,load:1}',
    '{k:3,load:2}',
    '{k:3,load:4}',
    '{k:5,load:1}',
    '{k:6,load:2}',
    '{k:7,load:1}',
    '{k:9,load:1}',
    '{k:10,load:2}',
    '{k:20,load:3}',
    '{k:21,load:3}',
    '{k:null,load:4}',
  ]);
});

test('descending pools scan in descending order across objects', async () => {
  await lake.createPool('p', { layout: { order: 'desc', keys: [['k']] } });
  await lake.load('p', 'main', arrayReader(recs(ctx, [1, 5, 9])));
  await lake.load('p', 'main', arrayReader(recs(ctx, [2, 6, null])));
  await lake.load('p', 'main', arrayReader(recs(ctx, [100])));
  const { text } = await scanAll('p');
  expect(text).toEqual(['{k:null}', '{k:100}', '{k:9}', '{k:6}', '{k:5}', '{k:2}', '{k:1}']);
  const r = await scanAll('p', { range: { lower: newInt64(2), upper: newInt64(6) } });
  expect(r.text).toEqual(['{k:6}', '{k:5}', '{k:2}']);
});

test('a large random load comes back sorted, with merges over many objects', async () => {
  await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 20000, seekStride: 2000 });
  let x = 12345;
  const keys: number[] = [];
  for (let i = 0; i < 20000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    keys.push(x % 5000);
  }
  await lake.load(
    'p',
    'main',
    arrayReader(
      recs(ctx, keys.slice(0, 10000), (_k, i) => ({ i })),
      1000,
    ),
  );
  await lake.load(
    'p',
    'main',
    arrayReader(
      recs(ctx, keys.slice(10000), (_k, i) => ({ i: i + 10000 })),
      1000,
    ),
  );
  const { vals, stats, batches } = await scanAll('p');
  expect(vals).toHaveLength(20000);
  for (let i = 1; i < vals.length; i++) {
    const a = int(vals[i - 1], 'k');
    const b = int(vals[i], 'k');
    expect(a <= b).toBe(true);
    if (a === b) expect(int(vals[i - 1], 'i') < int(vals[i], 'i')).toBe(true);
  }
  expect(stats.recordsRead).toBe(20000);
  expect(stats.objectsRead).toBeGreaterThan(4);
  expect(batches).toBeGreaterThan(10);
  // A range over the same merge.
  const r = await scanAll('p', { range: { lower: newInt64(1000), upper: newInt64(1099) } });
  const want = keys.filter((k) => k >= 1000 && k <= 1099).length;
  expect(r.vals).toHaveLength(want);
  expect(r.vals.every((v) => int(v, 'k') >= 1000 && int(v, 'k') <= 1099)).toBe(true);
});

test('key ranges skip objects and read only the needed streams', async () => {
  const n = 200000;
  const base = 1_600_000_000_000_000_000n;
  await lake.createPool('p', {
    layout: { keys: [['ts']] },
    threshold: 2_000_000,
    seekStride: 16 * 1024,
  });
  // Built directly (the rec() helper is too slow for this many).
  const t = rec(ctx, { ts: base, msg: '', n: 0 }).type;
  const b = new Builder();
  const vals: Value[] = [];
  for (let i = 0; i < n; i++) {
    b.reset();
    b.appendBytes(encodeInt(base + BigInt(i) * 1_000_000_000n));
    b.appendBytes(Buffer.from(`message number ${i} with some padding text`));
    b.appendBytes(encodeInt(i));
    vals.push(new Value(t, b.copy(), 0, b.len));
  }
  await lake.load('p', 'main', arrayReader(vals, 5000));
  const objects = await lake.objects('p', 'main');
  expect(objects.length).toBeGreaterThan(3);
  const total = objects.reduce((s, o) => s + o.size, 0);

  const all = await scanAll('p');
  expect(all.stats.bytesRead).toBe(total);
  expect(all.stats.recordsRead).toBe(n);

  // 1% of the keys, from the middle of the pool.
  const lo = n / 2;
  const hi = lo + n / 100 - 1;
  const range = {
    lower: newTime(base + BigInt(lo) * 1_000_000_000n),
    upper: newTime(base + BigInt(hi) * 1_000_000_000n),
  };
  const r = await scanAll('p', { range });
  expect(r.vals).toHaveLength(n / 100);
  expect(int(r.vals[0], 'n')).toBe(lo);
  expect(int(r.vals[r.vals.length - 1], 'n')).toBe(hi);
  const fraction = r.stats.bytesRead / total;
  expect(fraction).toBeGreaterThan(0.005);
  expect(fraction).toBeLessThan(0.02);
  expect(r.stats.recordsRead / n).toBeLessThan(0.02);
  expect(r.stats.objectsSkipped).toBeGreaterThan(0);

  // Without exact trimming the scan hands back whole streams.
  const loose = await scanAll('p', { range, exact: false });
  expect(loose.vals.length).toBeGreaterThan(n / 100);
  expect(loose.vals.length).toBe(loose.stats.recordsRead);

  // Open-ended ranges.
  const tail = await scanAll('p', {
    range: { lower: newTime(base + BigInt(n - 10) * 1_000_000_000n) },
  });
  expect(tail.vals.map((v) => int(v, 'n'))).toEqual([...Array(10).keys()].map((i) => n - 10 + i));
  const head = await scanAll('p', { range: { upper: newTime(base + 4n * 1_000_000_000n) } });
  expect(head.vals.map((v) => int(v, 'n'))).toEqual([0, 1, 2, 3, 4]);
  const none = await scanAll('p', { range: { lower: newTime(0n), upper: newTime(5n) } });
  expect(none.vals).toEqual([]);
  expect(none.stats.bytesRead).toBe(0);
}, 60000);

test('values with no key are in no bounded range', async () => {
  for (const order of ['asc', 'desc']) {
    const name = `p-${order}`;
    await lake.createPool(name, { layout: { order, keys: [['k']] }, seekStride: 10 });
    await lake.load(name, 'main', arrayReader(recs(ctx, [1, null, 2, 3, null])));
    const lower = (await scanAll(name, { range: { lower: newInt64(2) } })).text;
    expect(lower).toEqual(order === 'asc' ? ['{k:2}', '{k:3}'] : ['{k:3}', '{k:2}']);
    const upper = (await scanAll(name, { range: { upper: newInt64(1) } })).text;
    expect(upper).toEqual(['{k:1}']);
    expect((await scanAll(name)).vals).toHaveLength(5);
  }
});

test('a closed scan yields nothing more', async () => {
  await lake.createPool('p', { layout: { keys: [['k']] }, seekStride: 10 });
  await lake.load('p', 'main', arrayReader(recs(ctx, [...Array(100).keys()]), 10));
  const scan = await lake.scan('p', 'main', { ctx });
  expect(await scan.pull()).not.toBeNull();
  await scan.close();
  expect(await scan.pull()).toBeNull();
});

test('scans see the snapshot they started with', async () => {
  await lake.createPool('p', { layout: { keys: [['k']] } });
  await lake.load('p', 'main', arrayReader(recs(ctx, [1, 2])));
  const scan = await lake.scan('p', 'main', { ctx });
  await lake.load('p', 'main', arrayReader(recs(ctx, [3])));
  const got: string[] = [];
  for (let b = await scan.pull(); b; b = await scan.pull()) got.push(...b.map(show));
  expect(got).toEqual(['{k:1}', '{k:2}']);
});
