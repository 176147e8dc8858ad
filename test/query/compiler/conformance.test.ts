// The shared conformance cases whose expected output is ZSON, run through
// the engine's entry point over in-memory inputs (no service). Prints the
// pass/fail count per category; fails on internal errors (an exception that
// is not a parse, compile, format or query error) and on a drop below the
// number of cases that passed when this was last raised.

import { formatTable, tabulate, zsonCases } from '../cases';

/** Cases passing when last counted (all of them): a regression guard. */
const MIN_PASSING = 427;

test('conformance cases with ZSON output', async () => {
  const cases = zsonCases();
  const internal: string[] = [];
  const rows = await tabulate(
    cases,
    (c) => c.category,
    undefined,
    (c, o) => internal.push(`${c.id}: ${o.why}`),
  );
  let passed = 0;
  for (const v of rows.values()) passed += v.pass;
  console.log(
    `${formatTable('conformance cases with ZSON output', rows, false)}\ntotal: ${passed} of ${cases.length} pass`,
  );
  expect(internal).toEqual([]);
  expect(passed).toBeGreaterThanOrEqual(MIN_PASSING);
}, 120000);
