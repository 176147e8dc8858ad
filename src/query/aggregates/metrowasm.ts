// dcount's sparse codes for a batch of column values in WebAssembly:
// MetroHash64 (metro.ts) on native 64-bit integers, where JavaScript needs
// a dozen 32-bit operations for each 64-bit multiply. A group-by that
// counts distinct values of a column hashes every row, so this is the hot
// loop of a cold `dcount(x) by y` (docs/benchmarks.md: 1M addresses, 55 ms
// in JavaScript). The module is a few hundred bytes assembled from its
// instructions (zed/wasm.ts); metro.ts stays the definition, and tests
// hold the two to the same codes.
//
// A call hands the module the batch's tagged values (a column's bytes,
// copied into its memory) and where each starts; for each it reads the
// tag, writes the one-byte type prefix over the tag's last byte (the hash
// input is the type ID as a zcode int, then the body: see codeOf) and
// stores the sparse code of the hash (hyperloglog.ts, encodeHash).

import {
  eachTagged,
  Code,
  get,
  i32c,
  i64c,
  I32,
  I64,
  LazyModule,
  mem,
  op,
  set,
  tee,
  VOID,
  WasmMemory,
  assemble,
} from '../../zed/wasm';
import { Type } from '../../zed/types';
import { METRO_K } from './metro';

/** The constants as unsigned 64-bit integers. */
const K = METRO_K.map((k) => BigInt(k >>> 0));
/** dcount's seed (hyperloglog.ts). */
const SEED = 1337n;
const MASK64 = (1n << 64n) - 1n;

// metro(p, len) -> i64: MetroHash64 of memory[p, p+len), seed 1337.
const P = 0;
const LEN = 1;
const END_ = 2;
const H = 3;
const V0 = 4;
const V1 = 5;
const V2 = 6;
const V3 = 7;

/** Bytes left, end - p, >= n (an i32 condition). */
const left = (n: number): Code => [...get(END_), ...get(P), op.i32_sub, ...i32c(n), op.i32_ge_u];
/** p += n. */
const advance = (n: number): Code => [...get(P), ...i32c(n), op.i32_add, ...set(P)];
/** v := rotr(v + load64(p + off) * k, 29) + w (a lane of the 32-byte rounds). */
const lane = (v: number, off: number, k: bigint, w: number): Code => [
  ...get(v),
  ...get(P),
  ...mem(op.i64_load, off),
  ...i64c(k),
  op.i64_mul,
  op.i64_add,
  ...i64c(29n),
  op.i64_rotr,
  ...get(w),
  op.i64_add,
  ...set(v),
];
/** x ^= rotr((a + b) * ka + c, 37) * kb (the folds after the rounds). */
const fold = (x: number, a: number, b: number, ka: bigint, c: number, kb: bigint): Code => [
  ...get(x),
  ...get(a),
  ...get(b),
  op.i64_add,
  ...i64c(ka),
  op.i64_mul,
  ...get(c),
  op.i64_add,
  ...i64c(37n),
  op.i64_rotr,
  ...i64c(kb),
  op.i64_mul,
  op.i64_xor,
  ...set(x),
];
/** v := rotr(h + load64(p + off) * k2, 29) * k3 (the halves of the 16-byte round). */
const half = (v: number, off: number): Code => [
  ...get(H),
  ...get(P),
  ...mem(op.i64_load, off),
  ...i64c(K[2]),
  op.i64_mul,
  op.i64_add,
  ...i64c(29n),
  op.i64_rotr,
  ...i64c(K[3]),
  op.i64_mul,
  ...set(v),
];
/** v ^= rotr(v * k, 21) + w. */
const cross = (v: number, k: bigint, w: number): Code => [
  ...get(v),
  ...get(v),
  ...i64c(k),
  op.i64_mul,
  ...i64c(21n),
  op.i64_rotr,
  ...get(w),
  op.i64_add,
  op.i64_xor,
  ...set(v),
];
/** The tail steps: h += load(p) * k3; p += n; h ^= rotr(h, r) * k1, when n bytes are left. */
const tail = (n: number, load: number, r: bigint): Code => [
  ...left(n),
  op.if,
  VOID,
  ...get(H),
  ...get(P),
  ...mem(load),
  ...i64c(K[3]),
  op.i64_mul,
  op.i64_add,
  ...set(H),
  ...advance(n),
  ...get(H),
  ...get(H),
  ...i64c(r),
  op.i64_rotr,
  ...i64c(K[1]),
  op.i64_mul,
  op.i64_xor,
  ...set(H),
  op.end,
];
/** h ^= rotr(h, r). */
const xorRot = (r: bigint): Code => [
  ...get(H),
  ...get(H),
  ...i64c(r),
  op.i64_rotr,
  op.i64_xor,
  ...set(H),
];

const metroBody: Code = [
  // h := (seed + k2) * k0, a constant; end := p + len.
  ...i64c(((SEED + K[2]) * K[0]) & MASK64),
  ...set(H),
  ...get(P),
  ...get(LEN),
  op.i32_add,
  ...set(END_),
  ...left(32),
  op.if,
  VOID,
  ...get(H),
  ...tee(V0),
  ...tee(V1),
  ...tee(V2),
  ...set(V3),
  op.loop,
  VOID,
  ...lane(V0, 0, K[0], V2),
  ...lane(V1, 8, K[1], V3),
  ...lane(V2, 16, K[2], V0),
  ...lane(V3, 24, K[3], V1),
  ...advance(32),
  ...left(32),
  op.br_if,
  0,
  op.end,
  ...fold(V2, V0, V3, K[0], V1, K[1]),
  ...fold(V3, V1, V2, K[1], V0, K[0]),
  ...fold(V0, V0, V2, K[0], V3, K[1]),
  ...fold(V1, V1, V3, K[1], V2, K[0]),
  ...get(H),
  ...get(V0),
  ...get(V1),
  op.i64_xor,
  op.i64_add,
  ...set(H),
  op.end,
  ...left(16),
  op.if,
  VOID,
  ...half(V0, 0),
  ...half(V1, 8),
  ...cross(V0, K[0], V1),
  ...cross(V1, K[3], V0),
  ...get(H),
  ...get(V1),
  op.i64_add,
  ...set(H),
  ...advance(16),
  op.end,
  ...tail(8, op.i64_load, 55n),
  ...tail(4, op.i64_load32_u, 26n),
  ...tail(2, op.i64_load16_u, 48n),
  ...tail(1, op.i64_load8_u, 37n),
  ...xorRot(28n),
  ...get(H),
  ...i64c(K[0]),
  op.i64_mul,
  ...set(H),
  ...xorRot(29n),
  ...get(H),
];

// codes(n, offs, out, prefix, plen): for each of n values, its tag at
// memory[load32(offs + 4i)], the sparse code of (prefix, body) to out + 4i.
const N = 0;
const OFFS = 1;
const OUT = 2;
const PREFIX = 3;
const PLEN = 4;
const I = 5;
const Q = 6;
const TAG = 7;
const SHIFT = 8;
const B = 9;
const HASH = 10;
const IDX = 11;
const SAVED = 12;

/** code, when the values are hashed after a prefix. */
const ifPrefix = (code: Code): Code => [...get(PLEN), op.if, VOID, ...code, op.end];
/** memory[q - 1] (the tag's last byte) := the i32 that code pushes. */
const setTagByte = (code: Code): Code => [
  ...get(Q),
  ...i32c(1),
  op.i32_sub,
  ...code,
  ...mem(op.i32_store8),
];

const codesBody: Code = eachTagged({ n: N, offs: OFFS, i: I, q: Q, tag: TAG, shift: SHIFT, b: B }, [
  // The prefix over the tag's last byte (a null's body is empty), the
  // byte kept to be put back after (a start given twice reads its tag again).
  ...ifPrefix([
    ...get(Q),
    ...i32c(1),
    op.i32_sub,
    ...mem(op.i32_load8_u),
    ...set(SAVED),
    ...setTagByte(get(PREFIX)),
  ]),
  // hash := metro(q - plen, plen + max(tag - 1, 0)).
  ...get(Q),
  ...get(PLEN),
  op.i32_sub,
  ...get(PLEN),
  ...get(TAG),
  op.if,
  I32,
  ...get(TAG),
  ...i32c(1),
  op.i32_sub,
  op.else,
  ...i32c(0),
  op.end,
  op.i32_add,
  op.call,
  0,
  ...set(HASH),
  ...ifPrefix(setTagByte(get(SAVED))),
  // The sparse code: the hash's top 25 bits (idx) then, when idx's low 11
  // bits are zero, the leading zeros of the hash's low 39 bits plus one.
  ...get(OUT),
  ...get(I),
  ...i32c(2),
  op.i32_shl,
  op.i32_add,
  ...get(HASH),
  ...i64c(39n),
  op.i64_shr_u,
  op.i32_wrap_i64,
  ...tee(IDX),
  ...i32c(0x7ff),
  op.i32_and,
  op.if,
  I32,
  ...get(IDX),
  ...i32c(1),
  op.i32_shl,
  op.else,
  ...get(IDX),
  ...i32c(7),
  op.i32_shl,
  ...get(HASH),
  ...i64c(25n),
  op.i64_shl,
  ...i64c(0x1ffffffn),
  op.i64_or,
  op.i64_clz,
  op.i32_wrap_i64,
  ...i32c(1),
  op.i32_add,
  ...i32c(1),
  op.i32_shl,
  op.i32_or,
  ...i32c(1),
  op.i32_or,
  op.end,
  ...mem(op.i32_store),
]);

interface Exports {
  mem: WasmMemory;
  codes(n: number, offs: number, out: number, prefix: number, plen: number): void;
}

const codesModule = new LazyModule<Exports>(
  assemble([
    { params: [I32, I32], results: [I64], locals: [I32, I64, I64, I64, I64, I64], code: metroBody },
    {
      params: [I32, I32, I32, I32, I32],
      results: [],
      locals: [I32, I32, I32, I32, I32, I64, I32, I32],
      code: codesBody,
      export: 'codes',
    },
  ]),
);

/**
 * Whether sparseCodesOf takes values of type t: the module runs here and
 * t's underlying type ID is at most MAX_TYPE_ID (else callers hash in
 * JavaScript).
 */
export function wasmCodes(t: Type): boolean {
  return t.under.id <= MAX_TYPE_ID && codesModule.get() !== null;
}

/**
 * The largest type ID sparseCodesOf takes: the prefix, 2 * ID as a zcode
 * int (its little-endian bytes, none for 0), is then one byte or none.
 */
export const MAX_TYPE_ID = 127;

/**
 * The sparse codes (codeOf) of n tagged values in buf, value i's tag at
 * starts[i] (each value within buf[lo, hi)), written to out[0, n). Their
 * type's underlying ID is typeId (codeOf hashes that ID, so a named
 * type's values count as its underlying type's); wasmCodes of the type
 * is true.
 */
export function sparseCodesOf(
  buf: Uint8Array,
  lo: number,
  hi: number,
  starts: Int32Array,
  n: number,
  typeId: number,
  out: Uint32Array,
): void {
  if (typeId > MAX_TYPE_ID) throw new Error(`internal error: sparseCodesOf of type ID ${typeId}`);
  const x = codesModule.get()!;
  // Layout: offsets (4n), codes (4n), then the bytes.
  const offs = 0;
  const codes = 4 * n;
  const base = 8 * n;
  const m = codesModule.reserve(base + (hi - lo));
  new Uint8Array(m, base, hi - lo).set(buf.subarray(lo, hi));
  const o = new Int32Array(m, offs, n);
  const shift = base - lo;
  for (let i = 0; i < n; i++) o[i] = starts[i] + shift;
  // The type ID as a zcode int: 2 * ID in one byte, none for 0.
  x.codes(n, offs, codes, 2 * typeId, typeId === 0 ? 0 : 1);
  out.set(new Uint32Array(m, codes, n));
  codesModule.done();
}

/**
 * The module's calls for a column's rows: at most `rows` rows whose bytes
 * span at most `bytes` (or one longer row), so that its memory stays
 * small; where selected rows span over four times their own bytes plus
 * `slack`, a caller hashes them in JavaScript instead (tests lower all
 * three).
 */
export const codeChunk = { rows: 8192, bytes: 4 << 20, slack: 4096 };

/**
 * The codes of rows from..to of a column of one type (their tags at
 * off[i], the type's underlying ID typeId) into out[k - from], a chunk
 * (codeChunk) at a time.
 */
export function rowsCodes(
  buf: Uint8Array,
  off: Int32Array,
  from: number,
  to: number,
  typeId: number,
  out: Uint32Array,
): void {
  for (let c = from; c < to;) {
    let k = c + 1;
    while (k < to && k - c < codeChunk.rows && off[k + 1] - off[c] <= codeChunk.bytes) k++;
    sparseCodesOf(buf, off[c], off[k], off.subarray(c, k), k - c, typeId, out.subarray(c - from));
    c = k;
  }
}

/** The bytes of memory the module holds between calls (0: none made yet, or dropped). */
export function keptBytes(): number {
  return codesModule.kept();
}
