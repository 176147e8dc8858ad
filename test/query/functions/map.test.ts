// map(v, f) over arrays and sets with built-in functions, casts and user
// functions (as the reference's later releases define it).

import { zq, zqError } from '../helpers';

describe('map with user functions', () => {
  test('the reference ztest: a user function over an array', async () => {
    const q = 'func stringify(x): ( cast(x, <string>) ) yield map(this, stringify)';
    expect(await zq(q, '[1,2,3]')).toEqual(['["1","2","3"]']);
  });

  test('func double(x): (x*2)', async () => {
    const q = 'func double(x): (x*2) yield map(a, double)';
    expect(await zq(q, '{a:[1,2,3]} {a:[]([int64])} {a:null([int64])}')).toEqual([
      '[2,4,6]',
      '[]',
      'null([int64])',
    ]);
  });

  test('over a set the results are a normalized set (in byte order)', async () => {
    const q = 'func neg(x): (-x) yield map(this, neg)';
    expect(await zq(q, '|[1,2,3]|')).toEqual(['|[-1,-2,-3]|']);
  });

  test('results of different types form a union', async () => {
    const q = 'func f(x): (x > 1 ? x : "small") yield map(this, f), typeof(map(this, f))';
    expect(await zq(q, '[1,2]')).toEqual(['["small",2]', '<[(int64,string)]>']);
  });

  test('recursive user functions', async () => {
    const q = 'func fact(n): (n <= 1 ? 1 : n * fact(n - 1)) yield map(this, fact)';
    expect(await zq(q, '[1,3,5]')).toEqual(['[1,6,120]']);
    const deep = 'func depth(n): (n == 0 ? 0 : 1 + depth(n - 1)) yield map(this, depth)';
    expect(await zq(deep, '[9999,1]')).toEqual(['[9999,1]']);
  });

  test('user functions calling builtins, and builtins and casts still work', async () => {
    expect(await zq('func up(s): (upper(s) + "!") yield map(this, up)', '["a","b"]')).toEqual([
      '["A!","B!"]',
    ]);
    expect(await zq('yield map(this, upper)', '["a","b"]')).toEqual(['["A","B"]']);
    expect(await zq('yield map(this, int64)', '["1","2"]')).toEqual(['[1,2]']);
  });

  test('errors: unknown name, wrong arity, a call instead of a name', async () => {
    expect(await zqError('yield map(this, nosuch)', '[1]')).toBe('nosuch(): no such function');
    expect(await zqError('func two(x, y): (x + y) yield map(this, two)', '[1]')).toBe(
      'two(): expects 2 argument(s)',
    );
    expect(await zqError('func double(x): (x*2) yield map(this, double(this))', '[1]')).toBe(
      'map(): second argument must be the identifier of a function',
    );
  });

  test('a non-container operand is an error value', async () => {
    const q = 'func double(x): (x*2) yield map(a, double)';
    expect(await zq(q, '{a:1}')).toEqual([
      'error({message:"expected container type, got primitive",on:{a:1}})',
    ]);
  });
});
