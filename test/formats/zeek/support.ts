// Test support shared by the Zeek, CSV, TSV and line format tests: reading
// and writing through the formats, and running the reference's ztests
// (ported as JSON fixtures: input, formats, expected output or error).

import fc from 'fast-check';
import {
  BufferSink,
  Format,
  FormatError,
  readAll,
  sourceFromBuffer,
} from '../../../src/formats/io';
import { csvFormat } from '../../../src/formats/csv';
import { lineFormat } from '../../../src/formats/line';
import { tsvFormat } from '../../../src/formats/tsv';
import { zeekFormat } from '../../../src/formats/zeek';
import { parseValues, zsonFormat } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed/context';
import { Value } from '../../../src/zed/value';

export const formats: Record<string, Format> = {
  zeek: zeekFormat,
  csv: csvFormat,
  tsv: tsvFormat,
  line: lineFormat,
  zson: zsonFormat,
};

export interface ReadOptions {
  csvDelim?: string;
  /** Feed the reader chunks of this many bytes (default: one chunk). */
  chunk?: number;
}

/** Every value a format reads from the input. */
export async function readWith(
  format: string,
  input: string | Buffer,
  ctx = new TypeContext(),
  opts: ReadOptions = {},
): Promise<Value[]> {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  if (format === 'zson') return parseValues(ctx, buf.toString('utf8'));
  const f = formats[format];
  const r = f.newReader!(sourceFromBuffer(buf, opts.chunk), { ctx, csvDelim: opts.csvDelim });
  return readAll(r);
}

/** The bytes a format writes for the values. */
export async function writeWith(format: string, vals: Value[], pretty = 0): Promise<string> {
  const sink = new BufferSink();
  const w = formats[format].newWriter!(sink, { pretty });
  await w.write(vals);
  await w.close();
  return sink.text();
}

/** The values as one-line ZSON, one per line. */
export async function zson(vals: Value[], pretty = 0): Promise<string> {
  return writeWith('zson', vals, pretty);
}

export interface ZTest {
  name: string;
  source: string;
  input: string;
  inputFormat: string;
  csvDelim?: string;
  outputFormat: string;
  pretty?: number;
  output?: string;
  errorRE?: string;
}

/**
 * Runs a ported ztest: reads the input, writes the output format, and
 * checks the output and/or the error. Output written before an error is
 * flushed and compared too, as the reference's stdout would show it.
 */
export async function runZTest(t: ZTest, chunk?: number): Promise<void> {
  const ctx = new TypeContext();
  const sink = new BufferSink();
  let err: Error | undefined;
  try {
    const vals = await readWith(t.inputFormat, t.input, ctx, { csvDelim: t.csvDelim, chunk });
    const w = formats[t.outputFormat].newWriter!(sink, { pretty: t.pretty ?? 0 });
    try {
      await w.write(vals);
    } finally {
      await w.close();
    }
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    err = e;
  }
  if (t.errorRE !== undefined) {
    expect(err?.message).toMatch(new RegExp(t.errorRE));
  } else if (err) {
    throw err;
  }
  if (t.output !== undefined) expect(sink.text()).toBe(t.output);
}

/**
 * Inputs for fuzzing a text reader: the seeds cut and mutated, random
 * bytes, and random sequences of the format's tokens.
 */
export function fuzzInputs(seeds: Buffer[], tokens: string[]): fc.Arbitrary<Buffer> {
  const edit = fc.oneof(
    fc.record({
      kind: fc.constant('set' as const),
      at: fc.nat(),
      byte: fc.integer({ min: 0, max: 255 }),
    }),
    fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      text: fc.constantFrom(...tokens),
    }),
    fc.record({
      kind: fc.constant('delete' as const),
      at: fc.nat(),
      n: fc.integer({ min: 1, max: 8 }),
    }),
  );
  const mutated = fc
    .tuple(fc.nat(seeds.length - 1), fc.array(edit, { minLength: 1, maxLength: 6 }))
    .map(([which, edits]) => {
      let b = Buffer.from(seeds[which]);
      for (const e of edits) {
        const at = b.length === 0 ? 0 : e.at % (b.length + 1);
        if (e.kind === 'set') {
          if (at < b.length) b[at] = e.byte;
        } else if (e.kind === 'cut') {
          b = b.subarray(0, at);
        } else if (e.kind === 'insert') {
          b = Buffer.concat([b.subarray(0, at), Buffer.from(e.text), b.subarray(at)]);
        } else {
          b = Buffer.concat([b.subarray(0, at), b.subarray(at + e.n)]);
        }
      }
      return b;
    });
  const soup = fc
    .array(fc.oneof(fc.constantFrom(...tokens), fc.string({ maxLength: 3 })), { maxLength: 60 })
    .map((parts) => Buffer.from(parts.join('')));
  const random = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b));
  return fc.oneof({ weight: 3, arbitrary: mutated }, { weight: 2, arbitrary: soup }, random);
}

/**
 * Reading must give values or a FormatError naming the format (and, when
 * lines says so, the line), whatever the input and however it is chunked.
 */
export async function fuzzReader(
  format: string,
  inputs: fc.Arbitrary<Buffer>,
  opts: { lines?: boolean; numRuns?: number } = {},
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(inputs, fc.integer({ min: 1, max: 64 }), async (input, chunk) => {
      try {
        await readWith(format, input, new TypeContext(), { chunk });
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        expect(e.format).toBe(format);
        if (opts.lines) expect(e.line).toBeGreaterThan(0);
      }
    }),
    { numRuns: opts.numRuns ?? 400 },
  );
}
