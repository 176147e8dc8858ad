// The shared conformance cases about functions, casts and shaping, run
// through the engine's entry point over in-memory inputs (ZSON in and
// out). Prints a pass table per category (and, with FUNC_FAILURES=1, each
// failure); requires at least 95% of each category to pass.

import { Case, formatTable, passRates, tabulate, zsonCases } from '../cases';

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

test('function, cast and shaping conformance cases', async () => {
  const cases = zsonCases((c) => category(c) !== null);
  const rows = await tabulate(cases, (c) => category(c)!);
  console.log(
    formatTable('function, cast and shaping conformance cases', rows, !!process.env.FUNC_FAILURES),
  );
  for (const rate of passRates(rows)) expect(rate).toBeGreaterThanOrEqual(0.95);
}, 120000);
