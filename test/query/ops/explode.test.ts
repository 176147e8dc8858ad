import { Explode } from '../../../src/query/runtime/ops/explode';
import { parseType } from '../../../src/formats/zson';
import { field, fn, newCtx, run, src } from './helpers';

async function explode(input: string, args: string[], type: string, as = 'value') {
  const ctx = newCtx();
  const op = new Explode(
    ctx,
    src(ctx, input),
    args.map((a) => field(ctx, a)),
    parseType(ctx.zctx, type),
    as,
  );
  return run(op);
}

describe('explode', () => {
  const input = '{a:1,b:[10,11],c:["a","b"]} {a:22,b:[33],c:["e","f"],d:0}';
  test('reference ztest: fields', async () => {
    expect(await explode(input, ['a', 'b'], 'int64')).toEqual([
      '{value:1}',
      '{value:10}',
      '{value:11}',
      '{value:22}',
      '{value:33}',
    ]);
  });
  test('reference ztest: this, as foo', async () => {
    expect(await explode(input, ['this'], 'int64', 'foo')).toEqual([
      '{foo:1}',
      '{foo:10}',
      '{foo:11}',
      '{foo:22}',
      '{foo:33}',
      '{foo:0}',
    ]);
  });
  test('walks sets, maps, unions, named types; skips nulls; stops at matches', async () => {
    const v = `{s:|["x","y"]|,m:|{"k":"v"}|,u:"w"((int64,string)),n:null(string),r:{q:"z"(=named)},t:{p:"in"}}`;
    expect(await explode(v, ['this'], 'string')).toEqual([
      '{value:"x"}',
      '{value:"y"}',
      '{value:"k"}',
      '{value:"v"}',
      '{value:"w"}',
      '{value:"z"}',
      '{value:"in"}',
    ]);
    expect(await explode('{r:{a:"x"},q:{a:"y",b:1}}', ['this'], '{a:string}')).toEqual([
      '{value:{a:"x"}}',
    ]);
  });
  test('error values pass through, missing ones are dropped', async () => {
    const ctx = newCtx();
    const err = fn(() => ctx.zctx.newError('boom'));
    const op = new Explode(
      ctx,
      src(ctx, '{a:1}'),
      [field(ctx, 'nope'), err],
      parseType(ctx.zctx, 'int64'),
      'value',
    );
    expect(await run(op)).toEqual(['error("boom")']);
  });
});
