// The primitive casters take quick paths (numbers instead of bigints,
// digits written in place); on random values of every numeric type and on
// numeric strings they must give what the exact conversions give.

import fc from 'fast-check';
import { formatValue } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed/context';
import { newFloat64, newInt, newString, newUint } from '../../../src/zed/make';
import { decodeIntBig, decodeUintBig } from '../../../src/zed/primitive';
import {
  Type,
  TypeDuration,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  TypeString,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeUint8,
} from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { primitiveCaster } from '../../../src/query/expr/cast';
import { toInt, toUint } from '../../../src/query/expr/coerce';
import { isError } from '../../../src/query/expr/errors';
import { Scratch } from '../../../src/query/expr/scratch';

const zctx = new TypeContext();
const out = new Scratch();

const signed: [Type, bigint, bigint][] = [
  [TypeInt8, -128n, 127n],
  [TypeInt16, -32768n, 32767n],
  [TypeInt32, -(2n ** 31n), 2n ** 31n - 1n],
  [TypeInt64, -(2n ** 63n), 2n ** 63n - 1n],
];
const unsigned: [Type, bigint][] = [
  [TypeUint8, 255n],
  [TypeUint16, 65535n],
  [TypeUint32, 2n ** 32n - 1n],
  [TypeUint64, 2n ** 64n - 1n],
];

const inputs = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((v) => newInt(TypeInt64, v)),
  fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }).map((v) => newInt(TypeDuration, v)),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((v) => newUint(TypeUint64, v)),
  fc.double({ noNaN: true }).map((f) => newFloat64(f)),
  fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }).map((v) => newString(String(v))),
  fc.stringMatching(/^[+-]?[0-9]{0,16}$/).map((s) => newString(s)),
);

test('integer casters agree with the exact conversions', () => {
  fc.assert(
    fc.property(inputs, (v: Value) => {
      for (const [t, lo, hi] of signed) {
        const r = primitiveCaster(zctx, t)!(v, out);
        const want = toInt(v);
        if (want === undefined || want < lo || want > hi) expect(isError(r)).toBe(true);
        else expect(decodeIntBig(r.buf, r.off, r.len)).toBe(want);
      }
      for (const [t, hi] of unsigned) {
        const r = primitiveCaster(zctx, t)!(v, out);
        const want = toUint(v);
        if (want === undefined || want > hi) expect(isError(r)).toBe(true);
        else expect(decodeUintBig(r.buf, r.off, r.len)).toBe(want);
      }
    }),
    { numRuns: 3000 },
  );
});

test('string of an int64 is its ZSON text', () => {
  const cast = primitiveCaster(zctx, TypeString)!;
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
      const v = newInt(TypeInt64, n);
      const r = cast(v, out);
      expect(r.type).toBe(TypeString);
      expect(r.buf.toString('utf8', r.off, r.off + r.len)).toBe(formatValue(v));
    }),
    { numRuns: 3000 },
  );
});
