// The frame test of a scan's filter (expr/bufferfilter.ts), where it has
// one: a keyword search for an ASCII string of two or more characters or
// an IP address in a value or a field of it, a glob or regexp search
// whose matches contain a literal, and `and`/`or` of those.
// `a and b` needs only a's test when b has none (a false a is the answer,
// b unseen), and b's alone only where a compares fields with constants
// (then it may also be an error a field holds, which the filter outputs:
// frames holding error values pass); `a or b` needs both.

import { Kind, TypeIP, TypeString } from '../../zed/types';
import { errorTypes, FrameFilter } from '../expr/bufferfilter';
import { compileRegexp } from '../expr/regexp';
import { requiredLiterals } from '../expr/regexlit';
import { AnyTerm, BytesTest, TermFinder } from '../expr/termfind';
import * as dag from './dag';

/** A test of frames that no value of a frame failing it can pass e, or null. */
export function frameFilter(e: dag.Expr | null): FrameFilter | null {
  if (e === null) return null;
  if (e.kind === 'Search' || e.kind === 'RegexpSearch') {
    if (e.expr.kind !== 'This') return null;
    const term = e.kind === 'Search' ? searchFinder(e) : patternOf(e.pattern);
    return term && { kind: 'term', term };
  }
  if (e.kind !== 'Binary' || (e.op !== 'and' && e.op !== 'or')) return null;
  const lhs = frameFilter(e.lhs);
  if (lhs === null) {
    // `_path=="dns" and "needle"`: a comparison of a field is a bool,
    // error("missing") (dropped) or an error the field holds (output).
    if (e.op !== 'and' || !fieldComparisons(e.lhs)) return null;
    const rhs = frameFilter(e.rhs);
    return rhs && { kind: 'errors', operand: rhs, errors: errorTypes() };
  }
  const rhs = frameFilter(e.rhs);
  if (rhs === null) return e.op === 'and' ? lhs : null;
  return { kind: e.op, lhs, rhs };
}

/**
 * What finds a search's literal in bytes, where it can: a string of two or
 * more ASCII characters (a non-ASCII one is folded beyond bytes), or an
 * IP address (its bytes, or its text in a string).
 */
export function searchFinder(e: dag.Search): TermFinder | null {
  const v = e.value;
  if (v.len < 0) return null;
  const ip = v.type.under === TypeIP;
  if (v.type.under !== TypeString && !ip) return null;
  const term = ip ? Buffer.from(e.text, 'utf8') : v.buf.subarray(v.off, v.off + v.len);
  if (term.length < 2 || term.some((b) => b >= 0x80)) return null;
  const raw = ip ? Buffer.from(v.buf.subarray(v.off, v.off + v.len)) : null;
  return new TermFinder(term.toString('latin1'), raw);
}

/** patternFinder of a pattern's source; null where it does not compile (the compile reports that). */
function patternOf(pattern: string): BytesTest | null {
  let re: RegExp;
  try {
    re = compileRegexp(pattern);
  } catch {
    return null;
  }
  return patternFinder(re);
}

/**
 * What rules out bytes a pattern search (glob or regexp) cannot match in:
 * those holding none of the literals every match of it contains
 * (expr/regexlit.ts), each cut to its longest run of two or more ASCII
 * characters (found case folded, which finds more, never less), under
 * types with no field name it matches. Null where the pattern has no
 * such literals.
 */
export function patternFinder(re: RegExp): BytesTest | null {
  const lits = requiredLiterals(re);
  if (lits === null) return null;
  const names = (n: string) => re.test(n);
  const finders: TermFinder[] = [];
  for (const lit of lits) {
    const runs = lit.match(/[\x00-\x7f]{2,}/g);
    if (runs === null) return null;
    const run = runs.reduce((a, b) => (b.length > a.length ? b : a));
    finders.push(new TermFinder(run, null, names));
  }
  return finders.length === 1 ? finders[0] : new AnyTerm(finders);
}

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

/** Whether e is and/or/not of comparisons of a field with a constant (not an error). */
function fieldComparisons(e: dag.Expr): boolean {
  if (e.kind === 'Unary') return e.op === '!' && fieldComparisons(e.operand);
  if (e.kind !== 'Binary') return false;
  if (e.op === 'and' || e.op === 'or') return fieldComparisons(e.lhs) && fieldComparisons(e.rhs);
  if (!COMPARISONS.has(e.op)) return false;
  const [f, c] = e.lhs.kind === 'Literal' ? [e.rhs, e.lhs] : [e.lhs, e.rhs];
  return f.kind === 'This' && c.kind === 'Literal' && c.value.type.kind !== Kind.Error;
}
