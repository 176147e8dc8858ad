// dcount's sparse codes for a batch of column values in WebAssembly:
// MetroHash64 (metro.ts) on native 64-bit integers, where JavaScript needs
// a dozen 32-bit operations for each 64-bit multiply. A group-by that
// counts distinct values of a column hashes every row, so this is the hot
// loop of a cold `dcount(x) by y` (docs/benchmarks.md: 1M addresses, 55 ms
// in JavaScript). The module is a few hundred bytes assembled below from
// its instructions (no build step, no binary in the tree); metro.ts stays
// the definition, and tests hold the two to the same codes.
//
// A call hands the module the batch's tagged values (a column's bytes,
// copied into its memory) and where each starts; for each it reads the
// tag, writes the one-byte type prefix over the tag's last byte (the hash
// input is the type ID as a zcode int, then the body: see codeOf) and
// stores the sparse code of the hash (hyperloglog.ts, encodeHash).

import { METRO_K } from './metro';

/** The constants as unsigned 64-bit integers. */
const K = METRO_K.map((k) => BigInt(k >>> 0));
/** dcount's seed (hyperloglog.ts). */
const SEED = 1337n;
const MASK64 = (1n << 64n) - 1n;

// Opcodes (WebAssembly core spec, section 5.4).
const BLOCK = 0x02;
const LOOP = 0x03;
const IF = 0x04;
const END = 0x0b;
const ELSE = 0x05;
const BR_IF = 0x0d;
const RETURN = 0x0f;
const CALL = 0x10;
const VOID = 0x40;
const GET = 0x20;
const SET = 0x21;
const TEE = 0x22;
const I32_LOAD = 0x28;
const I64_LOAD = 0x29;
const I32_LOAD8_U = 0x2d;
const I64_LOAD8_U = 0x31;
const I64_LOAD16_U = 0x33;
const I64_LOAD32_U = 0x35;
const I32_STORE = 0x36;
const I32_STORE8 = 0x3a;
const I32_CONST = 0x41;
const I64_CONST = 0x42;
const I32_EQZ = 0x45;
const I32_LT_U = 0x49;
const I32_GE_U = 0x4f;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const I32_AND = 0x71;
const I32_OR = 0x72;
const I32_SHL = 0x74;
const I64_CLZ = 0x79;
const I64_ADD = 0x7c;
const I64_MUL = 0x7e;
const I64_OR = 0x84;
const I64_XOR = 0x85;
const I64_SHL = 0x86;
const I64_SHR_U = 0x88;
const I64_ROTR = 0x8a;
const I32_WRAP_I64 = 0xa7;
const I32 = 0x7f;
const I64 = 0x7e;

type Code = number[];

function uleb(n: number): Code {
  const out: Code = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: bigint): Code {
  const out: Code = [];
  for (;;) {
    const b = Number(n & 0x7fn);
    n >>= 7n;
    if ((n === 0n && (b & 0x40) === 0) || (n === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const get = (i: number): Code => [GET, i];
const set = (i: number): Code => [SET, i];
const tee = (i: number): Code => [TEE, i];
const i32c = (n: number): Code => [I32_CONST, ...sleb(BigInt(n))];
/** An i64 constant from its unsigned 64-bit value. */
const i64c = (n: bigint): Code => [I64_CONST, ...sleb(BigInt.asIntN(64, n))];
/** A load or store with alignment hint 0 (any address) and a constant offset. */
const mem = (op: number, off = 0): Code => [op, 0, ...uleb(off)];

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
const left = (n: number): Code => [...get(END_), ...get(P), I32_SUB, ...i32c(n), I32_GE_U];
/** p += n. */
const advance = (n: number): Code => [...get(P), ...i32c(n), I32_ADD, ...set(P)];
/** v := rotr(v + load64(p + off) * k, 29) + w (a lane of the 32-byte rounds). */
const lane = (v: number, off: number, k: bigint, w: number): Code => [
  ...get(v),
  ...get(P),
  ...mem(I64_LOAD, off),
  ...i64c(k),
  I64_MUL,
  I64_ADD,
  ...i64c(29n),
  I64_ROTR,
  ...get(w),
  I64_ADD,
  ...set(v),
];
/** x ^= rotr((a + b) * ka + c, 37) * kb (the folds after the rounds). */
const fold = (x: number, a: number, b: number, ka: bigint, c: number, kb: bigint): Code => [
  ...get(x),
  ...get(a),
  ...get(b),
  I64_ADD,
  ...i64c(ka),
  I64_MUL,
  ...get(c),
  I64_ADD,
  ...i64c(37n),
  I64_ROTR,
  ...i64c(kb),
  I64_MUL,
  I64_XOR,
  ...set(x),
];
/** v := rotr(h + load64(p + off) * k2, 29) * k3 (the halves of the 16-byte round). */
const half = (v: number, off: number): Code => [
  ...get(H),
  ...get(P),
  ...mem(I64_LOAD, off),
  ...i64c(K[2]),
  I64_MUL,
  I64_ADD,
  ...i64c(29n),
  I64_ROTR,
  ...i64c(K[3]),
  I64_MUL,
  ...set(v),
];
/** v ^= rotr(v * k, 21) + w. */
const cross = (v: number, k: bigint, w: number): Code => [
  ...get(v),
  ...get(v),
  ...i64c(k),
  I64_MUL,
  ...i64c(21n),
  I64_ROTR,
  ...get(w),
  I64_ADD,
  I64_XOR,
  ...set(v),
];
/** The tail steps: h += load(p) * k3; p += n; h ^= rotr(h, r) * k1, when n bytes are left. */
const tail = (n: number, load: number, r: bigint): Code => [
  ...left(n),
  IF,
  VOID,
  ...get(H),
  ...get(P),
  ...mem(load),
  ...i64c(K[3]),
  I64_MUL,
  I64_ADD,
  ...set(H),
  ...advance(n),
  ...get(H),
  ...get(H),
  ...i64c(r),
  I64_ROTR,
  ...i64c(K[1]),
  I64_MUL,
  I64_XOR,
  ...set(H),
  END,
];
/** h ^= rotr(h, r). */
const xorRot = (r: bigint): Code => [
  ...get(H),
  ...get(H),
  ...i64c(r),
  I64_ROTR,
  I64_XOR,
  ...set(H),
];

const metroBody: Code = [
  // h := (seed + k2) * k0, a constant; end := p + len.
  ...i64c(((SEED + K[2]) * K[0]) & MASK64),
  ...set(H),
  ...get(P),
  ...get(LEN),
  I32_ADD,
  ...set(END_),
  ...left(32),
  IF,
  VOID,
  ...get(H),
  ...tee(V0),
  ...tee(V1),
  ...tee(V2),
  ...set(V3),
  LOOP,
  VOID,
  ...lane(V0, 0, K[0], V2),
  ...lane(V1, 8, K[1], V3),
  ...lane(V2, 16, K[2], V0),
  ...lane(V3, 24, K[3], V1),
  ...advance(32),
  ...left(32),
  BR_IF,
  0,
  END,
  ...fold(V2, V0, V3, K[0], V1, K[1]),
  ...fold(V3, V1, V2, K[1], V0, K[0]),
  ...fold(V0, V0, V2, K[0], V3, K[1]),
  ...fold(V1, V1, V3, K[1], V2, K[0]),
  ...get(H),
  ...get(V0),
  ...get(V1),
  I64_XOR,
  I64_ADD,
  ...set(H),
  END,
  ...left(16),
  IF,
  VOID,
  ...half(V0, 0),
  ...half(V1, 8),
  ...cross(V0, K[0], V1),
  ...cross(V1, K[3], V0),
  ...get(H),
  ...get(V1),
  I64_ADD,
  ...set(H),
  ...advance(16),
  END,
  ...tail(8, I64_LOAD, 55n),
  ...tail(4, I64_LOAD32_U, 26n),
  ...tail(2, I64_LOAD16_U, 48n),
  ...tail(1, I64_LOAD8_U, 37n),
  ...xorRot(28n),
  ...get(H),
  ...i64c(K[0]),
  I64_MUL,
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

const codesBody: Code = [
  ...get(N),
  I32_EQZ,
  IF,
  VOID,
  RETURN,
  END,
  LOOP,
  VOID,
  // q := the value's tag; tag := its uvarint, q past it.
  ...get(OFFS),
  ...get(I),
  ...i32c(2),
  I32_SHL,
  I32_ADD,
  ...mem(I32_LOAD),
  ...set(Q),
  ...i32c(0),
  ...set(TAG),
  ...i32c(0),
  ...set(SHIFT),
  BLOCK,
  VOID,
  LOOP,
  VOID,
  ...get(Q),
  ...mem(I32_LOAD8_U),
  ...set(B),
  ...advanceLocal(Q, 1),
  ...get(TAG),
  ...get(B),
  ...i32c(0x7f),
  I32_AND,
  ...get(SHIFT),
  I32_SHL,
  I32_OR,
  ...set(TAG),
  ...get(SHIFT),
  ...i32c(7),
  I32_ADD,
  ...set(SHIFT),
  ...get(B),
  ...i32c(0x80),
  I32_AND,
  BR_IF,
  0,
  END,
  END,
  // The prefix over the tag's last byte (a null's body is empty).
  ...get(PLEN),
  IF,
  VOID,
  ...get(Q),
  ...i32c(1),
  I32_SUB,
  ...get(PREFIX),
  ...mem(I32_STORE8),
  END,
  // hash := metro(q - plen, plen + max(tag - 1, 0)).
  ...get(Q),
  ...get(PLEN),
  I32_SUB,
  ...get(PLEN),
  ...get(TAG),
  IF,
  I32,
  ...get(TAG),
  ...i32c(1),
  I32_SUB,
  ELSE,
  ...i32c(0),
  END,
  I32_ADD,
  CALL,
  0,
  ...set(HASH),
  // The sparse code: the hash's top 25 bits (idx) then, when idx's low 11
  // bits are zero, the leading zeros of the hash's low 39 bits plus one.
  ...get(OUT),
  ...get(I),
  ...i32c(2),
  I32_SHL,
  I32_ADD,
  ...get(HASH),
  ...i64c(39n),
  I64_SHR_U,
  I32_WRAP_I64,
  ...tee(IDX),
  ...i32c(0x7ff),
  I32_AND,
  IF,
  I32,
  ...get(IDX),
  ...i32c(1),
  I32_SHL,
  ELSE,
  ...get(IDX),
  ...i32c(7),
  I32_SHL,
  ...get(HASH),
  ...i64c(25n),
  I64_SHL,
  ...i64c(0x1ffffffn),
  I64_OR,
  I64_CLZ,
  I32_WRAP_I64,
  ...i32c(1),
  I32_ADD,
  ...i32c(1),
  I32_SHL,
  I32_OR,
  ...i32c(1),
  I32_OR,
  END,
  ...mem(I32_STORE),
  ...advanceLocal(I, 1),
  ...get(I),
  ...get(N),
  I32_LT_U,
  BR_IF,
  0,
  END,
];

function advanceLocal(l: number, n: number): Code {
  return [...get(l), ...i32c(n), I32_ADD, ...set(l)];
}

/** A function body: its locals beyond the parameters, then its code. */
function body(locals: [count: number, type: number][], code: Code): Code {
  const inner = [
    ...uleb(locals.length),
    ...locals.flatMap(([c, t]) => [...uleb(c), t]),
    ...code,
    END,
  ];
  return [...uleb(inner.length), ...inner];
}

function section(id: number, content: Code): Code {
  return [id, ...uleb(content.length), ...content];
}

function vec(items: Code[]): Code {
  return [...uleb(items.length), ...items.flat()];
}

function name(s: string): Code {
  return [...uleb(s.length), ...Buffer.from(s, 'utf8')];
}

const FUNC = 0x60;
const moduleBytes = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  // Types: 0 metro (i32 i32) -> i64; 1 codes (i32 x5) -> ().
  ...section(
    1,
    vec([
      [FUNC, ...vec([[I32], [I32]]), ...vec([[I64]])],
      [FUNC, ...vec([[I32], [I32], [I32], [I32], [I32]]), ...vec([])],
    ]),
  ),
  // Functions: metro, codes.
  ...section(3, vec([[0], [1]])),
  // A memory of one page to start with (grown from JavaScript).
  ...section(5, vec([[0x00, 1]])),
  // Exports: the memory and codes.
  ...section(
    7,
    vec([
      [...name('mem'), 0x02, 0],
      [...name('codes'), 0x00, 1],
    ]),
  ),
  ...section(
    10,
    vec([
      body(
        [
          [1, I32],
          [5, I64],
        ],
        metroBody,
      ),
      body(
        [
          [5, I32],
          [1, I64],
          [1, I32],
        ],
        codesBody,
      ),
    ]),
  ),
]);

// The little of the WebAssembly API used here (the project's TypeScript
// libraries do not declare it).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};

interface Exports {
  mem: { buffer: ArrayBuffer; grow(pages: number): number };
  codes(n: number, offs: number, out: number, prefix: number, plen: number): void;
}

let instance: Exports | null | undefined;

function load(): Exports | null {
  if (instance === undefined) {
    try {
      const m = new WebAssembly.Module(moduleBytes);
      instance = new WebAssembly.Instance(m).exports as unknown as Exports;
    } catch {
      instance = null;
    }
  }
  return instance;
}

/** Whether the module runs here (else callers hash in JavaScript). */
export function wasmCodes(): boolean {
  return load() !== null;
}

/** The largest type ID sparseCodesOf takes (its prefix, 2 * ID as a zcode int, is one byte or none). */
export const MAX_TYPE_ID = 63;

/**
 * The sparse codes of n tagged values of type ID typeId (at most
 * MAX_TYPE_ID) in buf, value i's tag at starts[i] (each value within
 * buf[lo, hi)): written to out[0, n).
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
  const x = load()!;
  // Layout: offsets (4n), codes (4n), a spare word, then the bytes.
  const offs = 0;
  const codes = 4 * n;
  const base = 8 * n + 8;
  const need = base + (hi - lo);
  const have = x.mem.buffer.byteLength;
  if (need > have) x.mem.grow(Math.ceil((need - have) / 65536));
  const m = x.mem.buffer;
  new Uint8Array(m, base, hi - lo).set(buf.subarray(lo, hi));
  const o = new Int32Array(m, offs, n);
  const shift = base - lo;
  for (let i = 0; i < n; i++) o[i] = starts[i] + shift;
  // The type ID as a zcode int: 2 * ID in one byte, none for 0.
  x.codes(n, offs, codes, 2 * typeId, typeId === 0 ? 0 : 1);
  out.set(new Uint32Array(m, codes, n));
  // Memory never shrinks: a module that one batch of long values grew
  // past KEEP_BYTES goes, and the next call makes a new one.
  if (m.byteLength > KEEP_BYTES) instance = undefined;
}

/** The most memory a module keeps between calls. */
export const KEEP_BYTES = 16 << 20;

/** The bytes of memory the module holds between calls (0: none made yet, or dropped). */
export function keptBytes(): number {
  return instance ? instance.mem.buffer.byteLength : 0;
}
