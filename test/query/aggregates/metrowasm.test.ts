// dcount's codes hashed in WebAssembly (metrowasm.ts) against codeOf, the
// JavaScript definition: every length through several 32-byte rounds and
// each tail, null values, tags of more than one byte, values of one- and
// no-byte type prefixes, starts in any order, and a batch larger than the
// module's first page of memory.

import { codeOf } from '../../../src/query/aggregates/dcount';
import {
  keptBytes,
  MAX_TYPE_ID,
  sparseCodesOf,
  wasmCodes,
} from '../../../src/query/aggregates/metrowasm';
import { KEEP_BYTES } from '../../../src/zed/wasm';
import { TypeContext } from '../../../src/zed/context';
import { Type, TypeIP, TypeString, TypeUint8 } from '../../../src/zed/types';
import { EMPTY, Value } from '../../../src/zed/value';

/** Tagged values end to end after `pad` bytes: the buffer and each value's tag offset. */
function tagged(vals: (Buffer | null)[], pad: number): { buf: Buffer; starts: Int32Array } {
  const parts: Buffer[] = [Buffer.alloc(pad, 0x5a)];
  const starts = new Int32Array(vals.length);
  let pos = pad;
  vals.forEach((v, i) => {
    starts[i] = pos;
    const tag: number[] = [];
    let t = v === null ? 0 : v.length + 1;
    while (t >= 0x80) {
      tag.push((t & 0x7f) | 0x80);
      t >>>= 7;
    }
    tag.push(t);
    parts.push(Buffer.from(tag));
    if (v !== null) parts.push(v);
    pos += tag.length + (v?.length ?? 0);
  });
  return { buf: Buffer.concat(parts), starts };
}

/** Bytes from a fixed seed, so a failure repeats. */
function bytes(len: number, seed: number): Buffer {
  const b = Buffer.alloc(len);
  let x = seed * 2654435761;
  for (let i = 0; i < len; i++) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    b[i] = x >>> 24;
  }
  return b;
}

function expected(type: Type, v: Buffer | null): number {
  return codeOf(v === null ? new Value(type, EMPTY, 0, -1) : new Value(type, v, 0, v.length));
}

function codes(type: Type, vals: (Buffer | null)[], pad = 0): number[] {
  const { buf, starts } = tagged(vals, pad);
  const out = new Uint32Array(vals.length);
  sparseCodesOf(buf, pad, buf.length, starts, vals.length, type.under.id, out);
  return [...out];
}

describe('dcount codes in WebAssembly', () => {
  test('the module runs on Node', () => {
    expect(wasmCodes(TypeString)).toBe(true);
  });

  test.each([
    ['string', TypeString],
    ['uint8 (no type prefix)', TypeUint8],
    ['ip', TypeIP],
  ])('match codeOf for every length to 300 and null (%s)', (_, type) => {
    const vals: (Buffer | null)[] = [null];
    for (let len = 0; len <= 300; len++) vals.push(bytes(len, len + 1));
    vals.push(null);
    expect(codes(type, vals, 3)).toEqual(vals.map((v) => expected(type, v)));
  });

  test('match codeOf on values whose code holds a run of zeros', () => {
    // About one hash in 2048 has the 11 bits below its register index
    // zero, and its code then holds the run of zeros that follows.
    const vals: Buffer[] = [];
    for (let seed = 1; vals.length < 12; seed++) {
      const v = bytes(4 + (seed % 30), seed);
      if ((expected(TypeString, v) & 1) === 1) vals.push(v);
    }
    expect(codes(TypeString, vals)).toEqual(vals.map((v) => expected(TypeString, v)));
  });

  test('the same codes whatever order the starts come in, and for a start given twice', () => {
    const vals = Array.from({ length: 50 }, (_, i) => bytes(i % 40, i));
    const { buf, starts } = tagged(vals, 0);
    const order = Int32Array.from([...starts].reverse().flatMap((s) => [s, s]));
    const out = new Uint32Array(order.length);
    sparseCodesOf(buf, 0, buf.length, order, order.length, TypeString.id, out);
    const want = vals.map((v) => expected(TypeString, v)).reverse();
    expect([...out]).toEqual(want.flatMap((c) => [c, c]));
  });

  test('type IDs up to MAX_TYPE_ID, whose prefix is one byte', () => {
    const vals = [null, bytes(0, 1), bytes(9, 2), bytes(40, 3)];
    for (const id of [1, 63, 64, 127]) {
      // A type with that ID (codeOf reads only the type's underlying ID).
      const type = { id, under: { id } } as unknown as Type;
      expect({ id, codes: codes(type, vals) }).toEqual({
        id,
        codes: vals.map((v) => expected(type, v)),
      });
    }
    expect(MAX_TYPE_ID).toBe(127);
    expect(wasmCodes({ id: 128, under: { id: 128 } } as unknown as Type)).toBe(false);
  });

  test("a named type's values hash as its underlying type's", () => {
    const named = new TypeContext().lookupTypeNamed('addr', TypeString);
    const vals = [null, bytes(11, 4), bytes(12, 5)];
    expect(codes(named, vals)).toEqual(vals.map((v) => expected(TypeString, v)));
  });

  test('a batch larger than the first page of memory', () => {
    const vals = Array.from({ length: 20000 }, (_, i) => bytes(5 + (i % 20), i));
    const got = codes(TypeString, vals);
    expect(got.length).toBe(vals.length);
    for (let i = 0; i < vals.length; i += 97) expect(got[i]).toBe(expected(TypeString, vals[i]));
    expect(got[vals.length - 1]).toBe(expected(TypeString, vals[vals.length - 1]));
    // And a small batch after it, with the memory grown.
    expect(codes(TypeString, [bytes(12, 7)])).toEqual([expected(TypeString, bytes(12, 7))]);
  });

  test('a module grown past KEEP_BYTES by long values is not kept', () => {
    const long = Buffer.alloc(KEEP_BYTES + 1000, 7);
    expect(codes(TypeString, [bytes(10, 1), long])[0]).toBe(expected(TypeString, bytes(10, 1)));
    expect(keptBytes()).toBe(0);
    expect(codes(TypeString, [bytes(10, 2)])).toEqual([expected(TypeString, bytes(10, 2))]);
    expect(keptBytes()).toBeGreaterThan(0);
    expect(keptBytes()).toBeLessThanOrEqual(KEEP_BYTES);
  });

  test('an empty batch', () => {
    expect(codes(TypeString, [])).toEqual([]);
  });
});
