import { Combine } from '../../../src/query/runtime/ops/combine';
import { Fork } from '../../../src/query/runtime/ops/fork';
import { Merge } from '../../../src/query/runtime/ops/merge';
import { Sort } from '../../../src/query/runtime/ops/sort';
import { Summarize } from '../../../src/query/runtime/ops/summarize';
import { Aggregator } from '../../../src/query/aggregates';
import { Operator, pullAll } from '../../../src/query/runtime/operator';
import { Value } from '../../../src/zed/value';
import { TypeBool } from '../../../src/zed/types';
import { formatValue } from '../../../src/formats/zson';
import { cmpInt, field, head, newCtx, run, src, TestSource, zson } from './helpers';

function where(parent: Operator, pred: (v: Value) => boolean): Operator {
  return {
    async pull() {
      for (;;) {
        const b = await parent.pull();
        if (b === null) return null;
        const out = b.filter(pred);
        if (out.length > 0) return out;
      }
    },
    close: () => parent.close(),
  };
}

describe('fork and combine', () => {
  test('documented: copy input to two paths and combine', async () => {
    const ctx = newCtx();
    const f = new Fork(ctx, src(ctx, '1 2'), 2);
    const out = await run(
      new Sort(ctx, new Combine(ctx, f.outputs), { keys: [field(ctx, 'this')] }),
    );
    expect(out).toEqual(['1', '1', '2', '2']);
  });
  test('conformance: fork (=> pass => pass) gives each value twice', async () => {
    const ctx = newCtx();
    const f = new Fork(ctx, src(ctx, '{a:1}'), 2);
    expect(await run(new Combine(ctx, f.outputs))).toEqual(['{a:1}', '{a:1}']);
  });
  test('reference ztest: multi-head', async () => {
    const ctx = newCtx();
    const source = src(ctx, '1 2 3 4 5', 1);
    const f = new Fork(ctx, source, 2);
    const out = await run(
      head(new Combine(ctx, [head(f.outputs[0], 1), head(f.outputs[1], 2)]), 1),
    );
    expect(out).toEqual(['1']);
    expect(source.closed).toBe(true);
  });
  test('each leg keeps its order; all values arrive; a blocking leg next to a streaming one', async () => {
    const ctx = newCtx();
    const text = Array.from({ length: 3000 }, (_, i) => `{i:${i}}`).join(' ');
    const f = new Fork(ctx, src(ctx, text, 100), 2);
    const count = new Summarize(ctx, f.outputs[0], {
      keys: [],
      aggs: [{ lhs: ['count'], agg: new Aggregator('count', null) }],
    });
    const out = (await pullAll(new Combine(ctx, [count, f.outputs[1]]))).map((v) => formatValue(v));
    expect(out).toContain('{count:3000(uint64)}');
    const rest = out.filter((s) => s.startsWith('{i:'));
    expect(rest).toEqual(Array.from({ length: 3000 }, (_, i) => `{i:${i}}`));
  });
  test('closing all legs closes the input', async () => {
    const ctx = newCtx();
    const source = src(ctx, '1 2 3', 1);
    const f = new Fork(ctx, source, 2);
    expect((await f.outputs[0].pull())!.length).toBe(1);
    await f.outputs[0].close();
    expect(source.closed).toBe(false);
    await f.outputs[1].close();
    expect(source.closed).toBe(true);
  });
  test('an input error reaches every leg', async () => {
    const ctx = newCtx();
    const bad: Operator = {
      pull: async () => {
        throw new Error('boom');
      },
      close: async () => {},
    };
    const f = new Fork(ctx, bad, 2);
    await expect(f.outputs[0].pull()).rejects.toThrow('boom');
    await expect(f.outputs[1].pull()).rejects.toThrow('boom');
    await expect(run(new Combine(ctx, new Fork(ctx, bad, 2).outputs))).rejects.toThrow('boom');
  });
  test('combine of independent inputs interleaves batches and ends when all end', async () => {
    const ctx = newCtx();
    const a = src(ctx, '1 2 3 4', 2);
    const b = src(ctx, '"a" "b"', 1);
    const out = await run(new Combine(ctx, [a, b]));
    expect(out.slice().sort()).toEqual(['"a"', '"b"', '1', '2', '3', '4']);
    expect(out.filter((s) => !s.startsWith('"'))).toEqual(['1', '2', '3', '4']);
    expect(out.filter((s) => s.startsWith('"'))).toEqual(['"a"', '"b"']);
  });
  test('combine: close() closes every input', async () => {
    const ctx = newCtx();
    const a = src(ctx, '1 2', 1);
    const b = src(ctx, '3 4', 1);
    const c = new Combine(ctx, [a, b]);
    await c.pull();
    await c.close();
    expect(a.closed && b.closed).toBe(true);
    expect(await c.pull()).toBeNull();
  });
});

describe('merge', () => {
  test('documented / reference ztest: fork (=>pass =>pass) | merge this', async () => {
    const ctx = newCtx();
    const f = new Fork(ctx, src(ctx, '1 2'), 2);
    expect(await run(new Merge(ctx, f.outputs, [field(ctx, 'this')]))).toEqual([
      '1',
      '1',
      '2',
      '2',
    ]);
  });
  test('reference ztest: fork-merge', async () => {
    const ctx = newCtx();
    const f = new Fork(ctx, src(ctx, '{x:1} {x:3} {x:2}'), 2);
    const x = field(ctx, 'x');
    const le2 = cmpInt(x, '<=', 2, TypeBool);
    const gt2 = cmpInt(x, '>', 2, TypeBool);
    const isTrue = (e: typeof le2) => (v: Value) => e.eval(v).buf[0] === 1;
    const legs = [where(f.outputs[0], isTrue(le2)), where(f.outputs[1], isTrue(gt2))];
    expect(await run(new Merge(ctx, legs, [x]))).toEqual(['{x:1}', '{x:2}', '{x:3}']);
  });
  test('sorted inputs of many batches; ties by input order; descending (nulls last)', async () => {
    const ctx = newCtx();
    const a = zson(ctx, Array.from({ length: 500 }, (_, i) => `{k:${i * 2},s:"a"}`).join(' '));
    const b = zson(ctx, Array.from({ length: 500 }, (_, i) => `{k:${i * 3},s:"b"}`).join(' '));
    const out = await pullAll(
      new Merge(ctx, [new TestSource(a, 7), new TestSource(b, 13)], [field(ctx, 'k')]),
    );
    const got = out.map((v) => formatValue(v));
    expect(got.length).toBe(1000);
    expect(got.slice(0, 4)).toEqual(['{k:0,s:"a"}', '{k:0,s:"b"}', '{k:2,s:"a"}', '{k:3,s:"b"}']);
    const ks = got.map((s) => Number(/k:(\d+)/.exec(s)![1]));
    expect(ks).toEqual(ks.slice().sort((x, y) => x - y));
    const desc = await run(
      new Merge(
        ctx,
        [src(ctx, '{k:3} {k:1} {k:null(int64)}'), src(ctx, '{k:2} {k:0} {x:1}')],
        [field(ctx, 'k')],
        'desc',
      ),
    );
    expect(desc).toEqual(['{k:3}', '{k:2}', '{k:1}', '{k:0}', '{k:null(int64)}', '{x:1}']);
  });
});
