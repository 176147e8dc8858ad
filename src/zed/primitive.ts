// Byte-level encodings of primitive values (ZNG spec §2.2.2, §3).
//
// Integers are little-endian with no leading zero bytes; signed ones are
// sign-magnitude encoded first (sign in bit 0). 64-bit values exceed the 2^53 range of a JS number,
// so each integer decoder has a number form (exact whenever the encoding is
// at most 6 bytes, which covers everyday values) and a bigint form.

const f64 = new Float64Array(1);
const f64b = new Uint8Array(f64.buffer);
const f32 = new Float32Array(1);
const f32b = new Uint8Array(f32.buffer);

/** Unsigned integer as a number (rounded past 2^53). Zero-length is 0. */
export function decodeUint(buf: Uint8Array, off: number, len: number): number {
  let v = 0;
  let scale = 1;
  for (let i = 0; i < len; i++) {
    v += buf[off + i] * scale;
    scale *= 256;
  }
  return v;
}

/** Eight bytes for reading 64-bit values as one bigint each. */
const word = new DataView(new ArrayBuffer(8));

/** The low (lo) and high (hi) 32-bit words of up to 8 little-endian bytes. */
let lo = 0;
let hi = 0;
function words(buf: Uint8Array, off: number, len: number): void {
  lo = 0;
  hi = 0;
  const n = len < 8 ? len : 8;
  for (let i = n - 1; i >= 4; i--) hi = hi * 256 + buf[off + i];
  for (let i = (n < 4 ? n : 4) - 1; i >= 0; i--) lo = lo * 256 + buf[off + i];
}

export function decodeUintBig(buf: Uint8Array, off: number, len: number): bigint {
  if (len <= 6) return BigInt(decodeUint(buf, off, len));
  // One bigint made from two words (a bigint operation per byte cost
  // several times more).
  words(buf, off, len);
  word.setUint32(0, lo, true);
  word.setUint32(4, hi, true);
  return word.getBigUint64(0, true);
}

/** Signed integer as a number (rounded past 2^53). */
export function decodeInt(buf: Uint8Array, off: number, len: number): number {
  if (len <= 6) {
    const u = decodeUint(buf, off, len);
    // Sign in bit 0, magnitude above it (see writeIntLE); 1 is -2^63.
    if (u % 2 === 0) return u / 2;
    return u === 1 ? -(2 ** 63) : -(u - 1) / 2;
  }
  return Number(decodeIntBig(buf, off, len));
}

/**
 * decodeInt's value as the nearest float64 or close to it (a few units in
 * the last place off), without bigint arithmetic, for any length.
 */
export function decodeIntApprox(buf: Uint8Array, off: number, len: number): number {
  let u = 0;
  for (let i = len - 1; i >= 0; i--) u = u * 256 + buf[off + i];
  if (len === 0 || (buf[off] & 1) === 0) return u / 2;
  return u === 1 ? -(2 ** 63) : -(u - 1) / 2;
}

export function decodeIntBig(buf: Uint8Array, off: number, len: number): bigint {
  if (len === 1 && buf[off] === 1) return -(2n ** 63n);
  if (len <= 6) return BigInt(decodeInt(buf, off, len));
  words(buf, off, len);
  const neg = (lo & 1) === 1;
  // The magnitude, shifted out of the sign bit in the words.
  word.setUint32(0, ((lo >>> 1) | (hi << 31)) >>> 0, true);
  word.setUint32(4, hi >>> 1, true);
  const m = word.getBigUint64(0, true);
  if (!neg) return m;
  // A magnitude of 0 with the sign set is -2^63, whose magnitude has no
  // room in 63 bits.
  return m === 0n ? -(2n ** 63n) : -m;
}

/**
 * True when decodeInt/decodeUint of an encoding this long gives a number
 * below 2^53 (exact, and printed exactly by String()). The one short
 * encoding of a big number, -2^63 (the single byte 0x01), is excluded by
 * isMinInt64.
 */
export function isSafeLength(len: number): boolean {
  return len <= 6;
}

/** True for the encoding of -2^63 (magnitude 0 with the sign bit set). */
export function isMinInt64(buf: Uint8Array, off: number, len: number): boolean {
  return len === 1 && buf[off] === 1;
}

/** A decoded integer: a number when exact, else a bigint. */
export function decodeIntExact(buf: Uint8Array, off: number, len: number): number | bigint {
  if (len <= 6 && !(len === 1 && buf[off] === 1)) return decodeInt(buf, off, len);
  const b = decodeIntBig(buf, off, len);
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

export function decodeUintExact(buf: Uint8Array, off: number, len: number): number | bigint {
  if (len <= 6) return decodeUint(buf, off, len);
  const b = decodeUintBig(buf, off, len);
  return b <= 9007199254740991n ? Number(b) : b;
}

/** Float of any width, chosen by encoded length as the reference does. */
export function decodeFloat(buf: Uint8Array, off: number, len: number): number {
  switch (len) {
    case 8:
      for (let i = 0; i < 8; i++) f64b[i] = buf[off + i];
      return f64[0];
    case 4:
      for (let i = 0; i < 4; i++) f32b[i] = buf[off + i];
      return f32[0];
    case 2:
      return float16ToNumber(buf[off] | (buf[off + 1] << 8));
    default:
      return 0;
  }
}

export function encodeFloat64(v: number): Buffer {
  f64[0] = v;
  return Buffer.from(f64b);
}

export function encodeFloat32(v: number): Buffer {
  f32[0] = v;
  return Buffer.from(f32b);
}

export function encodeFloat16(v: number): Buffer {
  const h = numberToFloat16(v);
  return Buffer.from([h & 0xff, h >> 8]);
}

/** Writes v as a float of the given byte width (8, 4 or 2) at buf[off]. */
export function writeFloat(buf: Uint8Array, off: number, v: number, width: number): void {
  if (width === 8) {
    f64[0] = v;
    for (let i = 0; i < 8; i++) buf[off + i] = f64b[i];
  } else if (width === 4) {
    f32[0] = v;
    for (let i = 0; i < 4; i++) buf[off + i] = f32b[i];
  } else {
    const h = numberToFloat16(v);
    buf[off] = h & 0xff;
    buf[off + 1] = h >> 8;
  }
}

export function float16ToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** IEEE half-precision bits of v, rounding to nearest even. */
export function numberToFloat16(v: number): number {
  f32[0] = v;
  const x = f32b[0] | (f32b[1] << 8) | (f32b[2] << 16) | (f32b[3] << 24);
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let m = mant >> shift;
    const rem = mant & ((1 << shift) - 1);
    if (rem > half || (rem === half && m & 1)) m++;
    return sign | m;
  }
  let m = mant >> 13;
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && m & 1)) {
    m++;
    if (m === 0x400) {
      m = 0;
      e++;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | m;
}

export function decodeBool(buf: Uint8Array, off: number, len: number): boolean {
  return len > 0 && buf[off] !== 0;
}

const utf8Decoder = new TextDecoder('utf-8');

/**
 * Decodes UTF-8 bytes to a JS string. Short ASCII runs are decoded by hand,
 * which is several times faster than TextDecoder for typical field values.
 */
export function decodeString(buf: Uint8Array, off: number, len: number): string {
  if (len < 48) {
    let s = '';
    const end = off + len;
    for (let i = off; i < end; i++) {
      const c = buf[i];
      if (c >= 0x80) return utf8Decoder.decode(buf.subarray(off, end));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return utf8Decoder.decode(buf.subarray(off, off + len));
}

/** True when two byte ranges hold the same bytes. */
export function bytesEqual(
  a: Uint8Array,
  aoff: number,
  alen: number,
  b: Uint8Array,
  boff: number,
  blen: number,
): boolean {
  if (alen !== blen) return false;
  for (let i = 0; i < alen; i++) if (a[aoff + i] !== b[boff + i]) return false;
  return true;
}

/** Lexicographic byte comparison, -1/0/1 (Go's bytes.Compare). */
export function bytesCompare(
  a: Uint8Array,
  aoff: number,
  alen: number,
  b: Uint8Array,
  boff: number,
  blen: number,
): number {
  const n = alen < blen ? alen : blen;
  for (let i = 0; i < n; i++) {
    const x = a[aoff + i];
    const y = b[boff + i];
    if (x !== y) return x < y ? -1 : 1;
  }
  return alen === blen ? 0 : alen < blen ? -1 : 1;
}

/**
 * Compares two signed integer encodings (sign in bit 0, magnitude above)
 * numerically without decoding them (so 64-bit times compare exactly and
 * fast).
 */
export function compareIntBytes(
  a: Uint8Array,
  aoff: number,
  alen: number,
  b: Uint8Array,
  boff: number,
  blen: number,
): number {
  const aneg = alen > 0 && (a[aoff] & 1) === 1;
  const bneg = blen > 0 && (b[boff] & 1) === 1;
  if (aneg !== bneg) return aneg ? -1 : 1;
  if (aneg) {
    // -2^63 is encoded as 1 (magnitude 0): the least of all.
    const amin = alen === 1 && a[aoff] === 1;
    const bmin = blen === 1 && b[boff] === 1;
    if (amin || bmin) return amin === bmin ? 0 : amin ? -1 : 1;
  }
  // Same sign: the encodings order like the values for non-negatives and
  // inversely for negatives (a larger magnitude is a smaller number).
  const c = compareUintBytes(a, aoff, alen, b, boff, blen);
  return aneg ? -c : c;
}

/** Compares two minimal little-endian unsigned encodings numerically. */
export function compareUintBytes(
  a: Uint8Array,
  aoff: number,
  alen: number,
  b: Uint8Array,
  boff: number,
  blen: number,
): number {
  // Minimal encodings: a longer one is the larger number, unless the
  // producer wrote leading zeros, which we tolerate by trimming.
  while (alen > 0 && a[aoff + alen - 1] === 0) alen--;
  while (blen > 0 && b[boff + blen - 1] === 0) blen--;
  if (alen !== blen) return alen < blen ? -1 : 1;
  for (let i = alen - 1; i >= 0; i--) {
    const x = a[aoff + i];
    const y = b[boff + i];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** The words zcodeInt64Words sets: the zcode body's low and high 32 bits. */
export const zcodeWords = { lo: 0, hi: 0 };

/**
 * The zcode int body of the int64 whose two's-complement words are (lo,
 * hi), as two words (zcodeWords): the magnitude shifted left with the sign
 * in bit 0, as the reference encodes (-2^63 becomes 1).
 */
export function zcodeInt64Words(lo: number, hi: number): void {
  let ml = lo >>> 0;
  let mh = hi >>> 0;
  const neg = (hi | 0) < 0;
  if (neg) {
    // Two's-complement negation gives the magnitude (-2^63 stays 2^63,
    // whose shifted form wraps to 0 and becomes 1 with the sign).
    ml = (~ml + 1) >>> 0;
    mh = (~mh + (ml === 0 ? 1 : 0)) >>> 0;
  }
  zcodeWords.lo = ((ml << 1) | (neg ? 1 : 0)) >>> 0;
  zcodeWords.hi = ((mh << 1) | (ml >>> 31)) >>> 0;
}
