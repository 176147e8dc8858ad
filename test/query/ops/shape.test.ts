import { Shape } from '../../../src/query/runtime/ops/shape';
import { lines, newCtx, run, spillTmp, src } from './helpers';

async function shape(input: string, ctxOpts = {}) {
  const ctx = newCtx(ctxOpts);
  return run(new Shape(ctx, src(ctx, input, 2)));
}

describe('shape', () => {
  test('reference ztest: shape-simple', async () => {
    expect(await shape('{a:10,b:null} {a:null,b:11}')).toEqual([
      '{a:10,b:null(int64)}',
      '{a:null(int64),b:11}',
    ]);
  });
  const coerce = `{a:10.,b:null,c:null(float64)} {a:11.,b:null,c:null(float64)} {a:null(float64),b:null,c:null(float64)}
    {a:null,b:11.,c:11.2} {a:null,b:12.,c:1.} {a:null,b:null,c:null}`;
  const expected = lines(`{a:10,b:null(int64),c:null(float64)}
    {a:11,b:null(int64),c:null(float64)}
    {a:null(int64),b:null(int64),c:null(float64)}
    {a:null(int64),b:11,c:11.2}
    {a:null(int64),b:12,c:1.}
    {a:null(int64),b:null(int64),c:null(float64)}`);
  test('reference ztest: shape-coerce', async () => {
    expect(await shape(coerce)).toEqual(expected);
  });
  test('same result when spilled', async () => {
    const tmp = spillTmp();
    try {
      expect(await shape(coerce, { memoryLimit: 100, tmpDir: tmp.dir })).toEqual(expected);
      expect(tmp.leftovers()).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
  test('different field names are not merged; strings keep their type', async () => {
    expect(await shape('{a:1.5,s:"x"} {b:2.} {a:null,s:null}')).toEqual([
      '{a:1.5,s:"x"}',
      '{b:2}',
      '{a:null(float64),s:null(string)}',
    ]);
  });
  test("an integer field that is not int64 is the reference's error", async () => {
    const ctx = newCtx();
    await expect(run(new Shape(ctx, src(ctx, '{a:1(int32)}')))).rejects.toThrow(
      "shape: can't recode from non float64",
    );
  });
  test('non-records pass through', async () => {
    expect(await shape('1 "a" {a:1.}')).toEqual(['1', '"a"', '{a:1}']);
  });
});
