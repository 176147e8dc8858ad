// MetroHash64 (J. Andrew Rogers' metrohash, 64-bit variant), the hash
// the reference's dcount feeds its HyperLogLog sketch, computed here on
// 64-bit integers held as two 32-bit halves so that no BigInt is needed:
// every multiplication in the algorithm is by a 32-bit constant.
//
// Speed: every half is kept as a signed int32 (`| 0`), which V8 holds as a
// small integer; unsigned halves above 2^31 would be heap numbers, and
// storing those in the working registers allocated on every step (this
// made a 5-byte hash cost ~250 ns instead of ~20). The working registers
// are module variables written by small helpers that V8 inlines.

const K0 = 0xd6d018f5;
const K1 = 0xa2aa033b;
const K2 = 0x62992fc1;
const K3 = 0x30bc5b29;

/** The result of the last hash64 call, as unsigned 32-bit halves. */
export const hash = { hi: 0, lo: 0 };

// The 64-bit working register of the helpers below (int32 halves).
let RH = 0;
let RL = 0;
// The running hash (int32 halves).
let HH = 0;
let HL = 0;

/** R := (hi, lo) * k mod 2^64, for a uint32 constant k. */
function mulK(hi: number, lo: number, k: number): void {
  const a0 = lo & 0xffff;
  const a1 = lo >>> 16;
  const k0 = k & 0xffff;
  const k1 = k >>> 16;
  const p00 = a0 * k0;
  const p01 = a0 * k1;
  const p10 = a1 * k0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  RL = Math.imul(lo, k);
  RH = (a1 * k1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(hi, k)) | 0;
}

/** R := (ah, al) + (bh, bl) mod 2^64. */
function add(ah: number, al: number, bh: number, bl: number): void {
  const l = (al + bl) | 0;
  RH = (ah + bh + (l >>> 0 < al >>> 0 ? 1 : 0)) | 0;
  RL = l;
}

/** R := (hi, lo) rotated right by r bits (0 < r < 32). */
function rotr(hi: number, lo: number, r: number): void {
  RL = (lo >>> r) | (hi << (32 - r));
  RH = (hi >>> r) | (lo << (32 - r));
}

/** R := (hi, lo) rotated right by 32 + r bits (0 < r < 32). */
function rotr32(hi: number, lo: number, r: number): void {
  RL = (hi >>> r) | (lo << (32 - r));
  RH = (lo >>> r) | (hi << (32 - r));
}

function i32(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24);
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
  mulK(i32(buf, p + 4), i32(buf, p), k);
  add(vh, vl, RH, RL);
  rotr(RH, RL, 29);
  add(RH, RL, wh, wl);
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
  mulK(RH, RL, ka);
  add(RH, RL, ch, cl);
  rotr32(RH, RL, 5);
  mulK(RH, RL, kb);
}

/** R := rotr(h + read64(p) * k2, 29) * k3: a lane of the 16-byte round. */
function lane16(hh: number, hl: number, buf: Uint8Array, p: number): void {
  mulK(i32(buf, p + 4), i32(buf, p), K2);
  add(hh, hl, RH, RL);
  rotr(RH, RL, 29);
  mulK(RH, RL, K3);
}

/** R := v ^ (rotr(v * k, 21) + w): the 16-byte round's cross mix. */
function cross(vh: number, vl: number, k: number, wh: number, wl: number): void {
  mulK(vh, vl, k);
  rotr(RH, RL, 21);
  add(RH, RL, wh, wl);
  RH ^= vh;
  RL ^= vl;
}

/** hash += x * k3; hash ^= rotr(hash, r) * k1: a step of the tail (x is up to 64 bits). */
function step(xh: number, xl: number, r: number): void {
  mulK(xh, xl, K3);
  add(HH, HL, RH, RL);
  const hh = RH;
  const hl = RL;
  if (r < 32) rotr(hh, hl, r);
  else rotr32(hh, hl, r - 32);
  mulK(RH, RL, K1);
  HH = hh ^ RH;
  HL = hl ^ RL;
}

let lastSeed = -1;
let initHi = 0;
let initLo = 0;

/**
 * MetroHash64 of buf[off, off+len) with the given seed, left in the
 * module's running hash (read by hash64 and hashCode64).
 */
function run(buf: Uint8Array, off: number, len: number, seed: number): void {
  // hash := (seed + k2) * k0
  if (seed !== lastSeed) {
    add(0, seed | 0, 0, K2 | 0);
    mulK(RH, RL, K0);
    lastSeed = seed;
    initHi = RH;
    initLo = RL;
  }
  HH = initHi;
  HL = initLo;
  let p = off;
  const end = off + len;
  if (end - p >= 32) p = blocks32(buf, p, end);
  if (end - p >= 16) {
    block16(buf, p);
    p += 16;
  }
  if (end - p >= 8) {
    step(i32(buf, p + 4), i32(buf, p), 55);
    p += 8;
  }
  if (end - p >= 4) {
    step(0, i32(buf, p), 26);
    p += 4;
  }
  if (end - p >= 2) {
    step(0, buf[p] | (buf[p + 1] << 8), 48);
    p += 2;
  }
  if (end - p >= 1) step(0, buf[p], 37);
  finish();
}

/** MetroHash64 of buf[off, off+len) with the given seed; the result is in `hash`. */
export function hash64(buf: Uint8Array, off: number, len: number, seed = 0): void {
  run(buf, off, len, seed);
  hash.hi = HH >>> 0;
  hash.lo = HL >>> 0;
}

/**
 * MetroHash64 of buf[off, off+len), passed to f as signed 32-bit halves
 * (hi, lo) without storing it anywhere: the allocation-free form.
 */
export function hashWith<T>(
  buf: Uint8Array,
  off: number,
  len: number,
  seed: number,
  f: (hi: number, lo: number) => T,
): T {
  run(buf, off, len, seed);
  return f(HH, HL);
}

/** The 32-byte rounds; returns the offset reached. */
function blocks32(buf: Uint8Array, p: number, end: number): number {
  const hh = HH;
  const hl = HL;
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
    v0h = RH;
    v0l = RL;
    lane(v1h, v1l, buf, p + 8, K1, v3h, v3l);
    v1h = RH;
    v1l = RL;
    lane(v2h, v2l, buf, p + 16, K2, v0h, v0l);
    v2h = RH;
    v2l = RL;
    lane(v3h, v3l, buf, p + 24, K3, v1h, v1l);
    v3h = RH;
    v3l = RL;
    p += 32;
  }
  mix(v0h, v0l, v3h, v3l, K0, v1h, v1l, K1);
  v2h ^= RH;
  v2l ^= RL;
  mix(v1h, v1l, v2h, v2l, K1, v0h, v0l, K0);
  v3h ^= RH;
  v3l ^= RL;
  mix(v0h, v0l, v2h, v2l, K0, v3h, v3l, K1);
  v0h ^= RH;
  v0l ^= RL;
  mix(v1h, v1l, v3h, v3l, K1, v2h, v2l, K0);
  v1h ^= RH;
  v1l ^= RL;
  add(hh, hl, v0h ^ v1h, v0l ^ v1l);
  HH = RH;
  HL = RL;
  return p;
}

/** One 16-byte round. */
function block16(buf: Uint8Array, p: number): void {
  const hh = HH;
  const hl = HL;
  lane16(hh, hl, buf, p);
  const v0h = RH;
  const v0l = RL;
  lane16(hh, hl, buf, p + 8);
  const v1h = RH;
  const v1l = RL;
  cross(v0h, v0l, K0, v1h, v1l);
  const x0h = RH;
  const x0l = RL;
  cross(v1h, v1l, K3, x0h, x0l);
  add(hh, hl, RH, RL);
  HH = RH;
  HL = RL;
}

/** The final mix: h ^= rotr(h, 28); h *= k0; h ^= rotr(h, 29). */
function finish(): void {
  let hh = HH;
  let hl = HL;
  rotr(hh, hl, 28);
  mulK(hh ^ RH, hl ^ RL, K0);
  hh = RH;
  hl = RL;
  rotr(hh, hl, 29);
  HH = hh ^ RH;
  HL = hl ^ RL;
}
