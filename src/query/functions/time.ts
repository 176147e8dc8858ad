// Time functions: now, bucket, every, and strftime (from later releases of
// the reference; times are formatted in UTC).

import { daysFromCivil } from '../../zed/nano';
import { decodeFloat, decodeInt, decodeIntBig, decodeUintBig } from '../../zed/primitive';
import {
  ID,
  isFloat,
  isInteger,
  isSigned,
  Type,
  TypeDuration,
  TypeString,
  TypeTime,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { toInt } from '../expr/coerce';
import { newError, wrapError } from '../expr/errors';
import { Scratch } from '../expr/scratch';
import { isString, stringOf } from './strings';
import { registerFunction, valueFunction } from './registry';

const NS_PER_SEC = 1_000_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;

/** The current time in ns since the epoch (microsecond resolution). */
export function nowNs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n;
}

registerFunction(
  'now',
  valueFunction(0, 0, () => {
    const out = new Scratch();
    return () => out.int(TypeTime, nowNs());
  }),
);

/** The reference's coerce.ToTime: times, integers (not too large) and floats. */
function toTime(v: Value): bigint | undefined {
  const id = v.type.under.id;
  const len = Math.max(v.len, 0);
  if (id === ID.Time || isSigned(id)) return decodeIntBig(v.buf, v.off, len);
  if (isInteger(id)) {
    const u = decodeUintBig(v.buf, v.off, len);
    return u > MAX_INT64 ? undefined : u;
  }
  if (isFloat(id)) {
    const f = decodeFloat(v.buf, v.off, v.len);
    if (!Number.isFinite(f) || Math.abs(f) >= 2 ** 63) return -(1n << 63n);
    return BigInt(Math.trunc(f));
  }
  return undefined;
}

/**
 * The bins of non-negative times (and durations) with the last bin
 * remembered: values in a stream tend to fall in the bin of the value
 * before, and then the answer is found by comparing 32-bit halves of the
 * encodings (2t for t ≥ 0), with no bigint arithmetic.
 */
class BinCache {
  private bin = 0;
  private startHi = 1;
  private startLo = 0;
  private endHi = 0;
  private endLo = 0;
  private readonly buf = Buffer.alloc(8);
  private len = 0;

  /**
   * The start of the bin of a time or duration v (not null), of its
   * type; null for other values and where lookup gives none.
   */
  quick(v: Value, bin: number, out: Scratch): Value | null {
    const tid = v.type.under.id;
    if (tid !== ID.Time && tid !== ID.Duration) return null;
    return this.lookup(v.buf, v.off, v.len, bin, out, tid === ID.Time ? TypeTime : TypeDuration);
  }

  /** The start of t's bin, or null when t is negative or not in int64 form. */
  lookup(buf: Buffer, off: number, len: number, bin: number, out: Scratch, t: Type): Value | null {
    if (len > 8 || (len > 0 && (buf[off] & 1) === 1) || !(bin > 0)) return null;
    let lo: number;
    let hi: number;
    if (len === 8) {
      lo = buf.readUInt32LE(off);
      hi = buf.readUInt32LE(off + 4);
    } else {
      lo = 0;
      hi = 0;
      let scale = 1;
      for (let i = 0; i < len; i++, scale *= 256) {
        if (i === 4) scale = 1;
        if (i < 4) lo += buf[off + i] * scale;
        else hi += buf[off + i] * scale;
      }
    }
    if (
      bin !== this.bin ||
      hi < this.startHi ||
      (hi === this.startHi && lo < this.startLo) ||
      hi > this.endHi ||
      (hi === this.endHi && lo >= this.endLo)
    ) {
      this.fill(hi, lo, bin);
    }
    return out.view(t, this.buf, 0, this.len);
  }

  private fill(hi: number, lo: number, bin: number): void {
    const v = ((BigInt(hi) << 32n) | BigInt(lo)) >> 1n;
    const b = BigInt(bin);
    const start = v - (v % b);
    const zz = start << 1n;
    const zzEnd = (start + b) << 1n;
    this.bin = bin;
    this.startHi = Number(zz >> 32n);
    this.startLo = Number(zz & 0xffffffffn);
    // A bin reaching past int64 ends at the top of the range.
    const end = zzEnd >= 1n << 64n ? (1n << 64n) - 1n : zzEnd;
    this.endHi = Number(end >> 32n);
    this.endLo = Number(end & 0xffffffffn);
    this.buf.writeBigUInt64LE(zz, 0);
    let n = 8;
    while (n > 0 && this.buf[n - 1] === 0) n--;
    this.len = n;
  }
}

/** bucket(ts, bin) and every(bin) (ts from `this`). */
function bucket(name: string) {
  return valueFunction(name === 'every' ? 1 : 2, name === 'every' ? 1 : 2, ({ zctx }) => {
    const out = new Scratch();
    const cache = new BinCache();
    return ([ts, binv]) => {
      if (ts.len < 0 || binv.len < 0) return out.null(TypeTime);
      if (binv.type === TypeDuration && binv.len <= 6) {
        // The common case: a time and a short duration.
        const r = cache.quick(ts, decodeInt(binv.buf, binv.off, binv.len), out);
        if (r !== null) return r;
      }
      let bin: bigint;
      if (binv.type === TypeDuration) {
        bin = decodeIntBig(binv.buf, binv.off, binv.len);
      } else {
        const d = toInt(binv);
        if (d === undefined)
          return newError(zctx, `${name}: second arg must be duration or number`);
        bin = BigInt.asIntN(64, d * NS_PER_SEC);
      }
      if (bin === 0n) return newError(zctx, `${name}: integer divide by zero`);
      if (ts.type.under === TypeDuration) {
        const d = decodeIntBig(ts.buf, ts.off, ts.len);
        return out.int(TypeDuration, BigInt.asIntN(64, (d / bin) * bin));
      }
      const t = toTime(ts);
      if (t === undefined) return newError(zctx, `${name}: time arg required`);
      return out.int(TypeTime, BigInt.asIntN(64, (t / bin) * bin));
    };
  });
}

/**
 * bucket(v, bin) (and every(bin) of v) for a literal bin, as the function
 * works it out without its call: the common case's answer (a time or
 * duration, a duration bin of up to 6 bytes, from the last bin
 * remembered), or null where the function is needed (the vector
 * engine's computed columns call the function then).
 */
export function bucketFast(bin: Value): ((v: Value) => Value | null) | null {
  if (bin.type !== TypeDuration || bin.len < 0 || bin.len > 6) return null;
  const ns = decodeInt(bin.buf, bin.off, bin.len);
  const cache = new BinCache();
  const out = new Scratch();
  return (v) => (v.len < 0 ? null : cache.quick(v, ns, out));
}

registerFunction('bucket', bucket('bucket'));
registerFunction('every', { ...bucket('every'), path: ['ts'] });

// strftime: the directives of the reference's strftime library.

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The calendar fields of a time in UTC. */
export interface Civil {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number; // 0 = Sunday
  yday: number; // 1-366
}

export function civil(ns: bigint): Civil {
  const NS_PER_DAY = 86_400n * NS_PER_SEC;
  let days = ns / NS_PER_DAY;
  let rem = ns % NS_PER_DAY;
  if (rem < 0n) {
    rem += NS_PER_DAY;
    days -= 1n;
  }
  const d = Number(days);
  const secs = Number(rem / NS_PER_SEC);
  const date = new Date(d * 86_400_000);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  const day = date.getUTCDate();
  return {
    year,
    month,
    day,
    hour: Math.floor(secs / 3600),
    minute: Math.floor((secs % 3600) / 60),
    second: secs % 60,
    weekday: (((d + 4) % 7) + 7) % 7,
    yday: d - daysFromCivil(year, 1, 1) + 1,
  };
}

const pad2 = (n: number, pad = '0') => (n < 10 ? pad + n : String(n));

/** Go's four-digit year layout ("2006"). */
function year4(y: number): string {
  if (y < 0) return '-' + String(-y).padStart(4, '0');
  return String(y).padStart(4, '0');
}

/** ISO 8601 week number (Go's ISOWeek). */
function isoWeek(c: Civil): number {
  // The Thursday of this week decides the year the week belongs to.
  const wd = (c.weekday + 6) % 7; // Monday = 0
  const days = daysFromCivil(c.year, c.month, c.day) - wd + 3;
  const thursday = new Date(days * 86_400_000);
  const y = thursday.getUTCFullYear();
  const yday = days - daysFromCivil(y, 1, 1);
  return Math.floor(yday / 7) + 1;
}

function weekNumber(c: Civil, origin: number): string {
  const yd = c.yday;
  let offset = c.weekday - origin;
  if (offset < 0) offset += 7;
  if (yd < offset) return '00';
  return pad2(Math.floor((yd - offset) / 7) + 1);
}

function hour12(h: number): number {
  if (h > 12) return h - 12;
  return h === 0 ? 12 : h;
}

type Directive = (c: Civil) => string;

const DIRECTIVES: Record<string, Directive> = {
  A: (c) => DAYS[c.weekday],
  a: (c) => DAYS[c.weekday].slice(0, 3),
  B: (c) => MONTHS[c.month - 1],
  b: (c) => MONTHS[c.month - 1].slice(0, 3),
  h: (c) => MONTHS[c.month - 1].slice(0, 3),
  C: (c) => pad2(Math.trunc(c.year / 100)),
  c: (c) =>
    `${DAYS[c.weekday].slice(0, 3)} ${MONTHS[c.month - 1].slice(0, 3)} ${pad2(c.day, ' ')} ` +
    `${pad2(c.hour)}:${pad2(c.minute)}:${pad2(c.second)} ${year4(c.year)}`,
  D: (c) => `${pad2(c.month)}/${pad2(c.day)}/${pad2(((c.year % 100) + 100) % 100)}`,
  x: (c) => `${pad2(c.month)}/${pad2(c.day)}/${pad2(((c.year % 100) + 100) % 100)}`,
  d: (c) => pad2(c.day),
  e: (c) => pad2(c.day, ' '),
  F: (c) => `${year4(c.year)}-${pad2(c.month)}-${pad2(c.day)}`,
  H: (c) => pad2(c.hour),
  I: (c) => pad2(hour12(c.hour)),
  j: (c) => String(c.yday).padStart(3, '0'),
  k: (c) => pad2(c.hour, ' '),
  l: (c) => pad2(hour12(c.hour), ' '),
  M: (c) => pad2(c.minute),
  m: (c) => pad2(c.month),
  n: () => '\n',
  p: (c) => (c.hour >= 12 ? 'PM' : 'AM'),
  R: (c) => `${pad2(c.hour)}:${pad2(c.minute)}`,
  r: (c) =>
    `${pad2(hour12(c.hour))}:${pad2(c.minute)}:${pad2(c.second)} ${c.hour >= 12 ? 'PM' : 'AM'}`,
  S: (c) => pad2(c.second),
  T: (c) => `${pad2(c.hour)}:${pad2(c.minute)}:${pad2(c.second)}`,
  X: (c) => `${pad2(c.hour)}:${pad2(c.minute)}:${pad2(c.second)}`,
  t: () => '\t',
  U: (c) => weekNumber(c, 0),
  W: (c) => weekNumber(c, 1),
  u: (c) => String(c.weekday === 0 ? 7 : c.weekday),
  w: (c) => String(c.weekday),
  V: (c) => pad2(isoWeek(c)),
  v: (c) => `${pad2(c.day, ' ')}-${MONTHS[c.month - 1].slice(0, 3)}-${year4(c.year)}`,
  Y: (c) => year4(c.year),
  y: (c) => pad2(((c.year % 100) + 100) % 100),
  Z: () => 'UTC',
  z: () => '+0000',
  '%': () => '%',
};

/** A compiled format: literal text and directives in turn. */
type Piece = string | Directive;

/** Compiles a strftime format, or returns the reference library's error text. */
export function compileStrftime(format: string): Piece[] | string {
  const pieces: Piece[] = [];
  let p = format;
  while (p.length > 0) {
    const i = p.indexOf('%');
    if (i < 0) {
      pieces.push(p);
      break;
    }
    if (i === p.length - 1) return 'stray % at the end of pattern';
    if (i > 0) pieces.push(p.slice(0, i));
    const d = DIRECTIVES[p[i + 1]];
    if (d === undefined) {
      return `pattern compilation failed: lookup failed: '%${p[i + 1]}' was not found in specification set`;
    }
    pieces.push(d);
    p = p.slice(i + 2);
  }
  return pieces;
}

export function strftime(pieces: Piece[], ns: bigint): string {
  const c = civil(ns);
  let s = '';
  for (const piece of pieces) s += typeof piece === 'string' ? piece : piece(c);
  return s;
}

registerFunction(
  'strftime',
  valueFunction(2, 2, ({ zctx }) => {
    const out = new Scratch();
    let format: string | null = null;
    let pieces: Piece[] | string = [];
    return ([f, t]) => {
      if (!isString(f)) return wrapError(zctx, 'strftime: string value required for format arg', f);
      if (t.type.under !== TypeTime) {
        return wrapError(zctx, 'strftime: time value required for time arg', t);
      }
      const text = stringOf(f);
      if (text !== format) {
        format = text;
        pieces = compileStrftime(text);
      }
      if (typeof pieces === 'string') {
        return wrapError(zctx, `strftime: failed to compile format: ${pieces}`, f);
      }
      // A null time formats as the epoch, as the reference's decoding gives 0.
      const ns = decodeIntBig(t.buf, t.off, Math.max(t.len, 0));
      return out.string(TypeString, strftime(pieces, ns));
    };
  }),
);
