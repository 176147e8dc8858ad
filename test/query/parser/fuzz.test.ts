// Malformed input gives a ParseError or a tree, never another exception,
// and parsing stays fast (no backtracking blow-up, no hang).

import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse, ParseError } from '../../../src/query/parser';

const queries: string[] = (
  JSON.parse(readFileSync(resolve(__dirname, 'reference-cases.json'), 'utf8')) as [
    string,
    unknown,
  ][]
).map(([q]) => q);

const TOKENS = [
  '|',
  '=>',
  ':=',
  ' and ',
  ' or ',
  ' not ',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '|[',
  ']|',
  '|{',
  '}|',
  '"',
  "'",
  '/',
  '*',
  ' by ',
  ' with ',
  '-r',
  '${',
  '<',
  '>',
  'int64',
  '::',
  '1.2.3.4',
  '2020-01-01T00:00:00Z',
  '1h',
  '0x',
  'NaN',
  '-Inf',
  'true',
  'null',
  ' from ',
  ' pool ',
  ' case ',
  ' default ',
  ' over ',
  ' yield ',
  ' sort ',
  ' head ',
  ' join ',
  ' on ',
  '\\',
  '//',
  '\n',
  'fork',
  'switch',
  'select ',
  ' as ',
  ' where ',
  ' count()',
  'x',
  'a.b',
  '...',
  'this',
  '?',
  ':',
  ',',
  '@',
  'f(',
  '.',
  'é',
  '😀',
  '\u00a0',
  '\u2028',
];

/** Parses q, failing the test on anything but success or a well-formed ParseError. */
function check(q: string): void {
  const t0 = performance.now();
  try {
    const prog = parse(q);
    expect(Array.isArray(prog) && prog.length > 0).toBe(true);
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    expect(e.message).toMatch(/^(error parsing Zed at |\d+:\d+ \(\d+\): rule SortArgs)/);
    expect(e.offset).toBeGreaterThanOrEqual(0);
    expect(e.offset).toBeLessThanOrEqual(Buffer.byteLength(q === '' ? '*' : q));
    expect(e.line).toBeGreaterThanOrEqual(1);
    expect(e.column).toBeGreaterThanOrEqual(1);
  }
  expect(performance.now() - t0).toBeLessThan(10000);
}

type Edit = { at: number; kind: number; pick: number; len: number };

function mutate(q: string, edits: Edit[]): string {
  for (const { at, kind, pick, len } of edits) {
    const p = at % (q.length + 1);
    const tok = TOKENS[pick % TOKENS.length];
    switch (kind) {
      case 0:
        q = q.slice(0, p) + q.slice(p + len);
        break;
      case 1:
        q = q.slice(0, p) + tok + q.slice(p);
        break;
      case 2:
        q = q.slice(0, p);
        break;
      case 3: {
        const other = queries[pick % queries.length];
        const from = at % (other.length + 1);
        q = q.slice(0, p) + other.slice(from, from + len) + q.slice(p);
        break;
      }
      default:
        q = q.slice(0, p) + tok + q.slice(p + 1);
    }
  }
  return q;
}

const edit = fc.record({
  at: fc.nat(),
  kind: fc.nat({ max: 4 }),
  pick: fc.nat(),
  len: fc.integer({ min: 1, max: 12 }),
});

describe('parser robustness', () => {
  it('handles mutated real queries', () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 4 }), (i, edits) => {
        check(mutate(queries[i % queries.length], edits));
      }),
      { numRuns: 3000, seed: 1 },
    );
  });

  it('handles token soup', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }), (toks) => {
        check(toks.join(''));
      }),
      { numRuns: 2000, seed: 2 },
    );
  });

  it('handles arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => check(s)),
      { numRuns: 2000, seed: 3 },
    );
  });

  it('stays fast on deep nesting and long inputs', () => {
    const deep = [
      `${'('.repeat(300)}a+1${')'.repeat(300)}`,
      `${'('.repeat(300)}a+1`,
      `yield ${'f('.repeat(150)}x`,
      `yield ${'(over a | yield '.repeat(60)}x`,
      `yield ${'"${'.repeat(100)}x`,
      `yield <${'{a:'.repeat(150)}`,
      `yield a${'[1:'.repeat(150)}`,
      `${'not '.repeat(500)}x`,
      Array.from({ length: 3000 }, (_, i) => `a${i}`).join(' '),
      Array.from({ length: 1000 }, (_, i) => `a${i}==1`).join(' or '),
      Array.from({ length: 300 }, () => 'put x:=x+1').join(' | '),
      `"${'a'.repeat(50000)}`,
    ];
    for (const q of deep) check(q);
  });
});
