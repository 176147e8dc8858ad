import { readdirSync } from 'node:fs';
import { Aggregator } from '../../../src/query/aggregates';
import { Expr } from '../../../src/query/expr/expr';
import { isMissing } from '../../../src/query/expr/errors';
import { pullAll } from '../../../src/query/runtime/operator';
import { Sort } from '../../../src/query/runtime/ops/sort';
import { FAN_IN, Summarize, SummarizeOptions } from '../../../src/query/runtime/ops/summarize';
import { formatValue } from '../../../src/formats/zson';
import { QueryContext } from '../../../src/query/runtime/context';
import { TypeBool, TypeString } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { DuplicateFieldError } from '../../../src/zed/context';
import { cmpInt, field, fn, lines, newCtx, run, spillTmp, src, TestSource, zson } from './helpers';

type Spec = {
  keys?: [string, Expr | string][];
  aggs: [string, string, (Expr | string | null)?, Expr?][];
  limit?: number;
  inputSortDir?: 0 | 1 | -1;
};

function opts(ctx: QueryContext, spec: Spec): SummarizeOptions {
  const ex = (e: Expr | string) => (typeof e === 'string' ? field(ctx, e) : e);
  return {
    keys: (spec.keys ?? []).map(([lhs, e]) => ({ lhs: lhs.split('.'), expr: ex(e) })),
    aggs: spec.aggs.map(([lhs, name, arg, where]) => ({
      lhs: lhs.split('.'),
      agg: new Aggregator(name, arg === undefined || arg === null ? null : ex(arg), where ?? null),
    })),
    limit: spec.limit,
    inputSortDir: spec.inputSortDir,
  };
}

async function summarize(
  input: string,
  spec: Spec,
  ctxOpts = {},
  batchSize = 1024,
): Promise<string[]> {
  const ctx = newCtx(ctxOpts);
  return run(new Summarize(ctx, src(ctx, input, batchSize), opts(ctx, spec)));
}

/** Open file descriptors of this process. */
const openFds = () => readdirSync('/proc/self/fd').length;

/**
 * A TestSource that records the most descriptors opened since it was
 * made, seen at each pull of it and at each sample() (between pulls of
 * the output).
 */
class FdWatchingSource extends TestSource {
  private readonly before = openFds();
  maxOpened = 0;

  override async pull(): Promise<Value[] | null> {
    this.sample();
    return super.pull();
  }

  sample(): void {
    this.maxOpened = Math.max(this.maxOpened, openFds() - this.before);
  }

  /** All of op's output, sampling the descriptors between its batches. */
  async pullAll(op: Summarize): Promise<string[]> {
    const out: string[] = [];
    for (let b = await op.pull(); b !== null; b = await op.pull()) {
      this.sample();
      for (const v of b) out.push(formatValue(v));
    }
    return out;
  }
}

/** Sorted output, as `| sort this` in the ztests. */
async function sorted(input: string, spec: Spec): Promise<string[]> {
  const ctx = newCtx();
  return run(
    new Sort(ctx, new Summarize(ctx, src(ctx, input), opts(ctx, spec)), {
      keys: [field(ctx, 'this')],
    }),
  );
}

function strEq(ctx: QueryContext, e: Expr, s: string): Expr {
  const t = Value.fromBytes(TypeBool, Buffer.from([1]));
  const f = Value.fromBytes(TypeBool, Buffer.from([0]));
  return fn((self) => {
    const v = e.eval(self);
    return v.type === TypeString && v.len >= 0 && v.buf.toString('utf8', v.off, v.off + v.len) === s
      ? t
      : f;
  });
}

describe('summarize: documented examples', () => {
  test('aggregates over all input', async () => {
    expect(await summarize('1 2 3 4', { aggs: [['sum', 'sum', 'this']] })).toEqual(['{sum:10}']);
    expect(
      await summarize('1 2 3 4', {
        aggs: [
          ['sum', 'sum', 'this'],
          ['count', 'count'],
        ],
      }),
    ).toEqual(['{sum:10,count:4(uint64)}']);
  });
  test('grouped, in order of first appearance', async () => {
    const input = '{k:"foo",v:1}{k:"bar",v:2}{k:"foo",v:3}{k:"baz",v:4}';
    expect(await summarize(input, { keys: [['key', 'k']], aggs: [['sum', 'sum', 'v']] })).toEqual([
      '{key:"foo",sum:4}',
      '{key:"bar",sum:2}',
      '{key:"baz",sum:4}',
    ]);
  });
  test('where clause on an aggregate', async () => {
    const ctx = newCtx();
    const input = '{k:"foo",v:1}{k:"bar",v:2}{k:"foo",v:3}{k:"baz",v:4}';
    const op = new Summarize(
      ctx,
      src(ctx, input),
      opts(ctx, {
        keys: [['key', 'k']],
        aggs: [['s', 'sum', 'v', cmpInt(field(ctx, 'v'), '>', 1, TypeBool)]],
      }),
    );
    expect(await run(op)).toEqual(['{key:"foo",s:3}', '{key:"bar",s:2}', '{key:"baz",s:4}']);
  });
  test('empty input gives no output', async () => {
    expect(await summarize('', { aggs: [['count', 'count']] })).toEqual([]);
    expect(await summarize('', { keys: [['k', 'k']], aggs: [['count', 'count']] })).toEqual([]);
  });
});

describe('summarize: reference ztests', () => {
  test('by-only', async () => {
    const input = `{x:1(int32),s:"b"} {x:2(int32),s:"f"} {x:1(int32),s:"b"} {x:1(int32),s:"a"}
      {x:1(int32),s:"b"} {x:2(int32),s:"c"} {x:1(int32),s:"a"} {x:1(int32),s:"a"}`;
    expect(await summarize(input, { keys: [['s', 's']], aggs: [] })).toEqual([
      '{s:"b"}',
      '{s:"f"}',
      '{s:"a"}',
      '{s:"c"}',
    ]);
  });
  test('count-by-this', async () => {
    const input = '{x:1(int32),s:"foo"} {x:2(int32),s:"Bar"} {y:5} {y:5} {y:7}';
    expect(await sorted(input, { keys: [['val', 'this']], aggs: [['count', 'count']] })).toEqual(
      lines(`{val:{x:1(int32),s:"foo"},count:1(uint64)}
             {val:{x:2(int32),s:"Bar"},count:1(uint64)}
             {val:{y:5},count:2(uint64)}
             {val:{y:7},count:1(uint64)}`),
    );
  });
  test('count by typeof(this)', async () => {
    const ctx = newCtx();
    const input = '{x:1(int32),s:"foo"} {x:2(int32),s:"Bar"} {y:5} {y:5} {y:7}';
    const typeOf = fn((v) => ctx.zctx.typeValueOf(v.type));
    const op = new Summarize(
      ctx,
      src(ctx, input),
      opts(ctx, { keys: [['typeof', typeOf]], aggs: [['count', 'count']] }),
    );
    expect(await run(op)).toEqual([
      '{typeof:<{x:int32,s:string}>,count:2(uint64)}',
      '{typeof:<{y:int64}>,count:3(uint64)}',
    ]);
  });
  test('top-level output: null and long keys, types changing from group to group', async () => {
    // Built field by field into one buffer (flatResults): a null key, a
    // key whose tag takes two bytes, a record whose own tag does not fit
    // the byte reserved for it, and a sum whose type changes per group.
    const long = 'x'.repeat(200);
    const input = `{a:1,b:null,v:1} {a:1,b:"${long}",v:2.5} {a:null,b:"y",v:3} {a:1,b:null,v:4}
      {a:"s",b:"y",v:null}`;
    expect(
      await summarize(input, {
        keys: [
          ['a', 'a'],
          ['b', 'b'],
        ],
        aggs: [
          ['count', 'count'],
          ['s', 'sum', 'v'],
        ],
      }),
    ).toEqual([
      '{a:1,b:null,count:2(uint64),s:5}',
      `{a:1,b:"${long}",count:1(uint64),s:2.5}`,
      '{a:null,b:"y",count:1(uint64),s:3}',
      '{a:"s",b:"y",count:1(uint64),s:null}',
    ]);
    expect(await summarize(input, { keys: [['b', 'b']], aggs: [['count', 'count']] })).toEqual([
      '{b:null,count:2(uint64)}',
      `{b:"${long}",count:1(uint64)}`,
      '{b:"y",count:2(uint64)}',
    ]);
  });
  test('nested output names', async () => {
    const input = `{animal:"cat",s:"a",x:1(int32)} {animal:"dog",s:"b",x:1(int32)} {animal:"cat",s:"a",x:1(int32)}
      {animal:"elephant",s:"a",x:1(int32)} {animal:"cat",s:"b",x:1(int32)}`;
    expect(
      await summarize(input, {
        keys: [['result.animal', 'animal']],
        aggs: [['result.count', 'count']],
      }),
    ).toEqual(
      lines(`{result:{animal:"cat",count:3(uint64)}}
             {result:{animal:"dog",count:1(uint64)}}
             {result:{animal:"elephant",count:1(uint64)}}`),
    );
  });
  test('nulls of mixed types: count counts them, sum is a typed null', async () => {
    const input =
      '{x:null(uint64)} {x:null(float64)} {x:null(int64)} {x:null(duration)} {x:null(time)}';
    expect(
      await summarize(input, {
        aggs: [
          ['count', 'count', 'x'],
          ['sum', 'sum', 'x'],
        ],
      }),
    ).toEqual(['{count:5(uint64),sum:null(float64)}']);
  });
  test('where-sum', async () => {
    const ctx = newCtx();
    const x = field(ctx, 'x');
    const op = new Summarize(
      ctx,
      src(ctx, '{x:1(int32)} {x:10(int32)} {x:5(int32)} {x:6(int32)} {x:-1(int32)} {x:12(int32)}'),
      opts(ctx, {
        aggs: [
          ['lg', 'sum', 'x', cmpInt(x, '>=', 5, TypeBool)],
          ['sm', 'sum', 'x', cmpInt(x, '<', 8, TypeBool)],
        ],
      }),
    );
    expect(await run(op)).toEqual(['{lg:33,sm:11}']);
  });
  test('where with a group that never matches gives sum null', async () => {
    const ctx = newCtx();
    const input = `{animal:"cat",s:"a",x:1(int32)} {animal:"dog",s:"b",x:1(int32)} {animal:"cat",s:"a",x:1(int32)}
      {animal:"elephant",s:"a",x:1(int32)} {animal:"cat",s:"b",x:1(int32)}`;
    const op = new Summarize(
      ctx,
      src(ctx, input),
      opts(ctx, {
        keys: [['key', 'animal']],
        aggs: [
          ['sum', 'sum', 'x', strEq(ctx, field(ctx, 's'), 'a')],
          ['s2', 'sum', 'x'],
        ],
      }),
    );
    expect(await run(op)).toEqual([
      '{key:"cat",sum:2,s2:3}',
      '{key:"dog",sum:null,s2:1}',
      '{key:"elephant",sum:1,s2:1}',
    ]);
  });
  test('missing keys group as error("missing")', async () => {
    expect(
      await summarize('{a:"a",b:"b"} {a:[0],b:{c:1}} {a:[1],b:{c:1}}', {
        keys: [['b', 'b.c']],
        aggs: [['count', 'count']],
      }),
    ).toEqual(['{b:error("missing"),count:1(uint64)}', '{b:1,count:2(uint64)}']);
  });
  test('a quiet key drops the value', async () => {
    const ctx = newCtx();
    const input = `{_path:"weird",id:{orig_h:10.47.1.152}} {_path:"x509",id:"FYNFkU3KccxXgIuUg5"}
      {_path:"weird",id:{orig_h:10.47.5.155}}`;
    const inner = field(ctx, 'id.orig_h');
    const quiet = fn((v) => {
      const r = inner.eval(v);
      return isMissing(r) ? ctx.zctx.quiet() : r;
    });
    const op = new Summarize(
      ctx,
      src(ctx, input),
      opts(ctx, { keys: [['id.orig_h', quiet]], aggs: [['count', 'count']] }),
    );
    expect(await run(op)).toEqual([
      '{id:{orig_h:10.47.1.152},count:1(uint64)}',
      '{id:{orig_h:10.47.5.155},count:1(uint64)}',
    ]);
  });
  test('duplicate output fields are an error', () => {
    const ctx = newCtx();
    expect(
      () =>
        new Summarize(
          ctx,
          src(ctx, '{x:1}'),
          opts(ctx, {
            aggs: [
              ['count', 'count'],
              ['count', 'count'],
            ],
          }),
        ),
    ).toThrow(new DuplicateFieldError('count'));
  });
  test('sum coerces int and float', async () => {
    expect(await summarize('2 2.5', { aggs: [['sum', 'sum', 'this']] })).toEqual(['{sum:4.5}']);
  });
  test('-limit 1 spills each group: partials merge, output sorted by key', async () => {
    const input =
      '{key:"b",n:10(int32)} {key:"a",n:0(int32)} {key:"a",n:5(int32)} {key:"b"} {key:"a"}';
    expect(
      await summarize(input, { keys: [['key', 'key']], aggs: [['count', 'count']], limit: 1 }),
    ).toEqual(['{key:"a",count:3(uint64)}', '{key:"b",count:2(uint64)}']);
    expect(
      await summarize(input, { keys: [['key', 'key']], aggs: [['sum', 'sum', 'n']], limit: 1 }),
    ).toEqual(['{key:"a",sum:5}', '{key:"b",sum:10}']);
    expect(
      await summarize(input, { keys: [['key', 'key']], aggs: [['any', 'any', 'n']], limit: 1 }),
    ).toEqual(['{key:"a",any:0(int32)}', '{key:"b",any:10(int32)}']);
  });
  test('spilled keys that compare equal and differ stay apart (1, 1(uint64), 1.; 0., -0.)', async () => {
    const input = '1 1(uint64) 2 1(uint64) 1 3 1. 2(uint64) -0. 0. -0. 1. 1'.replace(
      /(\S+)/g,
      '{x:$1}',
    );
    // In one table: a group per distinct key, as they came.
    const whole = await summarize(input, { keys: [['x', 'x']], aggs: [['count', 'count']] });
    expect(whole).toEqual([
      '{x:1,count:3(uint64)}',
      '{x:1(uint64),count:2(uint64)}',
      '{x:2,count:1(uint64)}',
      '{x:3,count:1(uint64)}',
      '{x:1.,count:2(uint64)}',
      '{x:2(uint64),count:1(uint64)}',
      '{x:0.,count:2(uint64)}',
      '{x:0.,count:1(uint64)}',
    ]);
    for (const limit of [1, 2, 3]) {
      const spilled = await summarize(input, {
        keys: [['x', 'x']],
        aggs: [['count', 'count']],
        limit,
      });
      expect(spilled.slice().sort()).toEqual(whole.slice().sort());
    }
  });
  test('spilled NaN keys make one group, after the numbers they equal', async () => {
    const input = '1. NaN 2. NaN 1. 3. 2. NaN 0.5 NaN'.replace(/(\S+)/g, '{x:$1}');
    const whole = await summarize(input, { keys: [['x', 'x']], aggs: [['count', 'count']] });
    expect(whole).toHaveLength(5);
    for (const limit of [1, 2, 3]) {
      const spilled = await summarize(input, {
        keys: [['x', 'x']],
        aggs: [['count', 'count']],
        limit,
      });
      expect(spilled).toEqual([
        '{x:0.5,count:1(uint64)}',
        '{x:1.,count:2(uint64)}',
        '{x:2.,count:2(uint64)}',
        '{x:3.,count:1(uint64)}',
        '{x:NaN,count:4(uint64)}',
      ]);
    }
  });
});

describe('summarize: sorted input (inputSortDir)', () => {
  test('ascending: groups are emitted as they complete, in key order', async () => {
    const ctx = newCtx();
    const input = '{ts:1,v:1} {ts:1,v:2} {ts:2,v:3} {ts:3,v:4} {ts:3,v:5} {ts:4,v:6}';
    const source = src(ctx, input, 2);
    const op = new Summarize(
      ctx,
      source,
      opts(ctx, { keys: [['ts', 'ts']], aggs: [['sum', 'sum', 'v']], inputSortDir: 1 }),
    );
    // After the second batch (ts 2, 3) the largest key is 3: groups created
    // while it was below 3 are complete.
    const first = await op.pull();
    expect(first!.map((v) => formatValue(v))).toEqual(['{ts:1,sum:3}', '{ts:2,sum:3}']);
    expect(source.consumed).toBe(4);
    expect((await pullAll(op)).map((v) => formatValue(v))).toEqual([
      '{ts:3,sum:9}',
      '{ts:4,sum:6}',
    ]);
  });
  test('descending', async () => {
    const input = '{ts:10} {ts:8} {ts:8} {ts:7} {ts:2} {ts:1}';
    expect(
      await summarize(
        input,
        { keys: [['ts', 'ts']], aggs: [['count', 'count']], inputSortDir: -1 },
        {},
        2,
      ),
    ).toEqual(
      lines(`{ts:10,count:1(uint64)}
             {ts:8,count:2(uint64)}
             {ts:7,count:1(uint64)}
             {ts:2,count:1(uint64)}
             {ts:1,count:1(uint64)}`),
    );
  });
  test('error keys (a filter passes errors on): their group is output last, whole, whatever the batches and spills', async () => {
    // The errors' key is error("missing"), out of the input's order: emitted
    // as complete, its group would be split wherever a batch ended.
    const input =
      'error("w") {ts:1} error("x") {ts:2} {ts:2} error("y") {ts:3} error("z") {ts:4} {ts:4}';
    const want = [
      '{ts:1,count:1(uint64)}',
      '{ts:2,count:2(uint64)}',
      '{ts:3,count:1(uint64)}',
      '{ts:4,count:2(uint64)}',
      '{ts:error("missing"),count:4(uint64)}',
    ];
    // Descending input: the same records with keys 5 - ts, output in the same order.
    const flip = (t: string) => t.replace(/ts:(\d)/g, (_, d: string) => `ts:${5 - Number(d)}`);
    for (const dir of [1, -1] as const) {
      const text = dir > 0 ? input : flip(input);
      const expected = dir > 0 ? want : want.map(flip);
      for (const limit of [undefined, 1, 2])
        for (const batch of [1, 2, 3, 100])
          expect([
            dir,
            limit,
            batch,
            await summarize(
              text,
              { keys: [['ts', 'ts']], aggs: [['count', 'count']], inputSortDir: dir, limit },
              {},
              batch,
            ),
          ]).toEqual([dir, limit, batch, expected]);
    }
  });
  test('int8 keys (sorted by value, compared by bytes): no early output, one group per key', async () => {
    // Objects sorted by value merged by bytes (0 < -1 < 1): 0 comes back
    // after 1; emitted early, its group would be split.
    const ctx = newCtx();
    const source = src(ctx, '{x:0(int8)} {x:1(int8)} {x:-1(int8)} {x:0(int8)}', 2);
    const op = new Summarize(
      ctx,
      source,
      opts(ctx, { keys: [['x', 'x']], aggs: [['count', 'count']], inputSortDir: 1 }),
    );
    const first = await op.pull();
    expect(source.consumed).toBe(4);
    expect([...first!, ...(await pullAll(op))].map((v) => formatValue(v))).toEqual([
      '{x:-1(int8),count:1(uint64)}',
      '{x:0(int8),count:2(uint64)}',
      '{x:1(int8),count:1(uint64)}',
    ]);
  });
  test('a key of a second type stops early output: the groups left come out at the end, in key order', async () => {
    // Numbers compare with strings by type name, with one another by value:
    // no order, so 2 may come back after "a".
    const input = '{x:1} {x:2} {x:"a"} {x:3} {x:2}';
    expect(
      await summarize(
        input,
        { keys: [['x', 'x']], aggs: [['count', 'count']], inputSortDir: 1 },
        {},
        2,
      ),
    ).toEqual([
      '{x:1,count:1(uint64)}',
      '{x:2,count:2(uint64)}',
      '{x:3,count:1(uint64)}',
      '{x:"a",count:1(uint64)}',
    ]);
  });
  test('inputOrderCheck false: no early output', async () => {
    const ctx = newCtx();
    const source = src(ctx, '{x:1} {x:2} {x:3} {x:4}', 1);
    let asked = 0;
    const op = new Summarize(ctx, source, {
      ...opts(ctx, { keys: [['x', 'x']], aggs: [['count', 'count']], inputSortDir: -1 }),
      inputOrderCheck: async () => (asked++, false),
    });
    const first = await op.pull();
    expect(source.consumed).toBe(4);
    expect(asked).toBe(1);
    // At the end in the order of a descending sort.
    expect([...first!, ...(await pullAll(op))].map((v) => formatValue(v))).toEqual([
      '{x:4,count:1(uint64)}',
      '{x:3,count:1(uint64)}',
      '{x:2,count:1(uint64)}',
      '{x:1,count:1(uint64)}',
    ]);
  });
  test('inputOrderCheck true: early output as before', async () => {
    const ctx = newCtx();
    const source = src(ctx, '{x:1} {x:2} {x:3} {x:4}', 1);
    const op = new Summarize(ctx, source, {
      ...opts(ctx, { keys: [['x', 'x']], aggs: [['count', 'count']], inputSortDir: 1 }),
      inputOrderCheck: async () => true,
    });
    expect((await op.pull())!.map((v) => formatValue(v))).toEqual(['{x:1,count:1(uint64)}']);
    expect(source.consumed).toBe(2);
    await op.close();
  });
  test('sorted input with spills merges early and at the end', async () => {
    const text = Array.from({ length: 200 }, (_, i) => `{ts:${Math.floor(i / 3)},v:${i}}`).join(
      ' ',
    );
    const spilled = await summarize(
      text,
      { keys: [['ts', 'ts']], aggs: [['sum', 'sum', 'v']], inputSortDir: 1, limit: 4 },
      {},
      7,
    );
    const plain = await summarize(text, { keys: [['ts', 'ts']], aggs: [['sum', 'sum', 'v']] });
    expect(spilled).toEqual(plain);
  });
});

describe('summarize: spilling past the memory limit', () => {
  const input = Array.from(
    { length: 4000 },
    (_, i) => `{k:"key${(i * 7919) % 1500}",n:${i % 11},t:${i % 3 === 0 ? 'null(int64)' : i % 5}}`,
  ).join('\n');
  test('same groups and results as in memory; spilled output sorted by key; files removed', async () => {
    const tmp = spillTmp();
    try {
      const spec: Spec = {
        keys: [
          ['k', 'k'],
          ['t', 't'],
        ],
        aggs: [
          ['c', 'count'],
          ['s', 'sum', 'n'],
        ],
      };
      const mem = await summarize(input, spec, { tmpDir: tmp.dir });
      const ctx = newCtx({ memoryLimit: 20_000, tmpDir: tmp.dir });
      const op = new Summarize(ctx, src(ctx, input, 100), opts(ctx, spec));
      const spilledVals = await pullAll(op);
      expect(op.spilledRuns).toBeGreaterThan(3);
      const spilled = spilledVals.map((v) => formatValue(v));
      expect(spilled.slice().sort()).toEqual(mem.slice().sort());
      expect(new Set(spilled).size).toBe(spilled.length);
      const resorted = await run(
        new Sort(ctx, new TestSource(spilledVals), { keys: [field(ctx, 'k'), field(ctx, 't')] }),
      );
      expect(spilled).toEqual(resorted);
      expect(tmp.leftovers()).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
  test('hundreds of runs merge with a bounded fan-in: few files open, results unchanged', async () => {
    // -limit 1 spills a run per new group: 2000 values of 400 keys make
    // well over 300 runs. collect() checks that merging runs in passes
    // keeps each group's values in input order.
    const many = Array.from({ length: 2000 }, (_, i) => `{k:"key${(i * 7919) % 400}",n:${i}}`).join(
      '\n',
    );
    const spec: Spec = {
      keys: [['k', 'k']],
      aggs: [
        ['c', 'count'],
        ['s', 'sum', 'n'],
        ['all', 'collect', 'n'],
      ],
    };
    const mem = await summarize(many, spec);
    // By default every run is held in memory until 64 of them merge into
    // a file; memoryLimit 2000 holds a few hundred bytes of runs, so most
    // are written out, several at a time.
    for (const memoryLimit of [undefined, 2000]) {
      const tmp = spillTmp();
      try {
        const ctx = newCtx({ tmpDir: tmp.dir, memoryLimit });
        const source = new FdWatchingSource(zson(ctx, many), 10);
        const op = new Summarize(ctx, source, opts(ctx, { ...spec, limit: 1 }));
        const spilled = await source.pullAll(op);
        expect(op.spilledRuns).toBeGreaterThan(300);
        expect(op.compactions).toBeGreaterThanOrEqual(Math.floor(op.spilledRuns / FAN_IN));
        if (memoryLimit !== undefined) expect(op.compactions).toBeGreaterThan(op.spilledRuns / 20);
        expect(source.maxOpened).toBeLessThanOrEqual(FAN_IN + 4);
        expect(spilled.length).toBe(400);
        expect(spilled.slice().sort()).toEqual(mem.slice().sort());
        // Output of a spilled summarize is sorted by key.
        const keys = spilled.map((l) => /k:"key(\d+)"/.exec(l)![1]);
        expect(keys).toEqual(keys.slice().sort());
        expect(tmp.leftovers()).toEqual([]);
      } finally {
        tmp.cleanup();
      }
    }
  });
  test('sorted input spilling a run per row keeps few files open, held in memory or in files', async () => {
    // A group per row (the second key differs) and -limit 1: a run per
    // row, which the merge that began at the first completed groups takes
    // as it spills. Each run once stayed open as a file to the end of the
    // query: a descriptor a row, then EMFILE. With one first key for all
    // rows no group completes before the end, so every run waits.
    const row = (i: number, constant: boolean) =>
      `{k:"n${constant ? 0 : String(Math.floor(i / 3)).padStart(4, '0')}",j:${constant ? i : i % 7}}`;
    const spec: Spec = {
      keys: [
        ['k', 'k'],
        ['j', 'j'],
      ],
      aggs: [['c', 'count']],
      inputSortDir: 1,
    };
    for (const constant of [false, true]) {
      const text = Array.from({ length: 600 }, (_, i) => row(i, constant)).join('\n');
      const mem = await summarize(text, spec);
      // memoryLimit 400 holds at most 100 bytes of runs: about one.
      for (const memoryLimit of [undefined, 400]) {
        const tmp = spillTmp();
        try {
          const ctx = newCtx({ tmpDir: tmp.dir, memoryLimit });
          const source = new FdWatchingSource(zson(ctx, text), 10);
          const op = new Summarize(ctx, source, opts(ctx, { ...spec, limit: 1 }));
          const spilled = await source.pullAll(op);
          expect(op.spilledRuns).toBeGreaterThan(400);
          expect(source.maxOpened).toBeLessThanOrEqual(FAN_IN + 4);
          expect(spilled.slice().sort()).toEqual(mem.slice().sort());
          expect(tmp.leftovers()).toEqual([]);
        } finally {
          tmp.cleanup();
        }
      }
    }
  });
  test('close() mid-stream removes spill files and closes the input', async () => {
    const tmp = spillTmp();
    try {
      const ctx = newCtx({ memoryLimit: 10_000, tmpDir: tmp.dir });
      const source = src(ctx, input, 100);
      const op = new Summarize(
        ctx,
        source,
        opts(ctx, { keys: [['k', 'k']], aggs: [['c', 'count']] }),
      );
      expect(await op.pull()).not.toBeNull();
      expect(tmp.leftovers().length).toBe(1);
      await op.close();
      expect(source.closed).toBe(true);
      expect(tmp.leftovers()).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
  test('past 8192 groups (a batch at a time): counts, sums, null keys and spills mid-batch', async () => {
    // 12,000 keys in a scattered order, plus null keys; expected results
    // computed here, in order of first appearance. The memory limit spills
    // at about 10,000 groups, past the point where batches start.
    const n = 40000;
    const keyOf = (i: number) => (i % 97 === 0 ? null : `q${(i * 7919) % 12000}`);
    const text = Array.from({ length: n }, (_, i) => {
      const k = keyOf(i);
      return `{k:${k === null ? 'null(string)' : `"${k}"`},x:${i % 13}}`;
    }).join(' ');
    const want = new Map<string, { c: number; s: number }>();
    for (let i = 0; i < n; i++) {
      const k = keyOf(i);
      const key = k === null ? 'null(string)' : `"${k}"`;
      const e = want.get(key) ?? { c: 0, s: 0 };
      e.c++;
      e.s += i % 13;
      want.set(key, e);
    }
    const expected = [...want].map(([k, e]) => `{k:${k},c:${e.c}(uint64),s:${e.s}}`);
    const spec: Spec = {
      keys: [['k', 'k']],
      aggs: [
        ['c', 'count'],
        ['s', 'sum', 'x'],
      ],
    };
    const ctx = newCtx();
    const mem = await run(
      new Summarize(ctx, new TestSource(zson(ctx, text), 1000), opts(ctx, spec)),
    );
    expect(mem.length).toBe(12001);
    expect(mem).toEqual(expected);
    const tmp = spillTmp();
    try {
      const sctx = newCtx({ memoryLimit: 2_600_000, tmpDir: tmp.dir });
      const op = new Summarize(sctx, new TestSource(zson(sctx, text), 1000), opts(sctx, spec));
      const spilled = (await pullAll(op)).map((v) => formatValue(v));
      expect(op.spilledRuns).toBeGreaterThan(1);
      expect(spilled.slice().sort()).toEqual(expected.slice().sort());
      expect(tmp.leftovers()).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
  test('count() by a string field over many groups and values', async () => {
    const ctx = newCtx();
    const vals = zson(ctx, Array.from({ length: 20000 }, (_, i) => `{s:"v${i % 2500}"}`).join(' '));
    const out = await pullAll(
      new Summarize(
        ctx,
        new TestSource(vals, 1000),
        opts(ctx, { keys: [['s', 's']], aggs: [['count', 'count']] }),
      ),
    );
    expect(out.length).toBe(2500);
    expect(formatValue(out[0])).toBe('{s:"v0",count:8(uint64)}');
    expect(formatValue(out[2499])).toBe('{s:"v2499",count:8(uint64)}');
  });
});
