// Load, delete, merge, revert, vacuum and log, with time travel through
// the history each leaves, after the reference's lake ztests.

import { Ksuid, Lake, LakeEvent } from '../../src/lake';
import { decodeInt, decodeString, newInt64, newString, TypeContext, Value } from '../../src/zed';
import { arrayReader, failure, int, query, rec, recs, str, testLake } from './helpers';

const t = testLake();
let lake: Lake;
let ctx: TypeContext;

beforeEach(() => {
  ({ lake, ctx } = t);
});

async function load(pool: string, branch: string, vals: Value[], msg = {}): Promise<Ksuid> {
  return (await lake.load(pool, branch, arrayReader(vals), msg)).commit;
}

const sorted = (xs: string[]) => [...xs].sort();

describe('load', () => {
  test('sorts by the pool key, stably, nulls last ascending and first descending', async () => {
    await lake.createPool('asc', { layout: { keys: [['k']] } });
    await lake.createPool('desc', { layout: { order: 'desc', keys: [['k']] } });
    const vals = () => [
      rec(ctx, { k: 3, i: 0 }),
      rec(ctx, { k: 1, i: 1 }),
      rec(ctx, { k: null, i: 2 }),
      rec(ctx, { i: 3 }),
      rec(ctx, { k: 1, i: 4 }),
      rec(ctx, { k: 2, i: 5 }),
      rec(ctx, { k: 1, i: 6 }),
      newString('not a record'),
    ];
    await load('asc', 'main', vals());
    await load('desc', 'main', vals());
    expect(await query(lake, 'asc', 'main')).toEqual([
      '{k:1,i:1}',
      '{k:1,i:4}',
      '{k:1,i:6}',
      '{k:2,i:5}',
      '{k:3,i:0}',
      '{k:null,i:2}',
      '{i:3}',
      '"not a record"',
    ]);
    expect(await query(lake, 'desc', 'main')).toEqual([
      '{k:null,i:2}',
      '{i:3}',
      '"not a record"',
      '{k:3,i:0}',
      '{k:2,i:5}',
      '{k:1,i:1}',
      '{k:1,i:4}',
      '{k:1,i:6}',
    ]);
  });

  test('values lacking the key keep their arrival order', async () => {
    await lake.createPool('p', { layout: { keys: [['_unused']] } });
    const vals = Array.from({ length: 500 }, (_, i) => rec(ctx, { x: (i * 7919) % 500 }));
    await load('p', 'main', vals);
    expect(await query(lake, 'p', 'main')).toEqual(vals.map((_, i) => `{x:${(i * 7919) % 500}}`));
  });

  test('splits at the threshold and describes the objects in the commit', async () => {
    await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 500, seekStride: 100 });
    const r = await lake.load(
      'p',
      'main',
      arrayReader(
        recs(
          ctx,
          Array.from({ length: 1000 }, (_, i) => 999 - i),
        ),
      ),
    );
    expect(r.objects.length).toBeGreaterThan(3);
    expect(r.records).toBe(1000);
    expect(r.objects.reduce((n, o) => n + o.count, 0)).toBe(1000);
    expect(r.bytes).toBe(r.objects.reduce((n, o) => n + o.size, 0));
    // Each object knows its key range, and the ranges of one load's objects do not overlap.
    const spans = r.objects.map((o) => [o.min, o.max].map((v) => decodeInt(v.buf, v.off, v.len)));
    for (const [min, max] of spans) expect(min).toBeLessThanOrEqual(max);
    spans.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBe(spans[i - 1][1] + 1);
    const got = await query(lake, 'p', 'main');
    expect(got).toEqual(Array.from({ length: 1000 }, (_, i) => `{k:${i}}`));
    const [c] = await lake.log('p', 'main');
    expect(c.message).toMatch(
      new RegExp(
        `^loaded ${r.objects.length} data objects\n\n  \\w{27} \\d+ records in \\d+ data bytes\n`,
      ),
    );
    if (r.objects.length > 11) expect(c.message).toMatch(/ {2}\.\.\.\n$/);
  });

  test('an empty load is refused and commits nothing', async () => {
    await lake.createPool('p');
    expect(await failure(lake.load('p', 'main', arrayReader([])))).toEqual({
      kind: 'invalid',
      message: 'empty transaction',
    });
    expect(await lake.log('p', 'main')).toEqual([]);
  });

  test('author, message and meta are recorded', async () => {
    await lake.createPool('p');
    const meta = newString('original');
    const id = await load('p', 'main', recs(ctx, [1]), {
      author: 'testuser',
      message: 'first',
      meta,
    });
    await load('p', 'main', recs(ctx, [2]), { author: 'testuser' });
    const log = await lake.log('p', 'main');
    expect(log).toHaveLength(2);
    expect(log[1].id.equals(id)).toBe(true);
    expect(log[1].parent.isNil).toBe(true);
    expect(log[0].parent.equals(id)).toBe(true);
    expect(log.map((c) => c.author)).toEqual(['testuser', 'testuser']);
    expect(log[1].message).toBe('first');
    expect(log[0].message).toMatch(
      /^loaded 1 data object\n\n {2}\w{27} 1 record in \d+ data bytes\n$/,
    );
    expect(decodeString(log[1].meta.buf, log[1].meta.off, log[1].meta.len)).toBe('original');
    expect(log[0].meta.isNull).toBe(true);
    const now = BigInt(Date.now()) * 1000000n;
    expect(Number(now - log[0].date)).toBeLessThan(60e9);
  });

  test('a failing reader leaves no objects', async () => {
    const { pool } = await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 100 });
    let n = 0;
    const bad = {
      async read() {
        if (n++ < 5) return recs(ctx, [n, n + 1, n + 2]);
        throw new Error('bad input');
      },
    };
    await expect(lake.load('p', 'main', bad)).rejects.toThrow('bad input');
    expect(await lake.storage.list(`${pool.id}/data/`)).toEqual([]);
    expect(await lake.storage.list(`${pool.id}/commits/`)).toEqual([]);
  });
});

describe('delete', () => {
  test('by object ID, with time travel to before it', async () => {
    await lake.createPool('test', { layout: { order: 'desc', keys: [['x']] } });
    const c1 = await load('test', 'main', [rec(ctx, { x: 1 })]);
    const [obj] = (await lake.snapshot('test', c1)).list();
    await load('test', 'main', [rec(ctx, { x: 2 })]);
    expect(await query(lake, 'test', 'main')).toEqual(['{x:2}', '{x:1}']);
    const { commit } = await lake.deleteObjects('test', 'main', [obj.id]);
    expect(await query(lake, 'test', 'main')).toEqual(['{x:2}']);
    expect(await query(lake, 'test', c1.toString())).toEqual(['{x:1}']);
    const [c] = await lake.log('test', 'main');
    expect(c.id.equals(commit)).toBe(true);
    expect(c.message).toBe(`deleted 1 data object\n\n  ${obj}\n`);
    const bogus = Ksuid.parse('27aaaaaaaaaaaaaaaaaaaaaaaaa')!;
    expect(await failure(lake.deleteObjects('test', 'main', [bogus]))).toEqual({
      kind: 'notfound',
      message: '27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found',
    });
    // Deleting an object twice: the second time it is gone.
    expect((await failure(lake.deleteObjects('test', 'main', [obj.id]))).kind).toBe('notfound');
  });

  for (const order of ['desc', 'asc']) {
    test(`where, rewriting the objects it touches (${order})`, async () => {
      await lake.createPool('test', { layout: { order, keys: [['ts']] }, threshold: 1000 });
      const vals = Array.from({ length: 1000 }, (_, i) => rec(ctx, { ts: i, s: `val${i}` }));
      await load('test', 'main', vals);
      const before = await lake.snapshot('test', 'main');
      const ts = (v: Value) => int(v, 'ts');
      const c1 = await lake.deleteWhere('test', 'main', (v) => ts(v) > 400 && ts(v) <= 500);
      const after = await query(lake, 'test', 'main');
      expect(after).toHaveLength(900);
      expect(after.some((s) => s.includes('val450'))).toBe(false);
      const s = (v: Value) => str(v, 's');
      await lake.deleteWhere('test', 'main', (v) => s(v) === 'val1' || s(v) === 'val999');
      expect(await query(lake, 'test', 'main')).toHaveLength(898);
      // Only the objects holding deleted values were replaced.
      const mid = await lake.snapshot('test', c1.commit);
      const kept = before.list().filter((o) => mid.has(o.id));
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(before.size);
      // Time travel to before the deletes.
      expect(
        await query(lake, 'test', (await lake.log('test', 'main'))[2].id.toString()),
      ).toHaveLength(1000);
      const [c] = await lake.log('test', 'main');
      expect(c.message).toMatch(
        /^deleted \d+ data objects?\n\n( {2}\w{27} \d+ records in \d+ data bytes\n)+\nadded \d+ data objects?\n\n/,
      );
    });
  }

  test('where that matches nothing is refused', async () => {
    await lake.createPool('test');
    await load('test', 'main', [rec(ctx, { ts: 0 })]);
    expect(await failure(lake.deleteWhere('test', 'main', () => false))).toEqual({
      kind: 'invalid',
      message: 'empty transaction',
    });
    expect(await lake.log('test', 'main')).toHaveLength(1);
  });

  test('where can skip objects outside a key range', async () => {
    await lake.createPool('test', { layout: { keys: [['k']] } });
    await load('test', 'main', recs(ctx, [1, 2, 3]));
    const c2 = await load('test', 'main', recs(ctx, [10, 11]));
    let seen = 0;
    await lake.deleteWhere(
      'test',
      'main',
      () => {
        seen++;
        return true;
      },
      {},
      { range: { lower: newInt64(10) } },
    );
    expect(seen).toBe(2);
    expect(await query(lake, 'test', 'main')).toEqual(['{k:1}', '{k:2}', '{k:3}']);
    expect(await query(lake, 'test', c2.toString())).toHaveLength(5);
  });
});

describe('merge', () => {
  test('the reference scenario: a child branch merged into main, twice', async () => {
    await lake.createPool('POOL', { layout: { keys: [['k']] } });
    const a = () => rec(ctx, { k: 0, a: 1 });
    await load('POOL', 'main', [a()], { message: 'initial load of a.zson into main' });
    await lake.createBranch('POOL', 'child', (await lake.lookupBranch('POOL', 'main')).commit);
    await load('POOL', 'child', [rec(ctx, { k: 1, b: 1 })]);
    expect(await query(lake, 'POOL', 'main')).toEqual(['{k:0,a:1}']);
    expect(await query(lake, 'POOL', 'child')).toEqual(['{k:0,a:1}', '{k:1,b:1}']);
    const m1 = await lake.merge('POOL', 'child', 'main');
    expect(await query(lake, 'POOL', 'child')).toEqual(['{k:0,a:1}', '{k:1,b:1}']);
    expect(await query(lake, 'POOL', 'main')).toEqual(['{k:0,a:1}', '{k:1,b:1}']);
    await load('POOL', 'main', [rec(ctx, { k: 2, c: 1 })]);
    expect(await query(lake, 'POOL', 'main')).toEqual(['{k:0,a:1}', '{k:1,b:1}', '{k:2,c:1}']);
    expect(await query(lake, 'POOL', 'child')).toEqual(['{k:0,a:1}', '{k:1,b:1}']);
    await load('POOL', 'child', [a()]);
    await lake.merge('POOL', 'child', 'main');
    expect(await query(lake, 'POOL', 'main')).toEqual([
      '{k:0,a:1}',
      '{k:0,a:1}',
      '{k:1,b:1}',
      '{k:2,c:1}',
    ]);
    // Time travel to the first merge.
    expect(await query(lake, 'POOL', m1.commit.toString())).toEqual(['{k:0,a:1}', '{k:1,b:1}']);
    const log = await lake.log('POOL', 'main');
    expect(log[0].message).toBe('merged "child" into "main"');
  });

  test('after a merge, deletes on either side do not resurrect or conflict', async () => {
    await lake.createPool('p', { layout: { keys: [['k']] } });
    await load('p', 'main', recs(ctx, [0]));
    await lake.createBranch('p', 'live', (await lake.lookupBranch('p', 'main')).commit);
    const c1 = await load('p', 'live', recs(ctx, [1]));
    const [o1] = (await lake.snapshot('p', c1))
      .list()
      .filter((o) => o.count === 1 && o.min.buf[o.min.off] === 2);
    await lake.merge('p', 'live', 'main');
    // main deletes what it got from live; live deletes its base object.
    await lake.deleteObjects('p', 'main', [o1.id]);
    const base = (await lake.snapshot('p', 'main')).list()[0];
    await lake.deleteObjects('p', 'live', [base.id]);
    await load('p', 'live', recs(ctx, [2]));
    await lake.merge('p', 'live', 'main');
    expect(await query(lake, 'p', 'main')).toEqual(['{k:2}']);
  });

  test('errors', async () => {
    await lake.createPool('p', { layout: { keys: [['k']] } });
    await load('p', 'main', recs(ctx, [0]));
    const tip = (await lake.lookupBranch('p', 'main')).commit;
    await lake.createBranch('p', 'a', tip);
    await lake.createBranch('p', 'b', tip);
    expect(await failure(lake.merge('p', 'a', 'a'))).toEqual({
      kind: 'invalid',
      message: 'cannot merge branch into itself',
    });
    expect(await failure(lake.merge('p', 'nope', 'main'))).toEqual({
      kind: 'notfound',
      message: '"nope": branch not found',
    });
    expect(await failure(lake.merge('p', 'a', 'main'))).toEqual({
      kind: 'invalid',
      message: 'error merging "a" into "main": difference is empty',
    });
    // Both branches delete the same object: each may have rewritten its values.
    const [o] = (await lake.snapshot('p', tip)).list();
    await lake.deleteObjects('p', 'a', [o.id]);
    await lake.deleteObjects('p', 'main', [o.id]);
    expect(await failure(lake.merge('p', 'a', 'main'))).toEqual({
      kind: 'conflict',
      message: `error merging "a" into "main": delete conflict: ${o.id}`,
    });
  });

  test('into an empty branch', async () => {
    await lake.createPool('p', { layout: { keys: [['k']] } });
    await lake.createBranch('p', 'dev', Ksuid.nil);
    await load('p', 'dev', recs(ctx, [5]));
    await lake.merge('p', 'dev', 'main');
    expect(await query(lake, 'p', 'main')).toEqual(['{k:5}']);
  });
});

describe('revert', () => {
  test('reverts, reverts a revert, and time travels', async () => {
    await lake.createPool('POOL');
    const a = await load('POOL', 'main', [rec(ctx, { a: 1 })]);
    const b = await load('POOL', 'main', [rec(ctx, { b: 1 })]);
    expect(sorted(await query(lake, 'POOL', 'main'))).toEqual(['{a:1}', '{b:1}']);
    expect(await query(lake, 'POOL', a.toString())).toEqual(['{a:1}']);
    const r = await lake.revert('POOL', 'main', a);
    expect(await query(lake, 'POOL', 'main')).toEqual(['{b:1}']);
    expect(sorted(await query(lake, 'POOL', b.toString()))).toEqual(['{a:1}', '{b:1}']);
    expect((await lake.log('POOL', 'main'))[0].message).toBe(`reverted commit ${a}`);
    await lake.revert('POOL', 'main', r.commit);
    expect(sorted(await query(lake, 'POOL', 'main'))).toEqual(['{a:1}', '{b:1}']);
    await lake.revert('POOL', 'main', a);
    await lake.revert('POOL', 'main', b);
    expect(await query(lake, 'POOL', 'main')).toEqual([]);
  });

  test('errors', async () => {
    await lake.createPool('p');
    const a = await load('p', 'main', [rec(ctx, { a: 1 })]);
    const bogus = Ksuid.generate();
    expect(await failure(lake.revert('p', 'main', bogus))).toEqual({
      kind: 'notfound',
      message: `commit not found: ${bogus}`,
    });
    await lake.revert('p', 'main', a);
    expect(await failure(lake.revert('p', 'main', a))).toEqual({
      kind: 'invalid',
      message: 'revert commit is empty',
    });
    expect(await failure(lake.revert('p', 'nope', a))).toEqual({
      kind: 'notfound',
      message: '"nope": branch not found',
    });
  });
});

describe('vacuum', () => {
  test('the reference scenario, then reading an old commit is a clear error', async () => {
    await lake.createPool('test', { layout: { keys: [['x']] } });
    await load('test', 'main', [rec(ctx, { x: 1 })]);
    const c2 = await load('test', 'main', [rec(ctx, { x: 2 })]);
    const r = await lake.revert('test', 'main', c2);
    const dry = await lake.vacuum('test', 'main', true);
    expect(dry).toHaveLength(1);
    expect(await query(lake, 'test', c2.toString())).toEqual(['{x:1}', '{x:2}']); // dry run removed nothing
    const gone = await lake.vacuum('test', 'main', false);
    expect(gone.map(String)).toEqual(dry.map(String));
    expect(await lake.vacuum('test', 'main', true)).toEqual([]);
    expect(await query(lake, 'test', 'main')).toEqual(['{x:1}']);
    const err = await failure(query(lake, 'test', c2.toString()));
    expect(err).toEqual({
      kind: 'notfound',
      message: `data object ${gone[0]} of commit ${c2} not found: it was removed by vacuum`,
    });
    // Reverting the revert brings back a reference to the removed object.
    await lake.revert('test', 'main', r.commit);
    expect((await failure(query(lake, 'test', 'main'))).kind).toBe('notfound');
  });

  test('never removes what a branch tip still has', async () => {
    await lake.createPool('p', { layout: { keys: [['k']] } });
    const c1 = await load('p', 'main', recs(ctx, [1]));
    await lake.createBranch('p', 'keep', c1);
    await lake.revert('p', 'main', c1);
    // From main's point of view the object is deleted, but "keep" has it.
    expect(await lake.vacuum('p', 'main', true)).toEqual([]);
    expect(await lake.vacuum('p', 'main', false)).toEqual([]);
    expect(await query(lake, 'p', 'keep')).toEqual(['{k:1}']);
    await lake.deleteBranch('p', 'keep');
    expect(await lake.vacuum('p', 'main', false)).toHaveLength(1);
  });

  test('by commit ID, and unknown revisions', async () => {
    await lake.createPool('p');
    const c1 = await load('p', 'main', recs(ctx, [1]));
    const c2 = await load('p', 'main', recs(ctx, [2]));
    expect(await lake.vacuum('p', c2.toString(), true)).toEqual([]);
    expect(await lake.vacuum('p', c1.toHex(), true)).toEqual([]);
    expect(await failure(lake.vacuum('p', 'nope', true))).toEqual({
      kind: 'notfound',
      message: '"nope": branch not found',
    });
    const bogus = Ksuid.generate();
    expect(await failure(lake.vacuum('p', bogus.toString(), true))).toEqual({
      kind: 'notfound',
      message: `${bogus}: commit object not found`,
    });
  });
});

test('operations that commit publish branch-commit and pool-commit', async () => {
  const events: LakeEvent[] = [];
  lake.subscribe((e) => events.push(e));
  const { pool } = await lake.createPool('p', { layout: { keys: [['k']] } });
  const c1 = await load('p', 'main', recs(ctx, [1]));
  await lake.createBranch('p', 'dev', c1);
  const c2 = await load('p', 'dev', recs(ctx, [2]));
  const m = await lake.merge('p', 'dev', 'main');
  const r = await lake.revert('p', 'main', c2);
  const d = await lake.deleteWhere('p', 'main', () => true);
  await new Promise((res) => setTimeout(res, 20));
  const id = pool.id.toString();
  const commits = events.filter((e) => e.name === 'branch-commit');
  expect(commits).toEqual([
    { name: 'branch-commit', commit_id: c1.toString(), pool_id: id, branch: 'main', parent: '' },
    { name: 'branch-commit', commit_id: c2.toString(), pool_id: id, branch: 'dev', parent: '' },
    // As the reference does: a merge names the child as branch and the target as parent.
    {
      name: 'branch-commit',
      commit_id: m.commit.toString(),
      pool_id: id,
      branch: 'dev',
      parent: 'main',
    },
    {
      name: 'branch-commit',
      commit_id: r.commit.toString(),
      pool_id: id,
      branch: 'main',
      parent: '',
    },
    {
      name: 'branch-commit',
      commit_id: d.commit.toString(),
      pool_id: id,
      branch: 'main',
      parent: '',
    },
  ]);
  expect(events.filter((e) => e.name === 'pool-commit')).toHaveLength(5);
  expect(events[0]).toEqual({ name: 'pool-new', pool_id: id });
});

test('history far longer than the snapshot interval rebuilds from a cold start', async () => {
  await lake.createPool('p', { layout: { keys: [['k']] } });
  const commits: Ksuid[] = [];
  for (let i = 0; i < 80; i++) commits.push(await load('p', 'main', recs(ctx, [i])));
  await lake.deleteObjects('p', 'main', [(await lake.snapshot('p', commits[10])).list()[10].id]);
  lake = await t.reopen();
  // Count the commit objects a cold snapshot reads.
  const get = lake.storage.get.bind(lake.storage);
  let reads = 0;
  lake.storage.get = (key: string) => {
    if (key.includes('/commits/')) reads++;
    return get(key);
  };
  const snap = await lake.snapshot('p', 'main');
  expect(snap.size).toBe(79);
  expect(reads).toBeLessThanOrEqual(32);
  expect(await query(lake, 'p', commits[40].toString())).toHaveLength(41);
  expect((await lake.log('p', 'main')).length).toBe(81);
});

test('columnar copies survive embedded snapshots and a cold start', async () => {
  await lake.createPool('v', { layout: { keys: [['k']] } });
  await lake.createPool('nv', { layout: { keys: [['k']] }, vectors: false });
  for (let i = 0; i < 40; i++) {
    await load('v', 'main', recs(ctx, [i]));
    await load('nv', 'main', recs(ctx, [i]));
  }
  const first = (await lake.objects('v', 'main'))[0].id;
  await lake.deleteVectors('v', 'main', [first]);
  const nvFirst = (await lake.objects('nv', 'main'))[0].id;
  await lake.addVectors('nv', 'main', [nvFirst]);
  for (let i = 40; i < 70; i++) await load('v', 'main', recs(ctx, [i]));
  lake = await t.reopen();
  const v = await lake.snapshot('v', 'main');
  expect(v.vectorIds()).toHaveLength(69);
  expect(v.hasVector(first)).toBe(false);
  const nv = await lake.snapshot('nv', 'main');
  expect(nv.vectorIds().map(String)).toEqual([nvFirst.toString()]);
});
