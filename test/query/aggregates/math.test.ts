// sum, min and max through queries (the math reducer's kinds and coercion
// are also covered at the unit level in aggregates.test.ts), and count and
// any's documented examples.

import fc from 'fast-check';
import { agg, agg1, zq } from './run';

describe('documented examples', () => {
  test('sum', async () => {
    expect(await agg1('sum(this)', '1 2 3 4')).toBe('10');
    expect(await zq('yield sum(this)', '1 2 3 4')).toEqual(['1', '3', '6', '10']);
    expect(await agg1('sum(this)', '1 2 3 4 "foo"')).toBe('10');
  });
  test('min', async () => {
    expect(await agg1('min(this)', '1 2 3 4')).toBe('1');
    expect(await zq('yield min(this)', '1 2 3 4')).toEqual(['1', '1', '1', '1']);
    expect(await agg1('min(this)', '1 2 3 4 "foo"')).toBe('1');
  });
  test('max', async () => {
    expect(await agg1('max(this)', '1 2 3 4')).toBe('4');
    expect(await zq('yield max(this)', '1 2 3 4')).toEqual(['1', '2', '3', '4']);
    expect(await agg1('max(this)', '1 2 3 4 "foo"')).toBe('4');
  });
  test('count', async () => {
    expect(await agg1('count()', '1 2 3')).toBe('3(uint64)');
    expect(await zq('yield count()', '1 2 3')).toEqual(['1(uint64)', '2(uint64)', '3(uint64)']);
    expect(await zq('yield count()', '1 "foo" 10.0.0.1')).toEqual([
      '1(uint64)',
      '2(uint64)',
      '3(uint64)',
    ]);
    expect(await zq('yield {id:count(),value:this}', '"foo" "bar" "baz"')).toEqual([
      '{id:1(uint64),value:"foo"}',
      '{id:2(uint64),value:"bar"}',
      '{id:3(uint64),value:"baz"}',
    ]);
  });
  test('any', async () => {
    expect(await agg1('any(this)', '1 2 3 4')).toBe('1');
    expect(await zq('yield any(this)', '1 2 3 4')).toEqual(['1', '1', '1', '1']);
    expect(await agg1('any(this)', '"foo" 1 2 3')).toBe('"foo"');
  });
});

describe('the reference ztests', () => {
  test('math, math-coercion, null, where-sum', async () => {
    const n = '{n:0(int32)} {n:5(int32)} {n:10(int32)}';
    expect(await agg1('any(n)', n)).toBe('0(int32)');
    expect(await agg1('min(n)', n)).toBe('0');
    expect(await agg1('max(n)', n)).toBe('10');
    expect(await agg1('sum:=sum(this), max(this), min(this), avg(this)', '2 2.5')).toBe(
      '{sum:4.5,max:2.5,min:2.,avg:2.25}',
    );
    expect(
      await agg1(
        'avg(x), count(x), dcount(x), any(x), max(x), min(x), sum(x)',
        '{x:null(uint64)} {x:null(float64)} {x:null(int64)} {x:null(duration)} {x:null(time)}',
      ),
    ).toBe(
      '{avg:null(float64),count:5(uint64),dcount:5(uint64),any:null(uint64),max:null(float64),min:null(float64),sum:null(float64)}',
    );
    expect(
      await agg1(
        'lg:=sum(x) where x>=5, sm:=sum(x) where x<8',
        '{x:1(int32)} {x:10(int32)} {x:5(int32)} {x:6(int32)} {x:-1(int32)} {x:12(int32)}',
      ),
    ).toBe('{lg:33,sm:11}');
  });
  test('math-partials', async () => {
    const input = '{key:"a",n:0(int32)} {key:"a",n:5(int32)} {key:"b",n:10(int32)} {key:"a"}';
    const q = (a: string) => agg(`${a} by key with -limit 1 | sort key`, input);
    expect(await q('count()')).toEqual(['{key:"a",count:3(uint64)}', '{key:"b",count:1(uint64)}']);
    expect(await q('min(n)')).toEqual(['{key:"a",min:0}', '{key:"b",min:10}']);
    expect(await q('max(n)')).toEqual(['{key:"a",max:5}', '{key:"b",max:10}']);
  });
  test('agg-expr: every aggregate running in one cut', async () => {
    expect(
      await zq(
        `cut count := count() - uint64(1), dcount := dcount(this), sum := sum(this),
             min := min(this), max := max(this), any := any(this),
             all_odd := and(this % 2 == 1), has_even := or(this % 2 == 0),
             collect := collect(this), avg := avg(this), union := union(this)`,
        '1 2 3',
      ),
    ).toEqual([
      '{count:0(uint64),dcount:1(uint64),sum:1,min:1,max:1,any:1,all_odd:true,has_even:false,collect:[1],avg:1.,union:|[1]|}',
      '{count:1(uint64),dcount:2(uint64),sum:3,min:1,max:2,any:1,all_odd:false,has_even:true,collect:[1,2],avg:1.5,union:|[1,2]|}',
      '{count:2(uint64),dcount:3(uint64),sum:6,min:1,max:3,any:1,all_odd:false,has_even:true,collect:[1,2,3],avg:2.,union:|[1,2,3]|}',
    ]);
  });
});

describe('min and max', () => {
  test('result kinds: int64, uint64, float64, duration, time', async () => {
    expect(await agg1('min(this), max(this)', '1(uint8) 200(uint8)')).toBe(
      '{min:1(uint64),max:200(uint64)}',
    );
    expect(await agg1('min(this), max(this)', '3(int8) -7(int32)')).toBe('{min:-7,max:3}');
    expect(await agg1('min(this), max(this)', '1 2.5 "x"')).toBe('{min:1.,max:2.5}');
    expect(await agg1('min(this), max(this)', '1s 5s')).toBe('{min:1s,max:5s}');
    expect(await agg1('min(this), max(this)', '2018-03-24T17:15:21Z 2020-03-24T17:15:21Z')).toBe(
      '{min:2018-03-24T17:15:21Z,max:2020-03-24T17:15:21Z}',
    );
    expect(await agg1('min(this), max(this)', '-9223372036854775808 9223372036854775807')).toBe(
      '{min:-9223372036854775808,max:9223372036854775807}',
    );
    expect(await agg1('max(this)', '18446744073709551615(uint64) 1(uint64)')).toBe(
      '18446744073709551615(uint64)',
    );
  });
  test('a kind change carries the state over from the first kind, as in the reference', async () => {
    // min: the uint64 identity (MaxUint64) becomes int64 -1; max: 0 stays 0.
    expect(await agg1('min(this), max(this)', 'null(uint64) 5 3')).toBe('{min:-1,max:5}');
    expect(await agg1('min(this), max(this)', 'null(uint64) -5 -3')).toBe('{min:-5,max:0}');
  });
  test('nulls, missing, errors, non-numbers; no values', async () => {
    expect(await agg1('min(x)', '{x:null(int64)} {x:4} {y:1} {x:error("e")} {x:"1"} {x:[0]}')).toBe(
      '4',
    );
    expect(await agg1('max(x)', '{x:"a"} {y:1}')).toBe('null');
    expect(await agg1('max(x)', '{x:null(duration)}')).toBe('null(duration)');
  });
  test('of 64-bit values a nanosecond apart, as bigint comparison picks them', async () => {
    const near = (base: bigint) =>
      fc.array(
        fc.bigInt({ min: -3n, max: 3n }).map((d) => base + d),
        { minLength: 1, maxLength: 12 },
      );
    const MAX = 2n ** 63n - 1n;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          near(1_521_911_720_600_725_000n),
          near(-(2n ** 62n)),
          near(MAX - 3n),
          near(-MAX + 2n),
          near(2n ** 53n),
        ),
        fc.constantFrom('', '(=t)'),
        async (xs, named) => {
          const lo = xs.reduce((a, b) => (b < a ? b : a));
          const hi = xs.reduce((a, b) => (b > a ? b : a));
          const ints = xs.map((x) => `${x}${named}`).join(' ');
          expect(await agg1('min(this), max(this)', ints)).toBe(`{min:${lo},max:${hi}}`);
          // The same as times.
          const want = await zq(`yield {min:time(${lo}),max:time(${hi})}`, '{}');
          expect(await zq('yield time(this) | min(this), max(this)', ints)).toEqual(want);
        },
      ),
      { numRuns: 200 },
    );
  });
  test('grouped with where, through partials', async () => {
    const input = '{k:"a",x:3} {k:"b",x:2.5} {k:"a",x:-1} {k:"b",x:7} {k:"a",x:9} {k:"c",x:"z"}';
    const want = ['{k:"a",lo:-1,hi:3}', '{k:"b",lo:2.5,hi:2.5}', '{k:"c",lo:null,hi:null}'];
    const q = 'lo:=min(x) where x < 5, hi:=max(x) where x < 5 by k';
    expect(await agg(`${q} | sort k`, input)).toEqual(want);
    expect(await agg(`${q} with -limit 1 | sort k`, input)).toEqual(want);
  });
});

describe('sum', () => {
  test('grouped with where, through partials, keeping the widest type', async () => {
    const input = `{k:"a",x:1(int8)} {k:"b",x:1(uint16)} {k:"a",x:2(int32)} {k:"b",x:2(uint64)}
      {k:"c",x:1s} {k:"c",x:2} {k:"d",x:1} {k:"d",x:0.5} {k:"e",x:null(int32)}`;
    const want = [
      '{k:"a",s:3}',
      '{k:"b",s:3(uint64)}',
      '{k:"c",s:3s}',
      '{k:"d",s:1.5}',
      '{k:"e",s:null(int64)}',
    ];
    expect(await agg('s:=sum(x) by k | sort k', input)).toEqual(want);
    expect(await agg('s:=sum(x) by k with -limit 1 | sort k', input)).toEqual(want);
  });
  test('running sum with where', async () => {
    expect(await zq('put s:=sum(x) where x > 1', '{x:1} {x:2} {x:3}')).toEqual([
      '{x:1,s:null}',
      '{x:2,s:2}',
      '{x:3,s:5}',
    ]);
  });
});
