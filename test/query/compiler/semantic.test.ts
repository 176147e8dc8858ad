// The semantic pass: implied operators, declarations and scoping, and the
// reference's compile errors.

import { analyze, CompileError, parseQuery, QueryContext } from '../../../src/query';
import * as dag from '../../../src/query/compiler/dag';
import { zq, zqError } from '../helpers';

async function graph(query: string): Promise<dag.Seq> {
  const ctx = new QueryContext();
  return analyze(parseQuery(query), { ctx, inputs: [] });
}

/** The operator kinds after the implied input source. */
async function kinds(query: string): Promise<string[]> {
  const g = await graph(query);
  expect(g[0].kind).toBe('Reader');
  return g.slice(1).map((o) => o.kind);
}

describe('implied operators', () => {
  test('a bare boolean expression or search is a filter', async () => {
    expect(await kinds('x == 1')).toEqual(['Filter']);
    expect(await kinds('foo')).toEqual(['Filter']);
    expect(await kinds('foo*')).toEqual(['Filter']);
    expect(await kinds('/re/')).toEqual(['Filter']);
    expect(await kinds('!(a in b)')).toEqual(['Filter']);
    expect(await kinds('has(x)')).toEqual(['Filter']);
  });

  test('a bare non-boolean expression is a yield', async () => {
    expect(await kinds('x + 1')).toEqual(['Yield']);
    expect(await kinds('{a:1}')).toEqual(['Yield']);
    expect(await kinds('typeof(this)')).toEqual(['Yield']);
  });

  test('a bare aggregate call is a summarize and yield of its value', async () => {
    const g = await graph('count()');
    expect(g.slice(1).map((o) => o.kind)).toEqual(['Summarize', 'Yield']);
    const s = g[1] as dag.Summarize;
    expect(s.aggs[0].lhs).toEqual(['count']);
    expect((g[2] as dag.Yield).exprs[0]).toEqual({ kind: 'This', path: ['count'] });
  });

  test('assignments are a put, or a summarize when aggregates', async () => {
    expect(await kinds('y := x + 1')).toEqual(['Put']);
    expect(await kinds('n := count()')).toEqual(['Summarize']);
    expect(await kinds('summarize count()')).toEqual(['Summarize', 'Yield']);
    expect(await kinds('count() by x')).toEqual(['Summarize']);
  });

  test('min and max with several arguments are functions', async () => {
    const g = await graph('yield max(a, b)');
    expect(((g[1] as dag.Yield).exprs[0] as dag.Call).kind).toBe('Call');
  });

  test('names of assignments are inferred from the rhs', async () => {
    const g = await graph('cut a.b, c:=d, typeof(x), quiet(y)');
    expect((g[1] as dag.Cut).args.map((a) => a.lhs)).toEqual([
      ['a', 'b'],
      ['c'],
      ['typeof'],
      ['y'],
    ]);
  });

  test('sample is a summarize by shape and a yield', async () => {
    expect(await kinds('sample x')).toEqual(['Summarize', 'Yield']);
  });

  test('a query with from has no implied source', async () => {
    const g = await analyze(parseQuery('file foo.zson | x==1'), { ctx: new QueryContext() });
    expect(g.map((o) => o.kind)).toEqual(['FileScan', 'Filter']);
  });

  test('a join with no from reads two inputs', async () => {
    const g = await graph('join on a=b');
    expect(g[0].kind).toBe('Fork');
    expect(g[1].kind).toBe('Join');
  });
});

describe('declarations', () => {
  test('constants are folded to literals, in scope', async () => {
    const g = await graph('const a = 1 + 2 yield a');
    const y = g[1] as dag.Yield;
    expect(y.exprs[0].kind).toBe('Literal');
    expect(await zq('const a = 1 + 2 yield a', '1')).toEqual(['3']);
  });

  test('inner scopes shadow outer declarations', async () => {
    expect(await zq('const a = 1 over this => ( const a = 2 yield a )', '[0]')).toEqual(['2']);
    expect(await zq('const a = 1 over this => ( yield a )', '[0]')).toEqual(['1']);
    expect(await zq('const x = "y" put this[x] := 1', '{a:0}')).toEqual(['{a:0,y:1}']);
  });

  test('user functions, recursion and arity', async () => {
    expect(await zq('func add1(x): (x + 1) yield add1(this)', '1 2')).toEqual(['2', '3']);
    expect(
      await zq('func fact(n): (n <= 1 ? 1 : n * fact(n - 1)) yield fact(this)', '5 10'),
    ).toEqual(['120', '3628800']);
    expect(
      await zq(
        'func even(n): (n == 0 ? true : odd(n - 1)) func odd(n): (n == 0 ? false : even(n - 1)) yield even(this)',
        '4 7',
      ),
    ).toEqual(['true', 'false']);
    expect(await zqError('func f(a, b): (a + b) yield f(1)', '1')).toBe(
      'f(): expects 2 argument(s)',
    );
  });

  test('unbounded recursion is a stack overflow', async () => {
    expect(await zqError('func overflow(n): (overflow(n+1)) yield overflow(this)', '1')).toMatch(
      /stack overflow/,
    );
  });

  test('type declarations name types', async () => {
    expect(await zq('type port = uint16 yield cast(this, <port>)', '80')).toEqual([
      '80(port=uint16)',
    ]);
    expect(await zq('type port = uint16 yield <port>', '1')).toEqual(['<port=uint16>']);
  });

  test('errors in declarations', async () => {
    expect(await zqError('const t = a put x := t', '{}')).toMatch(
      /const "t": cannot have variable dependency/,
    );
    expect(await zqError('const a = 1 const a = 2 yield a', '1')).toBe('symbol "a" redefined');
    expect(await zqError('const a = 1 yield a(2)', '1')).toBe(
      'a(): definition is not a function type: *dag.Literal',
    );
  });
});

describe('compile errors with the reference texts', () => {
  const cases: [string, string | RegExp][] = [
    ['yield nosuch(1)', 'nosuch(): no such function'],
    ['yield typeof(1, 2)', 'typeof(): too many arguments'],
    ['yield typeof()', 'typeof(): too few arguments'],
    [
      'cut hex := hex(this) where this % 2 == 0',
      "rhs of assignment expression: 'where' clause on non-aggregation function: hex",
    ],
    ['cut this := a', "cannot assign to 'this'"],
    ['count() by this', "cannot assign to 'this'"],
    ['put a[1] := 1', 'illegal left-hand side of assignment'],
    ['rename dst := id.resp_h', 'cannot rename id.resp_h to dst'],
    ['rename a.x := b.y', 'cannot rename b.y to a.x (differ in b vs a)'],
    ['rename a := 1', "'rename' requires explicit field references"],
    ['drop a[1]', 'drop: invalid expression used as a field'],
    ['head 0', 'head: expression value is not a positive integer: 0'],
    ['tail "x"', 'tail: expression value is not a positive integer: "x"'],
    ['y := 1, n := count()', 'mix of aggregations and non-aggregations in assignment list'],
    ['sum(a, b)', 'sum: wrong number of arguments'],
    ['x ~ /(a/', /error parsing regexp/],
    ['put a := 1, a := 2', 'put: multiple assignments to a'],
    ['put a := 1, a.b := 2', 'put: conflicting nested assignments to a and a.b'],
    ['cut a, a', 'duplicate field: "a"'],
    ['cut a.b, c, a.d', 'fields in record a must be adjacent'],
    ['from p', 'semantic analyzer: from pool cannot be used without a lake'],
    ['over a with b = 1', 'over operator: cannot have a with clause without a lateral query'],
    ['top', 'top: no arguments given'],
    [
      'SELECT a, b GROUP BY a',
      "'b': selected expression is missing from GROUP BY clause (and is not an aggregation)",
    ],
    ['SELECT a HAVING a > 1', 'HAVING clause used without GROUP BY'],
    ['SELECT a, count() FROM t', 'cannot mix aggregations and non-aggregations without a GROUP BY'],
    ['yield grep(/x/, 1, 2)', /error parsing Zed|syntax error/],
  ];
  for (const [q, want] of cases) {
    test(q, async () => {
      const msg = await zqError(q, '{}');
      if (typeof want === 'string') expect(msg).toBe(want);
      else expect(msg).toMatch(want);
    });
  }

  test('compile errors are CompileError', async () => {
    await expect(zq('yield nosuch(1)')).rejects.toBeInstanceOf(CompileError);
  });
});
