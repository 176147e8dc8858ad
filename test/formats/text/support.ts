// Test support for the text and table writers: values written through a
// format, and the reference's ztests run through the query engine's entry
// point (inputs read in memory, output written in the ztest's format).

import { BufferSink, FormatError, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { formatByName } from '../../../src/formats/registry';
import { parseValues } from '../../../src/formats/zson';
import { compileQuery, QueryContext } from '../../../src/query';
import { arrayReader } from '../../../src/query/runtime/ops/scan';
import { TypeContext } from '../../../src/zed/context';
import { Value } from '../../../src/zed/value';

/** The bytes format writes for the values, and the error that stopped it. */
export async function writeWith(
  format: string,
  vals: Value[],
  batch = vals.length || 1,
): Promise<{ text: string; bytes: Buffer; error?: FormatError }> {
  const sink = new BufferSink();
  const w = formatByName(format)!.newWriter!(sink, {});
  let error: FormatError | undefined;
  try {
    for (let i = 0; i < vals.length; i += batch) await w.write(vals.slice(i, i + batch));
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    error = e;
  } finally {
    await w.close();
  }
  expect(sink.ended).toBe(true);
  return { text: sink.text(), bytes: sink.bytes(), error };
}

/** The text format writes for ZSON values (fails on a writer error). */
export async function write(
  format: string,
  zson: string,
  ctx = new TypeContext(),
): Promise<string> {
  const { text, error } = await writeWith(format, parseValues(ctx, zson));
  if (error) throw error;
  return text;
}

export interface ZTest {
  name: string;
  source: string;
  query: string;
  input: string;
  inputFormat: string;
  output: string;
  errorRE?: string;
}

/** The output format a fixture file's tests write. */
export async function runZTest(t: ZTest, format: string): Promise<void> {
  const ctx = new QueryContext();
  const input = Buffer.from(t.input, 'utf8');
  const vals =
    t.inputFormat === 'zson'
      ? parseValues(ctx.zctx, t.input)
      : await readAll(
          formatByName(t.inputFormat)!.newReader!(sourceFromBuffer(input), { ctx: ctx.zctx }),
        );
  const q = await compileQuery(t.query, { ctx, inputs: [arrayReader(vals, 1)] });
  const out: Value[] = [];
  for (let b = await q.pull(); b; b = await q.pull()) out.push(...b);
  // One value per write, as the query may hand them over.
  const { text, error } = await writeWith(format, out, 1);
  if (t.errorRE !== undefined) expect(error?.message).toMatch(new RegExp(t.errorRE));
  else if (error) throw error;
  expect(text).toBe(t.output);
}
