// Seek indexes. A data object is written as a sequence of ZNG streams, each
// ended by an end-of-stream marker after about seek_stride bytes of values,
// so a reader can start at any stream. The seek index (<id>-seek.zng) has
// one record per stream: its key range (min/max in value order), the
// ordinals of its values, and its byte range in the object. A key-range
// scan reads only the streams whose ranges overlap.

import { BufferSink } from '../formats/io';
import { decodeZng, newWriter } from '../formats/zng';
import { compare } from '../zed/compare';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { metaTypes, readSeekEntry, RecordBuilder, SeekEntry, seekEntryRecord } from './records';

export type { SeekEntry } from './records';

/**
 * A key range in value order: lower ≤ key ≤ upper, either bound optional.
 * Values whose key is null or missing are in no range with a bound.
 */
/** Keys between lower and upper, each bound included unless marked open (`k < 5`). */
export interface KeyRange {
  lower?: Value;
  upper?: Value;
  lowerOpen?: boolean;
  upperOpen?: boolean;
}

export async function encodeSeekIndex(entries: SeekEntry[], ctx: TypeContext): Promise<Buffer> {
  const mt = metaTypes(ctx);
  const rb = new RecordBuilder();
  const sink = new BufferSink();
  const w = newWriter(sink);
  await w.write(entries.map((e) => seekEntryRecord(mt, rb, e)));
  await w.close();
  return sink.bytes();
}

export function decodeSeekIndex(buf: Buffer, ctx: TypeContext): SeekEntry[] {
  return decodeZng(buf, { ctx }).map(readSeekEntry);
}

/** True when the span [min, max] (value order, nulls highest) may hold keys in range. */
export function overlaps(min: Value, max: Value, range: KeyRange | undefined): boolean {
  if (!range) return true;
  if (range.lower) {
    const c = compare(max, range.lower, true);
    if (c < 0 || (c === 0 && range.lowerOpen)) return false;
  }
  if (range.upper) {
    const c = compare(min, range.upper, true);
    if (c > 0 || (c === 0 && range.upperOpen)) return false;
  }
  return true;
}

/**
 * Whether every key in [min, max] is in the range, taking its bounds as
 * closed (a filter after the scan drops a key at an open bound).
 */
export function within(min: Value, max: Value, range: KeyRange | undefined): boolean {
  if (!range) return true;
  if (min.len < 0 || max.len < 0) return false;
  if (range.lower && compare(min, range.lower, true) < 0) return false;
  if (range.upper && compare(max, range.upper, true) > 0) return false;
  return true;
}

/** Whether every key in [min, max] is in the range, open bounds excluded: min and max are. */
export function strictlyWithin(min: Value, max: Value, range: KeyRange): boolean {
  if (min.len < 0 || max.len < 0) return false;
  return overlaps(min, min, range) && overlaps(max, max, range);
}

/** A byte range [start, end) of an object. */
export interface Span {
  start: number;
  end: number;
}

/**
 * The byte spans of an object holding the streams whose keys may fall in
 * range, adjacent streams joined.
 */
export function selectSpans(entries: readonly SeekEntry[], range: KeyRange | undefined): Span[] {
  const out: Span[] = [];
  for (const e of entries) {
    if (!overlaps(e.min, e.max, range)) continue;
    const last = out[out.length - 1];
    if (last && last.end === e.offset) last.end = e.offset + e.length;
    else out.push({ start: e.offset, end: e.offset + e.length });
  }
  return out;
}
