// The load sort: pool-key order, stable, for every kind of key.

import fc from 'fast-check';
import { KeyGetter, keyCompare } from '../../src/lake/keys';
import { sortByKey } from '../../src/lake/writer';
import {
  Builder,
  encodeFloat64,
  encodeInt,
  encodeUint,
  TypeContext,
  TypeFloat64,
  TypeInt64,
  TypeString,
  TypeTime,
  TypeUint64,
  Type,
  Value,
} from '../../src/zed';

const ctx = new TypeContext();

/** A key of some type (or none), as [type, body] (body null: a null key; type null: no key field). */
type Key = [Type, Buffer | null] | null;

const keyArb: fc.Arbitrary<Key> = fc.oneof(
  fc.constant(null),
  fc.constant([TypeInt64, null] as Key),
  fc.integer({ min: -5, max: 5 }).map((i) => [TypeInt64, encodeInt(i)] as Key),
  // Big values that differ below a double's precision.
  fc
    .bigInt({ min: 2n ** 62n - 4n, max: 2n ** 62n + 4n })
    .map((i) => [TypeInt64, encodeInt(i)] as Key),
  fc
    .bigInt({ min: -(2n ** 62n) - 4n, max: -(2n ** 62n) + 4n })
    .map((i) => [TypeTime, encodeInt(i)] as Key),
  fc
    .bigInt({ min: 2n ** 64n - 5n, max: 2n ** 64n - 1n })
    .map((i) => [TypeUint64, encodeUint(i)] as Key),
  fc.double({ noNaN: true }).map((f) => [TypeFloat64, encodeFloat64(f)] as Key),
  fc.constantFrom('a', 'b', 'ab', '').map((s) => [TypeString, Buffer.from(s)] as Key),
);

function record(key: Key, i: number): Value {
  const b = new Builder();
  if (key === null) {
    const t = ctx.lookupTypeRecord([{ name: 'i', type: TypeInt64 }]);
    b.appendBytes(encodeInt(i));
    return new Value(t, b.copy(), 0, b.len);
  }
  const t = ctx.lookupTypeRecord([
    { name: 'k', type: key[0] },
    { name: 'i', type: TypeInt64 },
  ]);
  b.appendBytes(key[1]);
  b.appendBytes(encodeInt(i));
  return new Value(t, b.copy(), 0, b.len);
}

for (const order of ['asc', 'desc'] as const) {
  test(`sorts like a stable sort by the total order (${order})`, () => {
    const getter = new KeyGetter(['k']);
    const kc = keyCompare(order);
    fc.assert(
      fc.property(fc.array(keyArb, { maxLength: 300 }), (keys) => {
        const vals = keys.map(record);
        const want = vals
          .map((v, i) => ({ v, i, k: getter.get(v, Value.null()).copy() }))
          .sort((a, b) => kc(a.k, b.k) || a.i - b.i)
          .map((x) => x.v);
        const got = sortByKey(vals, getter, order);
        expect(got).toEqual(want);
        // And the order is the pool's.
        for (let i = 1; i < got.length; i++) {
          const a = getter.get(got[i - 1], Value.null()).copy();
          const b = getter.get(got[i], Value.null());
          expect(kc(a, b)).toBeLessThanOrEqual(0);
        }
      }),
      { numRuns: 300 },
    );
  });
}

test('numbers of different types compare numerically, nulls last', () => {
  const getter = new KeyGetter(['k']);
  const vals = [
    record([TypeFloat64, encodeFloat64(2.5)], 0),
    record([TypeInt64, encodeInt(2)], 1),
    record([TypeUint64, encodeUint(3)], 2),
    record(null, 3),
    record([TypeInt64, encodeInt(-1)], 4),
  ];
  const got = sortByKey(vals, getter, 'asc').map((v) => v.buf[v.len - 1] >> 1);
  expect(got).toEqual([4, 1, 0, 2, 3]);
});
