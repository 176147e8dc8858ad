import { bin, call, dot, id, int, op } from './build';

describe('SQL operator', () => {
  it('parses SELECT * with no other clause', () => {
    expect(op('SELECT *')).toEqual({
      kind: 'SQLExpr',
      select: null,
      from: null,
      joins: [],
      where: null,
      groupBy: [],
      having: null,
      orderBy: null,
      limit: 0,
    });
  });

  it('parses every clause, case-insensitively', () => {
    expect(
      op(
        'select a, count() as n from logs as l join users u on l.uid = u.id ' +
          'where a > 1 group by a having n > 2 order by n desc limit 5',
      ),
    ).toEqual({
      kind: 'SQLExpr',
      select: [
        { kind: 'Assignment', lhs: null, rhs: id('a') },
        { kind: 'Assignment', lhs: id('n'), rhs: call('count', []) },
      ],
      from: { table: id('logs'), alias: id('l') },
      joins: [
        {
          table: id('users'),
          style: 'inner',
          leftKey: dot(id('l'), 'uid'),
          rightKey: dot(id('u'), 'id'),
          alias: id('u'),
        },
      ],
      where: bin('>', id('a'), int('1')),
      groupBy: [id('a')],
      having: bin('>', id('n'), int('2')),
      orderBy: { kind: 'SQLOrderBy', keys: [id('n')], order: 'desc' },
      limit: 5,
    });
  });

  it('reads join styles and defaults ORDER BY to asc', () => {
    const q = op('SELECT x FROM a AS a LEFT JOIN b ON k=k ANTI JOIN c ON (k)=k ORDER BY x');
    expect(q).toMatchObject({
      joins: [
        { style: 'left', table: id('b'), alias: null },
        { style: 'anti', table: id('c'), leftKey: id('k') },
      ],
      orderBy: { keys: [id('x')], order: 'asc' },
    });
  });

  it('takes a join style word right after the table for its alias, as the reference does', () => {
    expect(op('SELECT x FROM a LEFT JOIN b ON k=k')).toMatchObject({
      from: { alias: id('LEFT') },
      joins: [{ style: 'inner' }],
    });
  });

  it('does not take an SQL keyword for a table alias', () => {
    expect(op('select x from t where y')).toMatchObject({
      from: { table: id('t'), alias: null },
      where: id('y'),
    });
  });

  it('reads FROM * as no table', () => {
    expect(op('select x from *')).toMatchObject({ from: null });
  });
});
