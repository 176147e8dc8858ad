import { Uniq } from '../../../src/query/runtime/ops/uniq';
import { newCtx, run, src } from './helpers';

async function uniq(input: string, c = false, batch = 1024) {
  const ctx = newCtx();
  return run(new Uniq(ctx, src(ctx, input, batch), c));
}

describe('uniq', () => {
  test('documented: simple deduplication', async () => {
    expect(await uniq('1 2 2 3')).toEqual(['1', '2', '3']);
  });
  test('documented: -c', async () => {
    expect(await uniq('1 2 2 3', true)).toEqual([
      '{value:1,count:1(uint64)}',
      '{value:2,count:2(uint64)}',
      '{value:3,count:1(uint64)}',
    ]);
  });
  test('reference ztest: uniq -c across types', async () => {
    expect(await uniq('1 1 {x:1}', true)).toEqual([
      '{value:1,count:2(uint64)}',
      '{value:{x:1},count:1(uint64)}',
    ]);
  });
  test('runs across batch boundaries', async () => {
    expect(await uniq('"a" "a" "a" "b" "b" "a"', true, 2)).toEqual([
      '{value:"a",count:3(uint64)}',
      '{value:"b",count:2(uint64)}',
      '{value:"a",count:1(uint64)}',
    ]);
  });
  test('equality is by bytes: same bytes of different types, and null vs empty', async () => {
    // As in the reference, 1 and 1(int32) have the same bytes; so do null and "".
    expect(await uniq('1 1(int32) null "" "x"')).toEqual(['1', 'null', '"x"']);
  });
  test('empty input', async () => {
    expect(await uniq('', true)).toEqual([]);
  });
});
