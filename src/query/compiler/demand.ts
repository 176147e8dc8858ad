// Field demand: which top-level fields of a pool's values a query reads.
// A scan that knows it may read the values by columns (a columnar copy),
// delivering records of just those fields. The analysis is conservative:
// anything that could look at a whole value (`this`, a search, a type
// name, an operator that passes values on to the output, a user function)
// makes the answer null, and the scan reads whole values by rows.

import * as dag from './dag';
import { lookupFunction, SHAPERS } from '../functions/registry';

/** Functions whose value changes from call to call. */
const VOLATILE = new Set(['now', 'ksuid']);

/**
 * Collects the top-level fields expr reads into out; false if it may read
 * the whole value, or, with pure, if evaluating it twice or on fewer
 * values could change an answer (a running aggregate, now()).
 */
function exprFields(e: dag.Expr | null, out: Set<string>, pure = false): boolean {
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
      return exprFields(e.lhs, out, pure);
    case 'Unary':
      return exprFields(e.operand, out, pure);
    case 'Binary':
      return exprFields(e.lhs, out, pure) && exprFields(e.rhs, out, pure);
    case 'Slice':
      return (
        exprFields(e.lhs, out, pure) && exprFields(e.from, out, pure) && exprFields(e.to, out, pure)
      );
    case 'Conditional':
      return (
        exprFields(e.cond, out, pure) &&
        exprFields(e.then, out, pure) &&
        exprFields(e.else, out, pure)
      );
    case 'Call': {
      // A shaper's one-argument form shapes `this`; some functions read a
      // field of `this` implicitly (every() reads ts).
      if (SHAPERS.has(e.name) && e.args.length === 1) return false;
      if (pure && VOLATILE.has(e.name)) return false;
      const implied = lookupFunction(e.name)?.path;
      if (implied !== undefined) {
        if (implied.length === 0) return false;
        out.add(implied[0]);
      }
      return e.args.every((a) => exprFields(a, out, pure));
    }
    case 'Agg':
      if (pure) return false;
      // Only count() reads nothing of its input.
      if (e.expr === null && e.name !== 'count') return false;
      return exprFields(e.expr, out, pure) && exprFields(e.where, out, pure);
    case 'Search':
    case 'RegexpSearch':
    case 'RegexpMatch':
      return exprFields(e.expr, out, pure);
    case 'RecordExpr':
      return e.elems.every((el) => exprFields(el.kind === 'Field' ? el.value : el.expr, out, pure));
    case 'ArrayExpr':
    case 'SetExpr':
      return e.elems.every((el) => exprFields(el.expr, out, pure));
    case 'MapExpr':
      return e.entries.every(
        (en) => exprFields(en.key, out, pure) && exprFields(en.value, out, pure),
      );
    case 'UserCall':
    case 'OverExpr':
      return false;
  }
}

/** The top-level fields e reads, or null where it may read the whole value. */
export function exprTopFields(e: dag.Expr | null): Set<string> | null {
  const out = new Set<string>();
  return exprFields(e, out) ? out : null;
}

/**
 * e with each reference to a top-level field of map (`this.q.x`) made one
 * to the path the field maps to (`this.query.x`); null where e reads a
 * field outside map or the whole value, or a function reads a mapped
 * field of `this` itself (every: ts), which a reference cannot redirect.
 */
export function remapFields(e: dag.Expr, map: ReadonlyMap<string, string[]>): dag.Expr | null {
  const fields = exprTopFields(e);
  if (fields === null || [...fields].some((f) => !map.has(f))) return null;
  let ok = true;
  const r = dag.mapExpr(e, (o) => {
    if (o.kind === 'This' && Array.isArray(o.path)) {
      const path = o.path as string[];
      return { kind: 'This', path: [...map.get(path[0])!, ...path.slice(1)] };
    }
    if (o.kind === 'Call') {
      const implied = lookupFunction((o as unknown as dag.Call).name)?.path;
      if (implied !== undefined) {
        const to = map.get(implied[0]);
        if (to === undefined || to.length !== 1 || to[0] !== implied[0]) ok = false;
      }
    }
    return undefined;
  });
  return ok ? r : null;
}

/**
 * The top-level fields a filter reads, when it reads nothing else and may
 * be evaluated twice and on a subset of the values with the same result
 * (a scan tests it on columns first), or null.
 */
export function exprDemand(e: dag.Expr): string[] | null {
  const out = new Set<string>();
  return exprFields(e, out, true) ? [...out] : null;
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
      case 'Rename':
        // What a rename does to a record depends on whether its source and
        // destination fields are there: both are read.
        for (const a of op.args) {
          out.add(a.src[0]);
          out.add(a.dst[0]);
        }
        break;
      case 'Put':
        // What follows sees the record's other fields unchanged; a nested
        // destination's top-level field is read, since what is there
        // decides what the put does.
        for (const a of op.args) {
          if (a.lhs.length === 0 || !exprFields(a.rhs, out)) return null;
          out.add(a.lhs[0]);
        }
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
