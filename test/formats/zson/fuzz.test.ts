// Malformed input: random bytes and mutations of real ZSON (truncations,
// byte flips, insertions of syntax) either read as values or fail with a
// FormatError; never another exception, never a hang.

import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FormatError, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { formatValue, parseValues, zsonFormat } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed';

const dir = join(__dirname, '../../../../shared/sample-data/zson');
const sample = gunzipSync(readFileSync(join(dir, 'notice.zson.gz'))).subarray(0, 20000);
const extra = Buffer.from(
  [
    '{a:1(int8),b:[1,"x"],c:|[1,2]|,d:|{1:"a"}|,e:<{x:port=uint16}>,f:error("e"),g:%HEADS(enum(HEADS,TAILS))}',
    '{t:2018-03-24T17:15:20.629574Z,d:1h2m3.5s,ip:::ffff:1.2.3.4,n:10.0.0.0/8,h:0x0a0b,s:"\\u00e9\\n\\"",u:1((int64,string))}',
    '[{x:1}(=foo),{x:2}(foo)] 1(=0) 2(0) "é" `back` =>`tick` // comment',
    '/* c */ null(|{string:int32}|) NaN +Inf -Inf 1e-7 -0. 18446744073709551615',
  ].join('\n'),
);

const syntax = [
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  '|',
  '<',
  '>',
  '=',
  ':',
  ',',
  '"',
  '\\',
  '%',
  '`',
  '/',
  '*',
  '\n',
  ' ',
  'e',
  '0',
  'x',
  'Z',
  '.',
  '\u00e9',
  '\ufffd',
];

/** Reads text in chunks; returns the number of values, or throws if anything but a FormatError escapes. */
async function tryRead(text: Buffer, chunk: number): Promise<number | FormatError> {
  const started = Date.now();
  try {
    const vals = await readAll(
      zsonFormat.newReader!(sourceFromBuffer(text, chunk), { ctx: new TypeContext() }),
    );
    // Whatever was read can be written.
    for (const v of vals) formatValue(v);
    return vals.length;
  } catch (e) {
    if (e instanceof FormatError) {
      expect(e.format).toBe('zson');
      expect(typeof e.message).toBe('string');
      expect(e.line).toBeGreaterThanOrEqual(1);
      expect(e.offset).toBeGreaterThanOrEqual(0);
      expect(e.offset).toBeLessThanOrEqual(text.length);
      return e;
    }
    throw new Error(
      `unexpected ${String(e)} reading ${JSON.stringify(text.toString('latin1').slice(0, 200))}`,
    );
  } finally {
    // A case is bounded in time: about 20 KB of input may not take long.
    expect(Date.now() - started).toBeLessThan(10000);
  }
}

const mutation = (base: Buffer) =>
  fc.oneof(
    fc.integer({ min: 0, max: base.length }).map((n) => base.subarray(0, n)),
    fc
      .array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 8,
      })
      .map((flips) => {
        const b = Buffer.from(base);
        for (const [i, v] of flips) b[i] = v;
        return b;
      }),
    fc
      .array(fc.tuple(fc.nat(base.length), fc.constantFrom(...syntax)), {
        minLength: 1,
        maxLength: 6,
      })
      .map((ins) => {
        let s = base.toString('latin1');
        for (const [i, t] of ins)
          s = s.slice(0, i) + Buffer.from(t).toString('latin1') + s.slice(i);
        return Buffer.from(s, 'latin1');
      }),
    fc
      .tuple(fc.nat(base.length), fc.nat(200))
      .map(([i, n]) =>
        Buffer.concat([base.subarray(0, i), base.subarray(Math.min(base.length, i + n))]),
      ),
  );

describe('fuzz', () => {
  test('mutations of real ZSON', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(mutation(sample.subarray(0, 3000)), mutation(extra)),
        fc.integer({ min: 1, max: 5000 }),
        async (text, chunk) => {
          await tryRead(text, chunk);
        },
      ),
      { numRuns: 2500 },
    );
  });

  test('random bytes and random syntax soup', async () => {
    const soup = fc
      .array(
        fc.oneof(
          fc.constantFrom(...syntax),
          fc.constantFrom(
            'int64',
            'error',
            'enum',
            'null',
            '1',
            'true',
            '::',
            '1970-01-01T00:00:00Z',
          ),
        ),
        {
          maxLength: 60,
        },
      )
      .map((ts) => Buffer.from(ts.join('')));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
          soup,
        ),
        fc.integer({ min: 1, max: 64 }),
        async (text, chunk) => {
          await tryRead(text, chunk);
        },
      ),
      { numRuns: 2500 },
    );
  });

  test('a whole sample mutated still reads to the point of damage', async () => {
    const text = Buffer.from(sample);
    text[15000] = 0x7d; // a stray brace
    const r = zsonFormat.newReader!(sourceFromBuffer(text, 999), { ctx: new TypeContext() });
    let n = 0;
    let err: unknown;
    try {
      for (let b = await r.read(); b; b = await r.read()) n += b.length;
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FormatError);
    expect(n).toBeGreaterThan(10);
    expect((err as FormatError).offset).toBeGreaterThan(14000);
  });

  test('deep nesting is refused, not a stack overflow', async () => {
    for (const open of ['[', '{a:', '|[', '<[', 'error(', '1((', '<|{int64:']) {
      const r = await tryRead(Buffer.from(open.repeat(50000)), 4096);
      expect(r).toBeInstanceOf(FormatError);
    }
    const chain = await tryRead(Buffer.from('1' + '(int64)'.repeat(50000)), 4096);
    expect((chain as FormatError).message).toBe('parse error: value nested too deeply');
  });

  const deep = (open: string, close: string, inner = '1') =>
    open.repeat(990) + inner + close.repeat(990);
  test.each([
    ['arrays', deep('[', ']')],
    ['records', deep('{a:', '}')],
    ['errors', deep('error(', ')')],
    ['sets', deep('|[', ']|')],
    ['maps', deep('|{1:', '}|')],
    ['types', '<' + deep('[', ']', 'int64') + '>'],
  ])('nested %s up to the limit read and write', (_name, text) => {
    const [v] = parseValues(new TypeContext(), text);
    expect(formatValue(v, 4).length).toBeGreaterThan(990);
    expect(formatValue(v)).toBe(formatValue(parseValues(new TypeContext(), formatValue(v))[0]));
  });

  test('huge values are refused past the limit', async () => {
    const { readerLimits } = await import('../../../src/formats/zson');
    const saved = readerLimits.maxValueBytes;
    readerLimits.maxValueBytes = 1000;
    try {
      const r = await tryRead(Buffer.from('[' + '1,'.repeat(5000) + '1]'), 100);
      expect(r).toBeInstanceOf(FormatError);
      expect((r as FormatError).message).toBe('ZSON scanner buffer size exceeded');
      expect(await tryRead(Buffer.from('[1,2]\n'.repeat(5000)), 100)).toBe(5000);
    } finally {
      readerLimits.maxValueBytes = saved;
    }
  });
});
