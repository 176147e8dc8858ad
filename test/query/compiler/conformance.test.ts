// The shared conformance cases whose expected output is ZSON, run through
// the engine's entry point over in-memory inputs (no service). Prints the
// pass/fail count per category; fails on internal errors (an exception that
// is not a parse, compile, format or query error) and on a drop below the
// number of cases that passed when this was last raised.

import { readFileSync } from 'node:fs';
import { openReader } from '../../../src/formats/detect';
import { BufferSink, sourceFromBuffer, ValueReader } from '../../../src/formats/io';
import { newWriter } from '../../../src/formats/zson/writer';
import { compileQuery, QueryContext } from '../../../src/query';

interface Case {
  id: string;
  category: string;
  query: string;
  input: string;
  input_encoding: string;
  input_format: string;
  load_params: Record<string, string> | null;
  expected: string;
  expected_format: string;
  expect_error: boolean;
  expected_error: string | null;
  expected_error_regex: boolean;
  skip_reason: string | null;
}

const CASES = '/work/shared/conformance/cases.jsonl';
/** Cases passing when last counted: a regression guard, raised as operators land. */
const MIN_PASSING = 400;

function normalize(s: string): string {
  return s
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

async function run(c: Case): Promise<{ ok: boolean; internal: boolean; why: string }> {
  const ctx = new QueryContext();
  const bytes = Buffer.from(c.input, c.input_encoding === 'base64' ? 'base64' : 'utf8');
  const empty: ValueReader = { read: async () => null };
  const input = async (): Promise<ValueReader> =>
    bytes.length === 0
      ? empty
      : openReader(sourceFromBuffer(bytes), {
          ctx: ctx.zctx,
          format: c.input_format,
          tail: async (n: number) => bytes.subarray(Math.max(0, bytes.length - n)),
          ...(c.load_params?.['csv.delim'] ? { csvDelim: c.load_params['csv.delim'] } : {}),
        });
  const sink = new BufferSink();
  try {
    const q = await compileQuery(c.query, { ctx, inputs: [input] });
    const w = newWriter(sink, {});
    for (let b = await q.pull(); b; b = await q.pull()) await w.write(b);
    await w.close();
  } catch (e) {
    const err = e as Error;
    const internal = err instanceof TypeError || err instanceof ReferenceError;
    if (c.expect_error && c.expected_error !== null) {
      const ok = c.expected_error_regex
        ? new RegExp(c.expected_error).test(err.message)
        : err.message.includes(c.expected_error);
      return { ok, internal, why: err.message };
    }
    return { ok: false, internal, why: `${err.name}: ${err.message}` };
  }
  if (c.expect_error) return { ok: false, internal: false, why: 'no error' };
  const ok = normalize(sink.text()) === normalize(c.expected);
  return { ok, internal: false, why: ok ? '' : 'output differs' };
}

test('conformance cases with ZSON output', async () => {
  const cases = readFileSync(CASES, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Case)
    .filter((c) => c.skip_reason === null && c.expected_format === 'zson');
  const table = new Map<string, { pass: number; fail: number }>();
  const internal: string[] = [];
  let passed = 0;
  for (const c of cases) {
    const r = await run(c);
    const row = table.get(c.category) ?? { pass: 0, fail: 0 };
    table.set(c.category, row);
    if (r.ok) {
      row.pass++;
      passed++;
    } else row.fail++;
    if (r.internal) internal.push(`${c.id}: ${r.why}`);
  }
  const lines = [...table.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([k, v]) =>
        `${k.padEnd(28)} ${String(v.pass).padStart(4)} pass ${String(v.fail).padStart(4)} fail`,
    );
  console.log(`${lines.join('\n')}\ntotal: ${passed} of ${cases.length} pass`);
  expect(internal).toEqual([]);
  expect(passed).toBeGreaterThanOrEqual(MIN_PASSING);
}, 120000);
