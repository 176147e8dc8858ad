// A scan by columns fetches the next objects' columns while the query
// works on one object's (VectorScan.readAhead): the store is asked for
// them before their turn, no more objects than fetchAhead.objects (by
// default the store's objectsAhead: none for a local disk) and no more
// stored bytes than fetchAhead.bytes (but always the next one); the
// answers are the same; and a fetch that fails reports its error in its
// turn, after the objects before it, and never when the scan has closed.

import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openLake } from '../../src/backend/open';
import { Lake } from '../../src/lake';
import { fetchAhead } from '../../src/lake/vectorscan';
import { TypeContext } from '../../src/zed/context';
import { loadDnsObjects, oneTypeRecords, run, tempLakes } from './vectordata';

const lakes = tempLakes();

/** Objects that lakeOfObjects cuts its records into (at its threshold). */
const OBJECTS = 7;

async function lakeOfObjects(sub: string): Promise<Lake> {
  const lake = await openLake({
    lake: join(lakes.dir, sub),
    vectorScan: 'on',
    cacheSize: 0,
    vectorCacheSize: 0,
  });
  lakes.open.push(lake);
  await loadDnsObjects(2000, oneTypeRecords(400), lake);
  return lake;
}

const saved = { ...fetchAhead };
afterEach(() => Object.assign(fetchAhead, saved));

/** Lets the fetches under way finish (the local store's reads take a few turns of the event loop). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
}

/** A scan of columns ts and query: bytes fetched after each part, once the fetches ahead have settled. */
async function bytesByPart(lake: Lake): Promise<number[]> {
  const scan = await lake.scanVectors('dns', 'main', {
    ctx: new TypeContext(),
    paths: [['ts'], ['query']],
    shape: ['ts', 'query'],
  });
  const out: number[] = [];
  try {
    for (let part = await scan.read(); part !== null; part = await scan.read()) {
      expect(part.kind).toBe('columns');
      await settle();
      out.push(scan.stats.bytesRead);
    }
  } finally {
    await scan.close();
  }
  return out;
}

test('the next objects are fetched before their turn, within the bounds', async () => {
  const lake = await lakeOfObjects('a');
  const objects = (await run(lake, 'from dns@main:objects | count()')).out;
  expect(objects).toEqual([`${OBJECTS}(uint64)`]);

  fetchAhead.objects = 0;
  const alone = await bytesByPart(lake);
  expect(alone.length).toBe(OBJECTS);
  // Each object's bytes, as each pull fetches its own.
  const each = alone.map((b, i) => b - (i > 0 ? alone[i - 1] : 0)).slice(0, OBJECTS);
  expect(each.every((b) => b > 0)).toBe(true);
  const upTo = (n: number) => each.slice(0, n).reduce((a, b) => a + b, 0);

  // A local disk's default: none ahead (LocalStore.objectsAhead).
  fetchAhead.objects = null;
  expect(await bytesByPart(lake)).toEqual(alone);

  fetchAhead.objects = 3;
  fetchAhead.bytes = 1 << 30;
  const ahead = await bytesByPart(lake);
  expect(ahead[0]).toBe(upTo(4));
  expect(ahead[1]).toBe(upTo(5));
  expect(ahead[ahead.length - 1]).toBe(alone[alone.length - 1]);

  // A byte budget below one object's size: the next object alone.
  fetchAhead.bytes = 1;
  const one = await bytesByPart(lake);
  expect(one[0]).toBe(upTo(2));
  expect(one[one.length - 1]).toBe(alone[alone.length - 1]);
});

test('answers are the same with and without fetching ahead', async () => {
  const lake = await lakeOfObjects('b');
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
  const lake = await lakeOfObjects('c');
  const ids = (await run(lake, 'from dns@main:objects | yield ksuid(id)')).out.map((s) =>
    JSON.parse(s),
  );
  expect(ids.length).toBe(OBJECTS);
  const poolDir = readdirSync(join(lakes.dir, 'c')).find((d) =>
    readdirSync(join(lakes.dir, 'c', d)).includes('data'),
  )!;
  // The third object's columnar copy goes: the scan fails at its turn.
  rmSync(join(lakes.dir, 'c', poolDir, 'data', `${ids[2]}.vng`));
  fetchAhead.objects = 4;
  const opts = () => ({
    ctx: new TypeContext(),
    paths: [['ts'], ['query']],
    shape: ['ts', 'query'],
  });
  const scan = await lake.scanVectors('dns', 'main', opts());
  expect(await scan.read()).not.toBeNull();
  await settle();
  expect(await scan.read()).not.toBeNull();
  await expect(scan.read()).rejects.toThrow(/not found|no such|ENOENT/i);
  await scan.close();

  // Closed before the failed fetch's turn: nothing is reported.
  const early = await lake.scanVectors('dns', 'main', opts());
  expect(await early.read()).not.toBeNull();
  await settle();
  await early.close();
});
