// Time (ns since the epoch) and duration (ns) text forms, as the reference
// writes and reads them: RFC 3339 with nanoseconds for time, and Zed's
// unit-suffixed durations ("1h2m3.5s", "2d", "1y").

import { zcodeInt64Words, zcodeWords } from './primitive';

const NS_PER_SEC = 1_000_000_000n;
const NS_PER_DAY = 86_400n * NS_PER_SEC;

/** A time as whole seconds and nanoseconds since the epoch (nsec in [0, 1e9)). */
export interface TimeParts {
  secs: number;
  nsec: number;
}

/**
 * Writes the int64 body of the time secs·10⁹ + nsec (wrapping at 64 bits
 * as Go's UnixNano does; sign in bit 0, magnitude above, little-endian,
 * trailing zero bytes dropped) at out[0, 8); returns its length. Times
 * within ±292 years of the epoch take no bigint arithmetic.
 */
export function encodeTime(secs: number, nsec: number, out: Uint8Array): number {
  // |v| < 2^63 here: no wrapping.
  if (!(secs >= -9223372036 && secs <= 9223372035)) {
    const v = BigInt.asIntN(64, BigInt(secs) * NS_PER_SEC + BigInt(nsec));
    let u = BigInt.asUintN(64, v >= 0n ? v << 1n : (-v << 1n) | 1n);
    for (let i = 0; i < 8; i++, u >>= 8n) out[i] = Number(u & 255n);
  } else {
    // v = secs*1e9 + nsec = vh*2^32 + vl, computed in exact pieces.
    const sh = Math.floor(secs / 65536);
    const sl = secs - sh * 65536;
    const a = sh * 1e9;
    const bl = sl * 1e9 + nsec;
    const ah = Math.floor(a / 65536);
    const al = a - ah * 65536;
    const c = al * 65536 + bl;
    const carry = Math.floor(c / 4294967296);
    const vl = c - carry * 4294967296;
    const vh = ah + carry;
    zcodeInt64Words(vl, vh);
    const ul = zcodeWords.lo;
    const uh = zcodeWords.hi;
    out[0] = ul & 255;
    out[1] = (ul >>> 8) & 255;
    out[2] = (ul >>> 16) & 255;
    out[3] = ul >>> 24;
    out[4] = uh & 255;
    out[5] = (uh >>> 8) & 255;
    out[6] = (uh >>> 16) & 255;
    out[7] = uh >>> 24;
  }
  let n = 8;
  while (n > 0 && out[n - 1] === 0) n--;
  return n;
}

/** RFC 3339 text of a time in UTC with trailing fractional zeros trimmed (Go's RFC3339Nano). */
export function formatTime(ns: bigint | number): string {
  const t = BigInt(ns);
  let days = t / NS_PER_DAY;
  let rem = t % NS_PER_DAY;
  if (rem < 0n) {
    rem += NS_PER_DAY;
    days -= 1n;
  }
  const [y, m, d] = civilFromDays(Number(days));
  const secOfDay = Number(rem / NS_PER_SEC);
  const frac = Number(rem % NS_PER_SEC);
  const hh = Math.floor(secOfDay / 3600);
  const mm = Math.floor((secOfDay % 3600) / 60);
  const ss = secOfDay % 60;
  let s =
    formatYear(y) +
    '-' +
    pad2(m) +
    '-' +
    pad2(d) +
    'T' +
    pad2(hh) +
    ':' +
    pad2(mm) +
    ':' +
    pad2(ss);
  if (frac !== 0) {
    let f = String(frac).padStart(9, '0');
    let end = 9;
    while (f.charCodeAt(end - 1) === 48) end--;
    f = f.slice(0, end);
    s += '.' + f;
  }
  return s + 'Z';
}

function formatYear(y: number): string {
  if (y < 0) return '-' + String(-y).padStart(4, '0');
  return String(y).padStart(4, '0');
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

// Days since 1970-01-01 to (year, month, day), proleptic Gregorian
// (Howard Hinnant's civil_from_days).
export function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [m <= 2 ? y + 1 : y, m, d];
}

export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const timeRe =
  /^([+-]?\d{4,})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Parses an RFC 3339 time (the forms ZSON and the reference's casts accept)
 * into ns since the epoch, or returns undefined.
 */
export function parseTime(s: string): bigint | undefined {
  const m = timeRe.exec(s);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const min = Number(m[5]);
  const sec = m[6] ? Number(m[6]) : 0;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60) {
    return undefined;
  }
  let frac = 0n;
  if (m[7]) frac = BigInt(m[7].slice(0, 9).padEnd(9, '0'));
  let offsetSec = 0;
  const tz = m[8];
  if (tz && tz !== 'Z' && tz !== 'z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    offsetSec = sign * (oh * 3600 + om * 60);
  }
  const days = daysFromCivil(year, month, day);
  const secs = BigInt(days) * 86400n + BigInt(hour * 3600 + min * 60 + sec - offsetSec);
  return secs * NS_PER_SEC + frac;
}

const MIN_INT64 = -(2n ** 63n);

const durationUnits: [string, bigint][] = [
  ['y', 365n * NS_PER_DAY],
  ['d', NS_PER_DAY],
  ['h', 3600n * NS_PER_SEC],
  ['m', 60n * NS_PER_SEC],
];

/** Zed's text of a duration (nano.Duration.String in the reference). */
export function formatDuration(ns: bigint | number): string {
  let d = BigInt(ns);
  if (d === MIN_INT64) return '-292y171d23h47m16.854775808s';
  if (d === 0n) return '0s';
  let out = '';
  if (d < 0n) {
    d = -d;
    out = '-';
  }
  for (const [name, size] of durationUnits) {
    if (d >= size) {
      const n = d / size;
      d -= n * size;
      if (n > 0n) out += n.toString() + name;
      if (d === 0n) return out;
    }
  }
  if (d % 1_000_000_000n === 0n) return out + (d / 1_000_000_000n).toString() + 's';
  if (d > 1_000_000_000n) return out + fixedPoint(d, 1_000_000_000n) + 's';
  if (d % 1_000_000n === 0n) return out + (d / 1_000_000n).toString() + 'ms';
  if (d > 1_000_000n) return out + fixedPoint(d, 1_000_000n) + 'ms';
  if (d % 1000n === 0n) return out + (d / 1000n).toString() + 'us';
  if (d > 1000n) return out + fixedPoint(d, 1000n) + 'us';
  return out + d.toString() + 'ns';
}

function fixedPoint(ns: bigint, scale: bigint): string {
  const v = ns / scale;
  let rest = ns - v * scale;
  let s = v.toString() + '.';
  scale /= 10n;
  while (rest > 0n) {
    const digit = rest / scale;
    s += digit.toString();
    rest -= digit * scale;
    scale /= 10n;
  }
  return s;
}

const durationScale: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  ms: 1_000_000n,
  s: NS_PER_SEC,
  m: 60n * NS_PER_SEC,
  h: 3600n * NS_PER_SEC,
  d: NS_PER_DAY,
  w: 7n * NS_PER_DAY,
  y: 365n * NS_PER_DAY,
};

const durationSyntax = /^([.0-9]+(ns|us|ms|s|m|h|d|w|y))+$/;
const durationPart = /([.0-9]+)(ns|us|ms|s|m|h|d|w|y)/g;

/** Parses a Zed duration ("1h30m", "-2.5s") into ns, or returns undefined. */
export function parseDuration(s: string): bigint | undefined {
  if (s.length === 0) return 0n;
  let neg = false;
  if (s[0] === '-') {
    neg = true;
    s = s.slice(1);
  }
  if (!durationSyntax.test(s)) return undefined;
  let d = 0n;
  for (const m of s.matchAll(durationPart)) {
    let unit = durationScale[m[2]];
    const num = m[1];
    if (/^\d+$/.test(num)) {
      d += BigInt(num) * unit;
      continue;
    }
    const parts = num.split('.');
    if (parts.length !== 2) return undefined;
    if (parts[0].length > 0) d += BigInt(parts[0]) * unit;
    const frac = parts[1].replace(/0+$/, '');
    let extra = 0n;
    for (const ch of frac) {
      extra += BigInt(ch.charCodeAt(0) - 48) * unit;
      unit /= 10n;
    }
    d += (extra + 5n) / 10n;
  }
  d = BigInt.asIntN(64, neg ? -d : d);
  return d;
}
