// The numeric reducer behind sum (and min/max): it keeps its state in one
// of five kinds (int64, uint64, float64, duration, time), chosen by the
// first numeric value and widened as values of other numeric types arrive,
// following the reference's coercion of (state type, value type) pairs:
//
// - a float value (or state) makes the state float64;
// - integers of one signedness keep the wider kind (time > duration > int64);
// - mixed signedness goes signed, unless the value is a uint64 beyond
//   int64, which makes the state uint64;
// - values of other types are skipped; a null value sets the kind only.
//
// With no non-null value the result is null of the state's type (or of
// type null if no numeric value came at all). Integer arithmetic wraps at
// 64 bits as in Go.

import { TypeContext } from '../../zed/context';
import {
  decodeFloat,
  decodeInt,
  decodeIntApprox,
  decodeIntBig,
  decodeUint,
  decodeUintBig,
  isMinInt64,
} from '../../zed/primitive';
import {
  ID,
  isFloat,
  isNumber,
  isSigned,
  Type,
  TypeDuration,
  TypeFloat64,
  TypeInt64,
  TypeTime,
  TypeUint64,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { NULL } from '../expr/expr';
import { Scratch } from '../expr/scratch';
import { AggColumn } from './agg';
import { growFloat64, growInt8, growUint8 } from './grow';

/** Whether a state kind holds signed 64-bit integers as they are encoded. */
function signed64(kind: number): boolean {
  return kind === Kind.Int || kind === Kind.Duration || kind === Kind.Time;
}

/** An integer: a number when |v| <= 2^53, else a bigint. */
export type Int = number | bigint;

/** A reduction: its initial states and how it combines two values of each kind. */
export interface MathOp {
  initInt: Int;
  initUint: Int;
  initFloat: number;
  /** Signed 64-bit (wrapping) combination. */
  int(a: Int, b: Int): Int;
  /** Unsigned 64-bit (wrapping) combination. */
  uint(a: Int, b: Int): Int;
  float(a: number, b: number): number;
  /**
   * Set for a selection of one value: 1 keeps the larger, -1 the smaller.
   * A value then leaves the state as it is where a float64 comparison says
   * so, without decoding it exactly.
   */
  keeps?: 1 | -1;
}

const Kind = {
  None: -1,
  Int: ID.Int64,
  Uint: ID.Uint64,
  Float: ID.Float64,
  Duration: ID.Duration,
  Time: ID.Time,
};

const TWO63 = 2 ** 63;
const TWO64 = 2 ** 64;
const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

/** A bigint as an Int: a number when exact. */
export function normInt(b: bigint): Int {
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

export function wrapInt64(v: Int): Int {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return v;
    v = BigInt(v);
  }
  return normInt(BigInt.asIntN(64, v));
}

export function wrapUint64(v: Int): Int {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v) && v >= 0) return v;
    v = BigInt(v);
  }
  return normInt(BigInt.asUintN(64, v));
}

export function big(v: Int): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

/** Go's int64(f) on amd64: truncation, with 1<<63 for NaN and overflow. */
function floatToInt(f: number): Int {
  const t = Math.trunc(f);
  if (!(t >= -TWO63 && t < TWO63)) return MIN_INT64;
  return Number.isSafeInteger(t) ? t : BigInt(t);
}

/** Go's uint64(f) on amd64 (negative values wrap). */
function floatToUint(f: number): Int {
  const t = Math.trunc(f);
  if (t >= 0 && t < TWO64) return Number.isSafeInteger(t) ? t : BigInt(t);
  if (t < 0 && t >= -TWO63) return wrapUint64(BigInt(t));
  return 2n ** 63n;
}

function readInt(id: number, v: Value): Int {
  const len = v.len;
  if (len <= 6 && !(isSigned(id) && isMinInt64(v.buf, v.off, len))) {
    return isSigned(id) ? decodeInt(v.buf, v.off, len) : decodeUint(v.buf, v.off, len);
  }
  return normInt(isSigned(id) ? decodeIntBig(v.buf, v.off, len) : decodeUintBig(v.buf, v.off, len));
}

/** The reference's coerce.ToInt for numeric values (uint64 wraps). */
function toInt(id: number, v: Value): Int {
  if (isFloat(id)) return floatToInt(decodeFloat(v.buf, v.off, v.len));
  const x = readInt(id, v);
  return isSigned(id) ? x : wrapInt64(x);
}

/** coerce.ToUint: negative signed values fail. */
function toUint(id: number, v: Value): Int | undefined {
  if (isFloat(id)) return floatToUint(decodeFloat(v.buf, v.off, v.len));
  const x = readInt(id, v);
  if (id === ID.Duration || id === ID.Time) return wrapUint64(x);
  if (isSigned(id) && x < 0) return undefined;
  return x;
}

function toFloat(id: number, v: Value): number {
  if (isFloat(id)) return decodeFloat(v.buf, v.off, v.len);
  const x = readInt(id, v);
  return typeof x === 'number' ? x : Number(x);
}

const NS_PER_SEC = 1_000_000_000;

/** coerce.ToDuration: integers count seconds (but 8-bit ones are not accepted). */
function toDuration(id: number, v: Value): Int | undefined {
  switch (id) {
    case ID.Duration:
      return readInt(id, v);
    case ID.Uint16:
    case ID.Uint32:
    case ID.Uint64: {
      const x = readInt(id, v);
      if (big(x) > MAX_INT64) return undefined;
      return wrapInt64(typeof x === 'number' ? x * NS_PER_SEC : x * 1_000_000_000n);
    }
    case ID.Int16:
    case ID.Int32:
    case ID.Int64: {
      const x = readInt(id, v);
      return wrapInt64(typeof x === 'number' ? x * NS_PER_SEC : x * 1_000_000_000n);
    }
    case ID.Float16:
    case ID.Float32:
    case ID.Float64:
      return floatToInt(decodeFloat(v.buf, v.off, v.len));
  }
  return undefined;
}

/** coerce.ToTime: integers are nanoseconds. */
function toTime(id: number, v: Value): Int | undefined {
  if (isFloat(id)) return floatToInt(decodeFloat(v.buf, v.off, v.len));
  if (id > ID.Time) return undefined;
  const x = readInt(id, v);
  if (!isSigned(id) && big(x) > MAX_INT64) return undefined;
  return x;
}

/**
 * The signed integer type an integer type meets one of the other
 * signedness at: unsigned types their signed twin, durations and times
 * int64 (the reference's coercion promote table).
 */
function promote(id: number): number {
  if (id <= ID.Uint256) return id + ID.Int8;
  return id <= ID.Int256 ? id : ID.Int64;
}

/**
 * The type ID a state of type sid and a value of type vid coerce to (the
 * reference's Pair.Coerce with a null state), or -1 when incompatible.
 */
function coerceID(sid: number, v: Value, vid: number): number {
  if (sid === vid || vid === ID.Null) return sid;
  if (!isNumber(vid)) return -1;
  if (isFloat(sid)) return sid;
  if (isFloat(vid)) return vid;
  const ss = isSigned(sid);
  if (ss === isSigned(vid)) return Math.max(sid, vid);
  if (ss && v.len >= 0) {
    // A uint64 value beyond int64 turns the state unsigned.
    const x = decodeUintBig(v.buf, v.off, v.len);
    if (x > MAX_INT64) return ID.Uint64;
  }
  return Math.max(promote(sid), promote(vid));
}

/** The state kind values of type ID id accumulate in, or None. */
function kindOf(id: number): number {
  switch (id) {
    case ID.Int8:
    case ID.Int16:
    case ID.Int32:
    case ID.Int64:
      return Kind.Int;
    case ID.Uint8:
    case ID.Uint16:
    case ID.Uint32:
    case ID.Uint64:
      return Kind.Uint;
    case ID.Float16:
    case ID.Float32:
    case ID.Float64:
      return Kind.Float;
    case ID.Duration:
      return Kind.Duration;
    case ID.Time:
      return Kind.Time;
  }
  return Kind.None;
}

const kindTypes: Record<number, Type> = {
  [Kind.Int]: TypeInt64,
  [Kind.Uint]: TypeUint64,
  [Kind.Float]: TypeFloat64,
  [Kind.Duration]: TypeDuration,
  [Kind.Time]: TypeTime,
};

const kindNames: Record<number, string> = {
  [Kind.Int]: 'int64',
  [Kind.Uint]: 'uint64',
  [Kind.Float]: 'float64',
  [Kind.Duration]: 'duration',
  [Kind.Time]: 'time',
};

const out = new Scratch();

/**
 * The reducer's state for many groups, in parallel arrays: the kind, whether
 * a non-null value came, and the value (float64 in f, integers in i as a
 * number when exact, else a bigint).
 */
export class MathColumn implements AggColumn {
  // f in V8's heap (64 bytes or less: see CountColumn).
  private kind = new Int8Array(8);
  private hasVal = new Uint8Array(8);
  private f = new Float64Array(8);
  private i: Int[] = [];
  size = 0;

  constructor(private readonly op: MathOp) {}

  add(): void {
    const g = this.size++;
    if (g === this.kind.length) {
      this.kind = growInt8(this.kind);
      this.hasVal = growUint8(this.hasVal);
      this.f = growFloat64(this.f);
    }
    this.kind[g] = Kind.None;
    this.hasVal[g] = 0;
    this.f[g] = 0;
    // i is written when the group's state turns integer (convert), not
    // here: appending to a JS array per group cost more than the rest of a
    // float sum's groups (27 ms per 313k groups).
  }

  touch(groups: Int32Array, n: number): number {
    const kind = this.kind;
    const f = this.f;
    let x = 0;
    for (let j = 0; j < n; j++) {
      const g = groups[j];
      if (g >= 0) x += kind[g] + f[g];
    }
    return x | 0;
  }

  consume(g: number, v: Value): void {
    const kind = this.kind[g];
    const vid = v.type.under.id;
    let id: number;
    if (kind === Kind.None) {
      id = vid;
    } else {
      id = coerceID(kind, v, vid);
      if (id < 0) return;
    }
    if (id !== kind) {
      const k = kindOf(id);
      if (k === Kind.None) return;
      this.convert(g, k);
    }
    if (v.len < 0) return;
    this.hasVal[g] = 1;
    this.add1(g, vid, v);
  }

  /**
   * Consumes the values of a numeric column of type ID vid, given as exact
   * float64s (vals, with nulls), for groups grp[k] and rows sel[k] (k when
   * sel is null), k in [from, to). A group whose state is of another kind
   * (none yet, or one this type converts) takes the value through
   * consume(g, value of row i) instead, so every value has the effect
   * consume would give it.
   */
  consumeNumbers(
    vid: number,
    grp: Int32Array,
    sel: Int32Array | null,
    from: number,
    to: number,
    vals: Float64Array,
    nulls: Uint8Array | null,
    slow: (g: number, i: number) => void,
  ): void {
    const k0 = kindOf(vid);
    const kind = this.kind;
    const hasVal = this.hasVal;
    const op = this.op;
    for (let k = from; k < to; k++) {
      const g = grp[k];
      if (g < 0) continue;
      const i = sel === null ? k : sel[k];
      if (kind[g] !== k0) {
        if (kind[g] === Kind.None && k0 === Kind.Float) {
          // A new group's first value: what consume's convert does (a
          // slow call per group costs a group-by of many small groups).
          this.f[g] = op.initFloat;
          kind[g] = k0;
        } else {
          slow(g, i);
          continue;
        }
      }
      if (nulls !== null && nulls[i] === 1) continue;
      hasVal[g] = 1;
      if (k0 === Kind.Float) this.f[g] = op.float(this.f[g], vals[i]);
      else if (k0 === Kind.Uint) this.i[g] = op.uint(this.i[g], vals[i]);
      else this.i[g] = op.int(this.i[g], vals[i]);
    }
  }

  private add1(g: number, vid: number, v: Value): void {
    const op = this.op;
    if (op.keeps !== undefined && v.len > 6 && vid === this.kind[g] && signed64(vid)) {
      // A min or max of 64-bit values of the state's own type (times): most
      // are no better than the state, which their float64 approximations
      // show (each within a few units in the last place of the exact value).
      const s = this.i[g];
      const sf = typeof s === 'number' ? s : Number(s);
      const d = (decodeIntApprox(v.buf, v.off, v.len) - sf) * op.keeps;
      if (d < -(Math.abs(sf) * 2 ** -45 + 4)) return;
    }
    switch (this.kind[g]) {
      case Kind.Int: {
        // Fast path: small signed integers.
        if (
          v.len <= 6 &&
          isSigned(vid) &&
          vid !== ID.Duration &&
          vid !== ID.Time &&
          !isMinInt64(v.buf, v.off, v.len)
        ) {
          this.i[g] = op.int(this.i[g], decodeInt(v.buf, v.off, v.len));
        } else {
          this.i[g] = op.int(this.i[g], toInt(vid, v));
        }
        return;
      }
      case Kind.Uint: {
        const x = toUint(vid, v);
        if (x !== undefined) this.i[g] = op.uint(this.i[g], x);
        return;
      }
      case Kind.Float:
        this.f[g] = op.float(this.f[g], toFloat(vid, v));
        return;
      case Kind.Duration: {
        const x = toDuration(vid, v);
        if (x !== undefined) this.i[g] = op.int(this.i[g], x);
        return;
      }
      case Kind.Time: {
        const x = toTime(vid, v);
        if (x !== undefined) this.i[g] = op.int(this.i[g], x);
        return;
      }
    }
  }

  /** Moves group g's state to kind k, converting its current result. */
  private convert(g: number, k: number): void {
    const from = this.kind[g];
    const op = this.op;
    const i = this.i[g];
    if (from === Kind.None) {
      if (k === Kind.Float) this.f[g] = op.initFloat;
      else {
        // Pad up to g so the array stays dense (a far write would turn it into a dictionary).
        const ints = this.i;
        while (ints.length < g) ints.push(0);
        ints[g] = k === Kind.Uint ? op.initUint : op.initInt;
      }
    } else if (k === Kind.Float) {
      if (from !== Kind.Float) this.f[g] = typeof i === 'number' ? i : Number(i);
    } else if (from === Kind.Float) {
      this.i[g] = k === Kind.Uint ? floatToUint(this.f[g]) : floatToInt(this.f[g]);
    } else if (k === Kind.Uint) {
      // A negative int64 state is the reference's coercion failure; a
      // duration or time state converts as uint64(ns), wrapping.
      if (from === Kind.Int && i < 0)
        throw new Error(`internal aggregation error: cannot coerce ${kindNames[from]} to uint64`);
      this.i[g] = wrapUint64(i);
    } else if (from === Kind.Uint) {
      this.i[g] = wrapInt64(i);
    }
    this.kind[g] = k;
  }

  consumePartial(g: number, v: Value): void {
    this.consume(g, v);
  }

  result(g: number, _zctx: TypeContext): Value {
    const k = this.kind[g];
    if (k === Kind.None) return NULL;
    const t = kindTypes[k];
    if (!this.hasVal[g]) return out.null(t);
    if (k === Kind.Float) return out.float(t, this.f[g]);
    if (k === Kind.Uint) return out.uint(t, this.i[g]);
    return out.int(t, this.i[g]);
  }

  resultPartial(g: number, zctx: TypeContext): Value {
    return this.result(g, zctx);
  }

  clear(): void {
    this.size = 0;
    this.i = [];
  }

  keep(groups: readonly number[]): void {
    groups.forEach((g, n) => {
      this.kind[n] = this.kind[g];
      this.hasVal[n] = this.hasVal[g];
      this.f[n] = this.f[g];
      // Groups past i's end have no integer state (n <= g, so n is inside it).
      if (g < this.i.length) this.i[n] = this.i[g];
    });
    this.size = groups.length;
    if (this.i.length > groups.length) this.i.length = groups.length;
  }
}

/** Signed 64-bit addition with Go's wraparound. */
export function addInt64(a: Int, b: Int): Int {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(BigInt.asIntN(64, big(a) + big(b)));
}

export function addUint64(a: Int, b: Int): Int {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(BigInt.asUintN(64, big(a) + big(b)));
}
