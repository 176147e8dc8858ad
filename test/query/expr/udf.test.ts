// User functions: the reference's udf ztests, its recursion limit (10,000
// nested calls, then "stack overflow") reached on Node's default stack, and
// results unchanged by the way deep calls are run (segments and replays,
// a compiled body per active call). `count` would name the aggregate.

import { MAX_STACK_DEPTH } from '../../../src/query/expr/vars';
import { zq, zqError } from '../helpers';

const deep = 'func deep(n): (n == 0 ? 0 : 1 + deep(n - 1)) yield deep(this)';

describe('user functions (reference ztests)', () => {
  test('udf: fib', async () => {
    const q = 'func fib(n): ( n <= 1 ? n : fib(n-1) + fib(n-2) ) yield fib(this)';
    expect(await zq(q, '3 10 20')).toEqual(['2', '55', '6765']);
  });

  test('udf-mutual-recursion', async () => {
    const q =
      'func is_even(n): ( n == 0 ? true : is_odd(n-1) ) ' +
      'func is_odd(n): ( n == 0 ? false: is_even(n-1) ) ' +
      'yield is_even(this), is_odd(this)';
    expect(await zq(q, '10 11')).toEqual(['true', 'false', 'false', 'true']);
  });

  test('udf-overflow', async () => {
    expect(await zqError('func overflow(n): ( overflow(n+1) ) yield overflow(this)', '3')).toBe(
      'stack overflow',
    );
  });
});

describe('recursive calls do not clobber their callers', () => {
  test('containers being built around a recursive call', async () => {
    expect(await zq('func f(n): (n == 0 ? [0] : [f(n-1)[0] + 1]) yield f(this)', '3')).toEqual([
      '[3]',
    ]);
    expect(await zq('func f(n): (n == 0 ? {v:0} : {v:f(n-1).v + 1}) yield f(this)', '3')).toEqual([
      '{v:3}',
    ]);
  });

  test('a sibling evaluated before a recursive call keeps its value', async () => {
    expect(
      await zq('func f(n): (n == 0 ? "" : upper(string(n)) + "," + f(n-1)) yield f(this)', '3'),
    ).toEqual(['"3,2,1,"']);
    expect(await zq('func f(n): (n == 0 ? [] : [n * 10, ...f(n-1)]) yield f(this)', '3')).toEqual([
      '[30,20,10]',
    ]);
  });

  test('a running aggregate in a recursive body keeps one state', async () => {
    const q = 'func f(n): (n == 0 ? count() : f(n - 1)) yield f(this)';
    expect(await zq(q, '0 1 2 150')).toEqual(['1(uint64)', '2(uint64)', '3(uint64)', '4(uint64)']);
  });

  test('a field that is missing deeper is missing, not garbage', async () => {
    expect(await zq('func f(n): (n == 0 ? {v:0} : {w:f(n-1).v + 1}) yield f(this)', '3')).toEqual([
      '{w:error("missing")}',
    ]);
  });
});

describe('recursion depth', () => {
  test('the limit is the reference one', () => {
    expect(MAX_STACK_DEPTH).toBe(10_000);
  });

  test('10,000 nested calls run; 10,001 overflow', async () => {
    // deep(n) makes n + 1 nested calls.
    expect(await zq(deep, '5000 9999')).toEqual(['5000', '9999']);
    expect(await zqError(deep, '10000')).toBe('stack overflow');
  });

  test('deep mutual recursion', async () => {
    const q =
      'func is_even(n): ( n == 0 ? true : is_odd(n-1) ) ' +
      'func is_odd(n): ( n == 0 ? false: is_even(n-1) ) ' +
      'yield [is_even(this), is_odd(this)]';
    expect(await zq(q, '9998 9999')).toEqual(['[true,false]', '[false,true]']);
  });

  test('deep calls inside larger bodies (records, builtins, several calls per level)', async () => {
    const q =
      'func f(n): (n == 0 ? {v:0,s:"x"} : {v:f(n-1).v+1, s:lower(upper(f(n-1).s))}) ' +
      'yield f(this)';
    expect(await zq(q, '3 10')).toEqual(['{v:3,s:"x"}', '{v:10,s:"x"}']);
    const arr = 'func f(n): (n == 0 ? [0] : [f(n-1)[0] + 1, n]) yield f(this)';
    expect(await zq(arr, '3 9000')).toEqual(['[3,3]', '[9000,9000]']);
    const acc = 'func f(n, acc): (n == 0 ? acc : f(n - 1, acc + n)) yield f(this, 0)';
    expect(await zq(acc, '9999')).toEqual([String((9999 * 10000) / 2)]);
    const nested =
      'func f(n): (n == 0 ? [0] : [len(string({a:[f(n-1)[0] + 1]})) > 0 ? f(n-1)[0] + 1 : -1]) ' +
      'yield f(this)';
    expect(await zq(nested, '5')).toEqual(['[5]']);
  });

  test('a deep call as an argument of a deep call', async () => {
    const q =
      'func deep(n): (n == 0 ? 0 : 1 + deep(n - 1)) ' +
      'func twice(n): (n == 0 ? 0 : 2 + twice(n - 1)) ' +
      'yield twice(deep(this))';
    expect(await zq(q, '3000')).toEqual(['6000']);
  });

  test('parameters are those of the innermost call after deep calls return', async () => {
    const q =
      'func deep(n): (n == 0 ? 0 : 1 + deep(n - 1)) ' +
      'func g(a, b): ([a, deep(b), a, b]) ' +
      'yield g(this, 5000)';
    expect(await zq(q, '7')).toEqual(['[7,5000,7,5000]']);
  });

  test('errors raised deep in a recursion are values', async () => {
    const q = 'func f(n): (n == 0 ? error("bottom") : f(n - 1)) yield f(this)';
    expect(await zq(q, '8000')).toEqual(['error("bottom")']);
  });

  test('an overflow fails the query; the next query runs', async () => {
    expect(await zqError(deep, '1 20000')).toBe('stack overflow');
    expect(await zq(deep, '1 2')).toEqual(['1', '2']);
  });
});
