// The optimizer (the reference's compiler/optimizer): merges adjacent
// filters, drops pass operators, lifts the filter that follows each source
// into the source (where it runs as values are read), turns comparisons of
// a pool's key with constants into a key range the scan uses to skip
// objects and seek-index spans, and tells a summarize grouped by the pool
// key that its input arrives in key order.

import { compare } from '../../zed/compare';
import { KeyRange, poolKeyPath } from '../data/source';
import { ID, isFloat, TypeBool } from '../../zed/types';
import { decodeFloat } from '../../zed/primitive';
import { Value } from '../../zed/value';
import { exprDemand, fieldDemand, remapFields } from './demand';
import * as dag from './dag';

function walk(seq: dag.Seq, post: (seq: dag.Seq) => dag.Seq): dag.Seq {
  for (const op of seq) {
    if (op.kind === 'Over' && op.body !== null) op.body = walk(op.body, post);
    else if (op.kind === 'Fork') op.paths = op.paths.map((p) => walk(p, post));
    else if (op.kind === 'Switch') op.cases.forEach((c) => (c.path = walk(c.path, post)));
  }
  return post(seq);
}

/** `where a | where b` → `where a and b`. */
export function mergeFilters(seq: dag.Seq): dag.Seq {
  return walk(seq, (s) => {
    for (let i = s.length - 2; i >= 0; i--) {
      const a = s[i];
      const b = s[i + 1];
      if (a.kind === 'Filter' && b.kind === 'Filter') {
        s[i] = { kind: 'Filter', expr: dag.binary('and', a.expr, b.expr) };
        s.splice(i + 1, 1);
      }
    }
    return s;
  });
}

export function removePassOps(seq: dag.Seq): dag.Seq {
  return walk(seq, (s) => {
    const out = s.filter((op) => op.kind !== 'Pass');
    return out.length === 0 ? [{ kind: 'Pass' }] : out;
  });
}

/** Calls fn on each sequence that starts with a source (through leading forks). */
function walkEntries(seq: dag.Seq, fn: (seq: dag.Seq) => dag.Seq): dag.Seq {
  if (seq.length > 0 && seq[0].kind === 'Fork') {
    const fork = seq[0];
    fork.paths = fork.paths.map((p) => walkEntries(p, fn));
    return seq;
  }
  if (seq.length > 0 && dag.isSource(seq[0])) return fn(seq);
  return seq;
}

function pathEqual(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Can a constant of this value bound the pool key in value order? */
function rangeable(v: Value): boolean {
  if (v.len < 0) return false;
  const id = v.type.under.id;
  if (isFloat(id)) return !Number.isNaN(decodeFloat(v.buf, v.off, v.len));
  return id <= ID.Time || id === ID.String || id === ID.IP || id === ID.Bool;
}

type Range = KeyRange;

const flip: Record<string, string> = { '==': '==', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/**
 * The key range a predicate confines matching values to (a superset), or
 * null when it does not confine them.
 */
export function keyRange(e: dag.Expr, key: readonly string[]): Range | null {
  if (e.kind !== 'Binary') return null;
  switch (e.op) {
    case 'and': {
      const l = keyRange(e.lhs, key);
      const r = keyRange(e.rhs, key);
      if (l === null) return r;
      if (r === null) return l;
      const [lower, lowerOpen] = bound(l.lower, l.lowerOpen, r.lower, r.lowerOpen, 1, true);
      const [upper, upperOpen] = bound(l.upper, l.upperOpen, r.upper, r.upperOpen, -1, true);
      return { lower, upper, lowerOpen, upperOpen };
    }
    case 'or': {
      const l = keyRange(e.lhs, key);
      const r = keyRange(e.rhs, key);
      if (l === null || r === null) return null;
      const [lower, lowerOpen] =
        l.lower && r.lower ? bound(l.lower, l.lowerOpen, r.lower, r.lowerOpen, -1, false) : [];
      const [upper, upperOpen] =
        l.upper && r.upper ? bound(l.upper, l.upperOpen, r.upper, r.upperOpen, 1, false) : [];
      return { lower, upper, lowerOpen, upperOpen };
    }
    default: {
      const k = keyComparison(e, key);
      if (k === null || !rangeable(k.value)) return null;
      const v = k.value;
      if (k.op === '==') return { lower: v, upper: v };
      if (k.op === '<' || k.op === '<=') return { upper: v, upperOpen: k.op === '<' };
      return { lower: v, lowerOpen: k.op === '>' };
    }
  }
}

/**
 * Of two bounds, the greater (dir 1) or the lesser (dir -1), with whether
 * it is open: at a tie, an `and` (intersect) keeps it open if either is,
 * an `or` (union) only if both are. A missing bound yields the other.
 */
function bound(
  a: Value | undefined,
  aOpen: boolean | undefined,
  b: Value | undefined,
  bOpen: boolean | undefined,
  dir: 1 | -1,
  intersect: boolean,
): [Value | undefined, boolean | undefined] {
  if (!a) return [b, bOpen];
  if (!b) return [a, aOpen];
  const c = compare(a, b) * dir;
  if (c > 0) return [a, aOpen];
  if (c < 0) return [b, bOpen];
  return [a, intersect ? !!(aOpen || bOpen) : !!(aOpen && bOpen)];
}

/**
 * A comparison of the pool key with a constant (`key < 5`, `5 > key`), as
 * key-op-constant; null for anything else.
 */
function keyComparison(e: dag.Binary, key: readonly string[]): { op: string; value: Value } | null {
  if (!(e.op in flip)) return null;
  let op: string = e.op;
  let field: dag.Expr = e.lhs;
  let lit: dag.Expr = e.rhs;
  if (field.kind === 'Literal' && lit.kind === 'This') {
    [field, lit] = [lit, field];
    op = flip[op];
  }
  if (field.kind !== 'This' || lit.kind !== 'Literal' || !pathEqual(field.path, key)) return null;
  return { op, value: lit.value };
}

/**
 * Says whether no value whose pool key lies in [min, max] (value order)
 * can match a predicate; true means the span can be skipped. Built from the
 * predicate's comparisons of the key with constants, as the reference's
 * range pruner: an `and` skips when either side does, an `or` only when
 * both sides can tell and both do. Null when the predicate says nothing.
 */
export type SpanPruner = (min: Value, max: Value) => boolean;

export function spanPruner(e: dag.Expr, key: readonly string[]): SpanPruner | null {
  if (e.kind !== 'Binary') return null;
  switch (e.op) {
    case 'and': {
      const l = spanPruner(e.lhs, key);
      const r = spanPruner(e.rhs, key);
      if (l === null || r === null) return l ?? r;
      return (min, max) => l(min, max) || r(min, max);
    }
    case 'or': {
      const l = spanPruner(e.lhs, key);
      const r = spanPruner(e.rhs, key);
      if (l === null || r === null) return null;
      return (min, max) => l(min, max) && r(min, max);
    }
    default: {
      const k = keyComparison(e, key);
      if (k === null) return null;
      const c = k.value;
      // compare() orders values of different types and puts nulls last, as
      // the reference's pruner does with compare(a, b, true).
      switch (k.op) {
        case '<':
          return (min) => compare(c, min) <= 0;
        case '<=':
          return (min) => compare(c, min) < 0;
        case '>':
          return (_min, max) => compare(c, max) >= 0;
        case '>=':
          return (_min, max) => compare(c, max) > 0;
        default:
          return (min, max) => compare(min, c) > 0 || compare(max, c) < 0;
      }
    }
  }
}

/**
 * A meta-query that taps the object list (`from pool:objects tap | k > 1`)
 * takes the filter after it as a pruner of objects by their key spans, and
 * the operators after the source are dropped: the query returns the
 * objects a scan with that filter would read, as the reference's tap does.
 */
function tapMetaScans(seq: dag.Seq): dag.Seq {
  return walkEntries(seq, (s) => {
    const src = s[0];
    if (src.kind !== 'CommitMetaScan' || !src.tap) return s;
    const next = s[1];
    if (src.meta === 'objects' && next?.kind === 'Filter') src.keyFilter = next.expr;
    return [src];
  });
}

/** A cut of plain field paths (`cut a, b.c, x:=y`), which a source can apply as it reads. */
function isProjection(op: dag.Op | undefined): op is dag.Cut {
  return op?.kind === 'Cut' && op.args.every((a) => a.rhs.kind === 'This' && a.rhs.path.length > 0);
}

/** Rewrites that tests turn off, to see that they keep every answer. */
export const rewrites = { cutsBeforeSorts: true };

/**
 * Moves a cut of fields right after a sort to before it, where each of
 * the sort's keys is a field the cut keeps as it is (`sort -r rtt | cut
 * query, rtt`): the cut is a function of each value that leaves each
 * key's value as it was, and the sort orders values stably by their keys,
 * so the two commute. Before the sort, the cut can be lifted into the
 * scan, the sort holds only the cut's fields, and a head after the sort
 * makes a TopN.
 */
function cutsBeforeSorts(seq: dag.Seq): dag.Seq {
  if (!rewrites.cutsBeforeSorts) return seq;
  return walk(seq, (s) => {
    let out = s;
    for (let i = 0; i + 1 < out.length; i++) {
      const sort = out[i];
      const cut = out[i + 1];
      if (sort.kind !== 'Sort' || sort.args.length === 0 || !isProjection(cut)) continue;
      const kept = (key: dag.Expr): boolean =>
        key.kind === 'This' &&
        cut.args.some(
          (a) =>
            isPath(a.rhs, a.lhs) &&
            a.lhs.length <= key.path.length &&
            a.lhs.every((x, k) => x === key.path[k]),
        );
      if (!sort.args.every(kept)) continue;
      if (out === s) out = [...s];
      out[i] = cut;
      out[i + 1] = sort;
    }
    return out;
  });
}

/** Lifts the filter and then a projection after each source into the source. */
function liftIntoSources(seq: dag.Seq): dag.Seq {
  return walkEntries(seq, (s) => {
    const src = s[0] as dag.Source;
    if (src.kind !== 'PoolScan' && src.kind !== 'FileScan' && src.kind !== 'Reader') return s;
    let rest = s.slice(1);
    const next = rest[0];
    if (next?.kind === 'Filter') {
      src.filter = next.expr;
      if (src.kind === 'PoolScan') {
        const r = keyRange(next.expr, poolKeyPath(src.pool.layout));
        if (r !== null && (r.lower || r.upper)) src.range = r as KeyRange;
      }
      rest = rest.slice(1);
    }
    if (isProjection(rest[0])) {
      src.project = rest[0].args;
      rest = rest.slice(1);
    }
    return [src, ...rest];
  });
}

/**
 * Takes out a cut of top-level fields lifted into a pool scan (`cut a,
 * q:=query`) where filters and a summarize follow that read only its
 * fields: they read the fields it cuts from instead, and the summarize
 * may run on the scan's columns. A cut of fields drops no row and gives a
 * field its source's value, error("missing") where there is none, as a
 * reference to the source does, so the answers are the same.
 */
function cutsIntoSummarize(seq: dag.Seq): dag.Seq {
  return walkEntries(seq, (s) => {
    const src = s[0];
    if (src.kind !== 'PoolScan' || !src.project) return s;
    const map = new Map<string, string[]>();
    for (const a of src.project) {
      const name = a.lhs[0];
      if (a.lhs.length !== 1 || a.rhs.kind !== 'This' || a.rhs.path.length === 0 || map.has(name))
        return s;
      map.set(name, a.rhs.path);
    }
    let k = 1;
    while (s[k]?.kind === 'Filter') k++;
    const sum = s[k];
    if (sum?.kind !== 'Summarize') return s;
    const ops: dag.Op[] = [];
    for (const op of s.slice(1, k)) {
      const expr = remapFields((op as dag.Filter).expr, map);
      if (expr === null) return s;
      ops.push({ kind: 'Filter', expr });
    }
    const keys: dag.Assignment[] = [];
    for (const key of sum.keys) {
      const rhs = remapFields(key.rhs, map);
      if (rhs === null) return s;
      keys.push({ lhs: key.lhs, rhs });
    }
    const aggs: dag.Summarize['aggs'] = [];
    for (const a of sum.aggs) {
      const expr = a.agg.expr === null ? null : remapFields(a.agg.expr, map);
      const where = a.agg.where === null ? null : remapFields(a.agg.where, map);
      if ((a.agg.expr !== null && expr === null) || (a.agg.where !== null && where === null))
        return s;
      aggs.push({ lhs: a.lhs, agg: { ...a.agg, expr, where } });
    }
    src.project = undefined;
    return [src, ...ops, { ...sum, keys, aggs }, ...s.slice(k + 1)];
  });
}

/**
 * Marks a summarize whose first group key is a pool's key (directly after
 * the scan and order-preserving operators) with the direction its input
 * is sorted in, and the scan (whose keys' type, from the lake's
 * metadata, says whether the merge keeps that order: heavy.ts,
 * poolKeysOrdered).
 */
function propagateOrder(seq: dag.Seq): void {
  walkEntries(seq, (s) => {
    const src = s[0];
    if (src.kind !== 'PoolScan') return s;
    let key: string[] | null = poolKeyPath(src.pool.layout);
    const dir = src.pool.layout.order === 'desc' ? -1 : 1;
    for (const op of s.slice(1)) {
      if (key === null) break;
      switch (op.kind) {
        case 'Filter':
        case 'Head':
        case 'Tail':
        case 'Uniq':
        case 'Fuse':
          continue;
        case 'Summarize': {
          // Only by its first key: the summarize takes the groups of a first
          // key below the largest seen as complete. (The reference marks it
          // when any key is the pool key, and then splits groups whose first
          // key comes back: docs/compatibility.md.)
          const k0 = op.keys[0];
          if (
            k0 &&
            pathEqual(k0.lhs, key) &&
            k0.rhs.kind === 'This' &&
            pathEqual(k0.rhs.path, key)
          ) {
            op.inputSortDir = dir;
            op.inputScan = { pool: src.pool, commit: src.commit, range: src.range };
          }
          return s;
        }
        case 'Put':
          if (op.args.some((a) => pathEqual(a.lhs, key!))) key = null;
          continue;
        case 'Drop':
          if (op.args.some((p) => pathEqual(p, key!))) key = null;
          continue;
        case 'Cut':
          if (
            !op.args.some(
              (a) => pathEqual(a.lhs, key!) && a.rhs.kind === 'This' && pathEqual(a.rhs.path, key!),
            )
          ) {
            key = null;
          }
          continue;
        default:
          return s;
      }
    }
    return s;
  });
}

/** Whether e is the path key (`this.ts` for a pool keyed by ts). */
function isPath(e: dag.Expr, key: readonly string[]): boolean {
  return e.kind === 'This' && pathEqual(e.path, key);
}

/**
 * Whether a filter is exactly a range of the pool key (comparisons of the
 * key with constants, joined by `and`): a value passes it if and only if
 * its key is in the range keyRange gives.
 */
function isKeyRange(e: dag.Expr, key: readonly string[]): boolean {
  if (e.kind !== 'Binary') return false;
  if (e.op === 'and') return isKeyRange(e.lhs, key) && isKeyRange(e.rhs, key);
  const k = keyComparison(e, key);
  return k !== null && rangeable(k.value);
}

/**
 * Tells a pool scan with no filter, or a filter that is exactly a key
 * range, which values its query keeps when the operator after it keeps
 * only those at one end of the key order: a sort by the pool key then a
 * head (the lowest or highest keys), or a tail (the last in pool order).
 * The lake may then skip the rest (endrange.ts).
 */
function markScanEnds(seq: dag.Seq): void {
  walkEntries(seq, (s) => {
    const src = s[0];
    if (src.kind !== 'PoolScan') return s;
    const key = poolKeyPath(src.pool.layout);
    if (src.filter !== null && (src.range === null || !isKeyRange(src.filter, key))) return s;
    // A lifted cut must keep the key as it is, or a later sort by its
    // path sorts by something else (a tail needs no key).
    const keyKept =
      !src.project || src.project.some((a) => pathEqual(a.lhs, key) && isPath(a.rhs, key));
    const [, next, after] = s;
    if (
      keyKept &&
      next?.kind === 'Sort' &&
      after?.kind === 'Head' &&
      next.args.length === 1 &&
      isPath(next.args[0], key)
    )
      src.end = { side: next.order === 'desc' ? 'high' : 'low', count: after.count };
    else if (next?.kind === 'Tail')
      src.end = { side: src.pool.layout.order === 'desc' ? 'low' : 'high', count: next.count };
    return s;
  });
}

export function optimize(seq: dag.Seq): dag.Seq {
  seq = mergeFilters(seq);
  seq = removePassOps(seq);
  seq = mergeFilters(seq);
  seq = cutsBeforeSorts(seq);
  seq = liftIntoSources(seq);
  seq = cutsIntoSummarize(seq);
  seq = tapMetaScans(seq);
  propagateOrder(seq);
  markScanEnds(seq);
  const src = seq[0];
  if (src?.kind === 'PoolScan') {
    src.fields = fieldDemand(src.filter, src.project, seq.slice(1));
    if (src.fields === null && src.filter !== null) src.matchFields = exprDemand(src.filter);
  }
  return seq;
}

/** True for a literal true (e.g. `*`, which filters nothing). */
export function isTrueLiteral(e: dag.Expr): boolean {
  return (
    e.kind === 'Literal' &&
    e.value.type === TypeBool &&
    e.value.len > 0 &&
    e.value.buf[e.value.off] === 1
  );
}
