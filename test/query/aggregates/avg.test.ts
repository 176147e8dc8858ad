import { lookupAggregate, newColumn } from '../../../src/query/aggregates';
import { parseValues } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed/context';
import { agg, agg1, zq } from './run';

describe('avg', () => {
  test('documented examples', async () => {
    expect(await agg1('avg(this)', '1 2 3 4')).toBe('2.5');
    expect(await zq('yield avg(this)', '1 2 3 4')).toEqual(['1.', '1.5', '2.', '2.5']);
    expect(await agg1('avg(this)', '1 2 3 4 "foo"')).toBe('2.5');
  });
  test('the reference ztests', async () => {
    expect(await agg1('avg(n)', '{n:0(int32)} {n:5(int32)} {n:10(int32)}')).toBe('5.');
    expect(await agg1('avg(this)', '2 2.5')).toBe('2.25');
    expect(
      await agg(
        'avg(n) by key with -limit 1 | sort key',
        '{key:"a",n:0(int32)} {key:"a",n:5(int32)} {key:"b",n:10(int32)} {key:"a"}',
      ),
    ).toEqual(['{key:"a",avg:2.5}', '{key:"b",avg:10.}']);
  });
  test('a float64 of every numeric type; durations and times in nanoseconds', async () => {
    expect(await agg1('avg(this)', '1(uint8) 2(int16) 3.(float32) 6.(float16)')).toBe('3.');
    expect(await agg1('avg(this)', '1s 3s')).toBe('2000000000.');
    expect(await agg1('avg(this)', '1970-01-01T00:00:00.000000004Z')).toBe('4.');
    expect(await agg1('avg(this)', '18446744073709551615(uint64)')).toBe('1.8446744073709552e+19');
  });
  test('strings that parse as floats count, as in the reference', async () => {
    // Go's ParseFloat: hex needs a p exponent, so "0x10" is not a float.
    expect(await agg1('avg(this)', '"3" 1 "1e1" "x" "0x1p4" "0x10"')).toBe('7.5');
  });
  test('nulls, missing, errors and other types are skipped', async () => {
    expect(
      await agg1('avg(x)', '{x:null(int64)} {x:4} {y:1} {x:error("e")} {x:[1]} {x:true}'),
    ).toBe('4.');
  });
  test('no values: null(float64)', async () => {
    expect(await agg1('avg(x)', '{x:"a"} {x:null(int64)}')).toBe('null(float64)');
    expect(await agg1('avg(x) where false', '{x:1}')).toBe('null(float64)');
    expect(await agg1('a:=avg(x) where false', '{x:1}')).toBe('{a:null(float64)}');
  });
  test('grouped, where, through partials', async () => {
    const input = '{k:1,x:1} {k:2,x:4} {k:1,x:2} {k:2,x:"5"} {k:3,x:null(int64)} {k:1,x:10}';
    const want = ['{k:1,avg:1.5}', '{k:2,avg:4.5}', '{k:3,avg:null(float64)}'];
    expect(await agg('avg(x) where k != 1 or x < 10 by k | sort k', input)).toEqual(want);
    expect(await agg('avg(x) where k != 1 or x < 10 by k with -limit 1 | sort k', input)).toEqual(
      want,
    );
  });
  test('bad partials are the reference errors', () => {
    const zctx = new TypeContext();
    const col = newColumn(lookupAggregate('avg')!);
    col.add();
    const [rec, bad, noCount] = parseValues(
      zctx,
      '{sum:1.,count:2(uint64)} {sum:1,count:2(uint64)} {sum:1.}',
    );
    col.consumePartial(0, rec);
    expect(() => col.consumePartial(0, bad)).toThrow('avg: partial sum has bad type: 1');
    expect(() => col.consumePartial(0, noCount)).toThrow('avg: partial count is missing');
    expect(() => col.consumePartial(0, parseValues(zctx, '1')[0])).toThrow(
      'avg: partial sum is missing',
    );
  });
});
