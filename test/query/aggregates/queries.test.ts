// Aggregates in queries: argument checks, every aggregate grouped and
// spilled, and running aggregates in expressions.

import { agg, lastSpills, zq, zqError } from './run';

const NAMES = [
  'and',
  'any',
  'avg',
  'collect',
  'dcount',
  'fuse',
  'map',
  'max',
  'min',
  'or',
  'sum',
  'union',
];

describe('arguments', () => {
  test('every aggregate but count requires its argument (the reference args ztest)', async () => {
    expect(await zq('count()', '{}')).toEqual(['1(uint64)']);
    for (const name of NAMES) {
      expect(await zqError(`${name}()`, '{}')).toBe(`${name}: argument required`);
    }
  });
  test('more than one argument is an error, but for the min, max and map functions', async () => {
    expect(await zqError('sum(a,b)', '{a:1,b:2}')).toBe('sum: wrong number of arguments');
    expect(await zqError('count(a,b)', '{a:1,b:2}')).toBe('count: wrong number of arguments');
    expect(await zq('yield min(3,1,2)', '{}')).toEqual(['1']);
    expect(await zq('yield max(3,1,2)', '{}')).toEqual(['3']);
  });
});

describe('every aggregate grouped, spilled and merged from partials', () => {
  // Sorted by key, so that spilling at each new group writes one run per
  // group, and so that output in order of first appearance (in memory) and
  // in key order (merged from spilled runs) are the same: no sort (which
  // would spill too) is needed.
  const input = `{k:1,b:true,x:1,m:|{"a":1}|} {k:1,b:false,x:2.5,m:|{"b":"x"}|}
    {k:2,b:true,x:"s",m:|{1:2}|} {k:2,b:null(bool),x:3,m:null(|{int64:int64}|)}
    {k:3,y:1} {k:3,b:true,x:null(int64)}`;
  const want: Record<string, string[]> = {
    and: ['{k:1,a:false}', '{k:2,a:true}', '{k:3,a:true}'],
    any: ['{k:1,a:1}', '{k:2,a:"s"}', '{k:3,a:null(int64)}'],
    avg: ['{k:1,a:1.75}', '{k:2,a:3.}', '{k:3,a:null(float64)}'],
    collect: ['{k:1,a:[1,2.5]}', '{k:2,a:["s",3]}', '{k:3,a:null}'],
    count: ['{k:1,a:2(uint64)}', '{k:2,a:2(uint64)}', '{k:3,a:1(uint64)}'],
    dcount: ['{k:1,a:2(uint64)}', '{k:2,a:2(uint64)}', '{k:3,a:1(uint64)}'],
    fuse: ['{k:1,a:<(int64,float64)>}', '{k:2,a:<(int64,string)>}', '{k:3,a:<int64>}'],
    map: ['{k:1,a:|{"a":1,"b":"x"}|}', '{k:2,a:|{1:2}|}', '{k:3,a:null}'],
    max: ['{k:1,a:2.5}', '{k:2,a:3}', '{k:3,a:null(int64)}'],
    min: ['{k:1,a:1.}', '{k:2,a:3}', '{k:3,a:null(int64)}'],
    or: ['{k:1,a:true}', '{k:2,a:true}', '{k:3,a:true}'],
    sum: ['{k:1,a:3.5}', '{k:2,a:3}', '{k:3,a:null(int64)}'],
    union: ['{k:1,a:|[1,2.5]|}', '{k:2,a:|[3,"s"]|}', '{k:3,a:null}'],
  };
  const arg: Record<string, string> = { and: 'b', or: 'b', map: 'm', count: 'x' };
  test.each(Object.keys(want))('%s', async (name) => {
    const q = `a:=${name}(${arg[name] ?? 'x'}) by k`;
    expect(await agg(q, input)).toEqual(want[name]);
    expect(lastSpills).toBe(1);
    expect(await agg(`${q} with -limit 1`, input)).toEqual(want[name]);
  });
  test('several aggregates with where clauses, several keys', async () => {
    const q = 's:=sum(x) where x > 1, c:=count() where x > 1, u:=union(x) by k, j:=k % 2';
    expect(await agg(q, '{k:1,x:1} {k:1,x:2} {k:2,x:3} {k:2,x:0} {k:3,x:1}')).toEqual([
      '{k:1,j:1,s:2,c:1(uint64),u:|[1,2]|}',
      '{k:2,j:0,s:3,c:1(uint64),u:|[0,3]|}',
      '{k:3,j:1,s:null,c:0(uint64),u:|[1]|}',
    ]);
    expect(lastSpills).toBe(1);
  });
});

describe('running aggregates in expressions', () => {
  test('put, with where; the state lasts for the whole input', async () => {
    const input = '{x:1} {x:2} {y:0} {x:3}';
    expect(await zq('put s:=sum(x), c:=count(), u:=union(x) where x > 1', input)).toEqual([
      '{x:1,s:1,c:1(uint64),u:null}',
      '{x:2,s:3,c:2(uint64),u:|[2]|}',
      '{y:0,s:3,c:3(uint64),u:|[2]|}',
      '{x:3,s:6,c:4(uint64),u:|[2,3]|}',
    ]);
  });
  test('every aggregate as an expression', async () => {
    const input = '{x:2,b:true} {x:1,b:false}';
    const q = `yield [and(b),any(x),avg(x),collect(x),count(),dcount(x),fuse(this),
      max(x),min(x),or(b),sum(x),union(x),map(|{x:b}|)]`;
    expect(await zq(q, input)).toEqual([
      '[true,2,2.,[2],1(uint64),1(uint64),<{x:int64,b:bool}>,2,2,true,2,|[2]|,|{2:true}|]',
      '[false,2,1.5,[2,1],2(uint64),2(uint64),<{x:int64,b:bool}>,2,1,true,3,|[1,2]|,|{1:false,2:true}|]',
    ]);
  });
  test('an aggregate of an aggregate-free summarize input: count() by key then avg', async () => {
    const input = '{k:"a"} {k:"b"} {k:"a"} {k:"c"} {k:"a"}';
    expect(await agg('count() by k | avg(count)', input)).toEqual(['1.6666666666666667']);
  });
});
