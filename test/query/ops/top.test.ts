import { Top } from '../../../src/query/runtime/ops/top';
import { field, newCtx, run, src } from './helpers';

async function top(input: string, keys: string[], limit?: number, flush = false, batch = 1024) {
  const ctx = newCtx();
  return run(
    new Top(ctx, src(ctx, input, batch), { keys: keys.map((k) => field(ctx, k)), limit, flush }),
  );
}

describe('top', () => {
  test('reference ztest: top 3 foo, nulls smallest', async () => {
    expect(
      await top('{foo:null(int64)} {foo:1} {foo:2} {foo:3} {foo:4} {foo:5}', ['foo'], 3),
    ).toEqual(['{foo:5}', '{foo:4}', '{foo:3}']);
  });
  test('default limit is 100, largest first', async () => {
    const input = Array.from({ length: 250 }, (_, i) => `{x:${(i * 37) % 250}}`).join(' ');
    const out = await top(input, ['x']);
    expect(out.length).toBe(100);
    expect(out[0]).toBe('{x:249}');
    expect(out[99]).toBe('{x:150}');
  });
  test('guesses the key from the first value', async () => {
    expect(await top('{s:"a",n:1} {s:"b",n:3} {s:"c",n:2}', [], 2)).toEqual([
      '{s:"b",n:3}',
      '{s:"c",n:2}',
    ]);
  });
  test("ties come out in the order Go's heap gives", async () => {
    // Equal keys: the heap, not the input order, decides.
    expect(await top('{k:1,i:0} {k:1,i:1} {k:1,i:2} {k:1,i:3}', ['k'], 3)).toEqual([
      '{k:1,i:1}',
      '{k:1,i:2}',
      '{k:1,i:0}',
    ]);
  });
  test('missing keys count as null (smallest)', async () => {
    expect(await top('{y:9} {x:1} {x:2}', ['x'], 2)).toEqual(['{x:2}', '{x:1}']);
  });
  test('-flush emits the top of each batch', async () => {
    expect(await top('{x:1} {x:3} {x:2} {x:5}', ['x'], 1, true, 2)).toEqual(['{x:3}', '{x:5}']);
  });
  test('empty input', async () => {
    expect(await top('', ['x'])).toEqual([]);
  });
});
