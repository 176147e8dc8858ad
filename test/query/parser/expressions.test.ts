import { bin, call, dot, expr, id, int, prim, str, typeValue, primType } from './build';

describe('expression precedence', () => {
  it('multiplies before adding and is left-associative', () => {
    expect(expr('1+2*3-4')).toEqual(
      bin('-', bin('+', int('1'), bin('*', int('2'), int('3'))), int('4')),
    );
    expect(expr('a/b%c')).toEqual(bin('%', bin('/', id('a'), id('b')), id('c')));
  });

  it('compares after arithmetic, then and, then or, then ?:', () => {
    expect(expr('a+1>=b or c and not_d==2 ? x : y')).toEqual({
      kind: 'Conditional',
      cond: bin(
        'or',
        bin('>=', bin('+', id('a'), int('1')), id('b')),
        bin('and', id('c'), bin('==', id('not_d'), int('2'))),
      ),
      then: id('x'),
      else: id('y'),
    });
  });

  it('nests conditionals to the right', () => {
    expect(expr('a ? b : c ? d : e')).toEqual({
      kind: 'Conditional',
      cond: id('a'),
      then: id('b'),
      else: { kind: 'Conditional', cond: id('c'), then: id('d'), else: id('e') },
    });
  });

  it('accepts AND/OR in upper case', () => {
    expect(expr('a AND b OR c')).toEqual(bin('or', bin('and', id('a'), id('b')), id('c')));
  });

  it('parses every comparison operator, in and ~', () => {
    for (const op of ['==', '!=', '<', '<=', '>', '>='])
      expect(expr(`a ${op} 1`)).toEqual(bin(op, id('a'), int('1')));
    expect(expr('1 in a')).toEqual(bin('in', int('1'), id('a')));
    expect(expr('s ~ /fo+/')).toEqual(bin('~', id('s'), { kind: 'Regexp', pattern: 'fo+' }));
  });

  it('does not chain comparisons', () => {
    expect(() => expr('a < b < c')).toThrow('column 13:');
  });

  it('needs a word boundary after in', () => {
    // "a inx" is not a comparison: yield takes `a` and then fails.
    expect(() => expr('a inx')).toThrow('column 11:');
  });

  it('parses logical and arithmetic prefix operators', () => {
    expect(expr('!a')).toEqual({ kind: 'UnaryExpr', op: '!', operand: id('a') });
    expect(expr('!!a')).toEqual({
      kind: 'UnaryExpr',
      op: '!',
      operand: { kind: 'UnaryExpr', op: '!', operand: id('a') },
    });
    expect(expr('-a.b')).toEqual({ kind: 'UnaryExpr', op: '-', operand: dot(id('a'), 'b') });
    // A minus that begins a literal is part of the literal.
    expect(expr('-1')).toEqual(int('-1'));
    expect(expr('a-1')).toEqual(bin('-', id('a'), int('1')));
    expect(expr('a - -1')).toEqual(bin('-', id('a'), int('-1')));
  });

  it('parenthesizes', () => {
    expect(expr('(1+2)*3')).toEqual(bin('*', bin('+', int('1'), int('2')), int('3')));
  });
});

describe('dereferences', () => {
  it('reads fields with dots, this and brackets', () => {
    expect(expr('a.b.c')).toEqual(dot(dot(id('a'), 'b'), 'c'));
    expect(expr('this')).toEqual(id('this'));
    expect(expr('this["x y"]')).toEqual({
      kind: 'BinaryExpr',
      op: '[',
      lhs: id('this'),
      rhs: str('x y'),
    });
    expect(expr('a[1].b')).toEqual(
      dot({ kind: 'BinaryExpr', op: '[', lhs: id('a'), rhs: int('1') }, 'b'),
    );
  });

  it('slices with either bound', () => {
    const slice = (lhs: unknown, rhs: unknown) => ({
      kind: 'BinaryExpr',
      op: '[',
      lhs: id('a'),
      rhs: { kind: 'BinaryExpr', op: ':', lhs, rhs },
    });
    expect(expr('a[1:2]')).toEqual(slice(int('1'), int('2')));
    expect(expr('a[1:]')).toEqual(slice(int('1'), null));
    expect(expr('a[:-1]')).toEqual(slice(null, int('-1')));
    expect(expr('a[1 : 2]')).toEqual(slice(int('1'), int('2')));
    // No space may follow the bracket.
    expect(() => expr('a[ 1:2]')).toThrow('column 10:');
  });

  it('reads identifiers with $ and _ and escaped guard words', () => {
    expect(expr('$x_1')).toEqual(id('$x_1'));
    expect(expr('\\true')).toEqual(id('true'));
    expect(expr('nullable')).toEqual(id('nullable'));
  });
});

describe('calls and casts', () => {
  it('calls functions with zero or more arguments and dereferences the result', () => {
    expect(expr('now()')).toEqual(call('now', []));
    expect(expr('f(a, 1+2)')).toEqual(call('f', [id('a'), bin('+', int('1'), int('2'))]));
    expect(expr('f(x).y')).toEqual(dot(call('f', [id('x')]), 'y'));
  });

  it('attaches a where clause to a call', () => {
    expect(expr('sum(x) where x > 1')).toEqual(call('sum', [id('x')], bin('>', id('x'), int('1'))));
  });

  it('turns the /re/ argument of regexp and regexp_replace into a string', () => {
    expect(expr('regexp(/a+/, s)')).toEqual(call('regexp', [str('a+'), id('s')]));
    expect(expr('regexp_replace(s, /a\\/b/, "x")')).toEqual(
      call('regexp_replace', [id('s'), str('a\\/b'), str('x')]),
    );
  });

  it('parses grep with each kind of pattern', () => {
    expect(expr('grep(/a.*b/)')).toEqual({
      kind: 'Grep',
      pattern: { kind: 'Regexp', pattern: 'a.*b' },
      expr: id('this'),
    });
    expect(expr('grep(foo*, s)')).toEqual({
      kind: 'Grep',
      pattern: { kind: 'Glob', pattern: 'foo*' },
      expr: id('s'),
    });
    expect(expr('grep("x y", s)')).toEqual({
      kind: 'Grep',
      pattern: { kind: 'String', text: 'x y' },
      expr: id('s'),
    });
  });

  it('casts with a primitive type name or a type value', () => {
    expect(expr('int64(x)')).toEqual({
      kind: 'Cast',
      expr: id('x'),
      type: typeValue(primType('int64')),
    });
    expect(expr('<port=uint16>(x)')).toEqual({
      kind: 'Cast',
      expr: id('x'),
      type: typeValue({ kind: 'TypeDef', name: 'port', type: primType('uint16') }),
    });
    // A longer name is a function, not a cast.
    expect(expr('int64x(x)')).toEqual(call('int64x', [id('x')]));
  });

  it('does not treat not(...) and select(...) as calls', () => {
    expect(() => expr('not(a)')).toThrow('column 10:');
    expect(() => expr('select(a)')).toThrow('column 13:');
    expect(expr('nothing(a)')).toEqual(call('nothing', [id('a')]));
  });
});

describe('constructors', () => {
  it('builds records with fields, quoted names, shorthand and spreads', () => {
    expect(expr('{a:1,"b c":x, d, ...r}')).toEqual({
      kind: 'RecordExpr',
      elems: [
        { kind: 'Field', name: 'a', value: int('1') },
        { kind: 'Field', name: 'b c', value: id('x') },
        id('d'),
        { kind: 'Spread', expr: id('r') },
      ],
    });
    expect(expr('{}')).toEqual({ kind: 'RecordExpr', elems: [] });
  });

  it('builds arrays and sets with spreads', () => {
    expect(expr('[1, ...a]')).toEqual({
      kind: 'ArrayExpr',
      elems: [
        { kind: 'VectorValue', expr: int('1') },
        { kind: 'Spread', expr: id('a') },
      ],
    });
    expect(expr('|[ ]|')).toEqual({ kind: 'SetExpr', elems: [] });
  });

  it('builds maps', () => {
    expect(expr('|{"a":1, "b":2}|')).toEqual({
      kind: 'MapExpr',
      entries: [
        { key: str('a'), value: int('1') },
        { key: str('b'), value: int('2') },
      ],
    });
  });

  it('interpolates ${...} in strings as string casts joined with +', () => {
    const asString = (e: unknown) => ({
      kind: 'Cast',
      expr: e,
      type: typeValue(primType('string')),
    });
    expect(expr('"a${x}b"')).toEqual(
      bin('+', bin('+', str('a'), asString(id('x')) as never), str('b')),
    );
    expect(expr("'${1+1}'")).toEqual(asString(bin('+', int('1'), int('1'))));
    expect(expr('"\\${x}"')).toEqual(str('${x}'));
    expect(expr('""')).toEqual(str(''));
  });

  it('parses lateral expressions', () => {
    expect(expr('(over a with b=1 | sum(this))')).toEqual({
      kind: 'OverExpr',
      locals: [{ name: 'b', expr: int('1') }],
      exprs: [id('a')],
      body: [{ kind: 'OpExpr', expr: call('sum', [id('this')]) }],
    });
  });

  it('keeps literal text with its type', () => {
    expect(expr('<int64>')).toEqual(typeValue(primType('int64')));
    expect(expr('1.5e3')).toEqual(prim('float64', '1.5e3'));
  });
});
