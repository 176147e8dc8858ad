// Index rules and index objects in the lake: rules kept all-or-none in the
// journaled register, index objects committed beside their data objects,
// following them through deletes, reverts and merges, removed by vacuum,
// and scans that skip what an index rules out while answering exactly as
// a full scan does.

import * as path from 'node:path';
import { LocalCoordinator } from '../../src/coord/local';
import { formatValue, parseValues } from '../../src/formats/zson';
import { Ksuid, Lake } from '../../src/lake';
import { indexKey, indexSeekKey } from '../../src/lake/index/object';
import { LakeSource } from '../../src/lake/source';
import { LocalStore } from '../../src/storage/local';
import { compileQuery, QueryContext } from '../../src/query';
import { zedEngine } from '../../src/service/zedengine';
import { TypeContext } from '../../src/zed';
import { arrayReader, failure, rmDir, testLake, tmpDir } from './helpers';

const t = testLake();

/** Loads ZSON text as one data object; returns the commit and the object's ID. */
async function load(lake: Lake, pool: string, zson: string, branch = 'main') {
  const ctx = new TypeContext();
  const r = await lake.load(pool, branch, arrayReader(parseValues(ctx, zson)));
  return { commit: r.commit, object: r.objects[0].id };
}

/** Runs a query on the lake: its values as ZSON and its stats. */
async function run(lake: Lake, query: string) {
  const ctx = new QueryContext();
  const q = await compileQuery(query, { ctx, source: new LakeSource(lake) });
  const vals = (await q.all()).map((v) => formatValue(v));
  await q.close();
  return { vals, stats: { ...ctx.stats } };
}

const fieldRule = (name: string, ...fields: string[]) => ({
  name,
  fields: fields.map((f) => f.split('.')),
});

describe('rules', () => {
  test('listed by name, then by age; several rules may share a name', async () => {
    const { lake } = t;
    await lake.addIndexRules([fieldRule('b', 'x')]);
    await lake.addIndexRules([{ name: 'a', type: 'ip' }, fieldRule('a', 'y.z')]);
    await lake.addIndexRules([{ name: 'c', script: 'count() by k' }], () => undefined);
    const rules = await lake.indexRuleList();
    expect(rules.map((r) => `${r.name} ${r.kind}`)).toEqual([
      'a type',
      'a field',
      'b field',
      'c agg',
    ]);
    const { vals } = await run(lake, 'from :index_rules | drop id, ts');
    expect(vals).toEqual([
      '{name:"a",type:"ip"}',
      '{name:"a",fields:[["y","z"](=field.Path)](=field.List)}',
      '{name:"b",fields:[["x"](=field.Path)](=field.List)}',
      '{name:"c",script:"count() by k"}',
    ]);
    const typed = await run(lake, 'from :index_rules | yield nameof(this)');
    expect(typed.vals).toEqual([
      '"index.TypeRule"',
      '"index.FieldRule"',
      '"index.FieldRule"',
      '"index.AggRule"',
    ]);
  });

  test('a duplicate fails the whole request and adds nothing', async () => {
    const { lake } = t;
    await lake.addIndexRules([{ name: 'IPs', type: 'ip' }]);
    expect(
      await failure(lake.addIndexRules([fieldRule('new', 'a'), { name: 'IPs', type: 'ip' }])),
    ).toEqual({ kind: 'conflict', message: 'index rule already exists' });
    // Two equal rules in one request are duplicates too.
    expect(await failure(lake.addIndexRules([fieldRule('d', 'a'), fieldRule('d', 'a')]))).toEqual({
      kind: 'conflict',
      message: 'index rule already exists',
    });
    expect((await lake.indexRuleList()).map((r) => r.name)).toEqual(['IPs']);
  });

  test('bad rules are refused with nothing added', async () => {
    const { lake } = t;
    const cases: [Parameters<Lake['addIndexRules']>[0], string][] = [
      [[{ name: 'x', type: 'notatype' }], ''],
      [[{ name: 'x', fields: [] }], 'field index rule requires field(s) argument'],
      [[{ name: 'x', fields: [['a'], ['b']] }], 'only one field may be indexed: a,b'],
      [[{ name: '', fields: [['a']] }], 'index rule must have a name'],
      [[{ name: 'x' }], 'exactly one of fields, type or script must be given'],
      [[{ name: 'x', type: 'ip', script: 'count()' }], 'exactly one of fields'],
    ];
    for (const [specs, text] of cases) {
      const f = await failure(lake.addIndexRules(specs));
      expect(f.kind).toBe('invalid');
      expect(f.message).toContain(text);
    }
    await expect(
      lake.addIndexRules([{ name: 'x', script: '| bad' }], (s) => zedEngine.checkScript(s)),
    ).rejects.toThrow();
    expect(await lake.indexRuleList()).toEqual([]);
  });

  test('drop: all or none, by ID; lookup by name or either ID form', async () => {
    const { lake } = t;
    const [ips] = await lake.addIndexRules([{ name: 'IPs', type: 'ip' }]);
    const [a1, a2] = await lake.addIndexRules([fieldRule('A', 'a'), fieldRule('A', 'b')]);
    expect((await lake.lookupIndexRules(['A'])).map((r) => r.id.toString())).toEqual([
      a1.id.toString(),
      a2.id.toString(),
    ]);
    expect((await lake.lookupIndexRules([ips.id.toHex()]))[0].name).toBe('IPs');
    expect((await lake.lookupIndexRules([ips.id.toString(), 'IPs'])).length).toBe(1);
    expect(await failure(lake.lookupIndexRules(['nope']))).toEqual({
      kind: 'notfound',
      message: 'rule "nope" not found',
    });
    const missing = Ksuid.generate();
    expect(await failure(lake.dropIndexRules([a1.id, missing]))).toEqual({
      kind: 'notfound',
      message: `index ${missing} not found`,
    });
    expect((await lake.indexRuleList()).length).toBe(3);
    const dropped = await lake.dropIndexRules([a1.id, ips.id]);
    expect(dropped.map((r) => r.name)).toEqual(['A', 'IPs']);
    expect((await lake.indexRuleList()).map((r) => r.id.toString())).toEqual([a2.id.toString()]);
  });

  test('rules are kept in the journal: a reopened lake has them', async () => {
    await t.lake.addIndexRules([fieldRule('f', 'a.b'), { name: 'IPs', type: 'ip' }]);
    const lake = await t.reopen();
    expect((await lake.indexRuleList()).map((r) => r.name)).toEqual(['IPs', 'f']);
  });
});

describe('indexing', () => {
  test('update indexes every object lacking a rule, in one commit by "indexer"', async () => {
    const { lake } = t;
    await lake.createPool('p', { layout: { keys: [['k']] } });
    await load(lake, 'p', '{k:1,foo:1,bar:1}');
    await load(lake, 'p', '{k:2,foo:2,bar:2}');
    await lake.addIndexRules([fieldRule('foo', 'foo'), fieldRule('bar', 'bar')]);
    const rules = await lake.indexRuleList();
    const { commit } = await lake.updateIndex('p', 'main', rules);
    const [info] = await lake.log('p', 'main');
    expect(info.id.toString()).toBe(commit.toString());
    expect(info.author).toBe('indexer');
    expect(info.message).toBe('index rules applied: bar,foo');
    const { vals } = await run(
      lake,
      'from p@main:indexes | count() by name:=rule.name | sort name',
    );
    expect(vals).toEqual(['{name:"bar",count:2(uint64)}', '{name:"foo",count:2(uint64)}']);
    // Nothing left to do.
    expect(await failure(lake.updateIndex('p', 'main', rules))).toEqual({
      kind: 'invalid',
      message: 'empty transaction',
    });
    // A new object is indexed by the next update, alone.
    await load(lake, 'p', '{k:3,foo:3,bar:3}');
    await lake.updateIndex('p', 'main', rules);
    const after = await run(lake, 'from p@main:indexes | count()');
    expect(after.vals).toEqual(['6(uint64)']);
  });

  test('apply: by object or commit ID; unknown IDs fail with nothing committed', async () => {
    const { lake } = t;
    await lake.createPool('p', { layout: { keys: [['k']] } });
    const one = await load(lake, 'p', '{k:1,s:"a"}');
    const two = await load(lake, 'p', '{k:2,s:"b"}');
    const [rule] = await lake.addIndexRules([fieldRule('s', 's')]);
    const tip = (await lake.lookupBranch('p', 'main')).commit;
    const missing = Ksuid.generate();
    expect(await failure(lake.applyIndexRules('p', 'main', [rule], [one.object, missing]))).toEqual(
      {
        kind: 'notfound',
        message: `${missing}: commit object not found`,
      },
    );
    expect((await lake.lookupBranch('p', 'main')).commit.toString()).toBe(tip.toString());
    await lake.applyIndexRules('p', 'main', [rule], [one.object]);
    // A commit ID stands for the objects it added.
    await lake.applyIndexRules('p', 'main', [rule], [two.commit]);
    const { vals } = await run(lake, 'from p@main:indexes | yield id | sort this');
    const hex = (k: Ksuid) => `${k.toHex()}(=ksuid.KSUID)`;
    expect(vals).toEqual([hex(one.object), hex(two.object)].sort());
    expect(await failure(lake.applyIndexRules('p', 'main', [rule], [one.object]))).toEqual({
      kind: 'invalid',
      message: 'empty transaction',
    });
  });

  test('index objects are in the store beside the data objects', async () => {
    const { lake } = t;
    const pool = (await lake.createPool('p', { layout: { keys: [['k']] } })).pool;
    const { object } = await load(lake, 'p', '{k:1,x:"v"}');
    const [rule] = await lake.addIndexRules([fieldRule('x', 'x')]);
    await lake.updateIndex('p', 'main', [rule]);
    expect(await lake.storage.exists(indexKey(pool.id, rule.id, object))).toBe(true);
    expect(await lake.storage.exists(indexSeekKey(pool.id, rule.id, object))).toBe(true);
  });

  test('a deleted object loses its indexes; reverting the delete brings both back', async () => {
    const { lake } = t;
    await lake.createPool('p', { layout: { keys: [['k']] } });
    const a = await load(lake, 'p', '{k:1,s:"a"}');
    await load(lake, 'p', '{k:2,s:"b"}');
    const rules = await lake.addIndexRules([fieldRule('s', 's'), { name: 'S', type: 'string' }]);
    await lake.updateIndex('p', 'main', rules);
    const count = async () => (await run(lake, 'from p@main:indexes | count()')).vals[0];
    expect(await count()).toBe('4(uint64)');
    const del = await lake.deleteObjects('p', 'main', [a.object]);
    expect(await count()).toBe('2(uint64)');
    await lake.revert('p', 'main', del.commit);
    expect(await count()).toBe('4(uint64)');
    // The index is used again: a lookup for "a" reads only a's object.
    const { vals, stats } = await run(lake, 'from p | s=="a"');
    expect(vals).toEqual(['{k:1,s:"a"}']);
    expect(stats.recordsRead).toBe(1);
  });

  test('reverting an index commit drops its indexes, and reverting that brings them back', async () => {
    const { lake } = t;
    await lake.createPool('p', { layout: { keys: [['k']] } });
    await load(lake, 'p', '{k:1,x:127.0.0.1,y:1}');
    const rules = await lake.addIndexRules([{ name: 'IPs', type: 'ip' }, fieldRule('Ys', 'y')]);
    const { commit } = await lake.updateIndex('p', 'main', rules);
    const names = async () =>
      (await run(lake, 'from p@main:indexes | count() by name:=rule.name | sort name')).vals;
    const both = ['{name:"IPs",count:1(uint64)}', '{name:"Ys",count:1(uint64)}'];
    expect(await names()).toEqual(both);
    const r = await lake.revert('p', 'main', commit);
    expect(await names()).toEqual([]);
    await lake.revert('p', 'main', r.commit);
    expect(await names()).toEqual(both);
  });

  test('merging a branch brings the indexes it made', async () => {
    const { lake } = t;
    const pool = (await lake.createPool('p', { layout: { keys: [['k']] } })).pool;
    await load(lake, 'p', '{k:1,x:"field1"}{k:2,x:"field2"}');
    await lake.createBranch(pool, 'dev', (await lake.lookupBranch(pool, 'main')).commit);
    const rules = await lake.addIndexRules([fieldRule('x', 'x')]);
    await lake.updateIndex(pool, 'dev', rules);
    // An object loaded on dev after indexing comes over unindexed, and
    // one indexed there with it.
    await load(lake, 'p', '{k:3,x:"field3"}', 'dev');
    await lake.merge(pool, 'dev', 'main');
    const { vals } = await run(lake, 'from p@main:indexes | count() by name:=rule.name');
    expect(vals).toEqual(['{name:"x",count:1(uint64)}']);
    expect((await run(lake, 'from p@main | count()')).vals).toEqual(['3(uint64)']);
  });

  test('agg rules store their script output', async () => {
    const { lake } = t;
    const pool = (await lake.createPool('p', { layout: { keys: [['k']] } })).pool;
    const { object } = await load(lake, 'p', '{k:1,v:"a"}{k:2,v:"a"}{k:3,v:"b"}');
    const rules = await lake.addIndexRules([{ name: 'n', script: 'count() by v | sort v' }]);
    await expect(lake.updateIndex('p', 'main', rules)).rejects.toThrow(/query engine/);
    await lake.updateIndex('p', 'main', rules, { runScript: zedEngine.runScript });
    const buf = await lake.storage.get(indexKey(pool.id, rules[0].id, object));
    const { decodeZng } = await import('../../src/formats/zng');
    const vals = decodeZng(buf, { ctx: new TypeContext() }).map((v) => formatValue(v));
    expect(vals).toEqual(['{v:"a",count:2(uint64)}', '{v:"b",count:1(uint64)}']);
  });

  test('vacuum removes the index objects of the data objects it removes', async () => {
    const { lake } = t;
    const pool = (await lake.createPool('p', { layout: { keys: [['k']] } })).pool;
    const gone = await load(lake, 'p', '{k:1,s:"a"}');
    const kept = await load(lake, 'p', '{k:2,s:"b"}');
    const rules = await lake.addIndexRules([fieldRule('s', 's'), { name: 't', type: 'string' }]);
    await lake.updateIndex('p', 'main', rules);
    // The rule is dropped: its index objects are vacuumed all the same.
    await lake.dropIndexRules([rules[1].id]);
    await lake.deleteObjects('p', 'main', [gone.object]);
    expect((await lake.vacuum('p', 'main', false)).map(String)).toEqual([gone.object.toString()]);
    for (const r of rules) {
      expect(await lake.storage.exists(indexKey(pool.id, r.id, gone.object))).toBe(false);
      expect(await lake.storage.exists(indexSeekKey(pool.id, r.id, gone.object))).toBe(false);
      expect(await lake.storage.exists(indexKey(pool.id, r.id, kept.object))).toBe(true);
    }
    expect((await run(lake, 'from p | s=="b"')).vals).toEqual(['{k:2,s:"b"}']);
  });

  test('indexes survive a cold rebuild of long histories (embedded snapshots)', async () => {
    const dir = tmpDir();
    try {
      const open = async () =>
        new Lake(new LocalStore(dir), await LocalCoordinator.open(path.join(dir, 'coord')));
      let lake = await open();
      await lake.createPool('p', { layout: { keys: [['k']] } });
      const [rule] = await lake.addIndexRules([fieldRule('s', 's')]);
      for (let i = 0; i < 40; i++) {
        await load(lake, 'p', `{k:${i},s:"v${i}"}`);
        if (i % 3 === 0 || i === 38) await lake.updateIndex('p', 'main', [rule]);
      }
      await lake.close();
      lake = await open();
      expect((await run(lake, 'from p@main:indexes | count()')).vals).toEqual(['40(uint64)']);
      const { vals, stats } = await run(lake, 'from p | s=="v17"');
      expect(vals).toEqual(['{k:17,s:"v17"}']);
      expect(stats.recordsRead).toBe(1);
      await lake.close();
    } finally {
      rmDir(dir);
    }
  });
});

describe('pruning scans', () => {
  /** A pool of n objects of m values each: {k, id (unique), g (shared by 10), ip, tag}. */
  async function setup(lake: Lake, n: number, m: number) {
    // Without columnar copies: these check what row reads count, whatever
    // ZLAKE_VECTOR_SCAN says (a column read counts only the rows that pass).
    await lake.createPool('p', { layout: { keys: [['k']] }, vectors: false });
    for (let o = 0; o < n; o++) {
      let text = '';
      for (let i = 0; i < m; i++) {
        const k = o * m + i;
        text += `{k:${k},id:"id-${k}",g:${Math.floor(k / 10)},ip:10.0.${o}.${i % 200},f:${k}.5,tag:${k % 7 === 0},u:${k}(uint16),rec:{in:"r${k}"}}`;
      }
      await load(lake, 'p', text);
    }
  }

  test('answers exactly as a full scan, reading only what may match', async () => {
    const { lake } = t;
    await setup(lake, 12, 50);
    const queries = [
      'id=="id-123"',
      'id=="absent"',
      'g==7',
      'g==7.0',
      'u==77',
      'g==7 and id=="id-75"',
      'g==7 and id=="id-5"',
      'id=="id-3" or id=="id-590"',
      'id=="id-3" or k>550',
      'ip==10.0.3.7',
      'ip==10.0.30.7',
      'rec.in=="r42"',
      'tag==true and id=="id-14"',
      'f==40.5',
      'id=="id-3" and g>=0',
      'k==300',
      'id==123',
    ];
    const before = new Map<string, string[]>();
    for (const q of queries) before.set(q, (await run(lake, `from p | ${q}`)).vals);
    const rules = await lake.addIndexRules([
      fieldRule('id', 'id'),
      fieldRule('g', 'g'),
      fieldRule('u', 'u'),
      fieldRule('f', 'f'),
      fieldRule('rec', 'rec.in'),
      { name: 'ips', type: 'ip' },
    ]);
    await lake.updateIndex('p', 'main', rules);
    for (const q of queries) {
      const { vals } = await run(lake, `from p | ${q}`);
      expect([q, vals]).toEqual([q, before.get(q)]);
    }
    // What the index saves, on the row path (with columns a needle's rows
    // are found before reading them anyway).
    const rows = await t.reopen({ vectorScan: 'off' });
    const read = async (q: string) => (await run(rows, `from p | ${q}`)).stats.recordsRead;
    // A needle: only the stream that holds it (one object's first stream).
    expect(await read('id=="id-123"')).toBeLessThanOrEqual(50);
    expect(await read('id=="absent"')).toBe(0);
    expect(await read('id==123')).toBe(0);
    // Numbers equal across types find the same values.
    expect(await read('g==7.0')).toBeLessThanOrEqual(50);
    expect(await read('u==77')).toBeLessThanOrEqual(50);
    // The type rule answers for any field holding an ip.
    expect(await read('ip==10.0.30.7')).toBe(0);
    expect(await read('ip==10.0.3.7')).toBeLessThanOrEqual(50);
    // and: either side rules out; or: both sides must.
    expect(await read('g==7 and id=="id-5"')).toBe(0);
    expect(await read('id=="id-3" or id=="id-590"')).toBeLessThanOrEqual(100);
    expect(await read('id=="id-3" or k>550')).toBeGreaterThan(100);
    // No rule on tag: the id rule still narrows it.
    expect(await read('tag==true and id=="id-14"')).toBeLessThanOrEqual(50);
  });

  test('keys of mixed types: numbers equal across types, strings and nulls apart', async () => {
    const { lake } = t;
    await lake.createPool('p', { layout: { keys: [['k']] } });
    await load(
      lake,
      'p',
      '{k:1,v:1}{k:2,v:1.}{k:3,v:1(uint8)}{k:4,v:"1"}{k:5,v:null}{k:6,v:NaN}{k:7,v:1}{k:8,v:2}{k:9,v:[1]}{k:10}',
    );
    await load(lake, 'p', '{k:11,v:3}{k:12,v:"x"}');
    const queries = ['v==1', 'v==1.', 'v=="1"', 'v==2', 'v==3', 'v==4', 'v=="x"', 'v==true'];
    const before = await Promise.all(
      queries.map(async (q) => (await run(lake, `from p | ${q}`)).vals),
    );
    await lake.updateIndex('p', 'main', await lake.addIndexRules([fieldRule('v', 'v')]));
    for (let i = 0; i < queries.length; i++) {
      expect([queries[i], (await run(lake, `from p | ${queries[i]}`)).vals]).toEqual([
        queries[i],
        before[i],
      ]);
    }
    expect(before[0]).toHaveLength(4);
    expect((await run(lake, 'from p | v==3')).stats.recordsRead).toBe(2);
    expect((await run(lake, 'from p | v==4')).stats.recordsRead).toBe(0);
  });

  test('objects without indexes are read as before', async () => {
    const { lake } = t;
    await setup(lake, 3, 20);
    const [rule] = await lake.addIndexRules([fieldRule('id', 'id')]);
    const first = (await lake.objects('p', 'main'))[0];
    await lake.applyIndexRules('p', 'main', [rule], [first.id]);
    const { vals, stats } = await run(
      await t.reopen({ vectorScan: 'off' }),
      'from p | id=="id-45"',
    );
    expect(vals).toHaveLength(1);
    // The indexed object was skipped; the other two were read.
    expect(stats.recordsRead).toBe(40);
  });

  test('a scan reports what its indexes skipped', async () => {
    const { lake } = t;
    await setup(lake, 5, 10);
    await lake.updateIndex('p', 'main', await lake.addIndexRules([fieldRule('id', 'id')]));
    const { indexFilter } = await import('../../src/query/compiler/indexfilter');
    const { analyze, parseQuery } = await import('../../src/query');
    const ctx = new QueryContext();
    const graph = await analyze(parseQuery('from p | id=="id-12"'), {
      ctx,
      source: new LakeSource(lake),
    });
    const filter = graph[1]?.kind === 'Filter' ? graph[1].expr : null;
    const scan = await lake.scan('p', 'main', { ctx: ctx.zctx, index: indexFilter(filter) });
    let n = 0;
    for (let b = await scan.pull(); b; b = await scan.pull()) n += b.length;
    expect(n).toBe(10);
    expect(scan.stats.objectsPruned).toBe(4);
    expect(scan.stats.indexBytesRead).toBeGreaterThan(0);
  });
});
