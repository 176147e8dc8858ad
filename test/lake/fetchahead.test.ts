// A scan by columns fetches the next objects' columns while the query
// works on one object's (VectorScan.readAhead): the store is asked for
// them before their turn, no more objects than fetchAhead.objects (by
// default the store's objectsAhead: none for a local disk), no more than
// the scan has read already, and no more stored bytes beyond the next
// object than fetchAhead.bytes; with decoding workers, the objects within
// the workers' reach are decoded ahead, fetched ahead or not. The answers
// are the same; an object's bytes count in the stats in its turn; and a
// fetch that fails reports its error in its turn, after the objects
// before it, and never when the scan has closed. A scan by rows
// (PoolScan.readAhead) fetches the next objects' first ranges within the
// same bounds, and those of overlapping objects, merged, all at once.

import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openLake } from '../../src/backend/open';
import { Lake } from '../../src/lake';
import { fetchAhead, parseAhead } from '../../src/lake/ahead';
import { parseValues } from '../../src/formats/zson';
import { arrayReader } from '../../src/query/runtime/ops/scan';
import { strictlyWithin, within } from '../../src/lake/seekindex';
import { ObjectStore } from '../../src/storage/storage';
import { newInt64, Value } from '../../src/zed';
import { TypeContext } from '../../src/zed/context';
import { loadDns, loadDnsObjects, oneTypeRecords, run, tempLakes } from './vectordata';

const lakes = tempLakes();

/** Objects that lakeOfObjects cuts its records into (at its threshold). */
const OBJECTS = 7;

/** Reads of data objects' columnar copies (or with rows, of the objects) a store was asked for. */
interface Watch {
  /** Each object's key at its first read. */
  requested: string[];
  /** All reads. */
  calls: number;
  /** All reads of data objects (by rows), whatever the scan. */
  rowCalls: number;
}

const newWatch = (): Watch => ({ requested: [], calls: 0, rowCalls: 0 });

/** A data object's key (not its seek index's, nor its columnar copy's). */
const DATA_KEY = /\/data\/[0-9A-Za-z]+\.zng$/;

/** A lake whose store tells watch of its reads (see Watch). */
async function watchedLake(
  sub: string,
  watch: Watch,
  { vectorWorkers = 0, rows = false, cacheSize = 0, rangeSize = 0 } = {},
): Promise<Lake> {
  const ext = rows ? DATA_KEY : /\.vng$/;
  const lake = await openLake({
    lake: join(lakes.dir, sub),
    vectorScan: rows ? 'off' : 'on',
    cacheSize,
    vectorCacheSize: 0,
    vectorWorkers,
    wrapStorage: (s: ObjectStore) =>
      new Proxy(s, {
        get(target, prop, receiver) {
          const f = Reflect.get(target, prop, receiver) as unknown;
          // A range smaller than an object: its turn reads on from the first.
          if (prop === 'rangeSize' && rangeSize > 0) return rangeSize;
          if (prop !== 'getRange' && prop !== 'get' && prop !== 'size') return f;
          return (key: string, ...rest: number[]) => {
            if (DATA_KEY.test(key)) watch.rowCalls++;
            if (ext.test(key)) {
              watch.calls++;
              if (!watch.requested.includes(key)) watch.requested.push(key);
            }
            return (f as (k: string, ...r: number[]) => unknown).call(target, key, ...rest);
          };
        },
      }),
  });
  lakes.open.push(lake);
  return lake;
}

/** A lake of OBJECTS objects that do not overlap (see watchedLake). */
async function lakeOfObjects(
  sub: string,
  requested: string[] = [],
  vectorWorkers = 0,
  rows = false,
): Promise<Lake> {
  const lake = await watchedLake(sub, { ...newWatch(), requested }, { vectorWorkers, rows });
  await loadDnsObjects(2000, oneTypeRecords(400), lake);
  return lake;
}

const saved = { ...fetchAhead };
afterEach(() => Object.assign(fetchAhead, saved));

/**
 * f() once it has reached want (or after 10 s, for the test to fail) and
 * a little longer, so that reads beyond want would show too.
 */
async function reach(f: () => number, want: number): Promise<number> {
  for (let i = 0; i < 2000 && f() < want; i++) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 30));
  return f();
}

const opts = () => ({
  ctx: new TypeContext(),
  paths: [['ts'], ['query']],
  shape: ['ts', 'query'],
});

/** After each part of a scan: what f says once it has reached the part's want. */
async function afterEachPart(
  lake: Lake,
  f: () => number,
  want: number[],
  kind: 'columns' | 'rows' = 'columns',
): Promise<number[]> {
  const scan = await lake.scanVectors('dns', 'main', opts());
  const out: number[] = [];
  try {
    for (let part = await scan.read(); part !== null; part = await scan.read()) {
      expect(part.kind).toBe(kind);
      out.push(await reach(f, want[out.length] ?? Infinity));
    }
  } finally {
    await scan.close();
  }
  return out;
}

test('the next objects are fetched before their turn, within the bounds', async () => {
  const requested: string[] = [];
  const lake = await lakeOfObjects('a', requested);
  expect((await run(lake, 'from dns@main:objects | count()')).out).toEqual([`${OBJECTS}(uint64)`]);
  const keys = () => requested.length;
  const scan = async (want: number[]) => {
    requested.length = 0;
    expect(await afterEachPart(lake, keys, want)).toEqual(want);
  };
  await checkBounds(lake, scan);
});

/**
 * Checks the bounds of fetching ahead on a lake of OBJECTS objects: scan(want)
 * asserts the objects requested after each object's turn.
 */
async function checkBounds(lake: Lake, scan: (want: number[]) => Promise<void>): Promise<void> {
  fetchAhead.objects = 0;
  await scan([1, 2, 3, 4, 5, 6, 7]);
  // A local disk's default: none ahead (LocalStore.objectsAhead).
  fetchAhead.objects = null;
  await scan([1, 2, 3, 4, 5, 6, 7]);

  // Three ahead, but no more than the scan has read: 0, 1, 2, then 3.
  fetchAhead.objects = 3;
  fetchAhead.bytes = 1 << 30;
  await scan([1, 3, 5, 7, 7, 7, 7]);

  // A byte budget below any object's size: the next object alone.
  fetchAhead.bytes = 1;
  await scan([1, 3, 4, 5, 6, 7, 7]);

  // A budget of one object's size (by rows, its first range: all of these small objects): one beyond the next.
  const sizes = (await run(lake, 'from dns@main:objects | yield size')).out.map(Number);
  fetchAhead.bytes = Math.max(...sizes);
  await scan([1, 3, 5, 6, 7, 7, 7]);
}

test("an object's bytes count in the stats in its turn, not when fetched ahead", async () => {
  const requested: string[] = [];
  const lake = await lakeOfObjects('b', requested);
  const scanParts = async (parts: number, asked: number) => {
    requested.length = 0;
    const scan = await lake.scanVectors('dns', 'main', opts());
    for (let i = 0; i < parts; i++) expect(await scan.read()).not.toBeNull();
    // The objects fetched ahead have been asked for (and had time to come).
    expect(await reach(() => requested.length, asked)).toBe(asked);
    const bytes = scan.stats.bytesRead;
    await scan.close();
    return bytes;
  };
  fetchAhead.objects = 0;
  const two = await scanParts(2, 2);
  fetchAhead.objects = 4;
  // Two objects read, the next one fetched (and never read).
  expect(await scanParts(2, 3)).toBe(two);
  expect(await scanParts(OBJECTS, OBJECTS)).toBeGreaterThan(two);
});

test('with decoding workers, the objects within their reach are decoded ahead', async () => {
  const lake = await lakeOfObjects('c', [], 2);
  const total = async () => {
    const scan = await lake.scanVectors('dns', 'main', opts());
    while ((await scan.read()) !== null);
    await scan.close();
    return scan.stats.bytesRead;
  };
  fetchAhead.objects = 0;
  const all = await total();
  fetchAhead.objects = 4;
  expect(await total()).toBe(all);
  const scan = await lake.scanVectors('dns', 'main', opts());
  try {
    for (let i = 0; i < 5; i++) expect(await scan.read()).not.toBeNull();
    // The fifth object's turn: the sixth and seventh, fetched ahead before
    // they were within the workers' reach, are decoded (and counted) ahead.
    expect(await reach(() => scan.stats.bytesRead, all)).toBe(all);
  } finally {
    await scan.close();
  }
});

test('answers are the same with and without fetching ahead', async () => {
  const lake = await lakeOfObjects('d');
  const queries = [
    'from dns | cut ts, query',
    'from dns | summarize count(), sum(rtt), dcount(id.orig_h) by query | sort query',
    'from dns | qtype_name=="MX" | count()',
    'from dns | head 3 | cut ts',
  ];
  for (const q of queries) {
    fetchAhead.objects = 0;
    const alone = await run(lake, q);
    fetchAhead.objects = 4;
    const ahead = await run(lake, q);
    expect(ahead.out).toEqual(alone.out);
    expect(alone.out.length).toBeGreaterThan(0);
  }
});

test('a fetch that fails ahead reports its error in its turn, and not after the scan closes', async () => {
  const requested: string[] = [];
  const lake = await lakeOfObjects('e', requested);
  const ids = (await run(lake, 'from dns@main:objects | yield ksuid(id)')).out.map(
    (s) => JSON.parse(s) as string,
  );
  expect(ids.length).toBe(OBJECTS);
  const dir = join(lakes.dir, 'e');
  const poolDir = readdirSync(dir).find((d) => readdirSync(join(dir, d)).includes('data'))!;
  // The fourth object's columnar copy goes: the scan fails at its turn.
  rmSync(join(dir, poolDir, 'data', `${ids[3]}.vng`));
  fetchAhead.objects = 4;
  const scan = await lake.scanVectors('dns', 'main', opts());
  for (let i = 0; i < 3; i++) expect(await scan.read()).not.toBeNull();
  // It was asked for ahead of its turn.
  const asked = () => (requested.some((k) => k.endsWith(`${ids[3]}.vng`)) ? 1 : 0);
  expect(await reach(asked, 1)).toBe(1);
  await expect(scan.read()).rejects.toThrow(/not found/i);
  await scan.close();

  // Closed before the failed fetch's turn: nothing is reported.
  const early = await lake.scanVectors('dns', 'main', opts());
  for (let i = 0; i < 3; i++) expect(await early.read()).not.toBeNull();
  await early.close();
  // Time for a rejection nobody handles to show (jest fails the test).
  await new Promise((r) => setTimeout(r, 100));
});

test('-vector.ahead values', () => {
  expect(parseAhead('auto')).toBeNull();
  expect(parseAhead('')).toBeNull();
  expect(parseAhead('0')).toBe(0);
  expect(parseAhead('12')).toBe(12);
  for (const bad of ['-1', '1.5', 'x', '257'])
    expect(() => parseAhead(bad)).toThrow(
      `vector ahead must be auto or a whole number from 0 to 256: ${bad}`,
    );
});

/** After each batch of a scan by rows: what f says once it has reached the batch's want. */
async function afterEachBatch(lake: Lake, f: () => number, want: number[]): Promise<number[]> {
  const scan = await lake.scan('dns', 'main', { ctx: new TypeContext() });
  const out: number[] = [];
  try {
    while ((await scan.pull()) !== null) out.push(await reach(f, want[out.length] ?? Infinity));
  } finally {
    await scan.close();
  }
  return out;
}

test('a scan by rows fetches the next objects before their turn, within the bounds', async () => {
  const watch = newWatch();
  const requested = watch.requested;
  const lake = await watchedLake('rows', watch, { rows: true });
  await loadDnsObjects(2000, oneTypeRecords(400), lake);
  const scan = async (want: number[]) => {
    requested.length = 0;
    // Each object is one batch (afterEachBatch's want is per batch).
    expect(await afterEachBatch(lake, () => requested.length, want)).toEqual(want);
  };
  await checkBounds(lake, scan);

  for (const q of ['from dns | cut ts, query', 'from dns | count() by qtype_name | sort this'])
    expect(await sameEitherWay(lake, watch, q)).toBe(OBJECTS);
});

/**
 * Runs q without fetching ahead, then with: the answers, the stats and the
 * reads are the same (what was fetched ahead is what the objects' turns
 * read, nothing twice). Returns the reads.
 */
async function sameEitherWay(lake: Lake, watch: Watch, q: string): Promise<number> {
  fetchAhead.objects = 0;
  watch.calls = 0;
  const alone = await run(lake, q);
  const calls = watch.calls;
  fetchAhead.objects = 4;
  watch.calls = 0;
  const ahead = await run(lake, q);
  // Time for a read ahead that nobody uses to show.
  await new Promise((r) => setTimeout(r, 50));
  expect(watch.calls).toBe(calls);
  expect(ahead.out).toEqual(alone.out);
  expect(ahead.stats).toEqual(alone.stats);
  expect(alone.out.length).toBeGreaterThan(0);
  return calls;
}

test('a scan by columns reads by rows the objects it must, fetching them ahead', async () => {
  const watch = newWatch();
  const lake = await watchedLake('vecrows', watch, { rows: true });
  await loadDnsObjects(2000, oneTypeRecords(400), lake);
  await checkBounds(lake, async (want) => {
    watch.requested.length = 0;
    watch.calls = 0;
    // Each object is one part, of rows (-vector.scan off).
    expect(await afterEachPart(lake, () => watch.requested.length, want, 'rows')).toEqual(want);
    expect(watch.calls).toBe(OBJECTS);
  });
  // Decoding workers decode columns ahead; they fetch no rows ahead.
  const two = newWatch();
  const withWorkers = await watchedLake('vecrows2', two, { rows: true, vectorWorkers: 2 });
  await loadDnsObjects(2000, oneTypeRecords(400), withWorkers);
  fetchAhead.objects = 0;
  const want = [1, 2, 3, 4, 5, 6, 7];
  expect(await afterEachPart(withWorkers, () => two.requested.length, want, 'rows')).toEqual(want);
});

test('a scan by rows fetches nothing ahead for objects the scan cache holds', async () => {
  const watch = newWatch();
  const lake = await watchedLake('cached', watch, { rows: true, cacheSize: 64 << 20 });
  await loadDnsObjects(2000, oneTypeRecords(400), lake);
  fetchAhead.objects = 4;
  const first = await run(lake, 'from dns | count()');
  watch.calls = 0;
  const again = await run(lake, 'from dns | count()');
  expect(again.out).toEqual(first.out);
  expect(again.stats.bytesRead).toBe(first.stats.bytesRead);
  await new Promise((r) => setTimeout(r, 50));
  expect(watch.calls).toBe(0);
});

/**
 * A lake read by rows whose store takes 20 ms a read of a data object, and
 * q's answer without fetching ahead and with: the same, and the most reads
 * in flight at once in each.
 */
async function inFlight(sub: string, fill: (lake: Lake) => Promise<void>, q: string) {
  let now = 0;
  let most = 0;
  const lake = await openLake({
    lake: join(lakes.dir, sub),
    vectorScan: 'off',
    cacheSize: 0,
    wrapStorage: (s: ObjectStore) =>
      new Proxy(s, {
        get(target, prop, receiver) {
          const f = Reflect.get(target, prop, receiver) as unknown;
          if (prop !== 'getRange') return f;
          const getRange = (f as ObjectStore['getRange']).bind(target);
          return async (key: string, off: number, len: number) => {
            if (!DATA_KEY.test(key)) return getRange(key, off, len);
            most = Math.max(most, ++now);
            try {
              await new Promise((r) => setTimeout(r, 20));
              return await getRange(key, off, len);
            } finally {
              now--;
            }
          };
        },
      }),
  });
  lakes.open.push(lake);
  await fill(lake);
  // Once for the seek indexes, if any, to be read (and kept by the lake).
  await run(lake, q);
  const mosts: number[] = [];
  const outs: string[][] = [];
  for (const ahead of [0, 4]) {
    fetchAhead.objects = ahead;
    most = 0;
    outs.push((await run(lake, q)).out);
    mosts.push(most);
  }
  expect(outs[1]).toEqual(outs[0]);
  expect(outs[0].length).toBeGreaterThan(0);
  return { lake, none: mosts[0], ahead: mosts[1] };
}

test('a scan by rows starts the reads of overlapping objects at once', async () => {
  const { lake, none, ahead } = await inFlight('merged', loadDns, 'from dns | cut ts');
  // Three objects whose key spans all overlap: one group, merged.
  expect((await run(lake, 'from dns@main:objects | count()')).out).toEqual(['3(uint64)']);
  expect(none).toBe(1);
  expect(ahead).toBe(3);
});

test('with a key range, a scan by rows fetches ahead the objects the range holds whole', async () => {
  const fill = async (lake: Lake) => {
    await lake.createPool('dns', { layout: { keys: [['ts']] }, threshold: 2000, seekStride: 300 });
    const vals = parseValues(new TypeContext(), oneTypeRecords(400));
    await lake.load('dns', 'main', arrayReader(vals));
  };
  const q = 'from dns | ts >= 1700000100 and ts < 1700000390 | count()';
  const { none, ahead } = await inFlight('keyrange', fill, q);
  expect(none).toBe(1);
  expect(ahead).toBeGreaterThan(1);
});

test('a scan by rows reports a failed fetch ahead in its turn, and not after it closes', async () => {
  const requested: string[] = [];
  const lake = await lakeOfObjects('rowsfail', requested, 0, true);
  const ids = (await run(lake, 'from dns@main:objects | yield ksuid(id)')).out.map(
    (s) => JSON.parse(s) as string,
  );
  const dir = join(lakes.dir, 'rowsfail');
  const poolDir = readdirSync(dir).find((d) => readdirSync(join(dir, d)).includes('data'))!;
  rmSync(join(dir, poolDir, 'data', `${ids[3]}.zng`));
  fetchAhead.objects = 4;
  const scan = await lake.scan('dns', 'main', { ctx: new TypeContext() });
  for (let i = 0; i < 3; i++) expect(await scan.pull()).not.toBeNull();
  const asked = () => (requested.some((k) => k.endsWith(`${ids[3]}.zng`)) ? 1 : 0);
  expect(await reach(asked, 1)).toBe(1);
  await expect(scan.pull()).rejects.toThrow(/not found: it was removed by vacuum/);
  await scan.close();

  const early = await lake.scan('dns', 'main', { ctx: new TypeContext() });
  for (let i = 0; i < 3; i++) expect(await early.pull()).not.toBeNull();
  await early.close();
  await new Promise((r) => setTimeout(r, 100));
});

test('a scan by rows reads on from a first range fetched ahead, with the same answers and reads', async () => {
  const watch = newWatch();
  // Ranges of 700 bytes: each object takes several, a few in flight.
  const lake = await watchedLake('ranges', watch, { rows: true, rangeSize: 700 });
  await loadDnsObjects(2000, oneTypeRecords(400), lake);
  // (A tail right after the scan would read only the last objects.)
  for (const q of ['from dns | cut ts, query', 'from dns | yield this | tail 3'])
    expect(await sameEitherWay(lake, watch, q)).toBeGreaterThan(OBJECTS);
});

test('nothing is fetched ahead that its turn reads otherwise', async () => {
  // A key range: objects are read from the streams their seek index names
  // (several an object), the last object in range not to its end.
  const watch = newWatch();
  const lake = await watchedLake('range', watch, { rows: true });
  await lake.createPool('dns', { layout: { keys: [['ts']] }, threshold: 2000, seekStride: 300 });
  await lake.load('dns', 'main', arrayReader(parseValues(new TypeContext(), oneTypeRecords(400))));
  // Once for the seek indexes to be read (and kept by the lake).
  await run(lake, 'from dns | ts >= 1700000100 and ts < 1700000390 | count()');
  await sameEitherWay(lake, watch, 'from dns | ts >= 1700000100 and ts < 1700000390 | count()');

  // Objects the scan reads by columns: no data object is read.
  fetchAhead.objects = 4;
  const cols = newWatch();
  const vlake = await watchedLake('bycolumns', cols);
  await loadDnsObjects(2000, oneTypeRecords(400), vlake);
  const scan = await vlake.scan('dns', 'main', { ctx: new TypeContext() }, ['query']);
  let n = 0;
  for (let b = await scan.pull(); b !== null; b = await scan.pull()) n += b.length;
  await scan.close();
  await new Promise((r) => setTimeout(r, 50));
  expect(n).toBeGreaterThan(0);
  expect(scan.stats.objectsVector).toBe(OBJECTS);
  expect(cols.rowCalls).toBe(0);
});

test('a scan by columns fetches no group of overlapping objects ahead', async () => {
  const watch = newWatch();
  const lake = await watchedLake('overlap', watch, { rows: true });
  const records = oneTypeRecords(400);
  await loadDnsObjects(2000, records, lake);
  // The last records again: an eighth object, which overlaps the seventh.
  const last = records.split('\n').slice(-10).join('\n');
  await lake.load('dns', 'main', arrayReader(parseValues(new TypeContext(), last)));
  fetchAhead.objects = 4;
  fetchAhead.bytes = 1 << 30;
  // Six single objects, then the two merged: not fetched ahead with the
  // sixth (at most four objects), but both at their turn.
  const want = [1, 3, 5, 6, 6, 6, 8, 8, 8, 8];
  const got = await afterEachPart(lake, () => watch.requested.length, want, 'rows');
  expect(got.length).toBeGreaterThanOrEqual(7);
  expect(got).toEqual(want.slice(0, got.length));
});

test('nothing is fetched ahead for objects an index lookup reads in part', async () => {
  const watch = newWatch();
  const lake = await watchedLake('lookup', watch, { rows: true });
  await lake.createPool('dns', { layout: { keys: [['ts']] }, threshold: 2000, seekStride: 300 });
  await lake.load('dns', 'main', arrayReader(parseValues(new TypeContext(), oneTypeRecords(400))));
  const ids = (await run(lake, 'from dns@main:objects | yield ksuid(id)')).out.map(
    (s) => JSON.parse(s) as string,
  );
  // As an index lookup's answer: each object's last rows only.
  const rows = new Map(ids.map((id) => [id, [{ first: 40, last: 41 }]]));
  const reads = async (ahead: number) => {
    fetchAhead.objects = ahead;
    watch.calls = 0;
    const scan = await lake.scan('dns', 'main', { ctx: new TypeContext(), rows });
    let n = 0;
    for (let b = await scan.pull(); b !== null; b = await scan.pull()) n += b.length;
    await scan.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(n).toBeGreaterThan(0);
    return watch.calls;
  };
  // An object with 41 rows or fewer has none to read.
  const none = await reads(0);
  expect(none).toBeGreaterThan(ids.length / 2);
  expect(await reads(4)).toBe(none);
});

test('a scan keeps no range fetched ahead once it ends or closes', async () => {
  const lake = await lakeOfObjects('release', [], 0, true);
  fetchAhead.objects = 4;
  const primed = (scan: object) => (scan as unknown as { primed: Map<unknown, unknown> }).primed;
  const ended = await lake.scan('dns', 'main', { ctx: new TypeContext() });
  while ((await ended.pull()) !== null);
  expect(primed(ended).size).toBe(0);
  const closed = await lake.scan('dns', 'main', { ctx: new TypeContext() });
  for (let i = 0; i < 3; i++) expect(await closed.pull()).not.toBeNull();
  expect(primed(closed).size).toBeGreaterThan(0);
  await closed.close();
  expect(primed(closed).size).toBe(0);
});

test('a key range holds an object whole only when its open bounds leave out no key', () => {
  const ts = (n: number) => newInt64(BigInt(n));
  const [min, max] = [ts(10), ts(20)];
  expect(strictlyWithin(min, max, { lower: ts(10), upper: ts(20) })).toBe(true);
  expect(strictlyWithin(min, max, { lower: ts(10), lowerOpen: true })).toBe(false);
  expect(strictlyWithin(min, max, { upper: ts(20), upperOpen: true })).toBe(false);
  expect(
    strictlyWithin(min, max, { lower: ts(9), lowerOpen: true, upper: ts(21), upperOpen: true }),
  ).toBe(true);
  expect(strictlyWithin(min, max, { lower: ts(11) })).toBe(false);
  expect(strictlyWithin(min, max, { upper: ts(19) })).toBe(false);
  expect(strictlyWithin(Value.null(), max, { upper: ts(30) })).toBe(false);
  // The columns' choice takes open bounds as closed.
  expect(within(min, max, { lower: ts(10), lowerOpen: true })).toBe(true);
});
