import { agg, agg1, zq } from './run';

describe('and', () => {
  test('documented examples', async () => {
    expect(await agg1('and(this)', 'true false true')).toBe('false');
    expect(await zq('yield and(this)', 'true false true')).toEqual(['true', 'false', 'false']);
    // Unrecognized types are ignored and not coerced for truthiness.
    expect(await zq('yield and(this)', 'true "foo" 0 false true')).toEqual([
      'true',
      'true',
      'true',
      'false',
      'false',
    ]);
  });
  test('nulls, missing, errors, other types and named bools', async () => {
    expect(await agg1('and(x)', '{x:null(bool)} {x:true} {y:false} {x:error("no")}')).toBe('true');
    expect(await agg1('and(x)', '{x:true(=flag)} {x:false(=flag)}')).toBe('false');
    expect(await agg1('and(x)', '{x:"false"} {x:0} {x:null(bool)}')).toBe('null(bool)');
  });
  test('no input values: null(bool)', async () => {
    expect(await agg1('and(x) where false', '{x:true}')).toBe('null(bool)');
    expect(await agg1('a:=and(x) where false', '{x:true}')).toBe('{a:null(bool)}');
    expect(await zq('yield and(x)', '{y:1}')).toEqual(['null(bool)']);
  });
});

describe('or', () => {
  test('documented examples', async () => {
    expect(await agg1('or(this)', 'false true false')).toBe('true');
    expect(await zq('yield or(this)', 'false true false')).toEqual(['false', 'true', 'true']);
    expect(await zq('yield or(this)', 'false "foo" 1 true false')).toEqual([
      'false',
      'false',
      'false',
      'true',
      'true',
    ]);
  });
  test('nulls and non-bools are skipped', async () => {
    expect(await agg1('or(x)', '{x:null(bool)} {x:false} {x:1} {x:"true"}')).toBe('false');
    expect(await agg1('or(x)', '{x:null(bool)}')).toBe('null(bool)');
  });
});

describe('and/or grouped, with where, through partials', () => {
  const input = `{key:"a",x:1(int32)}
    {key:"a",x:-1(int32)}
    {key:"b",x:2(int32)}
    {key:"b",x:1(int32)}
    {key:"a"}
    {key:"b",x:1(int32)}`;
  const want = [
    '{key:"a",t1:false,t2:false,t3:false,t4:false,t5:null(bool)}',
    '{key:"b",t1:false,t2:false,t3:true,t4:false,t5:null(bool)}',
  ];
  const q = 't1:=or(x>2),t2:=or(x>4),t3:=and(x>0),t4:=and(x>2),t5:=and(x>2) where x>2 by key';
  test('the reference logical ztests', async () => {
    expect(await agg(`${q} | sort this`, input)).toEqual(want);
    expect(await agg(`${q} with -limit 1 | sort this`, input)).toEqual(want);
    expect(
      await agg1(
        't1:=or(x>2),t2:=or(x>4),t3:=and(x>0),t4:=and(x>2),t5:=and(x>2) where x>2',
        '{x:1(int32)} {x:2(int32)} {x:3(int32)}',
      ),
    ).toBe('{t1:true,t2:false,t3:true,t4:false,t5:true}');
  });
});
