// The optimizer: merged filters, pass removal, filters and projections
// lifted into sources, pool-key ranges, sorted input for summarize.

import { formatValue } from '../../../src/formats/zson';
import { analyze, parseQuery, QueryContext } from '../../../src/query';
import * as dag from '../../../src/query/compiler/dag';
import { keyRange, optimize, rewrites } from '../../../src/query/compiler/optimizer';
import { compileQuery } from '../../../src/query';
import { parseValues } from '../../../src/formats/zson';
import { arrayReader } from '../../../src/query/runtime/ops/scan';
import { PoolConfig } from '../../../src/lake/config';
import { Ksuid } from '../../../src/lake/ksuid';

async function graph(query: string): Promise<dag.Seq> {
  return optimize(await analyze(parseQuery(query), { ctx: new QueryContext(), inputs: [] }));
}

async function filterOf(expr: string): Promise<dag.Expr> {
  const g = await analyze(parseQuery(`where ${expr}`), { ctx: new QueryContext(), inputs: [] });
  return (g[1] as dag.Filter).expr;
}

async function range(expr: string): Promise<string | null> {
  const r = keyRange(await filterOf(expr), ['ts']);
  if (r === null) return null;
  // Interval notation: ( and ) for open bounds.
  return (
    (r.lowerOpen ? '(' : '[') +
    `${r.lower ? formatValue(r.lower) : ''},${r.upper ? formatValue(r.upper) : ''}` +
    (r.upperOpen ? ')' : ']')
  );
}

describe('filters and pass', () => {
  test('adjacent filters merge and are lifted into the source', async () => {
    const g = await graph('a == 1 | pass | b == 2 | yield a');
    expect(g.map((o) => o.kind)).toEqual(['Reader', 'Yield']);
    const src = g[0] as dag.Reader;
    expect(src.filter?.kind).toBe('Binary');
    expect((src.filter as dag.Binary).op).toBe('and');
  });

  test('a projection after the filter is lifted too', async () => {
    const g = await graph('a == 1 | cut a, b.c | yield a');
    expect(g.map((o) => o.kind)).toEqual(['Reader', 'Yield']);
    expect((g[0] as dag.Reader).project?.map((a) => a.lhs)).toEqual([['a'], ['b', 'c']]);
  });

  test('computed cuts stay operators', async () => {
    const g = await graph('cut x := a + 1');
    expect(g.map((o) => o.kind)).toEqual(['Reader', 'Cut']);
  });

  test('an empty sequence keeps a pass', async () => {
    const g = await graph('fork ( => pass => pass )');
    const fork = g[1] as dag.Fork;
    expect(fork.paths.map((p) => p.map((o) => o.kind))).toEqual([['Pass'], ['Pass']]);
  });
});

describe('a cut after a sort', () => {
  test('moves before the sort where the cut keeps every key as it is', async () => {
    const kinds = async (q: string) => (await graph(q)).map((o) => o.kind);
    expect(await kinds('sort -r rtt | cut query, rtt')).toEqual(['Reader', 'Sort']);
    expect(await kinds('sort id.h, x | cut x, id | head 2')).toEqual(['Reader', 'Sort', 'Head']);
    expect(await kinds('sort id.h | cut id.h, q')).toEqual(['Reader', 'Sort']);
    // A key the cut drops, changes (id: just its h), renames or makes; a guessed key.
    for (const q of [
      'sort rtt | cut query',
      'sort id | cut id.h',
      'sort x | cut x:=y',
      'sort x | cut y:=x',
      'sort | cut a',
      'sort len(q) | cut q',
    ])
      expect({ q, kinds: await kinds(q) }).toEqual({ q, kinds: ['Reader', 'Sort', 'Cut'] });
  });

  test('answers as the sort then the cut do', async () => {
    const input = [
      '{q:"a",r:2,id:{h:1,p:9},x:1}',
      '{q:"b",r:null(int64),id:{h:0,p:8}}',
      '{q:"c",id:{h:1,p:7},x:2}',
      '{r:1,x:3}',
      '7',
      '{q:"d",r:2,id:null({h:int64,p:int64}),x:4}',
      'error("boom")',
      '{q:"e",r:2.5,id:{h:"z"},x:5}',
      '{z:1}',
      '{q:"f",r:1,id:{h:1,p:6},x:6}',
    ].join(' ');
    const queries = [
      'sort -r r | cut q, r',
      'sort r | cut r, x | head 3',
      'sort -nulls first r, x | cut x, r, q',
      'sort id.h | cut id, q',
      'sort -r id.h, r | cut id.h, r, x',
      'sort q | cut q | tail 2',
      // Not moved: the key is not kept, or not as it was.
      'sort r | cut q, x',
      'sort id | cut id.p, q',
    ];
    const answer = async (q: string) => {
      const ctx = new QueryContext();
      const inputs = [arrayReader(parseValues(ctx.zctx, input))];
      return (await (await compileQuery(q, { ctx, inputs })).all()).map((v) => formatValue(v));
    };
    for (const q of queries) {
      const moved = await answer(q);
      rewrites.cutsBeforeSorts = false;
      try {
        expect({ q, out: moved }).toEqual({ q, out: await answer(q) });
      } finally {
        rewrites.cutsBeforeSorts = true;
      }
    }
  });
});

describe('pool-key ranges', () => {
  test('comparisons with constants bound the key', async () => {
    expect(await range('ts == 5')).toBe('[5,5]');
    expect(await range('ts > 5')).toBe('(5,]');
    expect(await range('ts <= 5')).toBe('[,5]');
    expect(await range('5 < ts')).toBe('(5,]');
    expect(await range('ts >= 1 and ts < 10')).toBe('[1,10)');
    expect(await range('ts >= 1 and ts >= 3')).toBe('[3,]');
    expect(await range('ts == 1 or ts == 7')).toBe('[1,7]');
    expect(await range('ts > 5 and x == 1')).toBe('(5,]');
    expect(await range('ts > 2020-01-01T00:00:00Z')).toBe('(2020-01-01T00:00:00Z,]');
    expect(await range('ts == "a"')).toBe('["a","a"]');
  });

  test('at a tie an and keeps the bound open if either side does, an or only if both do', async () => {
    expect(await range('ts >= 3 and ts > 3')).toBe('(3,]');
    expect(await range('ts < 3 and ts <= 3')).toBe('[,3)');
    expect(await range('ts > 3 or ts >= 3')).toBe('[3,]');
    expect(await range('ts > 3 or ts > 3')).toBe('(3,]');
    expect(await range('ts < 3 or ts < 9')).toBe('[,9)');
    expect(await range('ts < 3 or ts <= 9')).toBe('[,9]');
  });

  test('anything else does not', async () => {
    expect(await range('ts != 5')).toBeNull();
    expect(await range('x == 5')).toBeNull();
    expect(await range('ts == null')).toBeNull();
    expect(await range('ts < 5 or x == 1')).toBeNull();
    expect(await range('ts == y')).toBeNull();
    expect(await range('!(ts == 5)')).toBeNull();
  });
});

describe('sorted input for summarize', () => {
  const pool: PoolConfig = {
    ts: 0n,
    name: 'p',
    id: Ksuid.generate(),
    layout: { order: 'desc', keys: [['ts']] },
    seekStride: 1,
    threshold: 1,
    vectors: true,
  };
  const scan = (): dag.PoolScan => ({
    kind: 'PoolScan',
    pool,
    commit: Ksuid.nil,
    filter: null,
    range: null,
  });
  const sum = (key: string): dag.Summarize => ({
    kind: 'Summarize',
    keys: [{ lhs: [key], rhs: { kind: 'This', path: [key] } }],
    aggs: [],
    limit: 0,
    inputSortDir: 0,
  });

  test('a summarize grouped by the pool key knows its input order', () => {
    const g = optimize([scan(), { kind: 'Head', count: 1 }, sum('ts')]);
    expect((g[g.length - 1] as dag.Summarize).inputSortDir).toBe(-1);
    // The scan, whose keys' type says whether the order holds.
    expect((g[g.length - 1] as dag.Summarize).inputScan).toEqual({
      pool,
      commit: Ksuid.nil,
      range: null,
    });
  });

  test('not by another key, nor after the key is overwritten', () => {
    expect((optimize([scan(), sum('x')])[1] as dag.Summarize).inputSortDir).toBe(0);
    const put: dag.Put = {
      kind: 'Put',
      args: [{ lhs: ['ts'], rhs: { kind: 'This', path: ['x'] } }],
    };
    const g = optimize([scan(), put, sum('ts')]);
    expect((g[2] as dag.Summarize).inputSortDir).toBe(0);
  });

  test('by the pool key first, not by it as a later key', () => {
    const by = (...keys: string[]): dag.Summarize => ({
      ...sum(keys[0]),
      keys: keys.map((k) => ({ lhs: [k], rhs: { kind: 'This', path: [k] } })),
    });
    expect((optimize([scan(), by('ts', 'x')])[1] as dag.Summarize).inputSortDir).toBe(-1);
    expect((optimize([scan(), by('x', 'ts')])[1] as dag.Summarize).inputSortDir).toBe(0);
  });
});

describe('scans that keep one end of the key order', () => {
  const pool = (order: 'asc' | 'desc'): PoolConfig => ({
    ts: 0n,
    name: 'p',
    id: Ksuid.generate(),
    layout: { order, keys: [['ts']] },
    seekStride: 1,
    threshold: 1,
    vectors: true,
  });
  const scan = (order: 'asc' | 'desc' = 'asc'): dag.PoolScan => ({
    kind: 'PoolScan',
    pool: pool(order),
    commit: Ksuid.nil,
    filter: null,
    range: null,
  });
  const ts: dag.Expr = { kind: 'This', path: ['ts'] };
  const sort = (order: 'asc' | 'desc', by = ts): dag.Sort => ({
    kind: 'Sort',
    args: [by],
    order,
    nullsFirst: false,
  });
  const endOf = (g: dag.Seq) => (g[0] as dag.PoolScan).end;

  test('a sort by the key and a head, a tail', () => {
    expect(endOf(optimize([scan(), sort('desc'), { kind: 'Head', count: 10 }]))).toEqual({
      side: 'high',
      count: 10,
    });
    expect(endOf(optimize([scan(), sort('asc'), { kind: 'Head', count: 3 }]))).toEqual({
      side: 'low',
      count: 3,
    });
    expect(endOf(optimize([scan(), { kind: 'Tail', count: 5 }]))).toEqual({
      side: 'high',
      count: 5,
    });
    expect(endOf(optimize([scan('desc'), { kind: 'Tail', count: 5 }]))).toEqual({
      side: 'low',
      count: 5,
    });
  });

  test('not a sort by another key, a sort alone, or a head alone', () => {
    const other: dag.Expr = { kind: 'This', path: ['x'] };
    expect(endOf(optimize([scan(), sort('desc', other), { kind: 'Head', count: 1 }]))).toBe(
      undefined,
    );
    expect(endOf(optimize([scan(), sort('desc')]))).toBe(undefined);
    expect(endOf(optimize([scan(), { kind: 'Head', count: 1 }]))).toBe(undefined);
  });

  test('with a filter only when it is exactly a key range', async () => {
    const filtered = async (expr: string) =>
      endOf(
        optimize([
          scan(),
          { kind: 'Filter', expr: await filterOf(expr) },
          sort('desc'),
          { kind: 'Head', count: 2 },
        ]),
      );
    expect(await filtered('ts < 5')).toEqual({ side: 'high', count: 2 });
    expect(await filtered('ts >= 1 and ts < 5')).toEqual({ side: 'high', count: 2 });
    expect(await filtered('ts < 5 and x == 1')).toBe(undefined);
    expect(await filtered('ts < 5 or ts > 9')).toBe(undefined);
    expect(await filtered('x == 1')).toBe(undefined);
  });

  test('after a cut only when the cut keeps the key (or the tail needs none)', () => {
    const cut = (lhs: string, rhs: string): dag.Cut => ({
      kind: 'Cut',
      args: [{ lhs: [lhs], rhs: { kind: 'This', path: [rhs] } }],
    });
    const keep = optimize([scan(), cut('ts', 'ts'), sort('desc'), { kind: 'Head', count: 1 }]);
    expect(endOf(keep)).toEqual({ side: 'high', count: 1 });
    const renamed = optimize([scan(), cut('ts', 'x'), sort('desc'), { kind: 'Head', count: 1 }]);
    expect(endOf(renamed)).toBe(undefined);
    expect(endOf(optimize([scan(), cut('x', 'x'), { kind: 'Tail', count: 2 }]))).toEqual({
      side: 'high',
      count: 2,
    });
  });
});
