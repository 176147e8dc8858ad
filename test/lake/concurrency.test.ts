import { openLake } from '../../src/backend/open';
// Concurrent writers on one branch, in one lake instance and across
// instances sharing storage and coordination (as replicas would): every
// acknowledged commit is in the history, the history is one line, and the
// data is all there.

import { LocalCoordinator } from '../../src/coord/local';
import { Ksuid, Lake } from '../../src/lake';
import { LocalStore } from '../../src/storage/local';
import { TypeContext } from '../../src/zed';
import { arrayReader, int, recs, rmDir, tmpDir } from './helpers';
import * as path from 'node:path';

let dir: string;

beforeEach(() => {
  dir = tmpDir();
});

afterEach(() => rmDir(dir));

/** Checks the branch's history is linear and holds exactly the acknowledged commits. */
async function checkHistory(lake: Lake, acked: Ksuid[], expectRecords: number[]): Promise<void> {
  const log = await lake.log('p', 'main');
  expect(log).toHaveLength(acked.length);
  expect(new Set(log.map((c) => c.id.toString()))).toEqual(new Set(acked.map(String)));
  // Each commit's parent is the next one down; the first has none.
  for (let i = 0; i < log.length - 1; i++) expect(log[i].parent.equals(log[i + 1].id)).toBe(true);
  expect(log[log.length - 1].parent.isNil).toBe(true);
  const ctx = new TypeContext();
  const scan = await lake.scan('p', 'main', { ctx });
  const got: number[] = [];
  for (let b = await scan.pull(); b; b = await scan.pull())
    for (const v of b) got.push(int(v, 'k'));
  expect(got).toEqual([...expectRecords].sort((a, b) => a - b));
}

test('16 concurrent loads into one branch of one lake', async () => {
  const lake = await openLake(dir);
  await lake.createPool('p', { layout: { keys: [['k']] } });
  const ctx = new TypeContext();
  const writers = 16;
  const results = await Promise.all(
    Array.from({ length: writers }, (_, w) =>
      lake.load('p', 'main', arrayReader(recs(ctx, [w * 10, w * 10 + 1, w * 10 + 2]))),
    ),
  );
  const all = Array.from({ length: writers }, (_, w) => [w * 10, w * 10 + 1, w * 10 + 2]).flat();
  await checkHistory(
    lake,
    results.map((r) => r.commit),
    all,
  );
  await lake.close();
});

test('8 replicas racing on one branch retry on the new tip and lose nothing', async () => {
  // Replicas share the object store and the coordinator, and nothing else:
  // each has its own caches and its own per-branch queue, so their commits
  // meet only at the compare-and-swap.
  const coord = await LocalCoordinator.open(path.join(dir, 'coord'));
  const replicas = Array.from({ length: 8 }, () => new Lake(new LocalStore(dir), coord));
  await replicas[0].createPool('p', { layout: { keys: [['k']] } });
  const acked: Ksuid[] = [];
  const expected: number[] = [];
  const rounds = 5;
  await Promise.all(
    replicas.map(async (lake, r) => {
      const ctx = new TypeContext();
      for (let i = 0; i < rounds; i++) {
        const k = r * 100 + i;
        const res = await lake.load('p', 'main', arrayReader(recs(ctx, [k])));
        acked.push(res.commit);
        expected.push(k);
      }
    }),
  );
  expect(acked).toHaveLength(replicas.length * rounds);
  await checkHistory(replicas[3], acked, expected);
  // The lost races show in the commits' retry counts.
  const log = await replicas[0].log('p', 'main');
  expect(log.some((c) => c.retries > 0)).toBe(true);
  // No orphaned commit objects were left by lost races.
  const pool = await replicas[0].lookupPool('p');
  expect(await replicas[0].storage.list(`${pool.id}/commits/`)).toHaveLength(acked.length);
  await coord.close();
});

test('concurrent deletes, merges and loads keep a consistent branch', async () => {
  const coord = await LocalCoordinator.open(path.join(dir, 'coord'));
  const a = new Lake(new LocalStore(dir), coord);
  const b = new Lake(new LocalStore(dir), coord);
  await a.createPool('p', { layout: { keys: [['k']] } });
  const ctx = new TypeContext();
  const first = await a.load('p', 'main', arrayReader(recs(ctx, [1, 2, 3])));
  await a.createBranch('p', 'dev', first.commit);
  await b.load('p', 'dev', arrayReader(recs(ctx, [100])));
  // A delete-where on one replica races loads on the other; the delete is
  // rebuilt on whatever tip it finds.
  const ops = await Promise.allSettled([
    a.deleteWhere('p', 'main', (v) => int(v, 'k') === 2),
    b.load('p', 'main', arrayReader(recs(ctx, [10]))),
    b.load('p', 'main', arrayReader(recs(ctx, [11]))),
    a.merge('p', 'dev', 'main'),
  ]);
  expect(ops.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
  const acked = [
    first.commit,
    ...ops.map((o) => (o as PromiseFulfilledResult<{ commit: Ksuid }>).value.commit),
  ];
  await checkHistory(a, acked, [1, 3, 10, 11, 100]);
  await coord.close();
});
