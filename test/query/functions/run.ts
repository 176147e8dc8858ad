// Running queries over ZSON text for the function tests (ZSON output,
// optionally pretty as `zq -Z` writes it).

import { BufferSink } from '../../../src/formats/io';
import { parseValues } from '../../../src/formats/zson';
import { newWriter } from '../../../src/formats/zson/writer';
import { compileQuery, QueryContext } from '../../../src/query';
import { arrayReader } from '../../../src/query/runtime/ops/scan';

/** The ZSON output of query over the ZSON values of input (a null value when input is null). */
export async function run(query: string, input: string | null = null, pretty = 0): Promise<string> {
  const ctx = new QueryContext();
  const vals = parseValues(ctx.zctx, input ?? 'null');
  const q = await compileQuery(query, { ctx, inputs: [arrayReader(vals, 2)] });
  const sink = new BufferSink();
  const w = newWriter(sink, { pretty });
  for (let b = await q.pull(); b; b = await q.pull()) await w.write(b);
  await w.close();
  return sink.text();
}

/** One output line per input value: `yield <expr>` over input. */
export async function each(expr: string, input: string): Promise<string[]> {
  const out = await run(`yield ${expr}`, input);
  return out === '' ? [] : out.replace(/\n$/, '').split('\n');
}

/** The single output of `yield <expr>` over a null input. */
export async function one(expr: string, input = 'null'): Promise<string> {
  const out = await each(expr, input);
  if (out.length !== 1) throw new Error(`yield ${expr}: ${out.length} outputs: ${out.join(' ')}`);
  return out[0];
}
