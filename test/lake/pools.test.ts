// Pools and branches: create, look up, rename, delete, and their errors.

import { Ksuid, Lake, LakeEvent } from '../../src/lake';
import { TypeContext } from '../../src/zed';
import { arrayReader, failure, query, recs, testLake } from './helpers';

const t = testLake();
let lake: Lake;
let ctx: TypeContext;
let events: LakeEvent[];

beforeEach(() => {
  ({ lake, ctx } = t);
  events = [];
  lake.subscribe((e) => events.push(e));
});

const settle = () => new Promise((r) => setTimeout(r, 20));

test('a new pool has the defaults and a main branch with no commit', async () => {
  const { pool, branch } = await lake.createPool('logs');
  expect(pool.name).toBe('logs');
  expect(pool.layout).toEqual({ order: 'asc', keys: [['ts']] });
  expect(pool.seekStride).toBe(65536);
  expect(pool.threshold).toBe(524288000);
  expect(pool.id.toHex()).toMatch(/^0x[0-9a-f]{40}$/);
  expect(branch.name).toBe('main');
  expect(branch.commit.toHex()).toBe('0x0000000000000000000000000000000000000000');
  expect((await lake.lookupBranch('logs', 'main')).commit.isNil).toBe(true);
  expect(await lake.listBranches('logs')).toHaveLength(1);
  expect(await query(lake, 'logs', 'main')).toEqual([]);
  const { pool: p2 } = await lake.createPool('other', {
    layout: { order: 'DESC', keys: [['a', 'b'], ['c']] },
    seekStride: 1000,
    threshold: 5000,
  });
  expect(p2.layout).toEqual({ order: 'desc', keys: [['a', 'b'], ['c']] });
  expect([p2.seekStride, p2.threshold]).toEqual([1000, 5000]);
});

test('pool creation errors', async () => {
  await lake.createPool('logs');
  expect(await failure(lake.createPool('logs'))).toEqual({
    kind: 'conflict',
    message: 'logs: pool already exists',
  });
  expect(await failure(lake.createPool('HEAD'))).toEqual({
    kind: 'invalid',
    message: 'pool cannot be named "HEAD"',
  });
  expect(await failure(lake.createPool(''))).toEqual({
    kind: 'invalid',
    message: 'pool name cannot be empty',
  });
  expect(await failure(lake.createPool('x', { layout: { order: 'sideways' } }))).toEqual({
    kind: 'invalid',
    message: 'unknown order: sideways',
  });
  // The failed attempts left nothing behind.
  expect((await lake.listPools()).map((p) => p.name)).toEqual(['logs']);
  const journaled = (await lake.storage.list('')).filter((k) => k.includes('/branches/'));
  expect(new Set(journaled.map((k) => k.split('/')[0])).size).toBe(1);
});

test('pools are found by name or by either form of ID', async () => {
  const { pool } = await lake.createPool('logs');
  await lake.createPool('alpha');
  expect((await lake.lookupPool('logs')).id.equals(pool.id)).toBe(true);
  expect((await lake.lookupPool(pool.id.toString())).name).toBe('logs');
  expect((await lake.lookupPool(pool.id.toHex())).name).toBe('logs');
  expect(await failure(lake.lookupPool('nope'))).toEqual({
    kind: 'notfound',
    message: 'nope: pool not found',
  });
  const other = Ksuid.generate();
  expect(await failure(lake.lookupPool(other.toHex()))).toEqual({
    kind: 'notfound',
    message: `${other}: pool not found`,
  });
  expect((await lake.listPools()).map((p) => p.name)).toEqual(['alpha', 'logs']);
});

test('rename', async () => {
  await lake.createPool('p1');
  const { pool: p2 } = await lake.createPool('p2');
  await lake.renamePool('p2', 'p3');
  expect((await lake.lookupPool('p3')).id.equals(p2.id)).toBe(true);
  expect(await failure(lake.lookupPool('p2'))).toEqual({
    kind: 'notfound',
    message: 'p2: pool not found',
  });
  expect(await failure(lake.renamePool('p3', 'p1'))).toEqual({
    kind: 'conflict',
    message: 'p1: pool already exists',
  });
  expect(await failure(lake.renamePool('p2', 'p4'))).toEqual({
    kind: 'notfound',
    message: 'p2: pool not found',
  });
  // Renaming keeps the pool's branches and data.

  await lake.load('p3', 'main', arrayReader(recs(ctx, [1], () => ({}))));
  await lake.renamePool(p2.id.toString(), 'p5');
  expect(await query(lake, 'p5', 'main')).toEqual(['{k:1}']);
});

test('drop removes the pool, its branches and its objects', async () => {
  const { pool } = await lake.createPool('logs', { layout: { keys: [['k']] } });

  await lake.load('logs', 'main', arrayReader(recs(ctx, [1, 2])));
  await lake.createBranch('logs', 'dev', (await lake.lookupBranch('logs', 'main')).commit);
  expect((await lake.storage.list(`${pool.id}/`)).length).toBeGreaterThan(0);
  await lake.deletePool('logs');
  expect(await failure(lake.lookupPool('logs'))).toEqual({
    kind: 'notfound',
    message: 'logs: pool not found',
  });
  expect(await failure(lake.deletePool('logs'))).toEqual({
    kind: 'notfound',
    message: 'logs: pool not found',
  });
  expect(await lake.storage.list(`${pool.id}/`)).toEqual([]);
  expect((await lake.storage.list('')).filter((k) => k.startsWith(`${pool.id}/`))).toEqual([]);
  // The name is free again.
  await lake.createPool('logs');
  expect(await query(lake, 'logs', 'main')).toEqual([]);
});

test('branches', async () => {
  await lake.createPool('p', { layout: { keys: [['k']] } });

  const { commit } = await lake.load('p', 'main', arrayReader(recs(ctx, [1])));
  const dev = await lake.createBranch('p', 'dev', commit);
  expect(dev.commit.equals(commit)).toBe(true);
  expect((await lake.listBranches('p')).map((b) => b.name)).toEqual(['dev', 'main']);
  expect(await failure(lake.createBranch('p', 'dev', commit))).toEqual({
    kind: 'conflict',
    message: 'p/dev: branch already exists',
  });
  const bogus = Ksuid.generate();
  expect(await failure(lake.createBranch('p', 'x', bogus))).toEqual({
    kind: 'notfound',
    message: `${bogus}: commit object not found`,
  });
  expect(await failure(lake.lookupBranch('p', 'nope'))).toEqual({
    kind: 'notfound',
    message: '"nope": branch not found',
  });
  expect(await failure(lake.createBranch('nopool', 'x', commit))).toEqual({
    kind: 'notfound',
    message: 'nopool: pool not found',
  });
  // A branch from the nil commit is empty.
  await lake.createBranch('p', 'empty', Ksuid.nil);
  expect(await query(lake, 'p', 'empty')).toEqual([]);
  expect(await query(lake, 'p', 'dev')).toEqual(['{k:1}']);
  await lake.deleteBranch('p', 'dev');
  expect(await failure(lake.deleteBranch('p', 'dev'))).toEqual({
    kind: 'notfound',
    message: '"dev": branch not found',
  });
  expect(await failure(lake.load('p', 'dev', arrayReader(recs(ctx, [2]))))).toEqual({
    kind: 'notfound',
    message: '"dev": branch not found',
  });
  expect((await lake.listBranches('p')).map((b) => b.name)).toEqual(['empty', 'main']);
  // Revisions name a branch or a commit.
  expect((await lake.resolveRevision('p', 'main')).equals(commit)).toBe(true);
  expect((await lake.resolveRevision('p', commit.toHex())).equals(commit)).toBe(true);
});

test('pool and branch operations publish the reference events', async () => {
  const { pool } = await lake.createPool('p', { layout: { keys: [['k']] } });
  const id = pool.id.toString();
  await lake.renamePool('p', 'q');
  await lake.createBranch('q', 'dev', Ksuid.nil);
  await lake.deleteBranch('q', 'dev');
  await lake.deletePool('q');
  await settle();
  expect(events).toEqual([
    { name: 'pool-new', pool_id: id },
    { name: 'pool-update', pool_id: id },
    { name: 'branch-update', pool_id: id, branch: 'dev' },
    { name: 'branch-delete', pool_id: id, branch: 'dev' },
    { name: 'pool-delete', pool_id: id },
  ]);
});

test('state survives reopening the lake', async () => {
  const { pool } = await lake.createPool('p', { layout: { keys: [['k']] } });

  const { commit } = await lake.load('p', 'main', arrayReader(recs(ctx, [2, 1])));
  await lake.createBranch('p', 'dev', commit);
  lake = await t.reopen();
  expect((await lake.lookupPool('p')).id.equals(pool.id)).toBe(true);
  expect((await lake.lookupBranch('p', 'dev')).commit.equals(commit)).toBe(true);
  expect(await query(lake, 'p', 'main')).toEqual(['{k:1}', '{k:2}']);
});
