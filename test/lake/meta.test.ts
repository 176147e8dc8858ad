// Meta-query sources produce the reference's record shapes (lake/ztests
// meta.yaml, ls.yaml, log.yaml, meta-empty-pool.yaml).

import { commitMeta, Lake, lakeMeta, poolMeta } from '../../src/lake';
import { formatType, newString, TypeContext, Value } from '../../src/zed';
import { arrayReader, field, rec, show, str, testLake } from './helpers';

const t = testLake();
let lake: Lake;
let ctx: TypeContext;

beforeEach(() => {
  ({ lake, ctx } = t);
});

const POOL_TYPE =
  'pools.Config={ts:time,name:string,id:ksuid.KSUID=bytes,layout:order.SortKey={order:order.Which=string,' +
  'keys:field.List=[field.Path=[string]]},seek_stride:int64,threshold:int64}';

async function setup(): Promise<void> {
  await lake.createPool('poolB', { layout: { order: 'desc', keys: [['b']] } });
  await lake.createPool('poolA', { layout: { order: 'asc', keys: [['a']] } });
  await lake.load('poolA', 'main', arrayReader([rec(ctx, { a: 1 }), rec(ctx, { a: 2 })]), {
    author: 'testuser',
    meta: newString('original'),
  });
  await lake.load(
    'poolB',
    'main',
    arrayReader([rec(ctx, { b: 3 }), rec(ctx, { b: 2 }), rec(ctx, { b: 1 })]),
  );
}

/** A value's text without its ts and id fields (which change every run). */
function stable(v: Value): string {
  return show(v)
    .replace(/ts:[^,]+,/g, '')
    .replace(/0x0{40}/g, 'NIL')
    .replace(/(id|commit|Commit|parent):0x[0-9a-f]{40}/g, '$1:ID');
}

test('from :pools', async () => {
  await setup();
  const vals = await lakeMeta(lake, ctx, 'pools');
  expect(vals.map((v) => formatType(v.type))).toEqual([POOL_TYPE, POOL_TYPE]);
  expect(vals.map(stable)).toEqual([
    '{name:"poolA",id:ID,layout:{order:"asc",keys:[["a"]]},seek_stride:65536,threshold:524288000}',
    '{name:"poolB",id:ID,layout:{order:"desc",keys:[["b"]]},seek_stride:65536,threshold:524288000}',
  ]);
});

test('from :branches and from pool:branches', async () => {
  await setup();
  const pool = await lake.lookupPool('poolA');
  await lake.createBranch(pool, 'dev', (await lake.lookupBranch(pool, 'main')).commit);
  const all = await lakeMeta(lake, ctx, 'branches');
  expect(all).toHaveLength(3);
  expect(formatType(all[0].type)).toBe(
    `lake.BranchMeta={pool:${POOL_TYPE},branch:branches.Config={ts:time,name:string,commit:ksuid.KSUID}}`,
  );
  expect(
    all.map((v) => `${str(field(v, 'pool'), 'name')}@${str(field(v, 'branch'), 'name')}`),
  ).toEqual(['poolA@dev', 'poolA@main', 'poolB@main']);
  const mine = await poolMeta(lake, ctx, 'poolA', 'branches');
  expect(mine.map(stable)).toEqual([
    '{pool:{name:"poolA",id:ID,layout:{order:"asc",keys:[["a"]]},seek_stride:65536,threshold:524288000},branch:{name:"dev",commit:ID}}',
    '{pool:{name:"poolA",id:ID,layout:{order:"asc",keys:[["a"]]},seek_stride:65536,threshold:524288000},branch:{name:"main",commit:ID}}',
  ]);
});

test('from pool@main:objects', async () => {
  await setup();
  const [o] = await commitMeta(lake, ctx, 'poolA', 'main', 'objects');
  expect(formatType(o.type)).toBe(
    'data.Object={id:ksuid.KSUID=bytes,min:int64,max:int64,count:uint64,size:int64}',
  );
  // The reference's size for this object is 18 bytes too.
  expect(stable(o)).toBe('{id:ID,min:1,max:2,count:2,size:18}');
  // Descending pools still give min <= max.
  const [b] = await commitMeta(lake, ctx, 'poolB', 'main', 'objects');
  expect(stable(b)).toMatch(/^\{id:ID,min:1,max:3,count:3,size:\d+\}$/);
  // As in the reference's log.yaml: {x:1} is "1 record in 14 data bytes".
  await lake.createPool('x', { layout: { keys: [['x']] } });
  const { objects } = await lake.load('x', 'main', arrayReader([rec(ctx, { x: 1 })]));
  expect(objects[0].toString()).toMatch(/^\w{27} 1 record in 14 data bytes$/);
});

test('from pool@main:log', async () => {
  await setup();
  const pool = await lake.lookupPool('poolA');
  await lake.createBranch(pool, 'dev', (await lake.lookupBranch(pool, 'main')).commit);
  await lake.load('poolA', 'main', arrayReader([rec(ctx, { a: 3 })]), {
    author: 'testuser',
    message: 'second',
  });
  const vals = await commitMeta(lake, ctx, 'poolA', 'main', 'log');
  expect(vals.map((v) => formatType(v.type))).toEqual([
    'lake.BranchTip={Name:string,Commit:ksuid.KSUID=bytes}',
    'lake.BranchTip={Name:string,Commit:ksuid.KSUID=bytes}',
    'Commit={id:KSUID=bytes,parent:KSUID,retries:uint8,author:string,date:time,message:string,meta:null}',
    'Commit={id:KSUID=bytes,parent:KSUID,retries:uint8,author:string,date:time,message:string,meta:string}',
  ]);
  expect(vals.slice(0, 2).map(stable)).toEqual([
    '{Name:"dev",Commit:ID}',
    '{Name:"main",Commit:ID}',
  ]);
  const text = stable(vals[3]).replace(/date:[^,]+,/, 'date:D,');
  expect(text).toMatch(
    /^\{id:ID,parent:NIL,retries:0,author:"testuser",date:D,message:"loaded 1 data object\\n\\n {2}\w{27} 2 records in 18 data bytes\\n",meta:"original"\}$/,
  );
  expect(stable(vals[2])).toMatch(
    /^\{id:ID,parent:ID,retries:0,author:"testuser",date:[^,]+,message:"second",meta:null\}$/,
  );
});

test('an empty pool has no objects and no log, only its tip', async () => {
  await lake.createPool('test');
  expect(await commitMeta(lake, ctx, 'test', 'main', 'objects')).toEqual([]);
  expect((await commitMeta(lake, ctx, 'test', 'main', 'log')).map(stable)).toEqual([
    '{Name:"main",Commit:NIL}',
  ]);
});

test('unknown meta sources and pools', async () => {
  await lake.createPool('p');
  await expect(lakeMeta(lake, ctx, 'nope')).rejects.toThrow('unknown lake metadata type: "nope"');
  await expect(poolMeta(lake, ctx, 'p', 'nope')).rejects.toThrow(
    'unknown pool metadata type: "nope"',
  );
  await expect(commitMeta(lake, ctx, 'p', 'main', 'nope')).rejects.toThrow(
    'unknown commit metadata type: "nope"',
  );
  await expect(commitMeta(lake, ctx, 'gone', 'main', 'objects')).rejects.toThrow(
    'gone: pool not found',
  );
});

test('pool stats: size and time span of main', async () => {
  await lake.createPool('t');
  const base = 1587508830068523240n;
  await lake.load(
    't',
    'main',
    arrayReader([rec(ctx, { ts: base }), rec(ctx, { ts: base + 100n })]),
  );
  await lake.load('t', 'main', arrayReader([rec(ctx, { ts: base - 50n })]));
  const objects = await lake.objects('t', 'main');
  const stats = await lake.stats('t');
  expect(stats.size).toBe(objects.reduce((n, o) => n + o.size, 0));
  expect(stats.span).toEqual({ ts: base - 50n, dur: 151n });
  await lake.createPool('k', { layout: { keys: [['k']] } });
  await lake.load('k', 'main', arrayReader([rec(ctx, { k: 1 })]));
  expect((await lake.stats('k')).span).toBeUndefined();
});
