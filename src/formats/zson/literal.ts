// Unquoted ZSON literals (numbers, times, durations, addresses, bytes,
// true/false/null): how the reference picks the text of one and decides its
// implied type, and the strict Go parsers behind each primitive.
//
// The reference takes the longest prefix of the input that matches any of
// its literal patterns, then tries int64, uint64, float64, time, duration,
// net, ip and bytes in that order. The same choice here, with hand-written
// matchers in place of the regular expression.

import { encodeTime, parseDuration, TimeParts } from '../../zed/nano';
import { parseIP, parseNet } from '../../zed/ipnet';
import {
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeFloat64,
  TypeInt64,
  TypeIP,
  TypeNet,
  TypeNull,
  TypePrimitive,
  TypeTime,
  TypeUint64,
} from '../../zed/types';
import { Builder } from '../../zed/zcode';

/** Bytes that can be part of an unquoted literal: [0-9A-Za-z.:+\-/]. */
export const literalByte = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  literalByte[c] = /[0-9A-Za-z.:+\-/]/.test(ch) ? 1 : 0;
}

// Bytes of the number pattern [-+0-9Ee./].
const numberByte = new Uint8Array(256);
for (const ch of '-+0123456789Ee./') numberByte[ch.charCodeAt(0)] = 1;

const ipv6Re = /^[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,}(?:\/[0-9]+)?/;
// IPv6 with an IPv4 tail (::ffff:1.2.3.4), which the reference writes but
// its pattern above cannot take whole.
const ipv4in6Re =
  /^[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,}:(?:[0-9]{1,3}\.){3}[0-9]{1,3}(?:\/[0-9]+)?/;
const durationRe = /^(?:[-.0-9]+(?:ns|us|ms|s|m|h|d|w|y))+/;
const timeRe = /^[-.:T0-9]+(?:Z|[-+][0-9]{2}:[0-9]{2})/;
const hexRe = /^0x[0-9a-fA-F]*/;
const patterns = [hexRe, ipv6Re, ipv4in6Re, durationRe, timeRe];
const words = ['true', 'false', 'null', 'NaN', 'nan', '+Inf', '-Inf', '+inf', '-inf'];

/**
 * Lengths of the literals that match at the start of run (a maximal run of
 * literal bytes), longest first; empty when none matches. The reference
 * takes only the longest; the shorter ones let a map key run into its
 * value without a space (|{0:1970-01-01T00:00:00Z}|), which the
 * reference's writer produces but its reader refuses.
 */
export function literalLengths(run: string): number[] {
  let n = 0;
  while (n < run.length && numberByte[run.charCodeAt(n)]) n++;
  if (n === run.length) return [n];
  const out: number[] = n > 0 ? [n] : [];
  for (const w of words) if (run.startsWith(w)) out.push(w.length);
  for (const re of patterns) {
    const m = re.exec(run);
    if (m && m[0].length > 0) out.push(m[0].length);
  }
  if (out.length > 1) out.sort((a, b) => b - a);
  return out;
}

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;
const intRe = /^[+-]?[0-9]+$/;
const uintRe = /^[0-9]+$/;

/** strconv.ParseInt(s, 10, 64): a number when exact, else a bigint. */
export function parseGoInt(s: string): number | bigint | undefined {
  if (!intRe.test(s)) return undefined;
  // Up to 15 digits a double is exact; 16 may pass 2^53.
  if (s.length <= 15) return Number(s);
  const v = BigInt(s);
  if (v > MAX_INT64 || v < MIN_INT64) return undefined;
  return Number.isSafeInteger(Number(v)) ? Number(v) : v;
}

/** strconv.ParseUint(s, 10, 64). */
export function parseGoUint(s: string): number | bigint | undefined {
  if (!uintRe.test(s)) return undefined;
  if (s.length <= 15) return Number(s);
  const v = BigInt(s);
  if (v > MAX_UINT64) return undefined;
  return Number.isSafeInteger(Number(v)) ? Number(v) : v;
}

const floatRe = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const specialFloatRe = /^(?:[+-]?(?:inf|infinity)|nan)$/i;

/**
 * strconv.ParseFloat(s, bits) for decimal text: undefined when malformed or
 * out of range for the width (an overflow is an error in Go).
 */
export function parseGoFloat(s: string, bits: 32 | 64 = 64): number | undefined {
  if (floatRe.test(s)) {
    const v = Number(s);
    const r = bits === 32 ? Math.fround(v) : v;
    return Number.isFinite(r) ? r : undefined;
  }
  if (specialFloatRe.test(s)) {
    const l = s.toLowerCase();
    if (l === 'nan') return NaN;
    return l[0] === '-' ? -Infinity : Infinity;
  }
  return undefined;
}

const daysIn = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

// Days from 1970-01-01 to y-m-d (proleptic Gregorian).
function daysSinceEpoch(y: number, m: number, d: number): number {
  if (m <= 2) y -= 1;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function digitsAt(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(i + k) - 48;
    if (!(c >= 0 && c <= 9)) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * time.Parse(time.RFC3339Nano, s) as the reference calls it, for the texts
 * its literal pattern admits: YYYY-MM-DDTHH:MM:SS[.frac](Z|±hh:mm), the
 * hour possibly one digit.
 */
export function parseRFC3339(s: string): TimeParts | undefined {
  if (s.length < 19) return undefined;
  const year = digitsAt(s, 0, 4);
  const month = digitsAt(s, 5, 2);
  const day = digitsAt(s, 8, 2);
  if (
    year < 0 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    s[4] !== '-' ||
    s[7] !== '-' ||
    s[10] !== 'T'
  ) {
    return undefined;
  }
  if (day > (month === 2 && isLeap(year) ? 29 : daysIn[month - 1])) return undefined;
  let i = 11;
  let hour = digitsAt(s, i, 2);
  if (hour >= 0 && s[i + 2] === ':') i += 2;
  else {
    hour = digitsAt(s, i, 1);
    if (hour < 0 || s[i + 1] !== ':') return undefined;
    i += 1;
  }
  const min = digitsAt(s, i + 1, 2);
  const sec = digitsAt(s, i + 4, 2);
  if (hour > 23 || min < 0 || min > 59 || s[i + 3] !== ':' || sec < 0 || sec > 59) return undefined;
  i += 6;
  let nsec = 0;
  if (s[i] === '.' && digitsAt(s, i + 1, 1) >= 0) {
    let j = i + 1;
    let scale = 100_000_000;
    // Digits past the ninth are dropped, as Go does.
    while (j < s.length && digitsAt(s, j, 1) >= 0) {
      if (scale >= 1) nsec += (s.charCodeAt(j) - 48) * scale;
      scale /= 10;
      j++;
    }
    i = j;
  }
  let offset = 0;
  if (s.length === i + 1 && s[i] === 'Z') {
    // UTC
  } else if (s.length === i + 6 && (s[i] === '+' || s[i] === '-') && s[i + 3] === ':') {
    const oh = digitsAt(s, i + 1, 2);
    const om = digitsAt(s, i + 4, 2);
    if (oh < 0 || om < 0 || oh > 24 || om > 60) return undefined;
    offset = (oh * 60 + om) * 60 * (s[i] === '-' ? -1 : 1);
  } else {
    return undefined;
  }
  const secs = daysSinceEpoch(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - offset;
  return { secs, nsec };
}

// The largest time: 2^63-1 ns after the epoch.
const MAX_SECS = 9223372036;
const MAX_SECS_NSEC = 854775807;
export const MAX_TIME_TEXT = '2262-04-11T23:47:16Z';

export function timeOverflows(t: TimeParts): boolean {
  return t.secs > MAX_SECS || (t.secs === MAX_SECS && t.nsec > MAX_SECS_NSEC);
}

const scratch = new Uint8Array(8);

/** Appends the int64 body of secs*1e9+nsec (wrapping at 64 bits as Go's UnixNano does). */
export function appendTime(b: Builder, t: TimeParts): void {
  b.append(scratch, 0, encodeTime(t.secs, t.nsec, scratch));
}

/** A literal's implied type and, where parsing it was needed, its value. */
export interface Literal {
  type: TypePrimitive;
  value: unknown;
}

/** Thrown for a literal that is recognised as bytes but is not valid hex. */
export class LiteralError extends Error {}

const hexByteRe = /^[0-9a-fA-F]*$/;

/**
 * The implied type of a literal's text, in the reference's order of tries,
 * or undefined when the text is none of them.
 */
export function classifyLiteral(s: string): Literal | undefined {
  if (s === 'true' || s === 'false') return { type: TypeBool, value: s === 'true' };
  if (s === 'null') return { type: TypeNull, value: null };
  const c = s.charCodeAt(0);
  const digitStart = (c >= 48 && c <= 57) || c === 45 || c === 43;
  if (digitStart) {
    const i = parseGoInt(s);
    if (i !== undefined) return { type: TypeInt64, value: i };
    const u = parseGoUint(s);
    if (u !== undefined) return { type: TypeUint64, value: u };
  }
  const f = parseGoFloat(s);
  if (f !== undefined) return { type: TypeFloat64, value: f };
  const t = parseRFC3339(s);
  if (t !== undefined) return { type: TypeTime, value: t };
  if (/[a-z]$/.test(s)) {
    const d = parseDurationGo(s);
    if (d !== undefined) return { type: TypeDuration, value: d };
  }
  if (s.indexOf('/') >= 0) {
    const n = parseNet(s);
    if (n !== undefined) return { type: TypeNet, value: n };
  }
  const ip = parseIP(s);
  if (ip !== undefined) return { type: TypeIP, value: ip };
  if (s.startsWith('0x')) {
    const hex = s.slice(2);
    if (!hexByteRe.test(hex)) throw new LiteralError(`encoding/hex: invalid byte: ${hex}`);
    if (hex.length % 2 === 1) throw new LiteralError('encoding/hex: odd length hex string');
    return { type: TypeBytes, value: Buffer.from(hex, 'hex') };
  }
  return undefined;
}

const durationSyntaxRe = /^-?(?:[.0-9]+(?:ns|us|ms|s|m|h|d|w|y))+$/;

/** nano.ParseDuration, which also admits a second '-' after the first. */
export function parseDurationGo(s: string): bigint | undefined {
  if (s.length === 0) return 0n;
  let neg = false;
  let body = s;
  if (body[0] === '-') {
    neg = true;
    body = body.slice(1);
  }
  if (!durationSyntaxRe.test(body)) return undefined;
  if (body[0] === '-') body = body.slice(1);
  const d = parseDuration(body);
  if (d === undefined) return undefined;
  return BigInt.asIntN(64, neg ? -d : d);
}
