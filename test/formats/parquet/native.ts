// Zed-native rows (types Parquet has no direct name for) for the DuckDB
// interop test, with the rows DuckDB should return for them.

import { TypeContext } from '../../../src/zed/context';
import { TypeInt64, TypeIP, TypeString, TypeTime, TypeUint8 } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { Builder } from '../../../src/zed/zcode';
import { Canon } from './canon';

export function nativeRows(ctx: TypeContext): { vals: Value[]; expected: Canon[] } {
  const rec = ctx.lookupTypeRecord([
    { name: 'a', type: TypeInt64 },
    { name: 'b', type: ctx.lookupTypeArray(TypeString) },
  ]);
  const t = ctx.lookupTypeRecord([
    { name: 'u8', type: TypeUint8 },
    { name: 'i64', type: TypeInt64 },
    { name: 't', type: TypeTime },
    { name: 's', type: TypeString },
    { name: 'ip', type: TypeIP },
    { name: 'rec', type: rec },
  ]);
  const vals: Value[] = [];
  const expected: Canon[] = [];
  for (let i = 0; i < 50; i++) {
    const b = new Builder();
    const big = -(2n ** 62n) + BigInt(i);
    const ns = 1_700_000_000_123_456_000n + BigInt(i) * 1000n;
    b.appendUint(i);
    b.appendInt(big);
    b.appendInt(ns);
    b.appendBytes(Buffer.from(`s${i}`));
    if (i % 5 === 0) b.appendNull();
    else b.appendBytes(Buffer.from([10, 0, 0, i]));
    if (i % 7 === 0) b.appendNull();
    else {
      b.beginContainer();
      b.appendInt(i);
      b.beginContainer();
      b.appendBytes(Buffer.from('x'));
      b.appendNull();
      b.endContainer();
      b.endContainer();
    }
    vals.push(new Value(t, b.copy(), 0, b.len));
    expected.push({
      u8: BigInt(i),
      i64: big,
      t: ns / 1000n,
      s: `s${i}`,
      ip: i % 5 === 0 ? null : `10.0.0.${i}`,
      rec: i % 7 === 0 ? null : { a: BigInt(i), b: ['x', null] },
    });
  }
  return { vals, expected };
}
