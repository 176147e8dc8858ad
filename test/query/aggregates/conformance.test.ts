// The shared conformance cases about aggregates, run through the engine's
// entry point over in-memory inputs: the runtime/expr/agg and
// runtime/op/groupby categories, and the docs/language and runtime/expr
// cases whose queries call an aggregate. Prints a pass table per category
// (with AGG_FAILURES=1, each failure too) and requires each category to
// reach 95%, run normally and with every summarize spilling.

import { Case, formatTable, passRates, tabulate, zsonCases } from '../cases';

const AGG_CALL = /\b(and|any|avg|collect|count|dcount|fuse|map|max|min|or|sum|union)\s*\(/;

function category(c: Case): string | null {
  if (c.category === 'runtime/expr/agg' || c.category === 'runtime/op/groupby') return c.category;
  if ((c.category === 'docs/language' || c.category === 'runtime/expr') && AGG_CALL.test(c.query)) {
    return c.category + ' (aggregates)';
  }
  return null;
}

const cases = zsonCases((c) => category(c) !== null);

async function check(title: string, memoryLimit?: number): Promise<void> {
  const rows = await tabulate(cases, (c) => category(c)!, memoryLimit);
  console.log(formatTable(title, rows, !!process.env.AGG_FAILURES));
  for (const rate of passRates(rows)) expect(rate).toBeGreaterThanOrEqual(0.95);
}

test('aggregate conformance cases', () => check('aggregate conformance cases'), 120000);

test(
  'the same cases with every summarize spilling (a 1-byte memory limit)',
  () => check('aggregate conformance cases, spilling', 1),
  120000,
);
