// A scan by columns fetches the next objects' columns while the query
// works on one object's (VectorScan.readAhead): the store is asked for
// them before their turn, no more objects than fetchAhead.objects (by
// default the store's objectsAhead: none for a local disk), no more than
// the scan has read already, and no more stored bytes beyond the next
// object than fetchAhead.bytes; with decoding workers, the objects within
// the workers' reach are decoded ahead, fetched ahead or not. The answers
// are the same; an object's bytes count in the stats in its turn; and a
// fetch that fails reports its error in its turn, after the objects
// before it, and never when the scan has closed.

import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openLake } from '../../src/backend/open';
import { Lake } from '../../src/lake';
import { fetchAhead, parseAhead } from '../../src/lake/vectorscan';
import { ObjectStore } from '../../src/storage/storage';
import { TypeContext } from '../../src/zed/context';
import { loadDnsObjects, oneTypeRecords, run, tempLakes } from './vectordata';

const lakes = tempLakes();

/** Objects that lakeOfObjects cuts its records into (at its threshold). */
const OBJECTS = 7;

/** A lake of OBJECTS objects that do not overlap; requested gets each columnar copy's key at its first use. */
async function lakeOfObjects(
  sub: string,
  requested: string[] = [],
  vectorWorkers = 0,
): Promise<Lake> {
  const lake = await openLake({
    lake: join(lakes.dir, sub),
    vectorScan: 'on',
    cacheSize: 0,
    vectorCacheSize: 0,
    vectorWorkers,
    wrapStorage: (s: ObjectStore) =>
      new Proxy(s, {
        get(target, prop, receiver) {
          const f = Reflect.get(target, prop, receiver) as unknown;
          if (prop !== 'getRange' && prop !== 'get' && prop !== 'size') return f;
          return (key: string, ...rest: number[]) => {
            if (key.endsWith('.vng') && !requested.includes(key)) requested.push(key);
            return (f as (k: string, ...r: number[]) => unknown).call(target, key, ...rest);
          };
        },
      }),
  });
  lakes.open.push(lake);
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
async function afterEachPart(lake: Lake, f: () => number, want: number[]): Promise<number[]> {
  const scan = await lake.scanVectors('dns', 'main', opts());
  const out: number[] = [];
  try {
    for (let part = await scan.read(); part !== null; part = await scan.read()) {
      expect(part.kind).toBe('columns');
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

  // A budget of one object's size: one beyond the next.
  const sizes = (await run(lake, 'from dns@main:objects | yield size')).out.map(Number);
  fetchAhead.bytes = Math.max(...sizes);
  await scan([1, 3, 5, 6, 7, 7, 7]);
});

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
