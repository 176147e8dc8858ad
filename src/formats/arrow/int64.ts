// 64-bit integer plumbing between Arrow's two-word (lo, hi) layout and the
// zcode encodings, in 32-bit arithmetic so hot loops need no BigInt.
//
// Results of the word operations land in `w` (lo as a signed or unsigned
// 32-bit word, hi as a signed 32-bit word) to avoid allocating a pair.

import { zcodeInt64Words, zcodeWords } from '../../zed/primitive';
import { Builder } from '../../zed/zcode';

export const w = { lo: 0, hi: 0 };

/**
 * Appends a zcode int body (with its tag) for the int64 (lo, hi): the
 * magnitude shifted left with the sign in bit 0, as the reference encodes.
 */
export function appendInt64Words(b: Builder, lo: number, hi: number): void {
  zcodeInt64Words(lo, hi);
  appendUint64Words(b, zcodeWords.lo, zcodeWords.hi);
}

/** Appends a zcode uint body (with its tag) for the uint64 (lo, hi). */
export function appendUint64Words(b: Builder, lo: number, hi: number): void {
  b.grow(9);
  const buf = b.buf;
  const start = b.len;
  let p = start + 1;
  lo >>>= 0;
  hi >>>= 0;
  if (hi !== 0) {
    buf[p++] = lo & 0xff;
    buf[p++] = (lo >>> 8) & 0xff;
    buf[p++] = (lo >>> 16) & 0xff;
    buf[p++] = lo >>> 24;
    while (hi !== 0) {
      buf[p++] = hi & 0xff;
      hi >>>= 8;
    }
  } else {
    while (lo !== 0) {
      buf[p++] = lo & 0xff;
      lo >>>= 8;
    }
  }
  buf[start] = p - start; // tag: length + 1
  b.len = p;
}

/** Reads a little-endian unsigned body of up to 8 bytes into w (lo, hi as unsigned). */
export function readUint64Words(buf: Uint8Array, off: number, len: number): void {
  let lo = 0;
  let hi = 0;
  const n = len > 8 ? 8 : len;
  for (let i = 0; i < n; i++) {
    if (i < 4) lo |= buf[off + i] << (8 * i);
    else hi |= buf[off + i] << (8 * (i - 4));
  }
  w.lo = lo >>> 0;
  w.hi = hi >>> 0;
}

/** Reads a signed body (sign in bit 0) of up to 8 bytes into w (two's complement words). */
export function readInt64Words(buf: Uint8Array, off: number, len: number): void {
  readUint64Words(buf, off, len);
  const zlo = w.lo;
  const zhi = w.hi;
  let ml = ((zlo >>> 1) | (zhi << 31)) >>> 0;
  let mh = zhi >>> 1;
  if (zlo & 1) {
    if (ml === 0 && mh === 0) {
      mh = 0x80000000; // -2^63
    } else {
      ml = (~ml + 1) >>> 0;
      mh = (~mh + (ml === 0 ? 1 : 0)) >>> 0;
    }
  }
  w.lo = ml | 0;
  w.hi = mh | 0;
}

/** 64-bit two's-complement (lo, hi) → exact bigint. */
export function wordsToBigInt(lo: number, hi: number): bigint {
  return (BigInt(hi | 0) << 32n) | BigInt(lo >>> 0);
}

/** Sets w to the two's-complement words of a bigint (wrapped to 64 bits). */
export function bigIntToWords(v: bigint): void {
  const u = BigInt.asUintN(64, v);
  w.lo = Number(u & 0xffffffffn) | 0;
  w.hi = Number(u >> 32n) | 0;
}

// Unsigned 64-bit magnitude times or divided by a small factor (< 2^31),
// done in 16-bit limbs so every intermediate stays exact in a double.

function negate(lo: number, hi: number): void {
  const nlo = (~lo + 1) | 0;
  const nhi = (~hi + (nlo === 0 ? 1 : 0)) | 0;
  w.lo = nlo;
  w.hi = nhi;
}

/** w = (lo, hi) × k for signed int64 (wrapping like Go's int64 multiply). */
export function mulInt64(lo: number, hi: number, k: number): void {
  const neg = hi < 0;
  if (neg) {
    negate(lo, hi);
    lo = w.lo;
    hi = w.hi;
  }
  const l0 = lo & 0xffff;
  const l1 = (lo >>> 16) & 0xffff;
  const l2 = hi & 0xffff;
  const l3 = (hi >>> 16) & 0xffff;
  let c = l0 * k;
  const r0 = c % 65536;
  c = Math.floor(c / 65536) + l1 * k;
  const r1 = c % 65536;
  c = Math.floor(c / 65536) + l2 * k;
  const r2 = c % 65536;
  c = Math.floor(c / 65536) + l3 * k;
  const r3 = c % 65536;
  const rlo = r0 | (r1 << 16) | 0;
  const rhi = r2 | (r3 << 16) | 0;
  if (neg) negate(rlo, rhi);
  else {
    w.lo = rlo;
    w.hi = rhi;
  }
}

/** w = (lo, hi) / k for signed int64, truncating toward zero (Go's `/`). */
export function divInt64(lo: number, hi: number, k: number): void {
  const neg = hi < 0;
  if (neg) {
    negate(lo, hi);
    lo = w.lo;
    hi = w.hi;
  }
  const l3 = (hi >>> 16) & 0xffff;
  const l2 = hi & 0xffff;
  const l1 = (lo >>> 16) & 0xffff;
  const l0 = lo & 0xffff;
  let r = l3;
  const q3 = Math.floor(r / k);
  r = (r - q3 * k) * 65536 + l2;
  const q2 = Math.floor(r / k);
  r = (r - q2 * k) * 65536 + l1;
  const q1 = Math.floor(r / k);
  r = (r - q1 * k) * 65536 + l0;
  const q0 = Math.floor(r / k);
  const qlo = q0 | (q1 << 16) | 0;
  const qhi = q2 | (q3 << 16) | 0;
  if (neg) negate(qlo, qhi);
  else {
    w.lo = qlo;
    w.hi = qhi;
  }
}

/** True when the signed int64 (lo, hi) fits a double exactly (|v| ≤ 2^53). */
export function isSafeWords(lo: number, hi: number): boolean {
  return hi >= -0x200000 && hi < 0x200000;
}

/** The signed int64 (lo, hi) as a number (exact when isSafeWords). */
export function wordsToNumber(lo: number, hi: number): number {
  return (hi | 0) * 4294967296 + (lo >>> 0);
}

/** Sets w to the two's-complement words of a safe integer number. */
export function numberToWords(v: number): void {
  const neg = v < 0;
  const m = neg ? -v : v;
  const lo = (m % 4294967296) | 0;
  const hi = Math.floor(m / 4294967296) | 0;
  if (neg) negate(lo, hi);
  else {
    w.lo = lo;
    w.hi = hi;
  }
}
