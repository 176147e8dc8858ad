// A small WebAssembly assembler, for hot loops that gain from native
// 64-bit arithmetic (dcount's hashes: query/aggregates/metrowasm.ts). A
// module is written as its instructions with the helpers below and
// assembled when first used, so there is no build step and no binary in
// the tree. A module has one memory, exported as `mem`, that its
// JavaScript side fills and grows.

/** Opcodes and value types (WebAssembly core specification, 5.3 and 5.4). */
export const op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  br_if: 0x0d,
  return: 0x0f,
  call: 0x10,
  local_get: 0x20,
  local_set: 0x21,
  local_tee: 0x22,
  i32_load: 0x28,
  i64_load: 0x29,
  i32_load8_u: 0x2d,
  i32_load16_u: 0x2f,
  i64_load8_u: 0x31,
  i64_load16_u: 0x33,
  i64_load32_u: 0x35,
  i32_store: 0x36,
  i32_store8: 0x3a,
  i32_const: 0x41,
  i64_const: 0x42,
  i32_eqz: 0x45,
  i32_lt_s: 0x48,
  i32_lt_u: 0x49,
  i32_ge_u: 0x4f,
  i32_add: 0x6a,
  i32_sub: 0x6b,
  i32_mul: 0x6c,
  i32_and: 0x71,
  i32_or: 0x72,
  i32_xor: 0x73,
  i32_shl: 0x74,
  i32_shr_u: 0x76,
  i32_rotl: 0x77,
  i64_clz: 0x79,
  i64_add: 0x7c,
  i64_mul: 0x7e,
  i64_or: 0x84,
  i64_xor: 0x85,
  i64_shl: 0x86,
  i64_shr_u: 0x88,
  i64_rotr: 0x8a,
  i32_wrap_i64: 0xa7,
} as const;

/** Value types, and the empty block type. */
export const I32 = 0x7f;
export const I64 = 0x7e;
export const VOID = 0x40;

export type Code = number[];

export function uleb(n: number): Code {
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

export const get = (i: number): Code => [op.local_get, i];
export const set = (i: number): Code => [op.local_set, i];
export const tee = (i: number): Code => [op.local_tee, i];
/** An i32 constant (its bits: 0xffffffff is -1). */
export const i32c = (n: number): Code => [op.i32_const, ...sleb(BigInt(n | 0))];
/** An i64 constant from its unsigned 64-bit value. */
export const i64c = (n: bigint): Code => [op.i64_const, ...sleb(BigInt.asIntN(64, n))];
/** A load or store at any alignment, with a constant offset. */
export const mem = (opcode: number, off = 0): Code => [opcode, 0, ...uleb(off)];
/** local l := local l + n (i32). */
export const bump = (l: number, n: number): Code => [...get(l), ...i32c(n), op.i32_add, ...set(l)];

/** The locals eachTagged uses (their indexes). */
export interface TaggedLocals {
  /** Parameters: the count of values, and where their starts are (n i32s). */
  n: number;
  offs: number;
  /** i32 locals: the value's index, where it is, its tag, and two of scratch. */
  i: number;
  q: number;
  tag: number;
  shift: number;
  b: number;
}

/**
 * The loop over n tagged values (a column's): for each i, q := its
 * start (the i-th i32 at offs), then tag := the uvarint there with q moved
 * past it (to the body), then body.
 */
export function eachTagged(l: TaggedLocals, body: Code): Code {
  return [
    ...get(l.n),
    op.i32_eqz,
    op.if,
    VOID,
    op.return,
    op.end,
    op.loop,
    VOID,
    ...get(l.offs),
    ...get(l.i),
    ...i32c(2),
    op.i32_shl,
    op.i32_add,
    ...mem(op.i32_load),
    ...set(l.q),
    ...i32c(0),
    ...set(l.tag),
    ...i32c(0),
    ...set(l.shift),
    op.block,
    VOID,
    op.loop,
    VOID,
    ...get(l.q),
    ...mem(op.i32_load8_u),
    ...set(l.b),
    ...bump(l.q, 1),
    ...get(l.tag),
    ...get(l.b),
    ...i32c(0x7f),
    op.i32_and,
    ...get(l.shift),
    op.i32_shl,
    op.i32_or,
    ...set(l.tag),
    ...bump(l.shift, 7),
    ...get(l.b),
    ...i32c(0x80),
    op.i32_and,
    op.br_if,
    0,
    op.end,
    op.end,
    ...body,
    ...bump(l.i, 1),
    ...get(l.i),
    ...get(l.n),
    op.i32_lt_u,
    op.br_if,
    0,
    op.end,
  ];
}

/** A function of a module: its signature, its locals beyond the parameters, its code. */
export interface WasmFunction {
  params: number[];
  results: number[];
  locals: number[];
  code: Code;
  /** The name it is exported under, if any. */
  export?: string;
}

function vec(items: Code[]): Code {
  return [...uleb(items.length), ...items.flat()];
}

function section(id: number, content: Code): Code {
  return [id, ...uleb(content.length), ...content];
}

function name(s: string): Code {
  return [...uleb(s.length), ...Buffer.from(s, 'utf8')];
}

/** Locals as runs of one type: (count, type) pairs. */
function localRuns(types: number[]): Code {
  const runs: Code[] = [];
  for (let i = 0; i < types.length;) {
    let j = i;
    while (j < types.length && types[j] === types[i]) j++;
    runs.push([...uleb(j - i), types[i]]);
    i = j;
  }
  return vec(runs);
}

/**
 * The binary of a module of funcs (function i is index i, for calls) and
 * one memory of one page, exported as `mem`.
 */
export function assemble(funcs: WasmFunction[]): Uint8Array {
  const bodies = funcs.map((f) => {
    const inner = [...localRuns(f.locals), ...f.code, op.end];
    return [...uleb(inner.length), ...inner];
  });
  const exported: Code[] = [[...name('mem'), 0x02, 0]];
  funcs.forEach((f, i) => {
    if (f.export) exported.push([...name(f.export), 0x00, ...uleb(i)]);
  });
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // Types, one per function.
    ...section(
      1,
      vec(
        funcs.map((f) => [
          0x60,
          ...vec(f.params.map((t) => [t])),
          ...vec(f.results.map((t) => [t])),
        ]),
      ),
    ),
    ...section(3, vec(funcs.map((_, i) => uleb(i)))),
    ...section(5, vec([[0x00, 1]])),
    ...section(7, vec(exported)),
    ...section(10, vec(bodies)),
  ]);
}

// The little of the WebAssembly API used here (the project's TypeScript
// libraries do not declare it).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};

/** A module's memory. */
export interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

/**
 * A module's instance, made on first use, and made again after a call
 * that left its memory larger than KEEP_BYTES (a memory never shrinks, so
 * one batch of long values would hold it for the life of the process).
 */
export class LazyModule<T extends { mem: WasmMemory }> {
  private instance: T | null | undefined;
  /** The compiled module, kept for new instances after a drop. */
  private module: object | null = null;

  constructor(private readonly bytes: Uint8Array) {}

  /** The instance's exports; null where WebAssembly does not run. */
  get(): T | null {
    if (this.instance === undefined) {
      try {
        this.module ??= new WebAssembly.Module(this.bytes);
        this.instance = new WebAssembly.Instance(this.module).exports as T;
      } catch {
        this.instance = null;
      }
    }
    return this.instance;
  }

  /** The instance's memory, grown to at least bytes. */
  reserve(bytes: number): ArrayBuffer {
    const mem = this.get()!.mem;
    const have = mem.buffer.byteLength;
    if (bytes > have) mem.grow(Math.ceil((bytes - have) / 65536));
    return mem.buffer;
  }

  /** Ends a call: drops an instance whose memory grew past KEEP_BYTES. */
  done(): void {
    if (this.kept() > KEEP_BYTES) this.instance = undefined;
  }

  /** The bytes of memory the instance holds (0: none). */
  kept(): number {
    return this.instance ? this.instance.mem.buffer.byteLength : 0;
  }
}

/** The most memory a module keeps between calls. */
export const KEEP_BYTES = 16 << 20;
