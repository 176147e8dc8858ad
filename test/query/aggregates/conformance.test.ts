// The shared conformance cases about aggregates, run through the engine's
// entry point over in-memory inputs: the runtime/expr/agg and
// runtime/op/groupby categories, and the docs/language and runtime/expr
// cases whose queries call an aggregate. Prints a pass table per category
// (with AGG_FAILURES=1, each failure too) and requires each category to
// reach 95%, run normally and with every summarize spilling.

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
  expected: string;
  expected_format: string;
  expect_error: boolean;
  expected_error: string | null;
  expected_error_regex: boolean;
  skip_reason: string | null;
}

const CASES = '/work/shared/conformance/cases.jsonl';
const AGG_CALL = /\b(and|any|avg|collect|count|dcount|fuse|map|max|min|or|sum|union)\s*\(/;

function category(c: Case): string | null {
  if (c.category === 'runtime/expr/agg' || c.category === 'runtime/op/groupby') return c.category;
  if ((c.category === 'docs/language' || c.category === 'runtime/expr') && AGG_CALL.test(c.query)) {
    return c.category + ' (aggregates)';
  }
  return null;
}

function normalize(s: string): string {
  return s
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

/** null when the case passes, else why not. */
async function run(c: Case, memoryLimit?: number): Promise<string | null> {
  const ctx = new QueryContext(memoryLimit === undefined ? {} : { memoryLimit });
  const bytes = Buffer.from(c.input, c.input_encoding === 'base64' ? 'base64' : 'utf8');
  const empty: ValueReader = { read: async () => null };
  const input = async (): Promise<ValueReader> =>
    bytes.length === 0
      ? empty
      : openReader(sourceFromBuffer(bytes), {
          ctx: ctx.zctx,
          format: c.input_format,
          tail: async (n: number) => bytes.subarray(Math.max(0, bytes.length - n)),
        });
  const sink = new BufferSink();
  try {
    const q = await compileQuery(c.query, { ctx, inputs: [input] });
    const w = newWriter(sink, {});
    for (let b = await q.pull(); b; b = await q.pull()) await w.write(b);
    await w.close();
  } catch (e) {
    const msg = (e as Error).message;
    if (c.expect_error && c.expected_error !== null) {
      const ok = c.expected_error_regex
        ? new RegExp(c.expected_error).test(msg)
        : msg.includes(c.expected_error);
      return ok ? null : `error ${msg}`;
    }
    return `error ${(e as Error).stack}`;
  }
  if (c.expect_error) return 'no error';
  const got = normalize(sink.text());
  return got === normalize(c.expected) ? null : `got:\n${got}\nwant:\n${normalize(c.expected)}`;
}

const cases = readFileSync(CASES, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Case)
  .filter((c) => c.skip_reason === null && c.expected_format === 'zson' && category(c) !== null);

async function table(memoryLimit?: number): Promise<Map<string, { pass: number; fail: string[] }>> {
  const rows = new Map<string, { pass: number; fail: string[] }>();
  for (const c of cases) {
    const cat = category(c)!;
    const row = rows.get(cat) ?? { pass: 0, fail: [] };
    rows.set(cat, row);
    const why = await run(c, memoryLimit);
    if (why === null) row.pass++;
    else row.fail.push(`${c.id}\n${c.query}\n${why}`);
  }
  return rows;
}

function print(title: string, rows: Map<string, { pass: number; fail: string[] }>): void {
  const lines = [...rows.entries()].map(
    ([k, v]) =>
      `${k.padEnd(32)} ${String(v.pass).padStart(3)} pass ${String(v.fail.length).padStart(3)} fail`,
  );
  const failures = process.env.AGG_FAILURES
    ? '\n\n' + [...rows.values()].flatMap((v) => v.fail).join('\n\n')
    : '';
  console.log(`${title}\n${lines.join('\n')}${failures}`);
}

test('aggregate conformance cases', async () => {
  const rows = await table();
  print('aggregate conformance cases', rows);
  for (const [, v] of rows) expect(v.pass / (v.pass + v.fail.length)).toBeGreaterThanOrEqual(0.95);
}, 120000);

test('the same cases with every summarize spilling (a 1-byte memory limit)', async () => {
  const rows = await table(1);
  print('aggregate conformance cases, spilling', rows);
  for (const [, v] of rows) expect(v.pass / (v.pass + v.fail.length)).toBeGreaterThanOrEqual(0.95);
}, 120000);
