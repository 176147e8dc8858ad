import { Sample } from '../../../src/query/runtime/ops/sample';
import { Sort } from '../../../src/query/runtime/ops/sort';
import { field, newCtx, run, src } from './helpers';

async function sample(input: string, e = 'this', sortKey = 'this') {
  const ctx = newCtx();
  return run(
    new Sort(ctx, new Sample(ctx, src(ctx, input), field(ctx, e)), { keys: [field(ctx, sortKey)] }),
  );
}

describe('sample', () => {
  test('documented: a simple sample', async () => {
    expect(await sample('1 2 3 "foo" "bar" 10.0.0.1 10.0.0.2')).toEqual(['1', '10.0.0.1', '"foo"']);
  });
  test('documented: sampling record shapes', async () => {
    expect(await sample('{a:1}{a:2}{s:"foo"}{s:"bar"}{a:3,s:"baz"}', 'this', 'a')).toEqual([
      '{a:1}',
      '{a:3,s:"baz"}',
      '{s:"foo"}',
    ]);
  });
  test('unsorted: one value per type in order of first appearance', async () => {
    const ctx = newCtx();
    expect(
      await run(
        new Sample(ctx, src(ctx, '"x" 1 null "y" 2 null(int64) 3(int64)'), field(ctx, 'this')),
      ),
    ).toEqual(['"x"', '1', 'null']);
  });
  test('of a field; missing fields give a null for their error type', async () => {
    const ctx = newCtx();
    expect(
      await run(new Sample(ctx, src(ctx, '{x:1} {y:2} {x:"a"} {x:3}'), field(ctx, 'x'))),
    ).toEqual(['1', 'null', '"a"']);
  });
});
