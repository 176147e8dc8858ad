// The parser against facts recorded from the reference grammar.
//
// reference-cases.json holds [query, result] pairs: the queries of the
// reference's ztests and docs plus mutations of them, and for each either
// the byte offset of the reference's parse error (a number) or a digest of
// the syntax tree the reference builds (a string). The digest is taken over
// the tree in the reference's JSON form, normalized as norm() does below.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse, ParseError } from '../../../src/query/parser';

const cases: [string, number | string][] = JSON.parse(
  readFileSync(resolve(__dirname, 'reference-cases.json'), 'utf8'),
);

/** Our field names where the reference's differ. */
const REFERENCE_NAMES: Record<string, string> = {
  nullsFirst: 'nullsfirst',
  rightInput: 'right_input',
  leftKey: 'left_key',
  rightKey: 'right_key',
  sortKey: 'sort_key',
  keyType: 'key_type',
  valType: 'val_type',
  groupBy: 'group_by',
  orderBy: 'order_by',
};

/**
 * The reference's JSON form of a tree, with keys sorted and empty lists,
 * nulls and false left out (where the reference leaves a list null or a
 * flag unset, we have an empty list or false). Where the reference keeps
 * a lateral scope as an Over's body itself, the recorded digest was taken
 * with it wrapped in a one-element list, as we build it.
 */
function norm(x: unknown): unknown {
  if (Array.isArray(x)) return x.length === 0 ? undefined : x.map(norm);
  if (x !== null && typeof x === 'object') {
    const obj = x as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(obj).sort()) {
      const v = norm(obj[k]);
      if (v === undefined || v === null || v === false) continue;
      out[REFERENCE_NAMES[k] ?? k] = v;
    }
    return out;
  }
  return x;
}

function digest(tree: unknown): string {
  return createHash('sha1')
    .update(JSON.stringify(norm(tree)))
    .digest('hex')
    .slice(0, 16);
}

describe('reference grammar facts', () => {
  it('has both trees and errors to check', () => {
    expect(cases.filter(([, r]) => typeof r === 'number').length).toBeGreaterThan(400);
    expect(cases.filter(([, r]) => typeof r === 'string').length).toBeGreaterThan(1000);
  });

  it('builds the same tree or fails at the same byte offset', () => {
    const mismatches: string[] = [];
    for (const [q, want] of cases) {
      let got: number | string;
      try {
        got = digest(parse(q));
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        got = e.offset;
      }
      if (got !== want) mismatches.push(`${JSON.stringify(q)}: want ${want}, got ${got}`);
    }
    expect(mismatches).toEqual([]);
  });
});
