import type { Expr } from '../../../src/query/ast';
import { bin, call, dot, id, int, op, ops, primType, str, term } from './build';

const assign = (lhs: Expr | null, rhs: Expr) => ({ kind: 'Assignment', lhs, rhs });
const agg = (name: string, e: Expr | null = null, where: Expr | null = null) => ({
  kind: 'Agg',
  name,
  expr: e,
  where,
});

describe('operators', () => {
  it('assert desugars to a yield of the value or an error naming the expression', () => {
    expect(op('assert a > 1')).toEqual({
      kind: 'Yield',
      exprs: [
        {
          kind: 'Conditional',
          cond: bin('>', id('a'), int('1')),
          then: id('this'),
          else: call('error', [
            {
              kind: 'RecordExpr',
              elems: [
                { kind: 'Field', name: 'message', value: str('assertion failed') },
                { kind: 'Field', name: 'expr', value: str('a > 1') },
                { kind: 'Field', name: 'on', value: id('this') },
              ],
            },
          ]),
        },
      ],
    });
  });

  it('sort takes -r, -nulls and keys', () => {
    expect(op('sort')).toEqual({ kind: 'Sort', args: [], order: 'asc', nullsFirst: false });
    expect(op('sort -r a, b.c')).toEqual({
      kind: 'Sort',
      args: [id('a'), dot(id('b'), 'c')],
      order: 'desc',
      nullsFirst: false,
    });
    expect(op('sort -nulls first x')).toEqual({
      kind: 'Sort',
      args: [id('x')],
      order: 'asc',
      nullsFirst: true,
    });
    expect(op('sort -r -nulls last')).toEqual({
      kind: 'Sort',
      args: [],
      order: 'desc',
      nullsFirst: false,
    });
  });

  it('top takes a limit, -flush and fields', () => {
    expect(op('top')).toEqual({ kind: 'Top', limit: 0, args: [], flush: false });
    expect(op('top 5 -flush a, b')).toEqual({
      kind: 'Top',
      limit: 5,
      args: [id('a'), id('b')],
      flush: true,
    });
  });

  it('cut, drop, put and rename take assignments or fields', () => {
    expect(op('cut a, b:=c+1')).toEqual({
      kind: 'Cut',
      args: [assign(null, id('a')), assign(id('b'), bin('+', id('c'), int('1')))],
    });
    expect(op('drop a, b.c')).toEqual({ kind: 'Drop', args: [id('a'), dot(id('b'), 'c')] });
    expect(op('put x:=1, y:=x')).toEqual({
      kind: 'Put',
      args: [assign(id('x'), int('1')), assign(id('y'), id('x'))],
    });
    expect(op('rename a:=b, c.d:=c.e')).toEqual({
      kind: 'Rename',
      args: [assign(id('a'), id('b')), assign(dot(id('c'), 'd'), dot(id('c'), 'e'))],
    });
  });

  it('head and tail default to 1 and take any expression', () => {
    expect(op('head')).toEqual({ kind: 'Head', count: int('1') });
    expect(op('tail 10')).toEqual({ kind: 'Tail', count: int('10') });
    expect(op('head n+1')).toEqual({ kind: 'Head', count: bin('+', id('n'), int('1')) });
    expect(ops('head | tail')).toEqual([
      { kind: 'Head', count: int('1') },
      { kind: 'Tail', count: int('1') },
    ]);
  });

  it('where, uniq, pass, fuse, shape, merge, yield, sample', () => {
    expect(op('where x==1')).toEqual({ kind: 'Where', expr: bin('==', id('x'), int('1')) });
    expect(op('uniq')).toEqual({ kind: 'Uniq', cflag: false });
    expect(op('uniq -c')).toEqual({ kind: 'Uniq', cflag: true });
    expect(op('pass')).toEqual({ kind: 'Pass' });
    expect(op('fuse')).toEqual({ kind: 'Fuse' });
    expect(op('shape')).toEqual({ kind: 'Shape' });
    expect(op('merge ts')).toEqual({ kind: 'Merge', expr: id('ts') });
    expect(op('yield 1, {a:2}')).toEqual({
      kind: 'Yield',
      exprs: [
        int('1'),
        { kind: 'RecordExpr', elems: [{ kind: 'Field', name: 'a', value: int('2') }] },
      ],
    });
    expect(op('sample')).toEqual({ kind: 'Sample', expr: id('this') });
    expect(op('sample a.b')).toEqual({ kind: 'Sample', expr: dot(id('a'), 'b') });
  });

  it('fuse( and shape( are calls, not operators', () => {
    expect(op('fuse(this)')).toEqual({ kind: 'OpExpr', expr: call('fuse', [id('this')]) });
    expect(op('fuse(this) by a')).toEqual({
      kind: 'Summarize',
      keys: [assign(null, id('a'))],
      aggs: [assign(null, agg('fuse', id('this')) as never)],
      limit: 0,
    });
    expect(op('yield shape(this)')).toEqual({
      kind: 'Yield',
      exprs: [call('shape', [id('this')])],
    });
  });

  it('explode takes a type and an optional name', () => {
    expect(op('explode a, b by string as s')).toEqual({
      kind: 'Explode',
      args: [id('a'), id('b')],
      type: primType('string'),
      as: id('s'),
    });
    expect(op('explode this by <{x:int64}>')).toMatchObject({ kind: 'Explode', as: null });
  });

  it('over takes locals and a lateral pipeline', () => {
    expect(op('over a, b')).toEqual({
      kind: 'Over',
      exprs: [id('a'), id('b')],
      locals: [],
      body: null,
    });
    expect(op('over a with x, y=b+1 => ( yield x )')).toEqual({
      kind: 'Over',
      exprs: [id('a')],
      locals: [
        { name: 'x', expr: id('x') },
        { name: 'y', expr: bin('+', id('b'), int('1')) },
      ],
      body: [{ kind: 'Yield', exprs: [id('x')] }],
    });
    expect(op('over a => ( const k=1 yield k )')).toMatchObject({
      body: [{ kind: 'Scope', decls: [{ kind: 'ConstDecl', name: 'k' }] }],
    });
  });

  it('join takes a style, a right input, keys and assignments', () => {
    expect(op('join on a=b c:=d')).toEqual({
      kind: 'Join',
      style: 'inner',
      rightInput: null,
      leftKey: id('a'),
      rightKey: id('b'),
      args: [assign(id('c'), id('d'))],
    });
    expect(op('left join on k')).toMatchObject({
      style: 'left',
      leftKey: id('k'),
      rightKey: id('k'),
      args: [],
    });
    for (const style of ['anti', 'inner', 'right'])
      expect(op(`${style} join on k`)).toMatchObject({ kind: 'Join', style });
    expect(op('join ( from b | sort k ) ON (lower(k)) = k v')).toEqual({
      kind: 'Join',
      style: 'inner',
      rightInput: [
        {
          kind: 'From',
          trunks: [
            {
              kind: 'Trunk',
              source: {
                kind: 'Pool',
                spec: { pool: { kind: 'String', text: 'b' }, commit: null, meta: null, tap: false },
                at: null,
              },
              seq: null,
            },
          ],
        },
        { kind: 'Sort', args: [id('k')], order: 'asc', nullsFirst: false },
      ],
      leftKey: call('lower', [id('k')]),
      rightKey: id('k'),
      args: [assign(null, id('v'))],
    });
  });

  it('load names a pool, branch and commit metadata', () => {
    expect(op('load p@dev author "me" message "msg" meta "m"')).toEqual({
      kind: 'Load',
      pool: 'p',
      branch: 'dev',
      author: 'me',
      message: 'msg',
      meta: 'm',
    });
    expect(op('load "my pool"')).toEqual({
      kind: 'Load',
      pool: 'my pool',
      branch: null,
      author: null,
      message: null,
      meta: null,
    });
  });
});

describe('summarize and implied operators', () => {
  it('parses aggregations with names, keys, where and limit', () => {
    expect(op('summarize n:=count() where x>1, sum(y) by k, j:=lower(s) with -limit 10')).toEqual({
      kind: 'Summarize',
      keys: [assign(null, id('k')), assign(id('j'), call('lower', [id('s')]))],
      aggs: [
        assign(id('n'), agg('count', null, bin('>', id('x'), int('1'))) as never),
        assign(null, agg('sum', id('y')) as never),
      ],
      limit: 10,
    });
  });

  it('implies summarize from aggregate syntax and from a bare by', () => {
    expect(op('count() by a')).toEqual({
      kind: 'Summarize',
      keys: [assign(null, id('a'))],
      aggs: [assign(null, agg('count') as never)],
      limit: 0,
    });
    expect(op('by a, b')).toEqual({
      kind: 'Summarize',
      keys: [assign(null, id('a')), assign(null, id('b'))],
      aggs: [],
      limit: 0,
    });
    expect(op('and(x) by k')).toMatchObject({
      kind: 'Summarize',
      aggs: [{ rhs: agg('and', id('x')) }],
    });
  });

  it('leaves a bare call to the semantic pass (function or aggregate)', () => {
    expect(op('count()')).toEqual({ kind: 'OpExpr', expr: call('count', []) });
    expect(op('is(<int64>)')).toMatchObject({ kind: 'OpExpr', expr: { kind: 'Call', name: 'is' } });
  });

  it('leaves a bare assignment list to the semantic pass (put or summarize)', () => {
    expect(op('x:=1, y:=count()')).toEqual({
      kind: 'OpAssignment',
      assignments: [assign(id('x'), int('1')), assign(id('y'), call('count', []))],
    });
  });

  it('reads a bare expression as a search, a cast or an expression', () => {
    expect(op('foo')).toEqual({ kind: 'OpExpr', expr: term('foo') });
    // A call-like cast is a call in a search; a <type> cast is reached only as a cast.
    expect(op('string(x)')).toEqual({ kind: 'OpExpr', expr: call('string', [id('x')]) });
    expect(op('<int64>(x)')).toEqual({
      kind: 'OpExpr',
      expr: { kind: 'Cast', expr: id('x'), type: { kind: 'TypeValue', value: primType('int64') } },
    });
    expect(op('{a:1}')).toEqual({
      kind: 'OpExpr',
      expr: { kind: 'RecordExpr', elems: [{ kind: 'Field', name: 'a', value: int('1') }] },
    });
  });

  it('keeps the first operator form even when the rest fails, as the reference does', () => {
    expect(() => ops('heads')).toThrow('column 5:');
    expect(ops('sorted')).toEqual([{ kind: 'OpExpr', expr: term('sorted') }]);
  });
});
