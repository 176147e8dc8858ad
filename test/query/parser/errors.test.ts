import { parse, ParseError } from '../../../src/query/parser';

function error(q: string): ParseError {
  try {
    parse(q);
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw e;
  }
  throw new Error(`${JSON.stringify(q)} parsed`);
}

describe('parse error messages', () => {
  it('shows the line and a caret at the farthest position reached', () => {
    // compiler/parser/ztests/syntax-error.yaml
    expect(error('count() by ,x,y').message).toBe(
      'error parsing Zed at column 12:\ncount() by ,x,y\n       === ^ ===',
    );
    // docs/tutorials/schools.md
    expect(error('Defunct=').message).toBe(
      'error parsing Zed at column 8:\nDefunct=\n   === ^ ===',
    );
  });

  it('names the line only for multi-line queries', () => {
    // lake/ztests/query-parse-error.yaml
    expect(error('from test \\ count()').message).toBe(
      'error parsing Zed at column 11:\nfrom test \\ count()\n      === ^ ===',
    );
    expect(error('from\ntest \\ count()').message).toBe(
      'error parsing Zed at line 2, column 6:\ntest \\ count()\n === ^ ===',
    );
    expect(error('a\n| b\n| yield ,').message).toBe(
      'error parsing Zed at line 3, column 9:\n| yield ,\n    === ^ ===',
    );
  });

  it('draws short carets near the start of a line', () => {
    expect(error(')').message).toBe('error parsing Zed at column 1:\n)\n^ ===');
    expect(error('x==').message).toBe('error parsing Zed at column 4:\nx==\n== ^ ===');
    expect(error('a |').message).toBe('error parsing Zed at column 4:\na |\n== ^ ===');
    expect(error('ab |').message).toBe('error parsing Zed at column 5:\nab |\n=== ^ ===');
  });

  it('reports the position as a byte offset, line and column', () => {
    const e = error('from\ntest \\ count()');
    expect([e.offset, e.line, e.column]).toEqual([10, 2, 6]);
    const f = error('count() by ,x,y');
    expect([f.offset, f.line, f.column]).toEqual([11, 1, 12]);
    expect(f).toBeInstanceOf(Error);
    expect(f.name).toBe('ParseError');
  });

  it('counts UTF-8 bytes for offsets and columns', () => {
    const e = error('yield "é" ,');
    expect([e.offset, e.column]).toEqual([12, 13]);
    expect(e.message.split('\n')[0]).toBe('error parsing Zed at column 13:');
  });

  it('fails at the end for incomplete queries', () => {
    expect(error('a |').offset).toBe(3);
    expect(error('put x:=').offset).toBe(7);
    expect(error('yield "abc').offset).toBe(10);
    expect(error('  ').offset).toBe(2);
    expect(error('// only a comment').offset).toBe(17);
  });

  it('fails at an unbalanced parenthesis', () => {
    expect(error('a | fork (=> b)) ').offset).toBe(15);
  });

  it('rejects a repeated sort flag with the reference two-part message', () => {
    const e = error('sort -r -r');
    expect(e.message).toBe(
      '1:5 (4): rule SortArgs: Duplicate argument -r\n' +
        '1:11 (10): rule SortOp: interface conversion: interface {} is nil, not map[string]interface {}',
    );
    expect(e.offset).toBe(4);
    expect(error('x\n| sort -nulls first -nulls last a').message).toBe(
      '2:7 (8): rule SortArgs: Duplicate argument -nulls\n' +
        '2:34 (35): rule SortOp: interface conversion: interface {} is nil, not map[string]interface {}',
    );
  });

  it('reports nesting too deep for the stack as a parse error', () => {
    const q = `yield ${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const e = error(q);
    expect(e.message).toMatch(/^error parsing Zed at column \d+ \(nested too deeply\):\n/);
    expect(e.offset).toBeGreaterThan(6);
  });
});
