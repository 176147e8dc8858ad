// Running aggregate queries in tests: each query runs twice, once with the
// default memory limit and once with a 1-byte limit that makes summarize
// spill its partial results for every group after the first, and the two
// outputs must be identical.

import { QueryContext } from '../../../src/query';
import { SpillDir } from '../../../src/query/runtime/ops/spill';
import { zq, zqError } from '../helpers';

/** Spill directories created by the spilling run of the last agg() call. */
export let lastSpills = 0;

/** The output lines of query over the ZSON input, checked to be the same when spilling. */
export async function agg(query: string, input = ''): Promise<string[]> {
  const out = await zq(query, input);
  const spy = jest.spyOn(SpillDir, 'create');
  try {
    const spilled = await zq(query, input, { ctx: new QueryContext({ memoryLimit: 1 }) });
    lastSpills = spy.mock.calls.length;
    expect(spilled).toEqual(out);
  } finally {
    spy.mockRestore();
  }
  return out;
}

/** The single output line of query. */
export async function agg1(query: string, input = ''): Promise<string> {
  const out = await agg(query, input);
  if (out.length !== 1) throw new Error(`${query}: ${out.length} outputs: ${out.join(' ')}`);
  return out[0];
}

export { zq, zqError };
