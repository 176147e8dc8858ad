// Every operator of this set honours close() (closing its inputs) and the
// query's cancellation (a pull after cancel() fails with QueryCancelled).

import { Aggregator } from '../../../src/query/aggregates';
import { Frame } from '../../../src/query/expr/vars';
import { QueryCancelled, QueryContext } from '../../../src/query/runtime/context';
import { Operator } from '../../../src/query/runtime/operator';
import { Combine } from '../../../src/query/runtime/ops/combine';
import { Explode } from '../../../src/query/runtime/ops/explode';
import { Fork } from '../../../src/query/runtime/ops/fork';
import { Fuse } from '../../../src/query/runtime/ops/fuse';
import { Join } from '../../../src/query/runtime/ops/join';
import { Merge } from '../../../src/query/runtime/ops/merge';
import { Over } from '../../../src/query/runtime/ops/over';
import { Sample } from '../../../src/query/runtime/ops/sample';
import { Shape } from '../../../src/query/runtime/ops/shape';
import { Sort } from '../../../src/query/runtime/ops/sort';
import { Summarize } from '../../../src/query/runtime/ops/summarize';
import { ExprSwitch, Switch } from '../../../src/query/runtime/ops/switch';
import { Top } from '../../../src/query/runtime/ops/top';
import { Uniq } from '../../../src/query/runtime/ops/uniq';
import { Literal } from '../../../src/query/expr/literal';
import { TRUE } from '../../../src/query/expr/expr';
import { TypeInt64 } from '../../../src/zed/types';
import { field, newCtx, src, TestSource } from './helpers';

const input = Array.from({ length: 50 }, (_, i) => `{x:${i % 7},a:[${i},${i + 1}]}`).join(' ');

type Make = (ctx: QueryContext, sources: () => TestSource) => Operator;

const ops: [string, Make][] = [
  ['sort', (c, s) => new Sort(c, s(), { keys: [field(c, 'x')] })],
  [
    'summarize',
    (c, s) =>
      new Summarize(c, s(), {
        keys: [{ lhs: ['x'], expr: field(c, 'x') }],
        aggs: [{ lhs: ['count'], agg: new Aggregator('count', null) }],
      }),
  ],
  ['top', (c, s) => new Top(c, s(), { keys: [field(c, 'x')], limit: 3 })],
  ['uniq', (c, s) => new Uniq(c, s(), true)],
  ['explode', (c, s) => new Explode(c, s(), [field(c, 'a')], TypeInt64, 'value')],
  ['fuse', (c, s) => new Fuse(c, s())],
  ['shape', (c, s) => new Shape(c, s())],
  ['sample', (c, s) => new Sample(c, s(), field(c, 'x'))],
  ['over', (c, s) => new Over(c, s(), { exprs: [field(c, 'a')] })],
  [
    'over (lateral)',
    (c, s) =>
      new Over(c, s(), {
        exprs: [field(c, 'a')],
        scope: {
          frame: new Frame(),
          locals: [],
          body: (b) => new Sort(c, b, { keys: [field(c, 'this')] }),
        },
      }),
  ],
  ['fork+combine', (c, s) => new Combine(c, new Fork(c, s(), 2).outputs)],
  ['switch+combine', (c, s) => new Combine(c, new Switch(c, s(), [new Literal(TRUE)]).outputs)],
  [
    'exprswitch+combine',
    (c, s) => new Combine(c, new ExprSwitch(c, s(), field(c, 'x'), [null]).outputs),
  ],
  ['combine', (c, s) => new Combine(c, [s(), s()])],
  ['merge', (c, s) => new Merge(c, [s(), s()], [field(c, 'x')])],
  [
    'join',
    (c, s) =>
      new Join(c, s(), s(), {
        style: 'left',
        leftKey: field(c, 'x'),
        rightKey: field(c, 'x'),
        assignments: [],
      }),
  ],
];

describe.each(ops)('%s', (_name, make) => {
  test('close() closes every input and ends the output', async () => {
    const ctx = newCtx();
    const made: TestSource[] = [];
    const op = make(ctx, () => {
      const s = src(ctx, input, 5);
      made.push(s);
      return s;
    });
    expect(await op.pull()).not.toBeNull();
    await op.close();
    expect(made.length).toBeGreaterThan(0);
    for (const s of made) expect(s.closed).toBe(true);
    expect(await op.pull()).toBeNull();
  });
  test('a cancelled query fails with QueryCancelled', async () => {
    const ctx = newCtx();
    const op = make(ctx, () => src(ctx, input, 5));
    ctx.cancel();
    await expect(op.pull()).rejects.toBeInstanceOf(QueryCancelled);
  });
});
