// The literals a pattern's matches must contain (expr/regexlit.ts): every
// string a pattern matches holds one of them, so that bytes holding none
// can be skipped; a construct the analysis does not follow gives none.

import fc from 'fast-check';
import { compileRegexp, reglob } from '../../../src/query/expr/regexp';
import { requiredLiterals } from '../../../src/query/expr/regexlit';

test.each([
  ['needle-0042', ['needle-0042']],
  [reglob('needle*'), ['needle']],
  [reglob('*.co.uk'), ['.co.uk']],
  ['foo|bar', ['foo', 'bar']],
  ['x(foo|bar)y', ['foo', 'bar']],
  ['a(b|c)dd', ['dd']],
  ['ab+cd', ['bcd']],
  ['ab+', ['ab']],
  ['(abc){2}', ['abcabc']],
  ['x{2,}yz', ['xxyz']],
  ['(?:ab.)+z', ['ab']],
  ['a(?:b.cd)+e', ['cde']],
  ['(?:ab)?cd', ['cd']],
  ['[abc]def', ['def']],
  ['[]a]bc', ['bc']],
  ['ab(?=x)cd', ['abcd']],
  ['(a)\\1bc', ['bc']],
  ['a\\.b\\x41c', ['a.bAc']],
  ['\\Qa.b\\E+', ['a.b']],
  ['tab\\tx', ['tab\tx']],
  ['(?P<n>needle)-\\d+', ['needle-']],
  ['\\bword\\b', ['word']],
  ['(?i)needle', ['needle']],
  ['(?s)ne.dle', ['dle']],
  ['\\pLneedle', ['needle']],
  ['café', ['café']],
  // No literal of two or more characters every match holds.
  ['', null],
  ['ab*c', null],
  ['foo|b', null],
  ['foo|', null],
  ['(foo)?', null],
  ['a.b', null],
  ['[a-z]+', null],
  ['\\d{3}', null],
  ['(?i)\\pLneedle', null],
])('the literals of /%s/', (pattern, want) => {
  expect(requiredLiterals(compileRegexp(pattern))).toEqual(want);
});

test('every string a pattern matches holds one of its literals', () => {
  // RE2 patterns over a small alphabet, so that random strings match often.
  const { re } = fc.letrec((tie) => ({
    re: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('a', 'b', 'c', 'A', '-', '\\.', '.', '[ab]', '[^a]', '^', '$', '\\b', '\\d'),
      fc.array(tie('re'), { minLength: 2, maxLength: 4 }).map((xs) => xs.join('')),
      fc.tuple(tie('re'), tie('re')).map(([x, y]) => `${x}|${y}`),
      fc.tuple(tie('re'), fc.constantFrom('(', '(?:')).map(([x, open]) => `${open}${x})`),
      fc
        .tuple(tie('re'), fc.constantFrom('*', '+', '?', '{2}', '{1,2}', '{0,1}', '+?'))
        .map(([x, q]) => `(?:${x})${q}`),
      tie('re').map((x) => `(?:${x})(?=b)`),
    ),
  }));
  const flags = fc.constantFrom('', '(?i)', '(?s)');
  const str = fc.stringMatching(/^[abcAB.\-1 ]{0,12}$/);
  let withLits = 0;
  fc.assert(
    fc.property(re, flags, fc.array(str, { minLength: 1, maxLength: 20 }), (p, f, ss) => {
      const r = compileRegexp(f + p);
      const lits = requiredLiterals(r, 1);
      if (lits === null) return;
      withLits++;
      const fold = f === '(?i)' ? (s: string) => s.toLowerCase() : (s: string) => s;
      for (const s of ss) {
        if (!r.test(s)) continue;
        const held = lits.some((l) => fold(s).includes(fold(l)));
        expect({ pattern: f + p, s, lits, held }).toEqual({ pattern: f + p, s, lits, held: true });
      }
    }),
    { numRuns: 5000 },
  );
  // The property is not vacuous: most patterns give literals.
  expect(withLits).toBeGreaterThan(1000);
});
