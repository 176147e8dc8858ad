// The part of a pool scan's filter that the lake's index objects can
// answer (src/lake/index/prune.ts): comparisons `field == constant`, joined
// by `and` and `or`. Each comparison carries the very predicate the filter
// evaluates (compare.ts, the constant on the right), so an index says "no
// match" exactly when the filter would. Constants that could equal keys
// the index orders apart from them are left out: nulls, NaN, bytes and
// type values, and integers beyond 2^53.

import type { IndexFilter } from '../data/source';
import { decodeFloat, decodeIntBig } from '../../zed/primitive';
import { ID, isFloat } from '../../zed/types';
import { Value } from '../../zed/value';
import { comparison } from '../expr/compare';
import * as dag from './dag';

/** Constant types an index lookup is exact for. */
const INDEXABLE = new Set<number>([
  ID.String,
  ID.IP,
  ID.Bool,
  ID.Int64,
  ID.Float64,
  ID.Time,
  ID.Duration,
]);

const SAFE = 2n ** 53n;

function indexable(v: Value): boolean {
  if (v.len < 0) return false;
  const id = v.type.under.id;
  if (!INDEXABLE.has(id)) return false;
  if (isFloat(id)) return Number.isFinite(decodeFloat(v.buf, v.off, v.len));
  if (id === ID.Int64 || id === ID.Time || id === ID.Duration) {
    const n = decodeIntBig(v.buf, v.off, v.len);
    return n < SAFE && n > -SAFE;
  }
  return true;
}

/** The index-answerable part of e, or null when no part is. */
export function indexFilter(e: dag.Expr | null): IndexFilter | null {
  if (e === null || e.kind !== 'Binary') return null;
  switch (e.op) {
    case 'and': {
      const l = indexFilter(e.lhs);
      const r = indexFilter(e.rhs);
      if (l === null || r === null) return l ?? r;
      return { kind: 'and', lhs: l, rhs: r };
    }
    case 'or': {
      const l = indexFilter(e.lhs);
      const r = indexFilter(e.rhs);
      if (l === null || r === null) return null;
      return { kind: 'or', lhs: l, rhs: r };
    }
    case '==': {
      if (e.lhs.kind !== 'This' || e.lhs.path.length === 0 || e.rhs.kind !== 'Literal') return null;
      const value = e.rhs.value.copy();
      if (!indexable(value)) return null;
      const test = comparison('==', value);
      if (test === null) return null;
      return { kind: 'equals', path: e.lhs.path, value, test };
    }
    default:
      return null;
  }
}
