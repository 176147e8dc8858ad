// The shared conformance cases about functions, casts and shaping, run
// through the engine's entry point over in-memory inputs (ZSON in and
// out). Prints a pass table per category (and, with FUNC_FAILURES=1, each
// failure); requires at least 95% of each category to pass.

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

/** The category of a case for this table, or null when it is not about functions. */
function category(c: Case): string | null {
  const name = c.id.replace(/^.*\/ztests\//, '');
  if (c.category === 'runtime/expr/function') return 'function';
  if (c.category === 'runtime/op/shape') return 'shaping';
  if (c.category !== 'runtime/expr') return null;
  if (/^(cast-|null-cast$|time-duration-cast$)/.test(name)) return 'cast';
  if (/^(shape-|type-map$)/.test(name)) return 'shaping';
  if (
    /^(fields|has|has-2|has_error|is|is-late-binding|is-typedef|join|missing|nest_dotted|network-of|net-match|split|split-multi|ip-len|cut-mixed-types|record-spread-function|filter-null-with-nonexistent-field|array-bounds|array-bounds-2|cut-expr|typedef-match)$/.test(
      name,
    )
  ) {
    return 'function';
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

async function run(c: Case): Promise<string | null> {
  const ctx = new QueryContext();
  const bytes = Buffer.from(c.input, c.input_encoding === 'base64' ? 'base64' : 'utf8');
  const empty: ValueReader = { read: async () => null };
  const input = async (): Promise<ValueReader> =>
    bytes.length === 0
      ? empty
      : openReader(sourceFromBuffer(bytes), {
          ctx: ctx.zctx,
          format: c.input_format,
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

test('function, cast and shaping conformance cases', async () => {
  const cases = readFileSync(CASES, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Case)
    .filter((c) => c.skip_reason === null && c.expected_format === 'zson' && category(c) !== null);
  const table = new Map<string, { pass: number; fail: number }>();
  const failures: string[] = [];
  for (const c of cases) {
    const cat = category(c)!;
    const why = await run(c);
    const row = table.get(cat) ?? { pass: 0, fail: 0 };
    table.set(cat, row);
    if (why === null) row.pass++;
    else {
      row.fail++;
      failures.push(`${c.id}\n${c.query}\n${why}`);
    }
  }
  const lines = [...table.entries()].map(
    ([k, v]) =>
      `${k.padEnd(10)} ${String(v.pass).padStart(4)} pass ${String(v.fail).padStart(4)} fail`,
  );
  console.log(lines.join('\n') + (process.env.FUNC_FAILURES ? '\n\n' + failures.join('\n\n') : ''));
  for (const [, v] of table) expect(v.pass / (v.pass + v.fail)).toBeGreaterThanOrEqual(0.95);
}, 120000);
