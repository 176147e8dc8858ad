import { bin, call, dot, id, int, op, opExpr, prim, str, term } from './build';

describe('search terms', () => {
  it('reads bare words as keyword terms', () => {
    expect(opExpr('foo')).toEqual(term('foo'));
    expect(opExpr('a.b/c:d@e%f#g~h_9')).toEqual(term('a.b/c:d@e%f#g~h_9'));
  });

  it('unescapes keywords but keeps the source text', () => {
    expect(opExpr('foo\\tbar')).toEqual(term('foo\\tbar', str('foo\tbar')));
    expect(opExpr('a\\=b')).toEqual(term('a\\=b', str('a=b')));
  });

  it('reads literals as typed terms', () => {
    expect(opExpr('10.0.0.1')).toEqual(term('10.0.0.1', prim('ip', '10.0.0.1')));
    expect(opExpr('"foo bar"')).toEqual(term('"foo bar"', str('foo bar')));
    expect(opExpr('123')).toEqual(term('123', int('123')));
    expect(opExpr('1h')).toEqual(term('1h', prim('duration', '1h')));
  });

  it('reads globs, escaped stars and *', () => {
    expect(opExpr('foo*')).toEqual({ kind: 'Glob', pattern: 'foo*' });
    expect(opExpr('*.com')).toEqual({ kind: 'Glob', pattern: '*.com' });
    expect(opExpr('a\\*b*')).toEqual({ kind: 'Glob', pattern: 'a\\*b*' });
    expect(opExpr('*')).toEqual(prim('bool', 'true'));
  });

  it('reads regular expressions', () => {
    expect(opExpr('/a+b/')).toEqual({ kind: 'Regexp', pattern: 'a+b' });
    expect(opExpr('/a\\/b/')).toEqual({ kind: 'Regexp', pattern: 'a\\/b' });
    // As in the reference, globs are tried first and `/` is a keyword character.
    expect(opExpr('/a.*b/')).toEqual({ kind: 'Glob', pattern: '/a.*b/' });
  });

  it('reads comparisons and calls as predicates', () => {
    expect(opExpr('x==1')).toEqual(bin('==', id('x'), int('1')));
    expect(opExpr('a.b >= 2')).toEqual(bin('>=', dot(id('a'), 'b'), int('2')));
    expect(opExpr('2 in a')).toEqual(bin('in', int('2'), id('a')));
    expect(opExpr('is(<string>)')).toEqual(
      call('is', [{ kind: 'TypeValue', value: { kind: 'TypePrimitive', name: 'string' } }]),
    );
  });
});

describe('search boolean logic', () => {
  it('joins juxtaposed terms with and', () => {
    expect(opExpr('a b c')).toEqual(bin('and', bin('and', term('a'), term('b')), term('c')));
  });

  it('binds and tighter than or, explicit or implied', () => {
    expect(opExpr('a or b and c d')).toEqual(
      bin('or', term('a'), bin('and', bin('and', term('b'), term('c')), term('d'))),
    );
    expect(opExpr('a OR b AND c')).toEqual(bin('or', term('a'), bin('and', term('b'), term('c'))));
  });

  it('negates with not, NOT and !', () => {
    const not = (e: unknown) => ({ kind: 'UnaryExpr', op: '!', operand: e });
    expect(opExpr('not a')).toEqual(not(term('a')));
    expect(opExpr('NOT a b')).toEqual(bin('and', not(term('a')) as never, term('b')));
    expect(opExpr('!x==1')).toEqual(not(bin('==', id('x'), int('1'))));
    expect(opExpr('! (a or b)')).toEqual(not(bin('or', term('a'), term('b'))));
  });

  it('groups with parentheses', () => {
    expect(opExpr('(a or b) c')).toEqual(bin('and', bin('or', term('a'), term('b')), term('c')));
  });

  it('mixes terms and predicates', () => {
    expect(opExpr('foo *bar x>1')).toEqual(
      bin(
        'and',
        bin('and', term('foo'), { kind: 'Glob', pattern: '*bar' }),
        bin('>', id('x'), int('1')),
      ),
    );
    // `*` after a value is multiplication.
    expect(opExpr('x>1 *bar')).toEqual(bin('>', id('x'), bin('*', int('1'), id('bar'))));
  });

  it('takes a literal followed by a glob as a term', () => {
    expect(opExpr('1 *a')).toEqual(
      bin('and', term('1', int('1')), { kind: 'Glob', pattern: '*a' }),
    );
    expect(() => opExpr('1 *')).toThrow('column 4:');
  });

  it('uses the search operator explicitly', () => {
    expect(op('search foo or x==1')).toEqual({
      kind: 'Search',
      expr: bin('or', term('foo'), bin('==', id('x'), int('1'))),
    });
  });

  it('stops a search before the next from/switch leg', () => {
    const from = op('from ( pool a => x pool b => y )');
    expect(from).toMatchObject({
      kind: 'From',
      trunks: [
        { seq: [{ kind: 'OpExpr', expr: term('x') }] },
        { seq: [{ kind: 'OpExpr', expr: term('y') }] },
      ],
    });
    const sw = op('switch ( case x==1 => a b case y==2 => c default => d )');
    expect(sw).toMatchObject({
      kind: 'Switch',
      cases: [
        { path: [{ expr: bin('and', term('a'), term('b')) }] },
        { path: [{ expr: term('c') }] },
        { expr: null, path: [{ expr: term('d') }] },
      ],
    });
  });

  it('reads a value followed by an expression operator as an expression', () => {
    expect(opExpr('a+1==2')).toEqual(bin('==', bin('+', id('a'), int('1')), int('2')));
    expect(() => opExpr('Defunct=')).toThrow('column 8:');
  });
});
