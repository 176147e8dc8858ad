// Compaction: the rewrite keeps every value, is one commit, loses nothing
// loaded while it ran, refuses to resurrect a source deleted meanwhile,
// and the planner picks the runs the reference's `zed manage` picks.

import * as path from 'node:path';
import { LocalCoordinator } from '../../src/coord/local';
import { Ksuid, Lake } from '../../src/lake';
import { planCompaction } from '../../src/lake/compact';
import { LocalStore } from '../../src/storage/local';
import { ObjectStore } from '../../src/storage/storage';
import { decodeInt, TypeContext, TypeInt64, Value } from '../../src/zed';
import { newInt } from '../../src/zed/make';
import { arrayReader, int, recs, rmDir, tmpDir } from './helpers';

let dir: string;
let coord: LocalCoordinator;

beforeEach(async () => {
  dir = tmpDir();
  coord = await LocalCoordinator.open(path.join(dir, 'coord'));
});

afterEach(async () => {
  await coord.close();
  rmDir(dir);
});

async function keys(lake: Lake, revision = 'main'): Promise<number[]> {
  const scan = await lake.scan('p', revision, { ctx: new TypeContext() });
  const got: number[] = [];
  for (let b = await scan.pull(); b; b = await scan.pull())
    for (const v of b) got.push(int(v, 'k'));
  return got;
}

/** A store that runs a hook (once) before the first data object is written. */
function hooked(store: ObjectStore, hook: () => Promise<void>): ObjectStore {
  let fired = false;
  const before = async (key: string) => {
    if (!fired && key.includes('/data/')) {
      fired = true;
      await hook();
    }
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop === 'put' || prop === 'create') {
        return async (key: string, ...rest: unknown[]) => {
          await before(key);
          return (v as (...a: unknown[]) => unknown).call(target, key, ...rest);
        };
      }
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

test('compacting overlapping objects: one sorted object, same values, one commit', async () => {
  const lake = new Lake(new LocalStore(dir), coord);
  await lake.createPool('p', { layout: { keys: [['k']], order: 'asc' } });
  const ctx = new TypeContext();
  for (const ks of [
    [5, 1, 9],
    [2, 8, 3],
    [7, 4, 6],
  ]) {
    await lake.load('p', 'main', arrayReader(recs(ctx, ks)));
  }
  const before = await lake.objects('p', 'main');
  const { commit } = await lake.compact(
    'p',
    'main',
    before.map((o) => o.id),
    { author: 'tester' },
  );
  const after = await lake.objects('p', 'main');
  expect(after).toHaveLength(1);
  expect(after[0].count).toBe(9);
  expect(await keys(lake)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const log = await lake.log('p', 'main');
  expect(log[0].id.equals(commit)).toBe(true);
  expect(log[0].author).toBe('tester');
  expect(log[0].message).toMatch(
    /^compacted 3 objects\n\n( {2}\w{27} 3 records in \d+ data bytes\n){3}\ncreated 1 object\n\n {2}\w{27} 9 records/,
  );
  // Time travel still sees the old objects.
  expect(await keys(lake, log[1].id.toString())).toHaveLength(9);
  expect((await lake.objects('p', log[1].id)).length).toBe(3);
  await lake.close();
});

test('bad requests commit nothing: one object, unknown IDs, unknown branch', async () => {
  const lake = new Lake(new LocalStore(dir), coord);
  await lake.createPool('p', { layout: { keys: [['k']] } });
  const { commit } = await lake.load('p', 'main', arrayReader(recs(new TypeContext(), [1])));
  const [o] = await lake.objects('p', 'main');
  await expect(lake.compact('p', 'main', [o.id])).rejects.toMatchObject({
    kind: 'invalid',
    message: 'compact: two or more source objects required',
  });
  await expect(lake.compact('p', 'main', [o.id, o.id])).rejects.toMatchObject({ kind: 'invalid' });
  const bogus = Ksuid.generate();
  await expect(lake.compact('p', 'main', [o.id, bogus])).rejects.toMatchObject({
    kind: 'notfound',
    message: `${bogus}: commit object not found`,
  });
  await expect(lake.compact('p', 'nobranch', [o.id, bogus])).rejects.toMatchObject({
    kind: 'notfound',
  });
  expect((await lake.log('p', 'main')).map((c) => c.id.toString())).toEqual([commit.toString()]);
  await lake.close();
});

test('loads committed while a compaction runs are kept (the compaction commits on the new tip)', async () => {
  const a = new Lake(new LocalStore(dir), coord);
  await a.createPool('p', { layout: { keys: [['k']] } });
  const ctx = new TypeContext();
  await a.load('p', 'main', arrayReader(recs(ctx, [1, 2])));
  await a.load('p', 'main', arrayReader(recs(ctx, [3, 4])));
  const ids = (await a.objects('p', 'main')).map((o) => o.id);
  // Replica b compacts; just before it writes its new object, replica a loads twice.
  const b = new Lake(
    hooked(new LocalStore(dir), async () => {
      await a.load('p', 'main', arrayReader(recs(ctx, [10])));
      await a.load('p', 'main', arrayReader(recs(ctx, [11])));
    }),
    coord,
  );
  const { commit } = await b.compact('p', 'main', ids);
  const log = await a.log('p', 'main');
  expect(log[0].id.equals(commit)).toBe(true);
  expect(log).toHaveLength(5);
  expect(await keys(a)).toEqual([1, 2, 3, 4, 10, 11]);
  expect((await a.objects('p', 'main')).map((o) => o.count).sort()).toEqual([1, 1, 4]);
  await Promise.all([a.close(), b.close()]);
});

test('a source deleted while the compaction ran fails it, and its new objects are removed', async () => {
  const a = new Lake(new LocalStore(dir), coord);
  await a.createPool('p', { layout: { keys: [['k']] } });
  const ctx = new TypeContext();
  await a.load('p', 'main', arrayReader(recs(ctx, [1, 2])));
  await a.load('p', 'main', arrayReader(recs(ctx, [3, 4])));
  const objects = await a.objects('p', 'main');
  const b = new Lake(
    hooked(new LocalStore(dir), async () => {
      await a.deleteObjects('p', 'main', [objects[0].id]);
    }),
    coord,
  );
  await expect(
    b.compact(
      'p',
      'main',
      objects.map((o) => o.id),
    ),
  ).rejects.toMatchObject({
    kind: 'notfound',
    message: `${objects[0].id}: commit object not found`,
  });
  // The delete stands: the deleted values did not come back.
  const m = objects[0].min;
  const deleted = decodeInt(m.buf, m.off, m.len) === 1 ? [1, 2] : [3, 4];
  expect((await keys(a)).sort()).toEqual([1, 2, 3, 4].filter((k) => !deleted.includes(k)));
  expect(await a.log('p', 'main')).toHaveLength(3);
  // Only the two loaded objects are in storage: the rewrite was discarded.
  const pool = await a.lookupPool('p');
  const data = (await a.storage.list(`${pool.id}/data/`)).filter((k) =>
    /\/[0-9A-Za-z]+\.zng$/.test(k),
  );
  expect(data).toHaveLength(2);
  await Promise.all([a.close(), b.close()]);
});

describe('planCompaction (the reference manage update rules)', () => {
  const kv = (k: number): Value => newInt(TypeInt64, k);
  const now = Date.now();
  const cold = Ksuid.generate(now - 3600_000);
  const obj = (min: number, max: number, size: number, id: Ksuid = cold) => ({
    id,
    min: kv(min),
    max: kv(max),
    size,
  });

  test('small cold objects form one run; a large one between runs ends them', () => {
    const small = [obj(1, 10, 100), obj(11, 20, 100), obj(21, 30, 100)];
    const { runs, nextCold } = planCompaction(small, 500, 0, now);
    expect(runs).toEqual([small]);
    expect(nextCold).toBeNull();
    // Under half the threshold in all: not worth it.
    expect(planCompaction(small, 10000, 0, now).runs).toEqual([]);
    const big = obj(31, 40, 900);
    const more = [obj(41, 50, 100), obj(51, 60, 100)];
    expect(planCompaction([...small, big, ...more], 500, 0, now).runs).toEqual([small]);
  });

  test('overlapping objects join a run whatever their size (a small one starts it)', () => {
    const objs = [obj(1, 50, 100), obj(10, 20, 5000), obj(30, 60, 5000)];
    expect(planCompaction(objs, 1000, 0, now).runs).toEqual([objs]);
    // A large object with no run to overlap starts none, as in the reference.
    expect(planCompaction(objs.slice(1), 1000, 0, now).runs).toEqual([]);
  });

  test('hot objects stay out and say when they turn cold', () => {
    const hot = Ksuid.generate(now - 1000);
    const objs = [obj(1, 10, 100), obj(11, 20, 100, hot), obj(21, 30, 100)];
    const { runs, nextCold } = planCompaction(objs, 100, 60_000, now);
    expect(runs).toEqual([]);
    expect(nextCold).toBe(hot.timestamp * 1000 + 60_000);
  });
});
