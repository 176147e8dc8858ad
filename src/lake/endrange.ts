// The key range a scan needs when its query keeps only the values at one
// end of the pool-key order: `sort -r ts | head 10` (the highest keys),
// `sort ts | head 10` (the lowest), `tail 10` on a pool kept in ts order.
// Such a query reads every value to find a few; with the objects' and
// their seek indexes' counts and key spans, the scan can skip every object
// and stream below (above) a bound that at least that many values reach.
//
// The bound is exact only where the pool's keys have one total order that
// the sort, the merge of objects and the range test all follow: then the
// values past it include the N the query keeps, and every value tied with
// them. So the range is given only when every object's bounds are not null
// and its columnar copy shows the key present and of one type whose values compare
// alike everywhere (not a float, whose NaN equals every number; not int8,
// which the sort orders by value and the merge by bytes; not several
// numeric types, which order apart from the others' types by name). A pool
// that cannot show that is scanned whole.

import { compare, SORTED_ALIKE } from '../zed/compare';
import { isFloat, Type } from '../zed/types';
import { Value } from '../zed/value';
import { DataObject } from './object';
import { KeyRange, overlaps, SeekEntry, strictlyWithin } from './seekindex';

/** The values a scan's query keeps: the count with the lowest or highest keys. */
export interface ScanEnd {
  side: 'low' | 'high';
  count: number;
}

/**
 * Whether keys all of type t are ordered alike by the sort, the merge and
 * a range test, totally: not floats (a NaN equals every number).
 */
export function rangesAlike(t: Type): boolean {
  const id = t.under.id;
  return t.id === id && SORTED_ALIKE.has(id) && !isFloat(id);
}

/** Part of a pool (an object, a stream of one): its key span and its count of values. */
interface Piece {
  min: Value;
  max: Value;
  count: number;
}

/**
 * The key past which the pieces hold at least end.count values: the
 * pieces that lie wholly past it are enough (so pieces that straddle it
 * are not counted), or null when all of them together hold fewer.
 */
function bound(pieces: Piece[], end: ScanEnd): Value | null {
  const high = end.side === 'high';
  const order = high
    ? [...pieces].sort((a, b) => compare(b.min, a.min))
    : [...pieces].sort((a, b) => compare(a.max, b.max));
  let n = 0;
  for (const p of order) {
    n += p.count;
    if (n >= end.count) return high ? p.min : p.max;
  }
  return null;
}

/**
 * The range of keys a scan of objects needs for end, within filter (the
 * query's own filter, when it is exactly that key range: then a value
 * passes it if and only if its key is in the range): objects first, then
 * the seek-index streams of the objects the objects' bound reaches into,
 * for a tighter bound. Only objects and streams that lie wholly in the
 * filter's range count. Undefined when the scan needs every value, or
 * a key in reach is null. The caller has checked the keys' order
 * (rangesAlike).
 */
export async function endRange(
  objects: readonly DataObject[],
  end: ScanEnd,
  seekIndex: (o: DataObject) => Promise<SeekEntry[]>,
  filter?: KeyRange,
): Promise<KeyRange | undefined> {
  const inFilter = (p: Piece) => !filter || strictlyWithin(p.min, p.max, filter);
  const live = objects.filter((o) => o.count > 0 && overlaps(o.min, o.max, filter));
  // A null key makes its object's greatest key null (nulls sort last
  // ascending, first descending), and no range holds it.
  if (live.some((o) => o.min.len < 0 || o.max.len < 0)) return undefined;
  const high = end.side === 'high';
  const outer = bound(live.filter(inFilter), end);
  // The objects that can hold the values past outer (every one in the
  // filter's range when the objects wholly in it hold too few).
  const reached =
    outer === null
      ? live
      : live.filter((o) => (high ? compare(o.max, outer) >= 0 : compare(o.min, outer) <= 0));
  const streams: Piece[] = [];
  for (const entries of await Promise.all(reached.map(seekIndex)))
    for (const e of entries) streams.push({ min: e.min, max: e.max, count: e.valCnt });
  // Those objects' streams hold every value past outer, so their bound is
  // at least as tight.
  const b = bound(streams.filter(inFilter), end) ?? outer;
  if (b === null) return undefined;
  return high
    ? { lower: b, upper: filter?.upper, upperOpen: filter?.upperOpen }
    : { lower: filter?.lower, lowerOpen: filter?.lowerOpen, upper: b };
}
