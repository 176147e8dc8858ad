// Zeek time and interval text: seconds as a decimal number ("1425565514.419939").
//
// Reading follows the reference exactly, quirks included: plain decimals
// are parsed digit by digit into int64 nanoseconds (wrapping on overflow,
// and yielding 0 when there are more than nine fractional digits, as the
// reference's scale reaches zero), and anything else goes through a float
// parse with the seconds rounded half away from zero. Writing uses six
// fractional digits, or nine when that would lose nanoseconds.

import { Builder } from '../../zed/zcode';
import { goFloat, goQuote, ParseError } from './strconv';

const TWO32 = 4294967296;
// A module binding, not a global lookup per call (globals are slow in
// sandboxes such as jest's).
const floor = Math.floor;
const min = Math.min;

/**
 * Appends the int64 encoding of ±(sec·1e9 + frac) as a tagged
 * child, where 0 ≤ sec ≤ 9223372035 and 0 ≤ frac < 1e9. Works in 32-bit
 * halves so the hot path needs no bigint.
 */
function appendNs(b: Builder, neg: boolean, sec: number, frac: number): void {
  const secHi = floor(sec / 65536);
  const secLo = sec - secHi * 65536;
  const t1 = secLo * 1e9 + frac;
  const t2 = secHi * 1e9;
  const t2lo = t2 % 65536;
  const low = t2lo * 65536 + t1;
  let lo = low % TWO32;
  let hi = (t2 - t2lo) / 65536 + floor(low / TWO32);
  // Sign in bit 0, magnitude above: 2m, plus 1 for a negative.
  hi = hi * 2 + (lo >= 2147483648 ? 1 : 0);
  lo = lo >= 2147483648 ? lo * 2 - TWO32 : lo * 2;
  if (neg && (lo !== 0 || hi !== 0)) lo += 1;
  b.grow(9);
  const buf = b.buf;
  const at = b.len;
  let n = 0;
  let x = lo;
  for (let i = 0; i < 4; i++) {
    buf[at + 1 + i] = x & 0xff;
    x = floor(x / 256);
  }
  x = hi;
  for (let i = 4; i < 8; i++) {
    buf[at + 1 + i] = x & 0xff;
    x = floor(x / 256);
  }
  n = 8;
  while (n > 0 && buf[at + n] === 0) n--;
  buf[at] = n + 1;
  b.len = at + 1 + n;
}

/** Go's int64(f) on amd64: out-of-range and NaN give the minimum int64. */
function goInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 2 ** 63 || f < -(2 ** 63)) return -(2n ** 63n);
  return BigInt(Math.trunc(f));
}

/**
 * Parses a Zeek time (or interval) in buf[s, e) and appends it to b as an
 * int64-encoded child. Throws ParseError with the reference's text.
 */
export function appendZeekTime(b: Builder, buf: Uint8Array, s: number, e: number): void {
  const n = e - s;
  let k = s;
  let neg = false;
  if (n > 0 && buf[k] === 45) {
    neg = true;
    k++;
  }
  let decimal = n > 0 && !(neg && n === 1);
  let intDigits = 0;
  let fracDigits = 0;
  let sec = 0;
  let frac = 0;
  let seenDot = false;
  for (; decimal && k < e; k++) {
    const c = buf[k];
    if (c === 46 && !seenDot) {
      seenDot = true;
      continue;
    }
    if (c < 48 || c > 57) {
      decimal = false;
      break;
    }
    if (seenDot) {
      if (fracDigits < 9) frac = frac * 10 + (c - 48);
      fracDigits++;
    } else {
      if (intDigits < 16) sec = sec * 10 + (c - 48);
      intDigits++;
    }
  }
  if (decimal) {
    if (fracDigits > 9) {
      // The reference's scale divides down to zero.
      b.appendInt(0);
      return;
    }
    for (let d = fracDigits; d < 9; d++) frac *= 10;
    if (intDigits <= 10 && sec <= 9223372035) {
      appendNs(b, neg, sec, frac);
      return;
    }
    // Wraps like the reference's int64 arithmetic.
    let digits = '';
    for (let i = s + (neg ? 1 : 0); i < e; i++)
      if (buf[i] !== 46) digits += String.fromCharCode(buf[i]);
    const v = BigInt(digits) * 10n ** BigInt(9 - fracDigits);
    b.appendInt(BigInt.asIntN(64, neg ? -v : v));
    return;
  }
  const text = Buffer.from(buf.buffer, buf.byteOffset + s, n).toString('latin1');
  const f = goFloat(text);
  if (f === undefined || f === null) {
    throw new ParseError(`invalid time format: ${goQuote(Buffer.from(buf.subarray(s, e)))}`);
  }
  // Seconds rounded half away from zero, plus the truncated remainder.
  const r = f < 0 ? -Math.round(-f) : Math.round(f);
  const ns = BigInt.asIntN(64, goInt64(r) * 1000000000n) + goInt64((f - r) * 1e9);
  b.appendInt(BigInt.asIntN(64, ns));
}

const pad9 = '000000000';

/** Zeek text of a time or interval in ns since the epoch. */
export function formatZeekTime(ns: bigint | number): string {
  let t = typeof ns === 'bigint' ? ns : BigInt(ns);
  let sign = '';
  if (t < 0n) {
    sign = '-';
    t = -t;
  }
  const sec = t / 1000000000n;
  const frac = Number(t - sec * 1000000000n);
  if (frac % 1000 === 0) {
    const us = String(frac / 1000);
    return sign + sec.toString() + '.' + pad9.slice(0, 6 - us.length) + us;
  }
  const f = String(frac);
  return sign + sec.toString() + '.' + pad9.slice(0, 9 - f.length) + f;
}

/** The sign, whole seconds and nanoseconds of an int64 body, set by splitNs. */
export const nsParts = { neg: false, sec: 0, frac: 0 };

/**
 * Splits the int64 body buf[off, off+len) into nsParts (|value| =
 * sec·1e9 + frac) by long division on 16-bit limbs, exact for every int64
 * without bigint arithmetic.
 */
export function splitNs(buf: Uint8Array, off: number, len: number): void {
  // The 64-bit encoding as four 16-bit limbs, low first.
  let l0 = 0;
  let l1 = 0;
  let l2 = 0;
  let l3 = 0;
  for (let i = min(len, 8) - 1; i >= 0; i--) {
    const byte = buf[off + i];
    if (i >= 6) l3 = l3 * 256 + byte;
    else if (i >= 4) l2 = l2 * 256 + byte;
    else if (i >= 2) l1 = l1 * 256 + byte;
    else l0 = l0 * 256 + byte;
  }
  const neg = (l0 & 1) === 1;
  // |v| = u >> 1; a zero magnitude with the sign set is -2^63.
  l0 = (l0 >> 1) | ((l1 & 1) << 15);
  l1 = (l1 >> 1) | ((l2 & 1) << 15);
  l2 = (l2 >> 1) | ((l3 & 1) << 15);
  l3 = l3 >> 1;
  if (neg && l0 === 0 && l1 === 0 && l2 === 0 && l3 === 0) l3 = 32768;
  // Divide by 1e9, most significant limb first.
  let rem = l3;
  const q3 = floor(rem / 1e9);
  rem -= q3 * 1e9;
  let cur = rem * 65536 + l2;
  const q2 = floor(cur / 1e9);
  rem = cur - q2 * 1e9;
  cur = rem * 65536 + l1;
  const q1 = floor(cur / 1e9);
  rem = cur - q1 * 1e9;
  cur = rem * 65536 + l0;
  const q0 = floor(cur / 1e9);
  rem = cur - q0 * 1e9;
  nsParts.neg = neg;
  nsParts.sec = ((q3 * 65536 + q2) * 65536 + q1) * 65536 + q0;
  nsParts.frac = rem;
}

/** Zeek text of the int64 (time or duration) body buf[off, off+len). */
export function formatZeekTimeBody(buf: Uint8Array, off: number, len: number): string {
  splitNs(buf, off, len);
  const { neg, sec, frac } = nsParts;
  const sign = neg ? '-' : '';
  if (frac % 1000 === 0) {
    const us = String(frac / 1000);
    return sign + sec + '.' + pad9.slice(0, 6 - us.length) + us;
  }
  const f = String(frac);
  return sign + sec + '.' + pad9.slice(0, 9 - f.length) + f;
}
