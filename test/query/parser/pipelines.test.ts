import type { Source } from '../../../src/query/ast';
import { bin, call, id, int, op, ops, primType, str, term } from './build';

const pool = (name: string, extra: Record<string, unknown> = {}): Source => ({
  kind: 'Pool',
  spec: { pool: { kind: 'String', text: name }, commit: null, meta: null, tap: false, ...extra },
  at: null,
});
const from = (source: Source) => ({ kind: 'From', trunks: [{ kind: 'Trunk', source, seq: null }] });

describe('pipelines', () => {
  it('chains operators with |', () => {
    expect(ops('a | count() | sort -r count')).toEqual([
      { kind: 'OpExpr', expr: term('a') },
      { kind: 'OpExpr', expr: call('count', []) },
      { kind: 'Sort', args: [id('count')], order: 'desc', nullsFirst: false },
    ]);
  });

  it('spans lines and skips // comments', () => {
    expect(ops('a // first\n| // second\nyield 1 // last')).toEqual([
      { kind: 'OpExpr', expr: term('a') },
      { kind: 'Yield', exprs: [int('1')] },
    ]);
  });

  it('does not take |[ or |{ for a pipe', () => {
    expect(() => ops('yield x |[1]|')).toThrow('column 10:');
  });

  it('reads an empty query as *', () => {
    expect(ops('')).toEqual([
      { kind: 'OpExpr', expr: { kind: 'Primitive', type: 'bool', text: 'true' } },
    ]);
  });

  it('forks into parallel paths', () => {
    expect(op('fork ( => count() => head 1 | tail )')).toEqual({
      kind: 'Parallel',
      paths: [
        [{ kind: 'OpExpr', expr: call('count', []) }],
        [
          { kind: 'Head', count: int('1') },
          { kind: 'Tail', count: int('1') },
        ],
      ],
    });
  });

  it('switches on a value or on predicates, with default', () => {
    expect(op('switch x ( case 1 => yield "one" default => pass )')).toEqual({
      kind: 'Switch',
      expr: id('x'),
      cases: [
        { expr: int('1'), path: [{ kind: 'Yield', exprs: [str('one')] }] },
        { expr: null, path: [{ kind: 'Pass' }] },
      ],
    });
    expect(op('switch (\n  case x>1 => put y:=1\n  case grep("a") => pass\n)')).toEqual({
      kind: 'Switch',
      expr: null,
      cases: [
        {
          expr: bin('>', id('x'), int('1')),
          path: [{ kind: 'Put', args: [{ kind: 'Assignment', lhs: id('y'), rhs: int('1') }] }],
        },
        {
          expr: { kind: 'Grep', pattern: { kind: 'String', text: 'a' }, expr: id('this') },
          path: [{ kind: 'Pass' }],
        },
      ],
    });
  });
});

describe('data sources', () => {
  it('reads a pool, branch or commit, meta and tap', () => {
    expect(op('from logs')).toEqual(from(pool('logs')));
    expect(op('from logs@dev')).toEqual(from(pool('logs', { commit: 'dev' })));
    expect(op('from logs@2Q9gDDy7N4aQ6VKCYvYEIMTgL5f')).toEqual(
      from(pool('logs', { commit: '2Q9gDDy7N4aQ6VKCYvYEIMTgL5f' })),
    );
    expect(op('from logs@main:objects tap')).toEqual(
      from(pool('logs', { commit: 'main', meta: 'objects', tap: true })),
    );
    expect(op('from "my pool"')).toEqual(from(pool('my pool')));
    expect(op('from logs at 2Q9gDDy7N4aQ6VKCYvYEIMTgL5f')).toEqual(
      from({ ...pool('logs'), at: '2Q9gDDy7N4aQ6VKCYvYEIMTgL5f' } as Source),
    );
  });

  it('reads lake meta-queries', () => {
    expect(op('from :pools')).toEqual(
      from({
        kind: 'Pool',
        spec: { pool: null, commit: null, meta: 'pools', tap: false },
        at: null,
      }),
    );
  });

  it('reads pool patterns', () => {
    expect(op('from *')).toMatchObject({
      trunks: [{ source: { spec: { pool: { kind: 'Glob', pattern: '*' } } } }],
    });
    expect(op('from logs*')).toMatchObject({
      trunks: [{ source: { spec: { pool: { kind: 'Glob', pattern: 'logs*' } } } }],
    });
    expect(op('from /^l/')).toMatchObject({
      trunks: [{ source: { spec: { pool: { kind: 'Regexp', pattern: '^l' } } } }],
    });
  });

  it('reads files and URLs with format and order', () => {
    expect(op('file data/x.zng format zng order ts:desc')).toEqual(
      from({
        kind: 'File',
        path: 'data/x.zng',
        format: 'zng',
        sortKey: { kind: 'SortKey', keys: [id('ts')], order: 'desc' },
      }),
    );
    expect(op('file "a b.json"')).toEqual(
      from({ kind: 'File', path: 'a b.json', format: null, sortKey: null }),
    );
    expect(op('get https://example.com/a?b=1')).toEqual(
      from({ kind: 'HTTP', url: 'https://example.com/a?b=1', format: null, sortKey: null }),
    );
  });

  it('reads a search leg up to the next leg with =>, as the reference does', () => {
    expect(op('from ( pool a => x pool b )')).toMatchObject({
      trunks: [{ seq: [{ expr: bin('and', bin('and', term('x'), term('pool')), term('b')) }] }],
    });
  });

  it('reads several sources in parallel, each with its own pipeline', () => {
    expect(
      op(
        'from (\n  pool a => put x:=1\n  pool b@dev\n  file f.json => head 1\n  get http://h/x\n  pass => tail\n)',
      ),
    ).toEqual({
      kind: 'From',
      trunks: [
        {
          kind: 'Trunk',
          source: pool('a'),
          seq: [{ kind: 'Put', args: [{ kind: 'Assignment', lhs: id('x'), rhs: int('1') }] }],
        },
        { kind: 'Trunk', source: pool('b', { commit: 'dev' }), seq: null },
        {
          kind: 'Trunk',
          source: { kind: 'File', path: 'f.json', format: null, sortKey: null },
          seq: [{ kind: 'Head', count: int('1') }],
        },
        {
          kind: 'Trunk',
          source: { kind: 'HTTP', url: 'http://h/x', format: null, sortKey: null },
          seq: null,
        },
        { kind: 'Trunk', source: { kind: 'Pass' }, seq: [{ kind: 'Tail', count: int('1') }] },
      ],
    });
  });
});

describe('declarations and scopes', () => {
  it('wraps a query with declarations in a scope', () => {
    expect(
      ops('const x = 1\ntype port = uint16\nfunc add(a, b): ( a + b )\nyield add(x, 2)'),
    ).toEqual([
      {
        kind: 'Scope',
        decls: [
          { kind: 'ConstDecl', name: 'x', expr: int('1') },
          {
            kind: 'ConstDecl',
            name: 'port',
            expr: {
              kind: 'TypeValue',
              value: { kind: 'TypeDef', name: 'port', type: primType('uint16') },
            },
          },
          { kind: 'FuncDecl', name: 'add', params: ['a', 'b'], expr: bin('+', id('a'), id('b')) },
        ],
        body: [{ kind: 'Yield', exprs: [call('add', [id('x'), int('2')])] }],
      },
    ]);
  });

  it('accepts a quoted type name', () => {
    expect(ops('type "a b" = int64 pass')).toMatchObject([
      {
        kind: 'Scope',
        decls: [{ name: 'a b', expr: { value: { kind: 'TypeDef', name: 'a b' } } }],
      },
    ]);
  });

  it('scopes declarations to a parenthesized pipeline', () => {
    expect(ops('pass | ( const y = 2 yield y ) | head')).toEqual([
      { kind: 'Pass' },
      {
        kind: 'Scope',
        decls: [{ kind: 'ConstDecl', name: 'y', expr: int('2') }],
        body: [{ kind: 'Yield', exprs: [id('y')] }],
      },
      { kind: 'Head', count: int('1') },
    ]);
  });

  it('needs whitespace after a declaration and a parameter in a func', () => {
    expect(() => ops('const x=1|yield x')).toThrow('column 10:');
    expect(() => ops('func f(): (1) yield f()')).toThrow('column 9:');
  });
});
