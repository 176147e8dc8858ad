// Casts between primitive types (the reference's LookupPrimitiveCaster).
// Every cast expression (`T(x)`, `<T>(x)`, `cast(x, <T>)`) is a shaper
// (shaper.ts), which calls these casters for primitive leaves.

import { TypeContext } from '../../zed/context';
import { formatValue } from '../../formats/zson';
import { parseGoFloat } from '../../formats/zson/literal';
import { encodeTime, parseDuration, TimeParts } from '../../zed/nano';
import { parseIP, parseNet } from '../../zed/ipnet';
import {
  decodeFloat,
  decodeInt,
  decodeString,
  decodeUint,
  decodeUintBig,
  isMinInt64,
} from '../../zed/primitive';
import { validUTF8 } from '../../formats/zson/gotext';
import {
  ID,
  isFloat,
  isSigned,
  Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeEnum,
  TypeInt64,
  TypeIP,
  TypeNet,
  TypeString,
  TypeTime,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { formatType } from '../../zed/typestring';
import { toBool, toFloat, toInt, toUint } from './coerce';
import { wrapError } from './errors';
import { Scratch } from './scratch';
import { parseAnyTime, parseRFC3339Parts } from './timeparse';

export { parseAnyTime };

/** Converts v to the caster's type, or returns an error value. */
export type Caster = (v: Value, out: Scratch) => Value;

const INT_RANGE: Record<number, [bigint, bigint]> = {
  [ID.Int8]: [-(2n ** 7n), 2n ** 7n - 1n],
  [ID.Int16]: [-(2n ** 15n), 2n ** 15n - 1n],
  [ID.Int32]: [-(2n ** 31n), 2n ** 31n - 1n],
};

const UINT_MAX: Record<number, bigint> = {
  [ID.Uint8]: 2n ** 8n - 1n,
  [ID.Uint16]: 2n ** 16n - 1n,
  [ID.Uint32]: 2n ** 32n - 1n,
};

/** Go's hexadecimal float syntax for strconv.ParseFloat (0x1.8p3). */
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/;

/** strconv.ParseFloat(s, 64): decimal, special and hexadecimal forms. */
export function parseFloatText(s: string): number | undefined {
  const x = parseGoFloat(s);
  if (x !== undefined) return x;
  const m = HEX_FLOAT.exec(s);
  if (!m || m[2].length + (m[3] ?? '').length === 0) return undefined;
  const digits = m[2] + (m[3] ?? '');
  let mant = 0;
  for (const d of digits) mant = mant * 16 + parseInt(d, 16);
  const v = mant * 2 ** (Number(m[4]) - 4 * (m[3] ?? '').length);
  if (!Number.isFinite(v)) return undefined;
  return m[1] === '-' ? -v : v;
}

/** The decimal text of a safe integer as a string value, digits written in place. */
function decimal(out: Scratch, n: number): Value {
  const buf = out.reserve(20);
  let len = 0;
  if (n < 0) {
    buf[len++] = 0x2d;
    n = -n;
  }
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  for (let i = len + digits - 1; i >= len; i--) {
    buf[i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  return out.view(TypeString, buf, 0, len + digits);
}

/** What the time cast's RFC 3339 fast path reads. */
const rfc: TimeParts = { secs: 0, nsec: 0 };

function floatToNs(f: number): bigint {
  if (!Number.isFinite(f) || Math.abs(f) >= 9223372036854775808) return -(2n ** 63n);
  return BigInt(Math.trunc(f));
}

const INT_MIN: Record<number, number> = {
  [ID.Int8]: -128,
  [ID.Int16]: -32768,
  [ID.Int32]: -(2 ** 31),
};
const INT_MAX: Record<number, number> = {
  [ID.Int8]: 127,
  [ID.Int16]: 32767,
  [ID.Int32]: 2 ** 31 - 1,
};
const UINT_MAX_NUM: Record<number, number> = {
  [ID.Uint8]: 255,
  [ID.Uint16]: 65535,
  [ID.Uint32]: 2 ** 32 - 1,
};

/**
 * The integer value of v as a number when that is quick and exact (short
 * integer encodings, floats below 2^53, short decimal strings; a sign only
 * when signed); NaN sends the caller to the exact (bigint) conversion.
 */
function quickInt(v: Value, signed: boolean): number {
  const id = v.type.under.id;
  const len = v.len;
  if (len <= 6 && !isMinInt64(v.buf, v.off, len)) {
    if (isSigned(id)) return decodeInt(v.buf, v.off, Math.max(len, 0));
    if (id <= ID.Uint256) return decodeUint(v.buf, v.off, Math.max(len, 0));
  }
  if (isFloat(id)) {
    const f = decodeFloat(v.buf, v.off, len);
    return f > -(2 ** 53) && f < 2 ** 53 ? Math.trunc(f) + 0 : NaN;
  }
  if (id === ID.String && len > 0 && len <= 15) {
    const buf = v.buf;
    let i = v.off;
    const end = i + len;
    let neg = false;
    if (signed && (buf[i] === 0x2d || buf[i] === 0x2b)) {
      neg = buf[i] === 0x2d;
      if (++i === end) return NaN;
    }
    let n = 0;
    for (; i < end; i++) {
      const d = buf[i] - 0x30;
      if (d < 0 || d > 9) return NaN;
      n = n * 10 + d;
    }
    return neg ? -n : n;
  }
  return NaN;
}

/** The caster to primitive type t, or null when t is not a castable primitive. */
export function primitiveCaster(zctx: TypeContext, t: Type): Caster | null {
  const fail = (msg: string) => (v: Value) => wrapError(zctx, msg, v);
  switch (t.id) {
    case ID.Bool: {
      const f = fail('cannot cast to bool');
      return (v, out) => {
        const b = toBool(v);
        if (b === undefined) return f(v);
        return out.view(TypeBool, b ? ONE : ZERO, 0, 1);
      };
    }
    case ID.Int8:
    case ID.Int16:
    case ID.Int32:
    case ID.Int64: {
      const f = fail(`cannot cast to ${formatType(t)}`);
      const range = INT_RANGE[t.id];
      const lo = INT_MIN[t.id] ?? -Infinity;
      const hi = INT_MAX[t.id] ?? Infinity;
      return (v, out) => {
        const n = quickInt(v, true);
        if (n === n) return n < lo || n > hi ? f(v) : out.int(t, n);
        const i = toInt(v);
        if (i === undefined || (range && (i < range[0] || i > range[1]))) return f(v);
        return out.int(t, i);
      };
    }
    case ID.Uint8:
    case ID.Uint16:
    case ID.Uint32:
    case ID.Uint64: {
      const f = fail(`cannot cast to ${formatType(t)}`);
      const max = UINT_MAX[t.id];
      const hi = UINT_MAX_NUM[t.id] ?? Infinity;
      return (v, out) => {
        const n = quickInt(v, false);
        // Negative numbers take the exact path (durations and times wrap).
        if (n >= 0) return n > hi ? f(v) : out.uint(t, n);
        const u = toUint(v);
        if (u === undefined || (max !== undefined && u > max)) return f(v);
        return out.uint(t, u);
      };
    }
    case ID.Float16:
    case ID.Float32:
    case ID.Float64: {
      const f = fail(`cannot cast to ${formatType(t)}`);
      return (v, out) => {
        const id = v.type.under.id;
        const x =
          id === ID.String
            ? parseFloatText(decodeString(v.buf, v.off, Math.max(v.len, 0)))
            : v.len <= 6 && isSigned(id) && !isMinInt64(v.buf, v.off, v.len)
              ? decodeInt(v.buf, v.off, Math.max(v.len, 0))
              : toFloat(v);
        if (x === undefined) return f(v);
        return out.float(t, x);
      };
    }
    case ID.IP: {
      const f = fail('cannot cast to ip');
      return (v, out) => {
        const id = v.type.under.id;
        if (id === ID.IP) return v;
        if (id !== ID.String) return f(v);
        const ip = parseIP(decodeString(v.buf, v.off, Math.max(v.len, 0)));
        if (!ip) return f(v);
        return out.copy(TypeIP, ip, 0, ip.length);
      };
    }
    case ID.Net: {
      const f = fail('cannot cast to net');
      return (v, out) => {
        const id = v.type.under.id;
        if (id === ID.Net) return v;
        if (id !== ID.String) return f(v);
        const n = parseNet(decodeString(v.buf, v.off, Math.max(v.len, 0)));
        if (!n) return f(v);
        return out.copy(TypeNet, n, 0, n.length);
      };
    }
    case ID.Duration: {
      const f = fail('cannot cast to duration');
      return (v, out) => {
        const id = v.type.under.id;
        if (id === ID.Duration) return v;
        if (id === ID.String) {
          const s = decodeString(v.buf, v.off, Math.max(v.len, 0));
          let d = parseDuration(s);
          if (d === undefined || s === '') {
            const x = parseFloatText(s);
            if (x === undefined) return f(v);
            d = floatToNs(x);
          }
          return out.int(TypeDuration, d);
        }
        if (isFloat(id)) return out.int(TypeDuration, floatToNs(decodeFloat(v.buf, v.off, v.len)));
        const i = toInt(v);
        if (i === undefined) return f(v);
        return out.int(TypeDuration, i);
      };
    }
    case ID.Time: {
      const f = fail('cannot cast to time');
      return (v, out) => {
        const id = v.type.under.id;
        if (id === ID.Time) return v;
        if (v.len < 0) return out.int(TypeTime, 0);
        if (id === ID.String) {
          if (parseRFC3339Parts(v.buf, v.off, v.len, rfc)) {
            const buf = out.reserve(8);
            return out.view(TypeTime, buf, 0, encodeTime(rfc.secs, rfc.nsec, buf));
          }
          const s = decodeString(v.buf, v.off, v.len);
          let ts = parseAnyTime(s);
          if (ts === undefined) {
            const x = parseFloatText(s);
            if (x === undefined) return f(v);
            ts = floatToNs(x);
          }
          return out.int(TypeTime, ts);
        }
        if (isFloat(id)) return out.int(TypeTime, floatToNs(decodeFloat(v.buf, v.off, v.len)));
        if (id <= ID.Decimal256) {
          const i = toInt(v);
          if (i === undefined)
            return wrapError(zctx, 'cannot cast to time: coerce to int failed', v);
          return out.int(TypeTime, i);
        }
        return f(v);
      };
    }
    case ID.String:
      return (v, out) => {
        const id = v.type.under.id;
        if (id === ID.Bytes) {
          if (v.len > 0 && !validUTF8(v.buf, v.off, v.off + v.len)) {
            return wrapError(zctx, 'cannot cast to string: invalid UTF-8', v);
          }
          return out.view(TypeString, v.buf, v.off, v.len);
        }
        if (v.type instanceof TypeEnum) {
          const sym = v.type.symbols[Number(decodeUintBig(v.buf, v.off, v.len))];
          if (sym === undefined) return zctx.newError('enum index out of range');
          return out.string(TypeString, sym);
        }
        if (id === ID.String) return out.view(TypeString, v.buf, v.off, v.len);
        if (v.type === TypeInt64 && v.len <= 6 && !isMinInt64(v.buf, v.off, v.len)) {
          return decimal(out, decodeInt(v.buf, v.off, v.len));
        }
        return out.string(TypeString, formatValue(v));
      };
    case ID.Bytes:
      return (v, out) => out.view(TypeBytes, v.buf, v.off, v.len);
    default:
      return null;
  }
}

const ONE = Buffer.from([1]);
const ZERO = Buffer.from([0]);
