// Sample records of most Arrow-mappable types, and a mutator for fuzzing.

import { TypeContext } from '../../../src/zed/context';
import {
  TypeBool,
  TypeBytes,
  TypeFloat64,
  TypeInt32,
  TypeInt64,
  TypeString,
  TypeTime,
  TypeUint64,
} from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { Builder } from '../../../src/zed/zcode';
import { BufferSink } from '../../../src/formats/io';
import { ArrowStreamWriter } from '../../../src/formats/arrow/writer';

export function sampleRecords(ctx: TypeContext, n: number, withUnion = true): Value[] {
  const inner = ctx.lookupTypeRecord([
    { name: 'x', type: TypeInt32 },
    { name: 'y', type: ctx.lookupTypeArray(TypeString) },
  ]);
  const t = ctx.lookupTypeRecord([
    { name: 'i', type: TypeInt64 },
    { name: 'u', type: TypeUint64 },
    { name: 's', type: TypeString },
    { name: 'b', type: TypeBool },
    { name: 'f', type: TypeFloat64 },
    { name: 'by', type: TypeBytes },
    { name: 't', type: TypeTime },
    { name: 'r', type: inner },
    { name: 'm', type: ctx.lookupTypeMap(TypeString, TypeInt64) },
    ...(withUnion ? [{ name: 'un', type: ctx.lookupTypeUnion([TypeInt64, TypeString]) }] : []),
  ]);
  const out: Value[] = [];
  for (let i = 0; i < n; i++) {
    const b = new Builder();
    b.appendInt(BigInt(i) * 123456789012345n);
    b.appendUint(2n ** 64n - 1n - BigInt(i));
    if (i % 4 === 0) b.appendNull();
    else b.appendBytes(Buffer.from(`str${i}`));
    b.appendBytes(Buffer.from([i & 1]));
    b.appendBytes(Buffer.from(new Float64Array([i / 3]).buffer));
    b.appendBytes(Buffer.from([i, i + 1]));
    b.appendInt(1_700_000_000_000_000_000n + BigInt(i));
    b.beginContainer();
    b.appendInt(-i);
    b.beginContainer();
    for (let k = 0; k < i % 3; k++) b.appendBytes(Buffer.from(`e${k}`));
    b.endContainer();
    b.endContainer();
    b.beginContainer();
    b.appendBytes(Buffer.from('k'));
    b.appendInt(i);
    b.endContainer();
    if (withUnion) {
      b.beginContainer();
      b.appendInt(i % 2);
      if (i % 2) b.appendBytes(Buffer.from('u'));
      else b.appendInt(i);
      b.endContainer();
    }
    out.push(new Value(t, b.copy(), 0, b.len));
  }
  return out;
}

export async function writeArrows(vals: Value[]): Promise<Buffer> {
  const sink = new BufferSink();
  const w = new ArrowStreamWriter(sink, () => '');
  await w.write(vals);
  await w.close();
  return sink.bytes();
}

/** Deterministic pseudo-random mutations of good: flips, overwrites, truncations, splices. */
export function* mutations(good: Buffer, count: number, seed: number): Generator<Buffer> {
  let s = seed >>> 0;
  const rand = (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
  for (let i = 0; i < count; i++) {
    const b = Buffer.from(good);
    switch (rand(4)) {
      case 0:
        for (let k = 0, n = 1 + rand(8); k < n; k++) b[rand(b.length)] ^= 1 << rand(8);
        yield b;
        break;
      case 1:
        for (let k = 0, n = 1 + rand(4); k < n; k++)
          b[rand(b.length)] = [0, 0xff, 0x7f, 0x80][rand(4)];
        yield b;
        break;
      case 2:
        yield b.subarray(0, rand(b.length));
        break;
      default: {
        const at = rand(b.length);
        const len = 1 + rand(16);
        b.writeInt32LE((rand(2) ? 1 : -1) * rand(2 ** 31 - 1), Math.min(at, b.length - 4));
        yield b.subarray(0, Math.max(0, b.length - (len % 3)));
      }
    }
  }
}

/** Sample records Parquet can hold (no union column). */
export function sampleParquetRecords(ctx: TypeContext, n: number): Value[] {
  return sampleRecords(ctx, n, false);
}
