// Test support shared by the Zeek, CSV, TSV and line format tests: reading
// and writing through the formats, and running the reference's ztests
// (ported as JSON fixtures: input, formats, expected output or error).

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
