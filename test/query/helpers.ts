// Running queries over ZSON text in tests, through the engine's entry point.

import { BufferSink } from '../../src/formats/io';
import { parseValues } from '../../src/formats/zson';
import { newWriter } from '../../src/formats/zson/writer';
import { compileQuery, QueryContext, QueryOptions } from '../../src/query';
import { arrayReader } from '../../src/query/runtime/ops/scan';

/** Runs query over the ZSON values in input; returns the output as ZSON lines. */
export async function zq(query: string, input = '', opts: QueryOptions = {}): Promise<string[]> {
  const ctx = opts.ctx ?? new QueryContext();
  const vals = parseValues(ctx.zctx, input);
  const q = await compileQuery(query, {
    ...opts,
    ctx,
    inputs: opts.inputs ?? [arrayReader(vals, 3)],
  });
  const sink = new BufferSink();
  const w = newWriter(sink, {});
  for (let b = await q.pull(); b; b = await q.pull()) await w.write(b);
  await w.close();
  const text = sink.text();
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/** The single output line of `yield <expr>` over one input value (default {}). */
export async function yieldOne(expr: string, input = '{}'): Promise<string> {
  const out = await zq(`yield ${expr}`, input);
  if (out.length !== 1) throw new Error(`yield ${expr}: ${out.length} outputs: ${out.join(' ')}`);
  return out[0];
}

/** The message of the error compiling or running query (fails if there is none). */
export async function zqError(query: string, input = ''): Promise<string> {
  try {
    await zq(query, input);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`query ${query} did not fail`);
}
