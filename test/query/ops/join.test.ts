import { Join, JoinStyle } from '../../../src/query/runtime/ops/join';
import { Fork } from '../../../src/query/runtime/ops/fork';
import { Sort } from '../../../src/query/runtime/ops/sort';
import { Expr } from '../../../src/query/expr/expr';
import { isMissing } from '../../../src/query/expr/errors';
import { QueryContext } from '../../../src/query/runtime/context';
import { field, fn, lines, newCtx, run, src } from './helpers';

function join(
  ctx: QueryContext,
  left: string,
  right: string,
  style: JoinStyle,
  lk: string,
  rk: string,
  assignments: [string, Expr | string][] = [],
) {
  return new Join(ctx, src(ctx, left, 3), src(ctx, right, 2), {
    style,
    leftKey: field(ctx, lk),
    rightKey: field(ctx, rk),
    assignments: assignments.map(([lhs, rhs]) => ({
      lhs: lhs.split('.'),
      rhs: typeof rhs === 'string' ? field(ctx, rhs) : rhs,
    })),
  });
}

const A = `{a:10,sa:"a0"} {a:15,sa:"a8"} {a:20,sa:"a1"} {a:25,sa:"a7"} {a:30,sa:"a2"} {a:35,sa:"a6"} {a:40,sa:"a3"}
  {a:45,sa:"a5"} {a:50,sa:"a4"} {anti_a:"Anti join output must not contain this record."}`;
const B = '{b:20,sb:"b20.1"} {b:20,sb:"b20.2"} {b:40,sb:"b40"} {b:40,sb:"b40.2"} {b:60,sb:"b60"}';
const C =
  '{c:15,sc:"c8"} {c:20,sc:"c1"} {c:25,sc:"c7"} {c:30,sc:"c2"} {c:35,sc:"c6"} {c:40,sc:"c3"}';

describe('join: reference ztest kinds', () => {
  test('anti', async () => {
    const ctx = newCtx();
    expect(await run(join(ctx, A, B, 'anti', 'a', 'b'))).toEqual(
      lines(`{a:10,sa:"a0"}
      {a:15,sa:"a8"}
      {a:25,sa:"a7"}
      {a:30,sa:"a2"}
      {a:35,sa:"a6"}
      {a:45,sa:"a5"}
      {a:50,sa:"a4"}`),
    );
  });
  test('left', async () => {
    const ctx = newCtx();
    expect(await run(join(ctx, A, B, 'left', 'a', 'b', [['hit', 'sb']]))).toEqual(
      lines(`{a:10,sa:"a0"}
      {a:15,sa:"a8"}
      {a:20,sa:"a1",hit:"b20.1"}
      {a:20,sa:"a1",hit:"b20.2"}
      {a:25,sa:"a7"}
      {a:30,sa:"a2"}
      {a:35,sa:"a6"}
      {a:40,sa:"a3",hit:"b40"}
      {a:40,sa:"a3",hit:"b40.2"}
      {a:45,sa:"a5"}
      {a:50,sa:"a4"}`),
    );
  });
  test('inner', async () => {
    const ctx = newCtx();
    expect(await run(join(ctx, A, B, 'inner', 'a', 'b', [['hit', 'sb']]))).toEqual(
      lines(`{a:20,sa:"a1",hit:"b20.1"}
      {a:20,sa:"a1",hit:"b20.2"}
      {a:40,sa:"a3",hit:"b40"}
      {a:40,sa:"a3",hit:"b40.2"}`),
    );
  });
  test('right (inputs and keys swapped)', async () => {
    const ctx = newCtx();
    expect(await run(join(ctx, B, C, 'right', 'b', 'c', [['hit', 'sb']]))).toEqual(
      lines(`{c:15,sc:"c8"}
      {c:20,sc:"c1",hit:"b20.1"}
      {c:20,sc:"c1",hit:"b20.2"}
      {c:25,sc:"c7"}
      {c:30,sc:"c2"}
      {c:35,sc:"c6"}
      {c:40,sc:"c3",hit:"b40"}
      {c:40,sc:"c3",hit:"b40.2"}`),
    );
  });
});

describe('join: other reference ztests', () => {
  test('cut-like: quiet fields are left out', async () => {
    const ctx = newCtx();
    const people = `{name:"jessie",age:30,likes:"plain"} {name:"quinn",age:14,likes:"sweet"}
      {name:"morgan",age:61,likes:"tart"} {name:"chris",age:47,likes:"tart"}`;
    const fruit = `{name:"figs",color:"brown",flavor:"plain"} {name:"avocado",color:"green",flavor:"savory"}
      {name:"banana",color:"yellow",flavor:"sweet"} {name:"strawberry",color:"red",flavor:"sweet"}
      {name:"dates",color:"brown",flavor:"sweet",note:"in season"} {name:"apple",color:"red",flavor:"tart"}`;
    const note = field(ctx, 'note');
    const quietNote = fn((v) => {
      const r = note.eval(v);
      return isMissing(r) ? ctx.zctx.quiet() : r;
    });
    const op = join(ctx, people, fruit, 'left', 'likes', 'flavor', [
      ['fruit', 'name'],
      ['note', quietNote],
    ]);
    expect(await run(op)).toEqual(
      lines(`{name:"jessie",age:30,likes:"plain",fruit:"figs"}
      {name:"quinn",age:14,likes:"sweet",fruit:"banana"}
      {name:"quinn",age:14,likes:"sweet",fruit:"strawberry"}
      {name:"quinn",age:14,likes:"sweet",fruit:"dates",note:"in season"}
      {name:"morgan",age:61,likes:"tart",fruit:"apple"}
      {name:"chris",age:47,likes:"tart",fruit:"apple"}`),
    );
  });
  test('empty-inner: right keys all missing', async () => {
    const ctx = newCtx();
    const a =
      '{a:10(int32),sa:"a0"} {a:20(int32),sa:"a1"} {a:30(int32),sa:"a2"} {a:40(int32),sa:"a3"}';
    const c = '{c:20(int32),sc:"b20"} {c:20(int32),sc:"b20v2"} {c:40(int32),sc:"b40"}';
    expect(await run(join(ctx, a, c, 'left', 'a', 'b', [['hit', 'sc']]))).toEqual(
      lines(a.replace(/} /g, '}\n')),
    );
  });
  test('expr: one key expression for both sides, unsorted left', async () => {
    const ctx = newCtx();
    const a = '{a:1(int32),s:"a"} {a:2(int32),s:"B"} {a:3(int32),s:"c"}';
    const b = '{b:4(int32),s:"A"} {b:5(int32),s:"b"} {b:6(int32),s:"c"}';
    const s = field(ctx, 's');
    const op = new Join(ctx, src(ctx, a), src(ctx, b), {
      style: 'left',
      leftKey: s,
      rightKey: s,
      assignments: [{ lhs: ['b'], rhs: field(ctx, 'b') }],
    });
    expect(await run(op)).toEqual([
      '{a:1(int32),s:"a"}',
      '{a:2(int32),s:"B"}',
      '{a:3(int32),s:"c",b:6(int32)}',
    ]);
    // `left join on s` without fields: left records pass unchanged.
    const plain = new Join(ctx, src(ctx, a), src(ctx, b), {
      style: 'left',
      leftKey: s,
      rightKey: s,
      assignments: [],
    });
    expect(await run(plain)).toEqual(lines(a.replace(/} /g, '}\n')));
  });
  test('first key null / zero, both sides from one fork', async () => {
    for (const input of ['{a:null(int64)}', '{a:0}']) {
      const ctx = newCtx();
      const f = new Fork(ctx, src(ctx, input), 2);
      const op = new Join(ctx, f.outputs[0], f.outputs[1], {
        style: 'inner',
        leftKey: field(ctx, 'a'),
        rightKey: field(ctx, 'a'),
        assignments: [],
      });
      expect(await run(op)).toEqual([input]);
    }
  });
  test('join-union: union-typed left records come out as plain records', async () => {
    const ctx = newCtx();
    const a =
      '{a:1}(({a:int64},{a:string})) {a:2}(({a:int64},{a:string})) {a:"bar"}(({a:int64},{a:string}))';
    expect(await run(join(ctx, a, '{b:1} {b:3} {b:"bar"}', 'inner', 'a', 'b'))).toEqual([
      '{a:1}',
      '{a:"bar"}',
    ]);
  });
  test('subquery: inner join as a filter', async () => {
    const ctx = newCtx();
    expect(
      await run(join(ctx, '{a:1} {a:2} {a:3}', '{b:1} {b:3} {b:4}', 'inner', 'a', 'b')),
    ).toEqual(['{a:1}', '{a:3}']);
  });
});

describe('join: edges', () => {
  test('field name clashes get _2, _3 suffixes; nested fields', async () => {
    const ctx = newCtx();
    const op = join(ctx, '{k:1,x:1,x_2:5}', '{k:1,x:2,y:3}', 'inner', 'k', 'k', [
      ['x', 'x'],
      ['r.y', 'y'],
    ]);
    expect(await run(op)).toEqual(['{k:1,x:1,x_2:5,x_3:2,r:{y:3}}']);
  });
  test('numeric keys of different types match', async () => {
    const ctx = newCtx();
    expect(
      await run(
        join(ctx, '{k:1} {k:2}', '{j:1.,v:"x"} {j:2(uint8),v:"y"}', 'inner', 'k', 'j', [
          ['v', 'v'],
        ]),
      ),
    ).toEqual(['{k:1,v:"x"}', '{k:2,v:"y"}']);
  });
  test('many matches across batches on both sides; left keys repeat', async () => {
    const ctx = newCtx();
    const left = Array.from({ length: 50 }, (_, i) => `{k:${Math.floor(i / 5)},i:${i}}`).join(' ');
    const right = Array.from({ length: 30 }, (_, i) => `{k:${Math.floor(i / 3) * 2},j:${i}}`).join(
      ' ',
    );
    const out = await run(join(ctx, left, right, 'inner', 'k', 'k', [['j', 'j']]));
    // Even keys 0..8 match: 5 left x 3 right each.
    expect(out.length).toBe(5 * 5 * 3);
    expect(out[0]).toBe('{k:0,i:0,j:0}');
    expect(out[3]).toBe('{k:0,i:1,j:0}');
  });
  test('close() closes both inputs', async () => {
    const ctx = newCtx();
    const l = src(ctx, '{a:1} {a:2}', 1);
    const r = src(ctx, '{a:1}', 1);
    const op = new Join(ctx, l, r, {
      style: 'inner',
      leftKey: field(ctx, 'a'),
      rightKey: field(ctx, 'a'),
      assignments: [],
    });
    await op.pull();
    await op.close();
    expect(l.closed && r.closed).toBe(true);
  });
  test('non-record left values are an error', async () => {
    const ctx = newCtx();
    const op = new Join(ctx, src(ctx, '1'), src(ctx, '1'), {
      style: 'inner',
      leftKey: field(ctx, 'this'),
      rightKey: field(ctx, 'this'),
      assignments: [],
    });
    await expect(run(op)).rejects.toThrow('join: left value is not a record');
  });
  test('sorted through sort operators, as the docs recommend', async () => {
    const ctx = newCtx();
    const left = new Sort(ctx, src(ctx, '{k:3} {k:1} {k:2}'), { keys: [field(ctx, 'k')] });
    const right = new Sort(ctx, src(ctx, '{k:2,v:"b"} {k:1,v:"a"}'), { keys: [field(ctx, 'k')] });
    const op = new Join(ctx, left, right, {
      style: 'left',
      leftKey: field(ctx, 'k'),
      rightKey: field(ctx, 'k'),
      assignments: [{ lhs: ['v'], rhs: field(ctx, 'v') }],
    });
    expect(await run(op)).toEqual(['{k:1,v:"a"}', '{k:2,v:"b"}', '{k:3}']);
  });
});
