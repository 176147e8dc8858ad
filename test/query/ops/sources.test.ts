import { openLake } from '../../../src/backend/open';
// Sources and sinks: from pools (branches, commits, meta-queries, several
// sources, patterns), key-range pushdown into scans, load, file, get.

import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseValues } from '../../../src/formats/zson';
import { formatValue } from '../../../src/formats/zson';
import { Lake } from '../../../src/lake';
import { LakeSource } from '../../../src/lake/source';
import { compileQuery, QueryContext } from '../../../src/query';
import * as dag from '../../../src/query/compiler/dag';
import { arrayReader } from '../../../src/query/runtime/ops/scan';
import { rmDir, tmpDir } from '../../lake/helpers';
import { zq } from '../helpers';

let dir: string;
let lake: Lake;

beforeEach(async () => {
  dir = tmpDir();
  lake = await openLake(dir);
});

afterEach(async () => {
  await lake.close();
  rmDir(dir);
});

async function load(pool: string, zson: string, branch = 'main'): Promise<string> {
  const ctx = new QueryContext();
  const res = await lake.load(pool, branch, arrayReader(parseValues(ctx.zctx, zson)));
  return res.commit.toString();
}

async function run(query: string, head?: { pool: string; branch: string }): Promise<string[]> {
  const q = await compileQuery(query, { source: new LakeSource(lake), ...(head ? { head } : {}) });
  return (await q.all()).map((v) => formatValue(v));
}

describe('from pools', () => {
  beforeEach(async () => {
    await lake.createPool('logs', { layout: { order: 'asc', keys: [['ts']] } });
    await load('logs', '{ts:3,s:"c"} {ts:1,s:"a"} {ts:2,s:"b"}');
  });

  test('a pool in key order; the head pool when there is no from', async () => {
    expect(await run('from logs')).toEqual(['{ts:1,s:"a"}', '{ts:2,s:"b"}', '{ts:3,s:"c"}']);
    expect(await run('s=="b"', { pool: 'logs', branch: 'main' })).toEqual(['{ts:2,s:"b"}']);
    expect(await run('from logs | count()')).toEqual(['3(uint64)']);
  });

  test('branches and commits', async () => {
    const first = (await lake.log('logs', 'main'))[0];
    void first;
    await lake.createBranch('logs', 'dev', await lake.resolveRevision('logs', 'main'));
    const c2 = await load('logs', '{ts:4,s:"d"}', 'dev');
    expect(await run('from logs@dev | count()')).toEqual(['4(uint64)']);
    expect(await run('from logs@main | count()')).toEqual(['3(uint64)']);
    expect(await run(`from logs@${c2} | count()`)).toEqual(['4(uint64)']);
    await expect(run('from logs@nope')).rejects.toThrow('"nope": branch not found');
    await expect(run('from nopool')).rejects.toThrow('nopool: pool not found');
  });

  test('several sources, patterns and per-source pipelines', async () => {
    await lake.createPool('other', { layout: { order: 'asc', keys: [['ts']] } });
    await load('other', '{ts:10,s:"x"}');
    const out = await run('from ( pool logs => count() pool other => count() ) | sort this');
    expect(out).toEqual(['1(uint64)', '3(uint64)']);
    expect(await run('from * | count()').catch((e) => [e.message])).toEqual(['4(uint64)']);
    expect(await run('from /oth/ | s=="x"')).toEqual(['{ts:10,s:"x"}']);
    await expect(run('from nomatch*')).rejects.toThrow('nomatch*: pool matching glob not found');
  });

  test('meta-queries', async () => {
    const pools = await run('from :pools | yield name');
    expect(pools).toEqual(['"logs"']);
    expect(await run('from logs:branches | yield branch.name')).toEqual(['"main"']);
    expect((await run('from logs@main:objects | yield count')).length).toBe(1);
    expect((await run('from logs@main:log')).length).toBeGreaterThan(0);
    await expect(run('from :nope')).rejects.toThrow(
      'unknown lake metadata type "nope" in from operator',
    );
  });
});

describe('key-range pushdown', () => {
  test('filters on the pool key become scan ranges with the same results', async () => {
    await lake.createPool('p', { layout: { order: 'asc', keys: [['k']] }, seekStride: 100 });
    const vals = Array.from({ length: 2000 }, (_, i) => `{k:${i},v:"v${i}"}`).join(' ');
    await load('p', vals);
    const cases: [string, number][] = [
      ['k == 10', 1],
      ['k >= 1990', 10],
      ['k < 5 or k == 7', 6],
      ['k > 100 and k <= 110', 10],
      ['100 > k and v=="v3"', 1],
    ];
    for (const [filter, n] of cases) {
      const ctx = new QueryContext();
      const q = await compileQuery(`from p | ${filter}`, { source: new LakeSource(lake), ctx });
      const scan = q.graph[0] as dag.PoolScan;
      expect(scan.kind).toBe('PoolScan');
      expect(scan.range).not.toBeNull();
      expect([filter, (await q.all()).length]).toEqual([filter, n]);
      // Only the seek-index spans holding the range were read.
      expect(ctx.stats.recordsRead).toBeLessThan(2000);
    }
  });

  test('a strict comparison reads no seek-index span that starts at its bound (seek-index-boundaries.yaml)', async () => {
    // A stride of one byte: a span per value.
    for (const order of ['asc', 'desc'] as const) {
      const name = `b${order}`;
      await lake.createPool(name, { layout: { order, keys: [['ts']] }, seekStride: 1 });
      await load(name, Array.from({ length: 20 }, (_, i) => `{ts:${i + 1}}`).join(' '));
      const cases: [string, number][] = [
        ['ts == 5', 1],
        ['ts < 2', 1],
        ['ts <= 2', 2],
        ['ts > 19', 1],
        ['ts >= 19', 2],
        ['ts > 3 and ts < 6', 2],
      ];
      for (const [filter, n] of cases) {
        const ctx = new QueryContext();
        const q = await compileQuery(`from ${name} | ${filter}`, {
          source: new LakeSource(lake),
          ctx,
        });
        expect([order, filter, (await q.all()).length, ctx.stats.recordsRead]).toEqual([
          order,
          filter,
          n,
          n,
        ]);
      }
    }
  });

  test('filters that do not bound the key read everything', async () => {
    await lake.createPool('p', { layout: { order: 'asc', keys: [['k']] } });
    await load('p', '{k:1} {k:2}');
    const q = await compileQuery('from p | k != 1', { source: new LakeSource(lake) });
    expect((q.graph[0] as dag.PoolScan).range).toBeNull();
    expect((await q.all()).map((v) => formatValue(v))).toEqual(['{k:2}']);
  });

  test('head stops the scan early', async () => {
    await lake.createPool('p', { layout: { order: 'asc', keys: [['k']] }, seekStride: 100 });
    await load('p', Array.from({ length: 5000 }, (_, i) => `{k:${i}}`).join(' '));
    const ctx = new QueryContext();
    const q = await compileQuery('from p | head 3', { source: new LakeSource(lake), ctx });
    expect((await q.all()).length).toBe(3);
    expect(ctx.stats.recordsRead).toBeLessThan(5000);
  });
});

describe('count() of a whole pool', () => {
  test('after deletes, at older commits, and after vacuum', async () => {
    await lake.createPool('c', { layout: { order: 'asc', keys: [['k']] } });
    await lake.createPool('empty', { layout: { order: 'asc', keys: [['k']] } });
    const first = await load('c', '{k:1} {k:2} {k:3} 7 "x"');
    await load('c', '{k:2} {k:4}');
    await lake.deleteWhere('c', 'main', (v) => formatValue(v) === '{k:4}');
    const bare = ['from c | count()', 'from c | summarize n:=count()', 'from empty | count()'];
    const rows = [
      'from c | count() where true',
      'from c | summarize n:=count() where true',
      'from empty | count() where true',
    ];
    const out = await Promise.all(bare.map((q) => run(q)));
    expect(out).toEqual(await Promise.all(rows.map((q) => run(q))));
    expect(out).toEqual([['6(uint64)'], ['{n:6(uint64)}'], []]);
    expect(await run(`from c@${first} | count()`)).toEqual(['5(uint64)']);
    expect((await run('from c | k>1 | count()'))[0]).toBe('3(uint64)');
    // Time travel to objects vacuum removed fails.
    await lake.deleteObjects(
      'c',
      'main',
      (await lake.objects('c', first)).map((o) => o.id),
    );
    await lake.vacuum('c', 'main', false);
    await expect(run(`from c@${first} | count()`)).rejects.toThrow(/removed by vacuum/);
    await expect(run(`from c@${first} | count() where true`)).rejects.toThrow(/removed by vacuum/);
  });
});

describe('load', () => {
  test('commits the input to a pool and yields the commit ID', async () => {
    await lake.createPool('dst', { layout: { order: 'asc', keys: [['a']] } });
    const ctx = new QueryContext();
    const q = await compileQuery('yield {a:this} | load dst author "me" message "hi"', {
      source: new LakeSource(lake),
      ctx,
      inputs: [arrayReader(parseValues(ctx.zctx, '2 1'))],
    });
    const out = await q.all();
    expect(out.length).toBe(1);
    expect(formatValue(out[0])).toMatch(/^0x[0-9a-f]{40}$/);
    expect(await run('from dst')).toEqual(['{a:1}', '{a:2}']);
    const log = await lake.log('dst', 'main');
    expect(log[0].author).toBe('me');
  });
});

describe('file and get', () => {
  test('file reads a local file when allowed', async () => {
    const f = path.join(dir, 'in.zson');
    writeFileSync(f, '{a:1} {a:2}');
    expect(await zq(`file ${f} | a==2`, '', { allowFiles: true, inputs: [] })).toEqual(['{a:2}']);
    await expect(zq(`file ${f}`, '', { inputs: [] })).rejects.toThrow(
      'file operator is not allowed here',
    );
    const missing = path.join(dir, 'nope.zson');
    await expect(zq(`file ${missing}`, '', { allowFiles: true, inputs: [] })).rejects.toThrow(
      `${missing}: file does not exist`,
    );
  });

  test('get is off unless enabled', async () => {
    await expect(zq('get http://127.0.0.1:1/x', '', { inputs: [] })).rejects.toThrow(
      'get operator is not allowed here',
    );
  });

  test('inputs with a source are redundant; none without one is an error', async () => {
    const f = path.join(dir, 'in.zson');
    writeFileSync(f, '1');
    await expect(zq(`file ${f}`, '1', { allowFiles: true })).rejects.toThrow(
      'redundant inputs specified: use either command-line files or a Zed source operator',
    );
    await expect(zq('a==1', '', { inputs: [] })).rejects.toThrow(
      'no input specified: use a command-line file or a Zed source operator',
    );
  });
});
