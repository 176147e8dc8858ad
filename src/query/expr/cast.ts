// Casts between primitive types (the reference's LookupPrimitiveCaster) and
// the cast expression `T(x)` / `cast(x, <T>)` for primitive targets.
// Casts to complex and named complex types go through the shaper, which
// the functions library registers under the name "cast".

import { TypeContext } from '../../zed/context';
import { formatValue } from '../../formats/zson';
import { parseGoFloat } from '../../formats/zson/literal';
import { parseDuration, parseTime } from '../../zed/nano';
import { parseIP, parseNet } from '../../zed/ipnet';
import { decodeFloat, decodeString, decodeUintBig } from '../../zed/primitive';
import { validUTF8 } from '../../formats/zson/gotext';
import {
  ID,
  isContainer,
  isFloat,
  Kind,
  Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeEnum,
  TypeIP,
  TypeNet,
  TypeString,
  TypeTime,
  TypeUnion,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { formatType } from '../../zed/typestring';
import { toBool, toFloat, toInt, toUint } from './coerce';
import { isError, wrapError } from './errors';
import { Expr } from './expr';
import { untag } from './path';
import { Scratch } from './scratch';

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

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * Parses the many date forms the reference's cast to time accepts
 * (dateparse.ParseAny): RFC 3339 and its variants, m/d/y dates, and dates
 * with month names. Zone-less times are UTC.
 */
export function parseAnyTime(s: string): bigint | undefined {
  const t = parseTime(s.trim());
  if (t !== undefined) return t;
  const ymd = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (ymd) return parseTime(`${s}T00:00:00Z`);
  const mdy = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(s);
  if (mdy) {
    const p2 = (x: string | undefined) => (x ?? '0').padStart(2, '0');
    return parseTime(
      `${mdy[3]}-${p2(mdy[1])}-${p2(mdy[2])}T${p2(mdy[4])}:${p2(mdy[5])}:${p2(mdy[6])}Z`,
    );
  }
  const named =
    /^(?:[A-Za-z]+,?\s+)?(\d{1,2})\s+([A-Za-z]{3})[a-z]*\s+(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?:\s+(UTC|GMT|Z))?$/.exec(
      s,
    );
  if (named) {
    const m = MONTHS.indexOf(named[2].toLowerCase());
    if (m < 0) return undefined;
    const p2 = (x: string | undefined) => (x ?? '0').padStart(2, '0');
    return parseTime(
      `${named[3]}-${p2(String(m + 1))}-${p2(named[1])}T${p2(named[4])}:${p2(named[5])}:${p2(named[6])}Z`,
    );
  }
  // Other forms with a month or day name: the platform's date parser, in UTC.
  if (!/[a-z]{3}/i.test(s)) return undefined;
  const ms = Date.parse(/\b(UTC|GMT|Z|[+-]\d{4})\b/i.test(s) ? s : s + ' UTC');
  if (Number.isNaN(ms)) return undefined;
  return BigInt(ms) * 1_000_000n;
}

function floatToNs(f: number): bigint {
  if (!Number.isFinite(f) || Math.abs(f) >= 9223372036854775808) return -(2n ** 63n);
  return BigInt(Math.trunc(f));
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
      return (v, out) => {
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
      return (v, out) => {
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
        const x = toFloat(v);
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
        const ip = parseIP(decodeString(v.buf, v.off, Math.max(v.len, 0)).trim());
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
            const x = parseGoFloat(s);
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
          const s = decodeString(v.buf, v.off, v.len);
          let ts = parseAnyTime(s);
          if (ts === undefined) {
            const x = parseGoFloat(s);
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

/**
 * `T(x)` for a primitive (possibly named) type T, as the reference's
 * shaper casts a primitive: errors pass through, null becomes a null of T,
 * a value of T's underlying type is retyped, unions are cast by member,
 * other primitives go through the caster, and containers pass unchanged.
 */
export class PrimitiveCast implements Expr {
  private readonly out = new Scratch();
  private readonly tmp = new Value(TypeString, Buffer.alloc(0), 0, -1);
  private readonly caster: Caster;

  constructor(
    private readonly zctx: TypeContext,
    readonly operand: Expr,
    readonly to: Type,
  ) {
    const c = primitiveCaster(zctx, to.under);
    if (c === null) throw new Error(`cast to ${to.under.id} not implemented`);
    this.caster = c;
  }

  eval(self: Value): Value {
    return this.cast(this.operand.eval(self));
  }

  cast(v: Value): Value {
    if (isError(v)) return v;
    const t = v.type;
    const to = this.to;
    if (t.under.id === ID.Null || v.len < 0) return this.out.null(to);
    if (t.under === to.under) return this.out.view(to, v.buf, v.off, v.len);
    const u = t.under;
    if (u instanceof TypeUnion) {
      if (v.len < 0) return this.out.null(to);
      if (!untag(u, v, this.tmp)) return v;
      return this.cast(this.tmp);
    }
    if (isContainer(t) || u.kind === Kind.Error) return v;
    const r = this.caster(v, this.out);
    if (r.type.under === to.under) return this.out.view(to, r.buf, r.off, r.len);
    return r;
  }
}
