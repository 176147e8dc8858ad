// The reference's coercion rules (runtime/expr/coerce): how the operands of
// a binary operator are brought to one type, and how single values convert
// to numbers, bools, times and durations for casts and slices.
//
// Binary operands: the same type stays as is; null takes the other side's
// type; numbers of different types meet at a float (the float side's
// type) or at the wider integer, with mixed signedness going signed unless
// the unsigned value exceeds int64 (then unsigned if the signed value is
// not negative, else an overflow); anything else is incompatible.

import {
  decodeFloat,
  decodeIntBig,
  decodeIntExact,
  decodeUintBig,
  decodeUintExact,
} from '../../zed/primitive';
import { decodeString } from '../../zed/primitive';
import { ID, isFloat, isNumber, isSigned, Type, TypeEnum, TypeUint64 } from '../../zed/types';
import { Value } from '../../zed/value';
import { parseGoFloat } from '../../formats/zson/literal';

/** Coercion results other than a type ID. */
export const INCOMPATIBLE = -1;
export const OVERFLOW = -2;

export const ERR_INCOMPATIBLE = 'incompatible types';
export const ERR_OVERFLOW = 'integer overflow: uint64 value too large for int64';

const MAX_INT64 = 2n ** 63n - 1n;

// The signed type each integer type promotes to when signedness is mixed.
const promote: number[] = [
  ID.Int8,
  ID.Int16,
  ID.Int32,
  ID.Int64,
  ID.Int128,
  ID.Int256,
  ID.Int8,
  ID.Int16,
  ID.Int32,
  ID.Int64,
  ID.Int128,
  ID.Int256,
  ID.Int64,
  ID.Int64,
];

/**
 * The type ID a value takes part in coercion as: the underlying ID, with
 * enums (not named ones, as in the reference) counted as uint64.
 */
export function coercionType(t: Type): Type {
  return t instanceof TypeEnum ? TypeUint64 : t.under;
}

/** An integer that is a number when exact (|v| < 2^53), else a bigint. */
export type Int = number | bigint;

/**
 * Decoded operands of a binary operator after coercion. coerce() returns
 * the type ID of the operation (or INCOMPATIBLE/OVERFLOW) and, for numeric
 * IDs, leaves the operands in fa/fb (floats) or ia/ib (integers, signed or
 * unsigned as the ID says). Null operands decode as zero, as in the
 * reference; aNull/bNull tell them apart.
 */
export class Operands {
  fa = 0;
  fb = 0;
  ia: Int = 0;
  ib: Int = 0;
  aNull = false;
  bNull = false;

  coerce(at: Type, a: Value, bt: Type, b: Value): number {
    this.aNull = a.len < 0;
    this.bNull = b.len < 0;
    const aid = at.id;
    const bid = bt.id;
    if (at === bt) {
      if (isNumber(aid)) this.decodeSame(aid, a, b);
      return aid;
    }
    if (aid === ID.Null) {
      if (isNumber(bid)) this.decodeSame(bid, a, b);
      return bid;
    }
    if (bid === ID.Null) {
      if (isNumber(aid)) this.decodeSame(aid, a, b);
      return aid;
    }
    if (!isNumber(aid) || !isNumber(bid)) return INCOMPATIBLE;
    if (isFloat(aid) || isFloat(bid)) {
      this.fa = toFloatById(aid, a);
      this.fb = toFloatById(bid, b);
      return isFloat(aid) ? aid : bid;
    }
    const as = isSigned(aid);
    if (as === isSigned(bid)) {
      this.decodeSame(as ? ID.Int64 : ID.Uint64, a, b);
      return aid > bid ? aid : bid;
    }
    // Mixed signedness: signed unless the unsigned side exceeds int64.
    const x = as ? decodeIntBig(a.buf, a.off, a.len) : decodeUintBig(a.buf, a.off, a.len);
    const y = as ? decodeUintBig(b.buf, b.off, b.len) : decodeIntBig(b.buf, b.off, b.len);
    const unsigned = as ? y : x;
    const signed = as ? x : y;
    let id = promote[aid] > promote[bid] ? promote[aid] : promote[bid];
    if (unsigned > MAX_INT64) {
      if (signed < 0n) return OVERFLOW;
      id = ID.Uint64;
    }
    this.ia = exact(x);
    this.ib = exact(y);
    return id;
  }

  private decodeSame(id: number, a: Value, b: Value): void {
    if (isFloat(id)) {
      this.fa = decodeFloat(a.buf, a.off, a.len);
      this.fb = decodeFloat(b.buf, b.off, b.len);
    } else if (isSigned(id)) {
      this.ia = decodeIntExact(a.buf, a.off, a.len);
      this.ib = decodeIntExact(b.buf, b.off, b.len);
    } else {
      this.ia = decodeUintExact(a.buf, a.off, a.len);
      this.ib = decodeUintExact(b.buf, b.off, b.len);
    }
  }
}

function exact(v: bigint): Int {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

function toFloatById(id: number, v: Value): number {
  if (isFloat(id)) return decodeFloat(v.buf, v.off, v.len);
  if (isSigned(id)) return Number(decodeIntExact(v.buf, v.off, v.len));
  return Number(decodeUintExact(v.buf, v.off, v.len));
}

/** Integer equality across the number/bigint forms. */
export function intEqual(a: Int, b: Int): boolean {
  return typeof a === typeof b ? a === b : BigInt(a) === BigInt(b);
}

const f64 = new Float64Array(2);
const u32 = new Uint32Array(f64.buffer);

/** Float equality as the reference's byte comparison: the same bits. */
export function floatBitsEqual(a: number, b: number): boolean {
  f64[0] = a;
  f64[1] = b;
  return u32[0] === u32[2] && u32[1] === u32[3];
}

// ---------------------------------------------------------------------------
// Conversions of one value (coerce.ToInt etc.). Each returns undefined when
// the reference reports failure.

function idOf(v: Value): number {
  return v.type.under.id;
}

/** Go's strconv.ParseInt(s, 10, 64). */
export function parseGoInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  if (v > MAX_INT64 || v < -MAX_INT64 - 1n) return undefined;
  return v;
}

/** Go's strconv.ParseUint(s, 10, 64). */
export function parseGoUint64(s: string): bigint | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v < 2n ** 64n ? v : undefined;
}

/** Go's int64(f) for a float: truncation, saturating as amd64 does (to MinInt64). */
function floatToInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 9223372036854775808 || f < -9223372036854775808)
    return -(2n ** 63n);
  return BigInt(Math.trunc(f));
}

function floatToUint64(f: number): bigint {
  if (Number.isNaN(f)) return 2n ** 63n;
  if (f < 0) return BigInt.asUintN(64, floatToInt64(f));
  if (f >= 18446744073709551616) return 2n ** 63n;
  return BigInt(Math.trunc(f));
}

export function toInt(v: Value): bigint | undefined {
  const id = idOf(v);
  if (isFloat(id)) return floatToInt64(decodeFloat(v.buf, v.off, v.len));
  if (id <= ID.Time) {
    if (isSigned(id)) return decodeIntBig(v.buf, v.off, v.len);
    return BigInt.asIntN(64, decodeUintBig(v.buf, v.off, v.len));
  }
  if (id === ID.String) return parseGoInt64(decodeString(v.buf, v.off, v.len));
  return undefined;
}

export function toUint(v: Value): bigint | undefined {
  const id = idOf(v);
  if (isFloat(id)) return floatToUint64(decodeFloat(v.buf, v.off, v.len));
  if (id <= ID.Time) {
    if (isSigned(id)) {
      const x = decodeIntBig(v.buf, v.off, v.len);
      if (id !== ID.Duration && id !== ID.Time && x < 0n) return undefined;
      return BigInt.asUintN(64, x);
    }
    return decodeUintBig(v.buf, v.off, v.len);
  }
  if (id === ID.String) return parseGoUint64(decodeString(v.buf, v.off, v.len));
  return undefined;
}

export function toFloat(v: Value): number | undefined {
  const id = idOf(v);
  if (isFloat(id)) return decodeFloat(v.buf, v.off, v.len);
  if (id <= ID.Time) {
    if (isSigned(id)) return Number(decodeIntBig(v.buf, v.off, v.len));
    return Number(decodeUintBig(v.buf, v.off, v.len));
  }
  if (id === ID.String) return parseGoFloat(decodeString(v.buf, v.off, v.len));
  return undefined;
}

/** Go's strconv.ParseBool. */
export function parseGoBool(s: string): boolean | undefined {
  switch (s) {
    case '1':
    case 't':
    case 'T':
    case 'true':
    case 'TRUE':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'false':
    case 'FALSE':
    case 'False':
      return false;
  }
  return undefined;
}

export function toBool(v: Value): boolean | undefined {
  if (idOf(v) === ID.String) return parseGoBool(decodeString(v.buf, v.off, v.len));
  const i = toInt(v);
  return i === undefined ? undefined : i !== 0n;
}
