// TopN (`sort keys | head N` in one operator) against the sort and head it
// stands for: the same values in the same order, for any keys, including
// those that make it start over on the full sort.

import fc from 'fast-check';
import { Head } from '../../../src/query/runtime/ops/head';
import { Sort } from '../../../src/query/runtime/ops/sort';
import { TopN, topNBuffer } from '../../../src/query/runtime/ops/topn';
import { formatValue } from '../../../src/formats/zson';
import { Operator, pullAll } from '../../../src/query/runtime/operator';
import { QueryContext } from '../../../src/query/runtime/context';
import { field, newCtx, run, TestSource, zson } from './helpers';

interface Case {
  input: string;
  keys: string[];
  count: number;
  reverse?: boolean;
  nullsFirst?: boolean;
  batch?: number;
  memoryLimit?: number;
}

/** The answers of sort | head and of TopN, and the TopN and its first input. */
async function both(c: Case) {
  const ctx = newCtx(c.memoryLimit === undefined ? {} : { memoryLimit: c.memoryLimit });
  const vals = zson(ctx, c.input);
  const opts = { reverse: !!c.reverse, nullsFirst: !!c.nullsFirst };
  const keys = () => c.keys.map((k) => field(ctx, k));
  const sorted = await run(
    new Head(new Sort(newCtx(), new TestSource(vals, c.batch), { keys: keys(), ...opts }), c.count),
  );
  const first = new TestSource(vals, c.batch);
  let again: TestSource | null = null;
  const top = new TopN(ctx, first, { keys: keys(), ...opts, count: c.count }, () => {
    again = new TestSource(vals, c.batch);
    return new Sort(ctx, again, { keys: keys(), ...opts });
  });
  const got = await run(new Head(top, c.count));
  return { sorted, got, top, first, again: again as TestSource | null };
}

/** A TopN of the first count values of input by k, ascending. */
function topByK(
  ctx: QueryContext,
  input: Operator,
  count: number,
  startOver: () => Operator = () => {
    throw new Error('not started over');
  },
): TopN {
  const keys = [field(ctx, 'k')];
  return new TopN(ctx, input, { keys, reverse: false, nullsFirst: false, count }, startOver);
}

describe('TopN', () => {
  test('the first N of the sort, ties in input order, without starting over', async () => {
    const input = Array.from({ length: 5000 }, (_, i) => `{k:${(i * 7919) % 1000},i:${i}}`).join(
      '',
    );
    for (const reverse of [false, true]) {
      const r = await both({ input, keys: ['k'], count: 5, reverse, batch: 100 });
      expect(r.got).toEqual(r.sorted);
      expect(r.got).toHaveLength(5);
      expect(r.top.restarts).toBe(0);
      expect(r.first.consumed).toBe(5000);
    }
  });

  test('an input in the reverse of the sort is read a batch at a time from its end', async () => {
    // Ascending keys with ties, a second key against them, sorted descending.
    const input = Array.from(
      { length: 20000 },
      (_, i) => `{k:${i >> 2},j:${(i * 7) % 5},s:"${String(i >> 3).padStart(6, '0')}"}`,
    ).join('');
    for (const [keys, count] of [
      [['k'], 5],
      [['k', 'j'], 7],
      [['s'], 64],
      [['s', 'k'], 1],
      [['k'], 99],
      [['s'], 128],
    ] as [string[], number][]) {
      // Batches of at least 8N are read from their end.
      const batch = Math.max(100, 8 * count);
      const r = await both({ input, keys, count, reverse: true, batch });
      expect(r.got).toEqual(r.sorted);
      expect(r.top.restarts).toBe(0);
      // Most batches after the first cut (of a buffer of 4096 values).
      expect(r.top.fromEndBatches).toBeGreaterThan((0.8 * (20000 - 4096)) / batch);
    }
    // A rising input with jitter: the best of a batch are not at its very end.
    const jitter = Array.from(
      { length: 20000 },
      (_, i) => `{k:${(i >> 3) + ((i * 7919) % 29)}}`,
    ).join('');
    for (const count of [1, 3, 10, 64, 100]) {
      const batch = Math.max(200, 8 * count);
      const r = await both({ input: jitter, keys: ['k'], count, reverse: true, batch });
      expect(r.got).toEqual(r.sorted);
      expect(r.top.fromEndBatches).toBeGreaterThan((0.6 * (20000 - 4096)) / batch);
    }
    // Batches that fall while each rises (a sawtooth): every key of a
    // batch read from its end goes first among the batch's best.
    const saw = Array.from(
      { length: 20000 },
      (_, i) => `{k:${20000 - (i >> 8) * 256 + (i & 255)}}`,
    );
    for (const count of [1, 10, 64, 200]) {
      const r = await both({ input: saw.join(''), keys: ['k'], count, reverse: true, batch: 256 });
      expect(r.got).toEqual(r.sorted);
      const up = await both({ input: saw.join(''), keys: ['k'], count, batch: 256 });
      expect(up.got).toEqual(up.sorted);
    }
    // Batches shorter than 8N, or N past FROM_END_MAX (128), are read
    // from their start.
    for (const [count, batch] of [
      [100, 799],
      [129, 2000],
      [4097, 10000],
    ]) {
      const r = await both({ input, keys: ['k'], count, reverse: true, batch });
      expect(r.got).toEqual(r.sorted);
      expect(r.top.fromEndBatches).toBe(0);
    }
  });

  test('nulls and missing keys go last, or first with -nulls first', async () => {
    const input = '{k:3}{x:1}{k:null}{k:1}{k:2}{k:null(int64)}{k:0}';
    for (const nullsFirst of [false, true])
      for (const reverse of [false, true]) {
        const r = await both({ input, keys: ['k'], count: 3, reverse, nullsFirst, batch: 2 });
        expect(r.got).toEqual(r.sorted);
        expect(r.top.restarts).toBe(0);
      }
    const r = await both({ input, keys: ['k'], count: 3, nullsFirst: true });
    expect(r.got).toEqual(['{x:1}', '{k:null}', '{k:null(int64)}']);
  });

  test('a second key orders ties of the first', async () => {
    const input = Array.from({ length: 3000 }, (_, i) => `{a:${i % 3},b:"${(i * 31) % 97}"}`).join(
      '',
    );
    const r = await both({ input, keys: ['a', 'b'], count: 10, batch: 64 });
    expect(r.got).toEqual(r.sorted);
    expect(r.top.restarts).toBe(0);
  });

  test('keys that break the total order start over on the full sort, of a new input', async () => {
    const ints = Array.from({ length: 6000 }, (_, i) => `{k:${6000 - i}}`).join('');
    for (const late of ['{k:NaN}', '{k:"s"}', '{k:1(int8)}', '{k:-1(int8)}']) {
      const r = await both({ input: ints + late + ints, keys: ['k'], count: 4, batch: 500 });
      expect(r.got).toEqual(r.sorted);
      expect(r.top.restarts).toBe(1);
      expect(r.first.closed).toBe(true);
      expect(r.again!.consumed).toBe(12001);
    }
  });

  test('a held buffer past half the memory limit starts over (the sort would spill)', async () => {
    const input = Array.from({ length: 400 }, (_, i) => `{k:${i % 50},s:"${'x'.repeat(40)}"}`).join(
      '',
    );
    const r = await both({ input, keys: ['k'], count: 300, memoryLimit: 20000, batch: 50 });
    expect(r.got).toEqual(r.sorted);
    expect(r.top.restarts).toBe(1);
  });

  test('an empty input and a head past the input', async () => {
    expect((await both({ input: '', keys: ['k'], count: 3 })).got).toEqual([]);
    const r = await both({ input: '{k:2}{k:1}', keys: ['k'], count: 10 });
    expect(r.got).toEqual(['{k:1}', '{k:2}']);
  });

  test('integers past 2^53 beside floats (no total order) start over', async () => {
    const saved = topNBuffer.min;
    topNBuffer.min = 1;
    try {
      for (const input of [
        '{k:9007199254740993}{k:9007199254740992.}{k:9007199254740992}',
        '{k:18446744073709551615(uint64)}{k:1.8446744073709552e19}{k:18446744073709551614(uint64)}',
        '{k:2024-01-01T00:00:00.000000001Z}{k:1.7040672e18}{k:2024-01-01T00:00:00Z}',
      ]) {
        const r = await both({ input, keys: ['k'], count: 1, batch: 1 });
        expect(r.got).toEqual(r.sorted);
        expect(r.top.restarts).toBe(1);
      }
    } finally {
      topNBuffer.min = saved;
    }
  });

  test('the values it keeps are copies, not views of the input frames', async () => {
    const ctx = newCtx();
    const vals = zson(ctx, Array.from({ length: 100 }, (_, i) => `{k:${i % 7}}`).join(''));
    const frames = new Set(vals.map((v) => v.buf));
    const top = topByK(ctx, new TestSource(vals, 10), 3);
    const out = (await pullAll(top)).flat();
    expect(out.map((v) => formatValue(v))).toEqual(['{k:0}', '{k:0}', '{k:0}']);
    for (const v of out) expect(frames.has(v.buf)).toBe(false);
  });

  test('close while it starts over: the input closed once, the full sort never built', async () => {
    const ctx = newCtx();
    const vals = zson(ctx, '{k:1}{k:NaN}{k:2}');
    let closes = 0;
    let release!: () => void;
    const slow = new TestSource(vals);
    slow.close = () => {
      closes++;
      return new Promise<void>((r) => (release = r));
    };
    let built = 0;
    const top = topByK(ctx, slow, 1, () => {
      built++;
      return new TestSource(vals);
    });
    const pulled = top.pull();
    await new Promise((r) => setImmediate(r));
    const closed = top.close();
    release();
    await closed;
    expect(await pulled).toBeNull();
    expect(closes).toBe(1);
    expect(built).toBe(0);
  });

  test('a start over that fails: the error, and the input closed once', async () => {
    const ctx = newCtx();
    let closes = 0;
    const first = new TestSource(zson(ctx, '{k:1}{k:"s"}'));
    first.close = async () => {
      closes++;
    };
    const top = topByK(ctx, first, 1, () => {
      throw new Error('no second input');
    });
    await expect(top.pull()).rejects.toThrow('no second input');
    expect(closes).toBe(1);
  });

  test('close before the end closes the input once', async () => {
    const ctx = newCtx();
    const first = new TestSource(zson(ctx, '{k:2}{k:1}'));
    const top = topByK(ctx, first, 1);
    let closes = 0;
    const close = first.close.bind(first);
    first.close = () => {
      closes++;
      return close();
    };
    await top.close();
    await top.close();
    expect(closes).toBe(1);
    expect(await top.pull()).toBeNull();
  });

  test.each([4096, 1, 16])(
    'random keys: the same as sort | head (cuts from %i held)',
    async (min) => {
      const saved = topNBuffer.min;
      topNBuffer.min = min;
      try {
        await randomKeys();
      } finally {
        topNBuffer.min = saved;
      }
    },
  );
});

async function randomKeys(): Promise<void> {
  {
    const scalar = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: -20, max: 20 }).map(String) },
      {
        weight: 2,
        arbitrary: fc.double({ min: -5, max: 5, noNaN: true }).map((f) => f.toExponential()),
      },
      { weight: 2, arbitrary: fc.constantFrom('"a"', '"b"', '"ab"', '""', '"B"') },
      {
        weight: 1,
        arbitrary: fc.constantFrom('null', 'null(int64)', '-0.', '+Inf', '1s', '3(uint8)'),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'NaN',
          '1(int8)',
          '9223372036854775807',
          '18446744073709551615(uint64)',
        ),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '2024-01-01T00:00:00Z',
          '10.0.0.1',
          '[1]',
          '{x:1}',
          'error("boom")',
        ),
      },
    );
    const rec = fc
      .tuple(fc.option(scalar, { nil: undefined }), fc.option(scalar, { nil: undefined }))
      .map(([a, b]) => {
        const f = [a === undefined ? '' : `a:${a}`, b === undefined ? '' : `b:${b}`].filter(
          (x) => x,
        );
        return `{${f.join(',')}}`;
      });
    // Runs of one kind of key, so that many inputs keep a total order.
    const input = fc.oneof(
      // Keys in order, which a descending sort reads from the end.
      fc
        .tuple(
          fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 4 })), {
            minLength: 50,
            maxLength: 3000,
            size: 'medium',
          }),
          fc.boolean(),
        )
        .map(([steps, str]) => {
          let a = 0;
          return steps.map(([d, b]) => {
            a += d;
            // Now and then a key of another kind in the rising run.
            if (b === 4 && d === 3) return `{b:${b}}`;
            if (b === 4 && d === 2) return `{a:null,b:${b}}`;
            if (b === 4 && d === 1) return `{a:${str ? 'null(string)' : `${a}.5`},b:${b}}`;
            return `{a:${str ? `"${String(a).padStart(5, '0')}"` : a},b:${b}}`;
          });
        }),
      fc.array(rec, { maxLength: 300, size: 'medium' }),
      fc.array(
        fc
          .tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 0, max: 5 }))
          .map(([a, b]) => `{a:${a},b:${b}}`),
        { minLength: 50, maxLength: 3000, size: 'medium' },
      ),
      // Integers past 2^53 beside floats near them: no total order.
      fc.array(
        fc
          .constantFrom(
            '9007199254740993',
            '9007199254740992.',
            '9007199254740992',
            '9007199254740994',
            '9007199254740991',
            '1.',
            '5',
          )
          .map((k) => `{a:${k}}`),
        { minLength: 5, maxLength: 200 },
      ),
      fc.array(
        fc.constantFrom('"x"', '"y"', '"xy"', 'null(string)').map((s) => `{a:${s}}`),
        { minLength: 50, maxLength: 2000, size: 'medium' },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        input,
        fc.constantFrom(['a'], ['b'], ['a', 'b']),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 200 }),
        async (recs, keys, count, reverse, nullsFirst, batch) => {
          const r = await both({
            input: recs.join(''),
            keys: [...keys],
            count,
            reverse,
            nullsFirst,
            batch,
          });
          expect(r.got).toEqual(r.sorted);
        },
      ),
      { numRuns: 300 },
    );
  }
}
