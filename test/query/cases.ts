// The shared conformance cases (../shared/conformance/cases.jsonl) run
// through the engine's entry point over in-memory inputs, with ZSON out:
// no service. The conformance tests of the compiler, functions and
// aggregates each pick their cases and tabulate the outcomes.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openReader } from '../../src/formats/detect';
import { BufferSink, sourceFromBuffer, ValueReader } from '../../src/formats/io';
import { newWriter } from '../../src/formats/zson/writer';
import { compileQuery, QueryContext } from '../../src/query';

export interface Case {
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

const CASES = resolve(__dirname, '../../../shared/conformance/cases.jsonl');

/** The runnable cases with ZSON output that `keep` accepts. */
export function zsonCases(keep: (c: Case) => boolean = () => true): Case[] {
  return readFileSync(CASES, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Case)
    .filter((c) => c.skip_reason === null && c.expected_format === 'zson' && keep(c));
}

function normalize(s: string): string {
  return s
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

export interface Outcome {
  ok: boolean;
  /** The query threw a JS TypeError or ReferenceError: a bug in zlake. */
  internal: boolean;
  /** Why it failed (the error, or the output beside the expected one). */
  why: string;
}

/** Runs a case, with an optional memory limit (to force spilling). */
export async function runCase(c: Case, memoryLimit?: number): Promise<Outcome> {
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
      return { ok, internal, why: `error ${err.message}` };
    }
    return { ok: false, internal, why: `error ${err.stack}` };
  }
  if (c.expect_error) return { ok: false, internal: false, why: 'no error' };
  const got = normalize(sink.text());
  const want = normalize(c.expected);
  return { ok: got === want, internal: false, why: `got:\n${got}\nwant:\n${want}` };
}

export interface Row {
  pass: number;
  fail: string[];
}

/** Runs the cases and counts outcomes per category (as `categoryOf` names it). */
export async function tabulate(
  cases: Case[],
  categoryOf: (c: Case) => string,
  memoryLimit?: number,
  onInternal?: (c: Case, o: Outcome) => void,
): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  for (const c of cases) {
    const cat = categoryOf(c);
    const row = rows.get(cat) ?? { pass: 0, fail: [] };
    rows.set(cat, row);
    const o = await runCase(c, memoryLimit);
    if (o.ok) row.pass++;
    else row.fail.push(`${c.id}\n${c.query}\n${o.why}`);
    if (o.internal) onInternal?.(c, o);
  }
  return rows;
}

/** The table as text, sorted by category; with showFailures, each failure after it. */
export function formatTable(title: string, rows: Map<string, Row>, showFailures: boolean): string {
  const width = Math.max(10, ...[...rows.keys()].map((k) => k.length + 1));
  const lines = [...rows.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([k, v]) =>
        `${k.padEnd(width)} ${String(v.pass).padStart(4)} pass ${String(v.fail.length).padStart(4)} fail`,
    );
  const failures = showFailures
    ? '\n\n' + [...rows.values()].flatMap((v) => v.fail).join('\n\n')
    : '';
  return `${title}\n${lines.join('\n')}${failures}`;
}

/** Each category's pass rate. */
export function passRates(rows: Map<string, Row>): number[] {
  return [...rows.values()].map((v) => v.pass / (v.pass + v.fail.length));
}
