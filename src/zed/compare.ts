// The reference's total order over all Zed values (its sort comparator),
// used by sort, merge, the pool key and compare().
//
// - null sorts after everything (nullsMax) or before everything;
// - numbers of different types compare numerically after promotion;
// - other values of different types order by the ZSON text of their types;
// - values of one type compare by their natural order where the reference
//   defines one (bool, string, 16/32/64-bit integers, floats, time,
//   duration, ip, type, and element-wise arrays and sets) and by their
//   zcode bytes otherwise (records, maps, unions, net, bytes, and the
//   reference's 8-bit integers).

import {
  decodeBool,
  decodeFloat,
  decodeInt,
  decodeIntBig,
  decodeUint,
  decodeUintBig,
  bytesCompare,
  compareIntBytes,
  compareUintBytes,
} from './primitive';
import { formatType } from './typestring';
import { compareTypes, ID, innerType, isFloat, isNumber, isSigned, Type } from './types';
import { Value } from './value';
import { ZIter } from './zcode';
import { TypeContext } from './context';

export { compareTypes };

export type ByteCompare = (
  a: Uint8Array,
  ao: number,
  al: number,
  b: Uint8Array,
  bo: number,
  bl: number,
) => number;

/**
 * Underlying types whose values, all of one type, compareValues orders as
 * the sort operator does (by value, or by bytes for strings and bytes).
 * int8 is left out: the sort orders it by value, compareValues by bytes.
 */
export const SORTED_ALIKE: ReadonlySet<number> = new Set([
  ID.Uint8,
  ID.Uint16,
  ID.Uint32,
  ID.Uint64,
  ID.Int16,
  ID.Int32,
  ID.Int64,
  ID.Duration,
  ID.Time,
  ID.Float32,
  ID.Float64,
  ID.String,
  ID.Bytes,
]);

/** Whether a value (type t, body buf[off, off+len), len -1 for null) is a float NaN. */
export function isNaNKey(t: Type, buf: Uint8Array, off: number, len: number): boolean {
  return len >= 0 && isFloat(t.under.id) && Number.isNaN(decodeFloat(buf, off, len));
}

const typeStrings = new WeakMap<Type, string>();
function typeString(t: Type): string {
  let s = typeStrings.get(t);
  if (s === undefined) {
    s = formatType(t);
    typeStrings.set(t, s);
  }
  return s;
}

const cmpFns = new WeakMap<Type, ByteCompare>();

/** The same-type comparison for type t (cached per type object). */
export function compareFnFor(t: Type): ByteCompare {
  let fn = cmpFns.get(t);
  if (!fn) {
    fn = makeCompareFn(t);
    cmpFns.set(t, fn);
  }
  return fn;
}

function makeCompareFn(t: Type): ByteCompare {
  const inner = innerType(t);
  if (inner) {
    const ia = new ZIter();
    const ib = new ZIter();
    return (a, ao, al, b, bo, bl) => {
      const elem = compareFnFor(inner);
      ia.reset(a, ao, ao + al);
      ib.reset(b, bo, bo + bl);
      for (;;) {
        if (ia.done()) return ib.done() ? 0 : -1;
        if (ib.done()) return 1;
        ia.next();
        ib.next();
        // The reference compares elements' bytes with no null handling:
        // a null element is an empty body here.
        const c = elem(a, ia.off, Math.max(ia.len, 0), b, ib.off, Math.max(ib.len, 0));
        if (c !== 0) return c;
      }
    };
  }
  switch (t.under.id) {
    case ID.Bool:
      return (a, ao, al, b, bo, bl) => {
        const x = decodeBool(a, ao, al);
        const y = decodeBool(b, bo, bl);
        return x === y ? 0 : x ? 1 : -1;
      };
    case ID.Int16:
    case ID.Int32:
    case ID.Int64:
    case ID.Time:
    case ID.Duration:
      return compareIntBytes;
    case ID.Uint16:
    case ID.Uint32:
    case ID.Uint64:
      return compareUintBytes;
    case ID.Float16:
    case ID.Float32:
    case ID.Float64:
      return (a, ao, al, b, bo, bl) => {
        const x = decodeFloat(a, ao, al);
        const y = decodeFloat(b, bo, bl);
        return x < y ? -1 : x > y ? 1 : 0;
      };
    case ID.IP:
      return compareIP;
    case ID.Type:
      return compareTypeValues;
    default:
      return bytesCompare;
  }
}

/** netip.Addr.Compare: IPv4 before IPv6, then by address bytes. */
function compareIP(
  a: Uint8Array,
  ao: number,
  al: number,
  b: Uint8Array,
  bo: number,
  bl: number,
): number {
  if (al !== bl) return al < bl ? -1 : 1;
  return bytesCompare(a, ao, al, b, bo, bl);
}

const scratchCtx = new TypeContext();

function compareTypeValues(
  a: Uint8Array,
  ao: number,
  al: number,
  b: Uint8Array,
  bo: number,
  bl: number,
): number {
  try {
    const ta = scratchCtx.lookupByValue(a, ao, al);
    const tb = scratchCtx.lookupByValue(b, bo, bl);
    return compareTypes(ta, tb);
  } catch {
    return bytesCompare(a, ao, al, b, bo, bl);
  } finally {
    // Type values come from anywhere; don't let the scratch context grow.
    if (scratchCtx.size > 10000) scratchCtx.reset();
  }
}

function toFloat(id: number, buf: Uint8Array, off: number, len: number): number {
  if (isFloat(id)) return decodeFloat(buf, off, len);
  return isSigned(id) ? decodeInt(buf, off, len) : decodeUint(buf, off, len);
}

/**
 * Compares two numbers of different numeric types as the reference's
 * coercion does; returns NaN when they cannot be coerced (an unsigned value
 * beyond int64 against a negative signed one), in which case the caller
 * falls back to comparing type names.
 */
function compareMixedNumbers(
  aid: number,
  a: Uint8Array,
  ao: number,
  al: number,
  bid: number,
  b: Uint8Array,
  bo: number,
  bl: number,
): number {
  if (isFloat(aid) || isFloat(bid)) {
    const x = toFloat(aid, a, ao, al);
    const y = toFloat(bid, b, bo, bl);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const as = isSigned(aid);
  const bs = isSigned(bid);
  if (as === bs) {
    const id = Math.max(aid, bid);
    return compareFnForId(id)(a, ao, al, b, bo, bl);
  }
  // Mixed signedness: the reference promotes the unsigned side to signed,
  // or failing that the signed side to unsigned, else cannot compare.
  const x = as ? decodeIntBig(a, ao, al) : decodeUintBig(a, ao, al);
  const y = bs ? decodeIntBig(b, bo, bl) : decodeUintBig(b, bo, bl);
  const MAX = 2n ** 63n - 1n;
  const unsignedFits = as ? y <= MAX : x <= MAX;
  if (!unsignedFits) {
    const signedNonNeg = as ? x >= 0n : y >= 0n;
    if (!signedNonNeg) return NaN;
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareFnForId(id: number): ByteCompare {
  switch (id) {
    case ID.Int16:
    case ID.Int32:
    case ID.Int64:
    case ID.Time:
    case ID.Duration:
      return compareIntBytes;
    case ID.Uint16:
    case ID.Uint32:
    case ID.Uint64:
      return compareUintBytes;
    default:
      return bytesCompare;
  }
}

/**
 * Compares two values in the total order. nullsMax puts nulls after all
 * other values; otherwise before.
 */
export function compareValues(
  at: Type,
  a: Uint8Array,
  ao: number,
  al: number,
  bt: Type,
  b: Uint8Array,
  bo: number,
  bl: number,
  nullsMax: boolean,
): number {
  const anull = al < 0;
  const bnull = bl < 0;
  if (anull || bnull) {
    if (anull && bnull) return 0;
    return anull === nullsMax ? 1 : -1;
  }
  const aid = at.under.id;
  const bid = bt.under.id;
  if (aid === bid) {
    // Same underlying type (for complex types, the very same type).
    return compareFnFor(at.under)(a, ao, al, b, bo, bl);
  }
  if (isNumber(aid) && isNumber(bid)) {
    const c = compareMixedNumbers(aid, a, ao, al, bid, b, bo, bl);
    if (!Number.isNaN(c)) return c;
  }
  const sa = typeString(at);
  const sb = typeString(bt);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

export function compare(a: Value, b: Value, nullsMax = true): number {
  return compareValues(a.type, a.buf, a.off, a.len, b.type, b.buf, b.off, b.len, nullsMax);
}
