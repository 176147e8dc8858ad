import { Combine } from '../../../src/query/runtime/ops/combine';
import { ExprSwitch, Switch } from '../../../src/query/runtime/ops/switch';
import { Sort } from '../../../src/query/runtime/ops/sort';
import { Summarize } from '../../../src/query/runtime/ops/summarize';
import { Aggregator } from '../../../src/query/aggregates';
import { Literal } from '../../../src/query/expr/literal';
import { TRUE } from '../../../src/query/expr/expr';
import { Operator } from '../../../src/query/runtime/operator';
import { TypeBool } from '../../../src/zed/types';
import { formatValue } from '../../../src/formats/zson';
import { cmpInt, field, fn, newCtx, run, src, zson } from './helpers';
import { QueryContext } from '../../../src/query/runtime/context';

/** put v:=<string> as a test stand-in (through ZSON text: small test data). */
function putV(ctx: QueryContext, parent: Operator, s: string): Operator {
  return {
    async pull() {
      const b = await parent.pull();
      if (b === null) return null;
      return b.map((v) => zson(ctx, formatValue(v).slice(0, -1) + `,v:"${s}"}`)[0]);
    },
    close: () => parent.close(),
  };
}

function drop(parent: Operator): Operator {
  return {
    async pull() {
      while ((await parent.pull()) !== null);
      return null;
    },
    close: () => parent.close(),
  };
}

function countThenA(ctx: QueryContext, parent: Operator): Operator {
  const s = new Summarize(ctx, parent, {
    keys: [],
    aggs: [{ lhs: ['count'], agg: new Aggregator('count', null) }],
  });
  return {
    async pull() {
      const b = await s.pull();
      if (b === null) return null;
      return b.map((v) => zson(ctx, `{count:${v.buf[v.off + 1]}(uint64),a:-1}`)[0]);
    },
    close: () => s.close(),
  };
}

describe('switch (case expressions)', () => {
  const input = '{a:1,s:"a"} {a:2,s:"B"} {a:3,s:"c"} {a:4,s:"c"}';
  test('reference ztest: switch-default (default as a true case)', async () => {
    const ctx = newCtx();
    const a = field(ctx, 'a');
    const sw = new Switch(ctx, src(ctx, input), [
      cmpInt(a, '==', 2, TypeBool),
      cmpInt(a, '==', 1, TypeBool),
      cmpInt(a, '==', 3, TypeBool),
      new Literal(TRUE),
    ]);
    const [two, one, three, dflt] = sw.outputs;
    const legs = [putV(ctx, two, 'two'), putV(ctx, one, 'one'), drop(three), countThenA(ctx, dflt)];
    expect(await run(new Sort(ctx, new Combine(ctx, legs), { keys: [a] }))).toEqual([
      '{count:1(uint64),a:-1}',
      '{a:1,s:"a",v:"one"}',
      '{a:2,s:"B",v:"two"}',
    ]);
  });
  test('first matching case wins; no match drops the value', async () => {
    const ctx = newCtx();
    const a = field(ctx, 'a');
    const sw = new Switch(ctx, src(ctx, input), [
      cmpInt(a, '<=', 2, TypeBool),
      cmpInt(a, '<=', 3, TypeBool),
    ]);
    expect(await run(sw.outputs[0])).toEqual(['{a:1,s:"a"}', '{a:2,s:"B"}']);
    expect(await run(sw.outputs[1])).toEqual(['{a:3,s:"c"}']);
  });
  test('reference ztest: switch-error (an error case emits the error, later cases still apply)', async () => {
    const ctx = newCtx();
    const a = field(ctx, 'a');
    const divZero = fn(() => ctx.zctx.newError('divide by zero'));
    const sw = new Switch(ctx, src(ctx, '{a:1,s:"a"} {a:2,s:"b"}'), [
      cmpInt(a, '==', 1, TypeBool),
      divZero,
    ]);
    const out = await run(new Combine(ctx, [putV(ctx, sw.outputs[0], 'one'), sw.outputs[1]]));
    // {a:1} stops at the first case; {a:2} reaches the erring one.
    expect(out.slice().sort()).toEqual(['error("divide by zero")', '{a:1,s:"a",v:"one"}']);
  });
  test('a missing case result moves on to the next case', async () => {
    const ctx = newCtx();
    const sw = new Switch(ctx, src(ctx, '{a:1} {b:true} {b:1}'), [
      field(ctx, 'b'),
      new Literal(TRUE),
    ]);
    expect(await run(sw.outputs[0])).toEqual(['{b:true}']);
    // A non-bool (1) is not true either.
    expect(await run(sw.outputs[1])).toEqual(['{a:1}', '{b:1}']);
  });
});

describe('switch <expr> (constant cases)', () => {
  test('documented: switch this ( case 1 => ... default => ... )', async () => {
    const ctx = newCtx();
    const one = zson(ctx, '1')[0];
    const sw = new ExprSwitch(ctx, src(ctx, '1 2 3 4'), field(ctx, 'this'), [one, null]);
    expect(await run(sw.outputs[0])).toEqual(['1']);
    expect(await run(sw.outputs[1])).toEqual(['2', '3', '4']);
  });
  test('reference ztest: switch (no default drops unmatched; bytes compare across types)', async () => {
    const ctx = newCtx();
    const [c2, c1, c3] = zson(ctx, '2 1 3');
    const sw = new ExprSwitch(
      ctx,
      src(ctx, '{a:1(int32),s:"a"} {a:2(int32),s:"B"} {a:3(int32),s:"c"} {a:4(int32),s:"c"}'),
      field(ctx, 'a'),
      [c2, c1, c3],
    );
    const [two, one, three] = sw.outputs;
    const out = await run(
      new Sort(ctx, new Combine(ctx, [putV(ctx, two, 'two'), putV(ctx, one, 'one'), drop(three)]), {
        keys: [field(ctx, 'a')],
      }),
    );
    expect(out).toEqual(['{a:1(int32),s:"a",v:"one"}', '{a:2(int32),s:"B",v:"two"}']);
  });
  test('missing values are dropped even with a default; null matches a case with an empty body', async () => {
    const ctx = newCtx();
    const [zero] = zson(ctx, '0');
    const sw = new ExprSwitch(ctx, src(ctx, '{a:0} {a:null(int64)} {b:1} {a:5}'), field(ctx, 'a'), [
      zero,
      null,
    ]);
    expect(await run(sw.outputs[0])).toEqual(['{a:0}', '{a:null(int64)}']);
    expect(await run(sw.outputs[1])).toEqual(['{a:5}']);
  });
  test('a leg that stops early (head) does not stop the others', async () => {
    const ctx = newCtx();
    const [one, two] = zson(ctx, '1 2');
    const sw = new ExprSwitch(
      ctx,
      src(ctx, '{a:1,b:1} {a:2,b:2} {a:3,b:3} {a:1,b:4} {a:2,b:5} {a:3,b:6}', 1),
      field(ctx, 'a'),
      [one, two, null],
    );
    const first = await sw.outputs[0].pull();
    await sw.outputs[0].close();
    expect(first!.length).toBe(1);
    const rest = await run(new Combine(ctx, [sw.outputs[1], sw.outputs[2]]));
    expect(rest.slice().sort()).toEqual(['{a:2,b:2}', '{a:2,b:5}', '{a:3,b:3}', '{a:3,b:6}']);
  });
});
