// Field demand: which top-level fields of a pool's values a query reads.
// A scan that knows it may read the values by columns (a columnar copy),
// delivering records of just those fields. The analysis is conservative:
// anything that could look at a whole value (`this`, a search, a type
// name, an operator that passes values on to the output, a user function)
// makes the answer null, and the scan reads whole values by rows.

import * as dag from './dag';
import { lookupFunction, SHAPERS } from '../functions/registry';

/** Collects the top-level fields expr reads into out; false if it may read the whole value. */
function exprFields(e: dag.Expr | null, out: Set<string>): boolean {
  if (e === null) return true;
  switch (e.kind) {
    case 'Literal':
    case 'Var':
    case 'Param':
      return true;
    case 'This':
      if (e.path.length === 0) return false;
      out.add(e.path[0]);
      return true;
    case 'Dot':
      return exprFields(e.lhs, out);
    case 'Unary':
      return exprFields(e.operand, out);
    case 'Binary':
      return exprFields(e.lhs, out) && exprFields(e.rhs, out);
    case 'Slice':
      return exprFields(e.lhs, out) && exprFields(e.from, out) && exprFields(e.to, out);
    case 'Conditional':
      return exprFields(e.cond, out) && exprFields(e.then, out) && exprFields(e.else, out);
    case 'Call': {
      // A shaper's one-argument form shapes `this`; some functions read a
      // field of `this` implicitly (every() reads ts).
      if (SHAPERS.has(e.name) && e.args.length === 1) return false;
      const implied = lookupFunction(e.name)?.path;
      if (implied !== undefined) {
        if (implied.length === 0) return false;
        out.add(implied[0]);
      }
      return e.args.every((a) => exprFields(a, out));
    }
    case 'Agg':
      // Only count() reads nothing of its input.
      if (e.expr === null && e.name !== 'count') return false;
      return exprFields(e.expr, out) && exprFields(e.where, out);
    case 'Search':
    case 'RegexpSearch':
    case 'RegexpMatch':
      return exprFields(e.expr, out);
    case 'RecordExpr':
      return e.elems.every((el) => exprFields(el.kind === 'Field' ? el.value : el.expr, out));
    case 'ArrayExpr':
    case 'SetExpr':
      return e.elems.every((el) => exprFields(el.expr, out));
    case 'MapExpr':
      return e.entries.every((en) => exprFields(en.key, out) && exprFields(en.value, out));
    case 'UserCall':
    case 'OverExpr':
      return false;
  }
}

/** The top-level fields an expression reads, or null when it may read the whole value. */
export function exprDemand(e: dag.Expr): string[] | null {
  const out = new Set<string>();
  return exprFields(e, out) ? [...out] : null;
}

/**
 * The top-level fields read by the operators after a source (rest), given
 * what was lifted into the source (filter, projection), or null when the
 * query may read or output whole values.
 */
export function fieldDemand(
  filter: dag.Expr | null,
  project: dag.Assignment[] | undefined,
  rest: dag.Seq,
): string[] | null {
  const out = new Set<string>();
  const done = () => [...out];
  if (!exprFields(filter, out)) return null;
  if (project) return project.every((a) => exprFields(a.rhs, out)) ? done() : null;
  for (const op of rest) {
    switch (op.kind) {
      case 'Filter':
        if (!exprFields(op.expr, out)) return null;
        break;
      case 'Head':
      case 'Tail':
      case 'Pass':
        break;
      case 'Sort':
      case 'Top':
        // Without keys they pick one by looking at the values.
        if (op.args.length === 0 || !op.args.every((a) => exprFields(a, out))) return null;
        break;
      case 'Summarize':
        if (!op.keys.every((k) => exprFields(k.rhs, out))) return null;
        return op.aggs.every((a) => exprFields(a.agg, out)) ? done() : null;
      case 'Cut':
        return op.args.every((a) => exprFields(a.rhs, out)) ? done() : null;
      case 'Yield':
        return op.exprs.every((e) => exprFields(e, out)) ? done() : null;
      default:
        return null;
    }
  }
  // The values reach the output whole.
  return null;
}
