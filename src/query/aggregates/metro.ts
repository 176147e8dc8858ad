// MetroHash64 (J. Andrew Rogers' metrohash, 64-bit variant), the hash
// the reference's dcount feeds its HyperLogLog sketch, computed here on
// 64-bit integers held as two uint32 halves so that no BigInt is needed:
// every multiplication in the algorithm is by a 32-bit constant.

const K0 = 0xd6d018f5;
const K1 = 0xa2aa033b;
const K2 = 0x62992fc1;
const K3 = 0x30bc5b29;

/** The result of the last hash64 call. */
export const hash = { hi: 0, lo: 0 };

// The 64-bit working register of the helpers below (an object's fields:
// faster to write than module-level variables).
const R = { h: 0, l: 0 };

/** R := (hi, lo) * k mod 2^64, for a uint32 k. */
function mulK(hi: number, lo: number, k: number): void {
  const a0 = lo & 0xffff;
  const a1 = lo >>> 16;
  const k0 = k & 0xffff;
  const k1 = k >>> 16;
  const p00 = a0 * k0;
  const p01 = a0 * k1;
  const p10 = a1 * k0;
  const p11 = a1 * k1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  R.l = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  const carry = p11 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  R.h = (carry + Math.imul(hi, k)) >>> 0;
}

/** R := (ah, al) + (bh, bl) mod 2^64. */
function add(ah: number, al: number, bh: number, bl: number): void {
  const s = al + bl;
  R.l = s >>> 0;
  R.h = (ah + bh + (s > 0xffffffff ? 1 : 0)) >>> 0;
}

/** R := (hi, lo) rotated right by r bits (0 < r < 64, r != 32). */
function rotr(hi: number, lo: number, r: number): void {
  if (r > 32) {
    const t = hi;
    hi = lo;
    lo = t;
    r -= 32;
  }
  R.l = ((lo >>> r) | (hi << (32 - r))) >>> 0;
  R.h = ((hi >>> r) | (lo << (32 - r))) >>> 0;
}

function u32(b: Uint8Array, o: number): number {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}

/** R := rotr(v + read64(p) * k, 29) + w: one lane of a 32-byte round. */
function lane(
  vh: number,
  vl: number,
  buf: Uint8Array,
  p: number,
  k: number,
  wh: number,
  wl: number,
): void {
  mulK(u32(buf, p + 4), u32(buf, p), k);
  add(vh, vl, R.h, R.l);
  rotr(R.h, R.l, 29);
  add(R.h, R.l, wh, wl);
}

/** R := rotr((a + b) * ka + c, 37) * kb: one lane of the 32-byte rounds' final mix. */
function mix(
  ah: number,
  al: number,
  bh: number,
  bl: number,
  ka: number,
  ch: number,
  cl: number,
  kb: number,
): void {
  add(ah, al, bh, bl);
  mulK(R.h, R.l, ka);
  add(R.h, R.l, ch, cl);
  rotr(R.h, R.l, 37);
  mulK(R.h, R.l, kb);
}

/** R := rotr(h + read64(p) * k2, 29) * k3: a lane of the 16-byte round. */
function lane16(hh: number, hl: number, buf: Uint8Array, p: number): void {
  mulK(u32(buf, p + 4), u32(buf, p), K2);
  add(hh, hl, R.h, R.l);
  rotr(R.h, R.l, 29);
  mulK(R.h, R.l, K3);
}

/** R := v ^ (rotr(v * k, 21) + w): the 16-byte round's cross mix. */
function cross(vh: number, vl: number, k: number, wh: number, wl: number): void {
  mulK(vh, vl, k);
  rotr(R.h, R.l, 21);
  add(R.h, R.l, wh, wl);
  R.h = (vh ^ R.h) >>> 0;
  R.l = (vl ^ R.l) >>> 0;
}

/** hash += x * k3; hash ^= rotr(hash, r) * k1: a step of the tail (x is up to 64 bits). */
function step(xh: number, xl: number, r: number): void {
  mulK(xh, xl, K3);
  add(hash.hi, hash.lo, R.h, R.l);
  const hh = R.h;
  const hl = R.l;
  rotr(hh, hl, r);
  mulK(R.h, R.l, K1);
  hash.hi = (hh ^ R.h) >>> 0;
  hash.lo = (hl ^ R.l) >>> 0;
}

let lastSeed = -1;
let initHi = 0;
let initLo = 0;

/**
 * MetroHash64 of buf[off, off+len) with the given seed; the result is in
 * `hash`, which also holds the running state between the steps (kept as
 * small functions so that each is optimized with its helpers inlined).
 */
export function hash64(buf: Uint8Array, off: number, len: number, seed = 0): void {
  // hash := (seed + k2) * k0
  if (seed !== lastSeed) {
    add(0, seed >>> 0, 0, K2);
    mulK(R.h, R.l, K0);
    lastSeed = seed;
    initHi = R.h;
    initLo = R.l;
  }
  hash.hi = initHi;
  hash.lo = initLo;
  let p = off;
  const end = off + len;
  if (end - p >= 32) p = blocks32(buf, p, end);
  if (end - p >= 16) {
    block16(buf, p);
    p += 16;
  }
  if (end - p >= 8) {
    step(u32(buf, p + 4), u32(buf, p), 55);
    p += 8;
  }
  if (end - p >= 4) {
    step(0, u32(buf, p), 26);
    p += 4;
  }
  if (end - p >= 2) {
    step(0, buf[p] | (buf[p + 1] << 8), 48);
    p += 2;
  }
  if (end - p >= 1) step(0, buf[p], 37);
  finish();
}

/** The 32-byte rounds; returns the offset reached. */
function blocks32(buf: Uint8Array, p: number, end: number): number {
  const hh = hash.hi;
  const hl = hash.lo;
  let v0h = hh,
    v0l = hl,
    v1h = hh,
    v1l = hl,
    v2h = hh,
    v2l = hl,
    v3h = hh,
    v3l = hl;
  while (end - p >= 32) {
    lane(v0h, v0l, buf, p, K0, v2h, v2l);
    v0h = R.h;
    v0l = R.l;
    lane(v1h, v1l, buf, p + 8, K1, v3h, v3l);
    v1h = R.h;
    v1l = R.l;
    lane(v2h, v2l, buf, p + 16, K2, v0h, v0l);
    v2h = R.h;
    v2l = R.l;
    lane(v3h, v3l, buf, p + 24, K3, v1h, v1l);
    v3h = R.h;
    v3l = R.l;
    p += 32;
  }
  mix(v0h, v0l, v3h, v3l, K0, v1h, v1l, K1);
  v2h = (v2h ^ R.h) >>> 0;
  v2l = (v2l ^ R.l) >>> 0;
  mix(v1h, v1l, v2h, v2l, K1, v0h, v0l, K0);
  v3h = (v3h ^ R.h) >>> 0;
  v3l = (v3l ^ R.l) >>> 0;
  mix(v0h, v0l, v2h, v2l, K0, v3h, v3l, K1);
  v0h = (v0h ^ R.h) >>> 0;
  v0l = (v0l ^ R.l) >>> 0;
  mix(v1h, v1l, v3h, v3l, K1, v2h, v2l, K0);
  v1h = (v1h ^ R.h) >>> 0;
  v1l = (v1l ^ R.l) >>> 0;
  add(hh, hl, (v0h ^ v1h) >>> 0, (v0l ^ v1l) >>> 0);
  hash.hi = R.h;
  hash.lo = R.l;
  return p;
}

/** One 16-byte round. */
function block16(buf: Uint8Array, p: number): void {
  const hh = hash.hi;
  const hl = hash.lo;
  lane16(hh, hl, buf, p);
  const v0h = R.h;
  const v0l = R.l;
  lane16(hh, hl, buf, p + 8);
  const v1h = R.h;
  const v1l = R.l;
  cross(v0h, v0l, K0, v1h, v1l);
  const x0h = R.h;
  const x0l = R.l;
  cross(v1h, v1l, K3, x0h, x0l);
  add(hh, hl, R.h, R.l);
  hash.hi = R.h;
  hash.lo = R.l;
}

/** The final mix: h ^= rotr(h, 28); h *= k0; h ^= rotr(h, 29). */
function finish(): void {
  let hh = hash.hi;
  let hl = hash.lo;
  rotr(hh, hl, 28);
  mulK((hh ^ R.h) >>> 0, (hl ^ R.l) >>> 0, K0);
  hh = R.h;
  hl = R.l;
  rotr(hh, hl, 29);
  hash.hi = (hh ^ R.h) >>> 0;
  hash.lo = (hl ^ R.l) >>> 0;
}
