// Every query of the shared conformance cases parses, except those the
// reference itself rejects when parsing.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse, ParseError } from '../../../src/query/parser';

interface Case {
  id: string;
  query: string;
  expect_error: boolean;
  expected_error: string | null;
  expected_error_regex: boolean;
  skip_reason: string | null;
}

const file = resolve(__dirname, '../../../../shared/conformance/cases.jsonl');
const cases: Case[] = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l));

/** Cases the reference cannot parse (its ztest is skipped for that reason), with the error offset. */
const REFERENCE_PARSE_FAILURES: Record<string, number> = {
  'runtime/expr/ztests/in-star': 5, // "2 in *": `*` is not an expression
};

function isParseErrorCase(c: Case): boolean {
  return c.expect_error && c.expected_error !== null && /error parsing Zed/.test(c.expected_error);
}

describe('conformance case queries', () => {
  it('has the cases file', () => {
    expect(cases.length).toBeGreaterThan(400);
  });

  it('parses every query that the reference parses', () => {
    const failures: string[] = [];
    for (const c of cases) {
      if (isParseErrorCase(c) || c.id in REFERENCE_PARSE_FAILURES) continue;
      try {
        parse(c.query);
      } catch (e) {
        failures.push(`${c.id}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('rejects the queries that the reference rejects, with a matching message', () => {
    for (const c of cases.filter(isParseErrorCase)) {
      const re = c.expected_error_regex ? new RegExp(c.expected_error!) : null;
      let msg = '';
      try {
        parse(c.query);
      } catch (e) {
        expect(e).toBeInstanceOf(ParseError);
        msg = (e as Error).message;
      }
      if (re) expect(msg).toMatch(re);
      else expect(msg).toContain(c.expected_error);
    }
    for (const [id, offset] of Object.entries(REFERENCE_PARSE_FAILURES)) {
      const c = cases.find((x) => x.id === id)!;
      expect(() => parse(c.query)).toThrow(ParseError);
      try {
        parse(c.query);
      } catch (e) {
        expect((e as ParseError).offset).toBe(offset);
      }
    }
  });
});
