// MetroHash64 (J. Andrew Rogers' metrohash, 64-bit variant), the hash
// the reference's dcount feeds its HyperLogLog sketch, computed here on
// 64-bit integers held as two 32-bit halves so that no BigInt is needed:
// every multiplication in the algorithm is by a 32-bit constant.
//
// Speed: a short key's running hash is a pair of local variables, every
// half a signed int32 (`| 0`), so V8 keeps them in registers; the helpers
// are pure (each returns one half, the other is computed beside it) and
// small enough for V8 to inline. The 32-byte rounds keep their four lanes
// in an Int32Array, and the block rounds hand their result back through
// another. The seed is taken as 32 bits (dcount's is 1337). An earlier
// form kept every register in module variables written by helpers:
// measured in one process, a 5-byte key (a dcount of IPv4 addresses) took
// 88 ns against 31 ns now, 24 bytes 117 against 73, 100 bytes 450 against
// 361 (docs/benchmarks.md).

const K0 = 0xd6d018f5;
const K1 = 0xa2aa033b;
const K2 = 0x62992fc1;
const K3 = 0x30bc5b29;
/** The four constants, for metrowasm.ts. */
export const METRO_K = [K0, K1, K2, K3];

/** The result of the last hash64 call, as unsigned 32-bit halves. */
export const hash = { hi: 0, lo: 0 };

/**
 * The high half of (hi, lo) * k mod 2^64, for a uint32 constant k (the low
 * half is Math.imul(lo, k)), from the products of 16-bit pieces.
 */
function mulHi(hi: number, lo: number, k: number): number {
  const a0 = lo & 0xffff;
  const a1 = lo >>> 16;
  const k0 = k & 0xffff;
  const k1 = k >>> 16;
  const p01 = a0 * k1;
  const p10 = a1 * k0;
  const mid = ((a0 * k0) >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  return (a1 * k1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(hi, k)) | 0;
}

/** The high half of (ah, al) + (bh, bl) mod 2^64 (the low half is (al + bl) | 0). */
function addHi(ah: number, al: number, bh: number, bl: number): number {
  return (ah + bh + (((al + bl) | 0) >>> 0 < al >>> 0 ? 1 : 0)) | 0;
}

/** The low half of (hi, lo) rotated right by r bits (0 < r < 32). */
function rotLo(hi: number, lo: number, r: number): number {
  return (lo >>> r) | (hi << (32 - r));
}

/** The high half of (hi, lo) rotated right by r bits (0 < r < 32). */
function rotHi(hi: number, lo: number, r: number): number {
  return (hi >>> r) | (lo << (32 - r));
}

/** Little-endian 32 bits at b[o] as an int32. */
function i32(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24);
}

/**
 * MetroHash64 of buf[off, off+len) with the given seed, passed to f as
 * signed 32-bit halves (hi, lo) without storing it anywhere.
 */
export function hashWith<T>(
  buf: Uint8Array,
  off: number,
  len: number,
  seed: number,
  f: (hi: number, lo: number) => T,
): T {
  // h := (seed + k2) * k0
  const s32 = seed | 0;
  const sl = (s32 + K2) | 0;
  const sh = addHi(0, s32, 0, K2);
  let hh = mulHi(sh, sl, K0);
  let hl = Math.imul(sl, K0);
  let p = off;
  const end = off + len;
  let xh = 0;
  let xl = 0;
  let th = 0;
  let tl = 0;
  if (end - p >= 32) {
    p = blocks32(buf, p, end, hh, hl);
    hh = OUT[0];
    hl = OUT[1];
  }
  if (end - p >= 16) {
    block16(buf, p, hh, hl);
    hh = OUT[0];
    hl = OUT[1];
    p += 16;
  }
  // The tail, 8, 4, 2 and 1 bytes, each at most once (what is left is then
  // below it): h += x * k3; h ^= rotr(h, r) * k1.
  while (p < end) {
    let r: number;
    const left = end - p;
    if (left >= 8) {
      xh = i32(buf, p + 4);
      xl = i32(buf, p);
      p += 8;
      r = 55;
    } else if (left >= 4) {
      xh = 0;
      xl = i32(buf, p);
      p += 4;
      r = 26;
    } else if (left >= 2) {
      xh = 0;
      xl = buf[p] | (buf[p + 1] << 8);
      p += 2;
      r = 48;
    } else {
      xh = 0;
      xl = buf[p];
      p += 1;
      r = 37;
    }
    th = mulHi(xh, xl, K3);
    tl = Math.imul(xl, K3);
    hh = addHi(hh, hl, th, tl);
    hl = (hl + tl) | 0;
    if (r < 32) {
      th = rotHi(hh, hl, r);
      tl = rotLo(hh, hl, r);
    } else {
      th = rotHi(hl, hh, r - 32);
      tl = rotLo(hl, hh, r - 32);
    }
    hh ^= mulHi(th, tl, K1);
    hl ^= Math.imul(tl, K1);
  }
  // h ^= rotr(h, 28); h *= k0; h ^= rotr(h, 29)
  xh = hh ^ rotHi(hh, hl, 28);
  xl = hl ^ rotLo(hh, hl, 28);
  hh = mulHi(xh, xl, K0);
  hl = Math.imul(xl, K0);
  return f(hh ^ rotHi(hh, hl, 29), hl ^ rotLo(hh, hl, 29));
}

// The rounds over 32- and 16-byte blocks are functions of their own, and
// their steps smaller functions again: V8 inlines callees into a function
// up to a budget of bytecode, and one function holding every step ran out
// of it, so its later steps made real calls.

/** Where the functions below leave a 64-bit result (hi, lo). */
const OUT = new Int32Array(2);

/** The four 64-bit lanes of the 32-byte rounds: lane i is (V[2i], V[2i + 1]). */
const V = new Int32Array(8);

/** Lane i := rotr(lane i + read64(p) * k, 29) + lane w. */
function lane(i: number, buf: Uint8Array, p: number, k: number, w: number): void {
  const xh = i32(buf, p + 4);
  const xl = i32(buf, p);
  const ml = Math.imul(xl, k);
  const vl = V[2 * i + 1];
  const th = addHi(V[2 * i], vl, mulHi(xh, xl, k), ml);
  const tl = (vl + ml) | 0;
  const rl = rotLo(th, tl, 29);
  const wl = V[2 * w + 1];
  V[2 * i] = addHi(rotHi(th, tl, 29), rl, V[2 * w], wl);
  V[2 * i + 1] = (rl + wl) | 0;
}

/** Lane x ^= rotr((lane a + lane b) * ka + lane c, 37) * kb. */
function fold(x: number, a: number, b: number, ka: number, c: number, kb: number): void {
  const al = V[2 * a + 1];
  const bl = V[2 * b + 1];
  const sh = addHi(V[2 * a], al, V[2 * b], bl);
  const sl = (al + bl) | 0;
  const ml = Math.imul(sl, ka);
  const cl = V[2 * c + 1];
  const th = addHi(mulHi(sh, sl, ka), ml, V[2 * c], cl);
  const tl = (ml + cl) | 0;
  // A rotation by 37 is one by 5 of the swapped halves.
  const rh = rotHi(tl, th, 5);
  const rl = rotLo(tl, th, 5);
  V[2 * x] ^= mulHi(rh, rl, kb);
  V[2 * x + 1] ^= Math.imul(rl, kb);
}

/** The 32-byte rounds from p over h = (hh, hl): h lands in OUT; returns the offset reached. */
function blocks32(buf: Uint8Array, p: number, end: number, hh: number, hl: number): number {
  for (let i = 0; i < 8; i += 2) {
    V[i] = hh;
    V[i + 1] = hl;
  }
  while (end - p >= 32) {
    // Lanes 2 and 3 add the new lanes 0 and 1.
    lane(0, buf, p, K0, 2);
    lane(1, buf, p + 8, K1, 3);
    lane(2, buf, p + 16, K2, 0);
    lane(3, buf, p + 24, K3, 1);
    p += 32;
  }
  fold(2, 0, 3, K0, 1, K1);
  fold(3, 1, 2, K1, 0, K0);
  fold(0, 0, 2, K0, 3, K1);
  fold(1, 1, 3, K1, 2, K0);
  // h += lane 0 ^ lane 1
  const xh = V[0] ^ V[2];
  const xl = V[1] ^ V[3];
  OUT[0] = addHi(hh, hl, xh, xl);
  OUT[1] = (hl + xl) | 0;
  return p;
}

/** OUT := rotr(h + read64(p) * k2, 29) * k3. */
function half16(hh: number, hl: number, buf: Uint8Array, p: number): void {
  const xh = i32(buf, p + 4);
  const xl = i32(buf, p);
  const ml = Math.imul(xl, K2);
  const th = addHi(hh, hl, mulHi(xh, xl, K2), ml);
  const tl = (hl + ml) | 0;
  const rl = rotLo(th, tl, 29);
  OUT[0] = mulHi(rotHi(th, tl, 29), rl, K3);
  OUT[1] = Math.imul(rl, K3);
}

/** OUT := v ^ (rotr(v * k, 21) + w). */
function cross(vh: number, vl: number, k: number, wh: number, wl: number): void {
  const th = mulHi(vh, vl, k);
  const tl = Math.imul(vl, k);
  const rl = rotLo(th, tl, 21);
  OUT[0] = vh ^ addHi(rotHi(th, tl, 21), rl, wh, wl);
  OUT[1] = vl ^ ((rl + wl) | 0);
}

/** The 16-byte round at p over h = (hh, hl): h lands in OUT. */
function block16(buf: Uint8Array, p: number, hh: number, hl: number): void {
  half16(hh, hl, buf, p);
  const v0h = OUT[0];
  const v0l = OUT[1];
  half16(hh, hl, buf, p + 8);
  const v1h = OUT[0];
  const v1l = OUT[1];
  // v0 ^= rotr(v0 * k0, 21) + v1; v1 ^= rotr(v1 * k3, 21) + v0; h += v1.
  cross(v0h, v0l, K0, v1h, v1l);
  cross(v1h, v1l, K3, OUT[0], OUT[1]);
  const yh = OUT[0];
  const yl = OUT[1];
  OUT[0] = addHi(hh, hl, yh, yl);
  OUT[1] = (hl + yl) | 0;
}

function keep(hi: number, lo: number): void {
  hash.hi = hi >>> 0;
  hash.lo = lo >>> 0;
}

/** MetroHash64 of buf[off, off+len) with the given seed; the result is in `hash`. */
export function hash64(buf: Uint8Array, off: number, len: number, seed = 0): void {
  hashWith(buf, off, len, seed, keep);
}
