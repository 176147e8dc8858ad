// A keyword or pattern search's frame test (expr/bufferfilter.ts) may
// pass frames that hold no match, but must pass every frame that holds
// one: for any value a search matches, the test passes the value's bytes
// and type.

import fc from 'fast-check';
import { parseValue } from '../../../src/formats/zson';
import { frameFilter, patternFinder, searchFinder } from '../../../src/query/compiler/bufferfilter';
import * as dag from '../../../src/query/compiler/dag';
import { FrameFilter, framePasses } from '../../../src/query/expr/bufferfilter';
import { Expr, TRUE } from '../../../src/query/expr/expr';
import { fieldPath } from '../../../src/query/expr/path';
import {
  RegexpMatch,
  SearchPattern,
  SearchString,
  SearchValue,
} from '../../../src/query/expr/search';
import { compileRegexp, reglob } from '../../../src/query/expr/regexp';
import {
  beginTestedBatch,
  BytesTest,
  endTestedBatch,
  TermFinder,
} from '../../../src/query/expr/termfind';
import { comparison } from '../../../src/query/expr/compare';
import { TypeContext } from '../../../src/zed/context';
import { TypeString } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';

const zctx = new TypeContext();
const here0: dag.Expr = { kind: 'This', path: [] };

const words = fc.constantFrom(
  'needle',
  'NeEdLe',
  'x-01.y',
  'a',
  'b-01',
  'key',
  'kEy-1',
  'z',
  'A.b',
  '.KEY',
);
const text = fc.array(words, { minLength: 0, maxLength: 3 }).map((w) => JSON.stringify(w.join('')));
const name = fc.constantFrom('a', 'b', 'key', 'Needle', 'x01', 'k_ey');

/** Random values: records (nested), arrays, maps, unions, errors and strings. */
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.constantFrom('1', 'null', '10.0.0.1', 'true'),
    fc
      .uniqueArray(fc.tuple(name, tie('value')), { selector: ([n]) => n, maxLength: 3 })
      .map((fs) => `{${fs.map(([n, v]) => `${n}:${v}`).join(',')}}`),
    fc.array(tie('value'), { maxLength: 2 }).map((a) => `[${a.join(',')}]`),
    fc.tuple(text, text).map(([k, v]) => `|{${k}:${v}}|`),
    text.map((s) => `${s}((int64,string))`),
    text.map((s) => `error(${s})`),
  ),
}));

const terms = fc.constantFrom(
  'needle',
  'NEEDLE',
  'eedl',
  'needle-0',
  'x-01',
  '-01.',
  'key',
  'KEY',
  'b.key',
  'y.n',
  'a.b',
  'x01',
  'ey-1',
  'zz',
);

function search(term: string, path: string[] = []): dag.Expr {
  const v = new Value(TypeString, Buffer.from(term), 0, Buffer.byteLength(term));
  return { kind: 'Search', text: term, value: v, expr: { kind: 'This', path } };
}

test('a frame holding a value that a search matches passes the frame test', () => {
  fc.assert(
    fc.property(value, terms, (zson, term) => {
      const v = parseValue(zctx, zson);
      const f = frameFilter(search(term))!;
      // The search walking the value (no TermFinder), and with its TermFinder first.
      const hit = new SearchString(term, fieldPath(zctx, [])).eval(v) === TRUE;
      const finder = searchFinder(search(term) as dag.Search);
      expect(new SearchString(term, fieldPath(zctx, []), finder).eval(v) === TRUE).toBe(hit);
      if (!hit) return;
      // The value's bytes as a frame's payload holds them (a null has none).
      const bytes = v.len > 0 ? v.buf.subarray(v.off, v.off + v.len) : Buffer.alloc(0);
      expect({ zson, term, passes: framePasses(f, bytes, 0, bytes.length, [v.type]) }).toEqual({
        zson,
        term,
        passes: true,
      });
    }),
    { numRuns: 3000 },
  );
});

test('a frame holding a value that a pattern search matches passes the frame test', () => {
  const patterns = fc.constantFrom(
    'needle',
    'NeEdLe',
    '(?i)needle',
    'ee(d|x)le',
    'x-0+1\\.',
    'key|Needle',
    '^ke[yY]$',
    'k_?ey',
    reglob('*needle*'),
    reglob('b-01*'),
  );
  fc.assert(
    fc.property(value, patterns, (zson, pattern) => {
      const v = parseValue(zctx, zson);
      const re = compileRegexp(pattern);
      const e: dag.Expr = { kind: 'RegexpSearch', pattern, expr: { kind: 'This', path: [] } };
      const f = frameFilter(e);
      expect({ pattern, test: f !== null }).toEqual({ pattern, test: true });
      // The search walking the value, and with its finder first.
      const hit = new SearchPattern(re, fieldPath(zctx, [])).eval(v) === TRUE;
      const quick = new SearchPattern(re, fieldPath(zctx, []), patternFinder(re));
      expect(quick.eval(v) === TRUE).toBe(hit);
      // `this ~ /re/`, with the finder and without.
      const match = new RegexpMatch(re, fieldPath(zctx, [])).eval(v) === TRUE;
      const quickMatch = new RegexpMatch(re, fieldPath(zctx, []), patternFinder(re));
      expect({ zson, pattern, match: quickMatch.eval(v) === TRUE }).toEqual({
        zson,
        pattern,
        match,
      });
      if (!hit) return;
      const bytes = v.len > 0 ? v.buf.subarray(v.off, v.off + v.len) : Buffer.alloc(0);
      expect({ zson, pattern, passes: framePasses(f!, bytes, 0, bytes.length, [v.type]) }).toEqual({
        zson,
        pattern,
        passes: true,
      });
    }),
    { numRuns: 3000 },
  );
});

test("a frame holding none of a pattern's literals, nor a field name it matches, fails the test", () => {
  const pass = (pattern: string, zson: string) => {
    const f = frameFilter({ kind: 'RegexpSearch', pattern, expr: { kind: 'This', path: [] } })!;
    const v = parseValue(zctx, zson);
    const b = v.buf.subarray(v.off, v.off + v.len);
    return framePasses(f, b, 0, b.length, [v.type]);
  };
  expect(pass('needle-0[0-9]', '{a:"x",b:["needle-01"]}')).toBe(true);
  expect(pass('needle-0[0-9]', '{a:"x",b:["needle-1"]}')).toBe(false);
  expect(pass('foo|bar', '{a:"xbar"}')).toBe(true);
  expect(pass('foo|bar', '{a:"fo",b:"ar"}')).toBe(false);
  // A field name the pattern matches, though the bytes do not hold the literal.
  expect(pass('^ne+dle$', '{needle:1}')).toBe(true);
  expect(pass('^ne+dle$', '{needles:1}')).toBe(false);
  expect(pass(reglob('host*'), '{s:"a host"}')).toBe(true);
  expect(pass(reglob('host*'), '{s:"a hos"}')).toBe(false);
});

test('a frame holding a value that an IP search matches passes the frame test', () => {
  const ips = fc.constantFrom('10.0.0.1', '10.0.0.10', '1.10.0.0', '::1', '10.0.0.2');
  const leaf = fc.oneof(
    ips,
    ips.map((ip) => JSON.stringify(`x${ip}y`)),
    fc.constantFrom('"10.0.0.1"', '1', '"a"', `${0x0a000001}`),
  );
  const val = fc.oneof(
    leaf,
    fc.array(leaf, { maxLength: 3 }).map((a) => `{a:[${a.join(',')}]}`),
    fc.tuple(leaf, leaf).map(([x, y]) => `{"10.0.0.1":${x},b:{c:${y}}}`),
    leaf.map((x) => `${x}((ip,string,int64))`),
  );
  fc.assert(
    fc.property(val, fc.constantFrom('10.0.0.1', '::1'), (zson, ip) => {
      let v: Value;
      try {
        v = parseValue(zctx, zson);
      } catch {
        return; // a union literal of a value not of its types
      }
      const lit = parseValue(zctx, ip);
      const e: dag.Expr = {
        kind: 'Search',
        text: ip,
        value: lit,
        expr: { kind: 'This', path: [] },
      };
      const eq = comparison('==', lit)!;
      const hit = new SearchValue(ip, eq, fieldPath(zctx, [])).eval(v) === TRUE;
      // The same search with its TermFinder first.
      const quick = new SearchValue(ip, eq, fieldPath(zctx, []), searchFinder(e as dag.Search));
      expect(quick.eval(v) === TRUE).toBe(hit);
      if (!hit) return;
      const bytes = v.len > 0 ? v.buf.subarray(v.off, v.off + v.len) : Buffer.alloc(0);
      const f = frameFilter(e)!;
      expect({ zson, ip, passes: framePasses(f, bytes, 0, bytes.length, [v.type]) }).toEqual({
        zson,
        ip,
        passes: true,
      });
    }),
    { numRuns: 2000 },
  );
  // A field named like the address is not a match (no field names for an IP).
  const f = frameFilter({
    kind: 'Search',
    text: '10.0.0.1',
    value: parseValue(zctx, '10.0.0.1'),
    expr: { kind: 'This', path: [] },
  })!;
  const v = parseValue(zctx, '{"10.0.0.1":1}');
  expect(framePasses(f, v.buf.subarray(v.off, v.off + v.len), 0, v.len, [v.type])).toBe(false);
});

test('a frame without the term, in its bytes or field names, fails the test', () => {
  const f = frameFilter(search('needle-01'))!;
  const pass = (zson: string) => {
    const v = parseValue(zctx, zson);
    const b = v.buf.subarray(v.off, v.off + v.len);
    return framePasses(f, b, 0, b.length, [v.type]);
  };
  expect(pass('{a:"x",b:["NEEDLE-01"]}')).toBe(true);
  expect(pass('{a:"x",b:["needle-02"]}')).toBe(false);
  expect(pass('{"xNeedle-01":1}')).toBe(true);
  expect(pass('{needle:{"-01":1}}')).toBe(false);
  expect(pass('{a:"needle",b:"-01"}')).toBe(false);
  // The anchor "-01" found where the term cannot start.
  expect(pass('{a:"-01 needle"}')).toBe(false);
});

test('which filters have a frame test', () => {
  const kinds = (e: dag.Expr): string | null => {
    const f = frameFilter(e);
    const show = (x: FrameFilter): string =>
      x.kind === 'term'
        ? 'term'
        : x.kind === 'errors'
          ? `errors(${show(x.operand)})`
          : `${x.kind}(${show(x.lhs)},${show(x.rhs)})`;
    return f === null ? null : show(f);
  };
  const other: dag.Expr = {
    kind: 'Binary',
    op: '>',
    lhs: { kind: 'This', path: ['x'] },
    rhs: { kind: 'This', path: ['y'] },
  };
  const and = (lhs: dag.Expr, rhs: dag.Expr): dag.Expr => ({ kind: 'Binary', op: 'and', lhs, rhs });
  const or = (lhs: dag.Expr, rhs: dag.Expr): dag.Expr => ({ kind: 'Binary', op: 'or', lhs, rhs });
  expect(kinds(search('needle'))).toBe('term');
  expect(kinds(search('needle', ['query']))).toBe('term');
  expect(kinds(and(search('ab'), search('cd')))).toBe('and(term,term)');
  expect(kinds(or(search('ab'), search('cd')))).toBe('or(term,term)');
  // A search first decides `and` alone; an expression first may be an error, which passes.
  expect(kinds(and(search('ab'), other))).toBe('term');
  expect(kinds(and(other, search('ab')))).toBeNull();
  // Unless it compares a field with a constant: then frames with errors pass too.
  const cmp = (op: dag.BinaryOp): dag.Expr => ({
    kind: 'Binary',
    op,
    lhs: { kind: 'This', path: ['x'] },
    rhs: { kind: 'Literal', value: parseValue(zctx, '1') },
  });
  expect(kinds(and(cmp('=='), search('ab')))).toBe('errors(term)');
  expect(
    kinds(and(or(cmp('<'), { kind: 'Unary', op: '!', operand: cmp('>') }), search('ab'))),
  ).toBe('errors(term)');
  expect(kinds(or(cmp('=='), search('ab')))).toBeNull();
  expect(kinds(or(search('ab'), other))).toBeNull();
  // Too short to pay, or folded beyond bytes.
  expect(kinds(search('a'))).toBeNull();
  expect(kinds(search('naïve'))).toBeNull();
  // A pattern search with a literal its matches hold (of two or more ASCII characters).
  const pattern = (p: string, path: string[] = []): dag.Expr => ({
    kind: 'RegexpSearch',
    pattern: p,
    expr: { kind: 'This', path },
  });
  expect(kinds(pattern('needle-\\d+'))).toBe('term');
  expect(kinds(pattern('naïve'))).toBe('term');
  expect(kinds(and(pattern('ab|cd'), search('ef')))).toBe('and(term,term)');
  expect(kinds(pattern('a.b'))).toBeNull();
  expect(kinds(pattern('ïï'))).toBeNull();
  expect(kinds(pattern('(?i)\\pLab'))).toBeNull();
  expect(kinds(pattern('ab', ['query']))).toBe('term');
  expect(kinds(pattern('ab('))).toBeNull();
});

test('finders that chose their needles by a sample of a frame find what a search of each value finds', () => {
  // Values laid end to end in one buffer, as a frame holds them, with
  // bytes between them that hold pieces of the terms. A finder chooses
  // its needle by the first bytes it searches (1 KiB or more: long
  // filler strings make them in some frames): here the whole frame's,
  // as the frame test does before the values are searched.
  const gap = fc.constantFrom(
    '',
    'nee',
    'dle',
    '10.0.',
    '0.1',
    'KE',
    'y-01',
    '\n\0\0\x01',
    'LE.nE',
    'le.',
    '"le.NEEDLE"',
  );
  const filler = fc.constantFrom(
    '"x"',
    `"${'10.0.0.7 key-02 needlf '.repeat(60)}"`,
    // Longer than a string field, which is searched in JavaScript.
    `"${'x.'.repeat(40)}LE.NE"`,
    `"${'y'.repeat(70)} le.ne, le.Ne"`,
    `"${'z q # '.repeat(20)}#ZQ #zq"`,
  );
  const ips = fc.constantFrom(
    '10.0.0.1',
    '10.0.0.10',
    '"10.0.0.1"',
    '"x10.0.0.1y"',
    '{a:10.0.0.1}',
  );
  const item = fc.tuple(fc.oneof(value, ips, filler), gap);
  const finds = fc.constantFrom(
    { kind: 'term', text: 'needle' },
    { kind: 'term', text: 'KEY' },
    { kind: 'term', text: 'x-01' },
    { kind: 'term', text: 'needle-0' },
    { kind: 'term', text: 'ey-01.y' },
    // One punctuation mark among letters: a needle of two characters.
    { kind: 'term', text: 'le.ne' },
    { kind: 'term', text: '#zq' },
    { kind: 'ip', text: '10.0.0.1' },
    { kind: 'pattern', text: 'ee(d|x)le' },
    { kind: 'pattern', text: 'key|Needle' },
  );
  fc.assert(
    fc.property(fc.array(item, { minLength: 1, maxLength: 30 }), finds, (items, find) => {
      // The frame's values, their bytes copied into one buffer.
      const parsed = items.map(([z, g]) => ({
        v: parseValue(zctx, z),
        g: Buffer.from(g, 'latin1'),
      }));
      const buf = Buffer.concat(
        parsed.flatMap(({ v, g }) => [
          v.len > 0 ? v.buf.subarray(v.off, v.off + v.len) : Buffer.alloc(0),
          g,
        ]),
      );
      let off = 0;
      const frame = parsed.map(({ v, g }) => {
        const w = new Value(v.type, buf, off, v.len);
        off += (v.len > 0 ? v.len : 0) + g.length;
        return w;
      });
      const here = fieldPath(zctx, []);
      let slow: Expr;
      let quick: Expr;
      let finder: BytesTest | null;
      if (find.kind === 'pattern') {
        const re = compileRegexp(find.text);
        finder = patternFinder(re);
        slow = new SearchPattern(re, here);
        quick = new SearchPattern(re, here, finder);
      } else if (find.kind === 'ip') {
        const lit = parseValue(zctx, find.text);
        const e: dag.Search = { kind: 'Search', text: find.text, value: lit, expr: here0 };
        const eq = comparison('==', lit)!;
        const f = searchFinder(e);
        finder = f;
        slow = new SearchValue(find.text, eq, here);
        quick = new SearchValue(find.text, eq, here, f);
      } else {
        const f = searchFinder(search(find.text) as dag.Search);
        finder = f;
        slow = new SearchString(find.text, here);
        quick = new SearchString(find.text, here, f);
      }
      finder!.test(buf, 0, buf.length, [...new Set(frame.map((v) => v.type))]);
      const want = frame.map((v) => slow.eval(v) === TRUE);
      const got = frame.map((v) => quick.eval(v) === TRUE);
      expect({ items, find, got }).toEqual({ items, find, got: want });
      // As a source's batch: the frame's values, the second half of them
      // from a copy of their bytes (a batch holds several frames).
      const half = frame.length >> 1;
      const cut = half < frame.length ? frame[half].off : buf.length;
      const copy = Buffer.from(buf.subarray(cut));
      const batch = frame.map((v, i) =>
        i < half ? v : new Value(v.type, copy, v.off - cut, v.len),
      );
      beginTestedBatch(batch);
      const inBatch = batch.map((v) => quick.eval(v) === TRUE);
      endTestedBatch();
      expect({ items, find, inBatch }).toEqual({ items, find, inBatch: want });
    }),
    { numRuns: 3000 },
  );
});

test('a needle of two characters, one a letter, finds the term in either case', () => {
  // Each character of the terms is common in the sample, the pairs with
  // the punctuation are not: the finders choose a pair for their needle.
  const sample = Buffer.from('z q # k e . '.repeat(200));
  for (const [term, found] of [
    ['#zq', ['x #ZQ y', 'x #zQ y', '#zq']],
    ['ke.', ['x KE. y', 'x kE. y', 'ke.']],
  ] as const) {
    const f = new TermFinder(term);
    expect(f.test(sample, 0, sample.length, [TypeString])).toBe(false);
    // Values of their own, and a batch of them end to end.
    const texts = [...found, 'x #z q ke y'.padEnd(70, '.')].map((t) => t.padEnd(70, ' '));
    const own = texts.map((t) => f.testValue(TypeString, Buffer.from(t), 0, t.length));
    expect({ term, own }).toEqual({ term, own: [true, true, true, false] });
    const buf = Buffer.from(texts.join(''));
    const batch = texts.map((t, i) => new Value(TypeString, buf, 70 * i, 70));
    beginTestedBatch(batch);
    const inBatch = batch.map((v) => f.testValue(v.type, v.buf, v.off, v.len));
    endTestedBatch();
    expect({ term, inBatch }).toEqual({ term, inBatch: [true, true, true, false] });
  }
});

test('what a search found in a tested batch does not carry over to the next, in the same buffer', () => {
  const f = searchFinder(search('needle') as dag.Search)!;
  const quick = new SearchString('needle', fieldPath(zctx, []), f);
  const str = (s: string) => new Value(TypeString, Buffer.from(s), 0, s.length);
  // One buffer, reused: its values are 80 bytes each (longer than a
  // string field, which is searched in JavaScript), end to end.
  const buf = Buffer.alloc(320);
  const values = [0, 1, 2, 3].map((i) => new Value(TypeString, buf, 80 * i, 80));
  const fill = (texts: string[]) => texts.forEach((t, i) => buf.write(t.padEnd(80, '.'), 80 * i));
  quick.eval(str('x'.repeat(2048)));
  const found = (): boolean[] => {
    beginTestedBatch(values);
    try {
      return values.map((v) => quick.eval(v) === TRUE);
    } finally {
      endTestedBatch();
    }
  };
  fill(['a', 'b', 'c', 'the needle']);
  expect(found()).toEqual([false, false, false, true]);
  fill(['a', 'needle', 'c', 'd']);
  expect(found()).toEqual([false, true, false, false]);
  // A term that runs from one value into the next is in neither.
  fill(['a', 'b'.repeat(77) + 'nee', 'dle', 'd']);
  expect(found()).toEqual([false, false, false, false]);
  // Values asked about out of their order in the buffer.
  fill(['a', 'needle', 'c', 'needle']);
  beginTestedBatch(values);
  const backwards = [3, 2, 1, 0].map((i) => quick.eval(values[i]) === TRUE);
  endTestedBatch();
  expect(backwards).toEqual([true, false, true, false]);
});
