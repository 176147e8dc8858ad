// The load sort: pool-key order, stable, for every kind of key, in the
// reference's algorithm (Go's stable sort) where the order is not transitive.

import fc from 'fast-check';
import { KeyGetter, keyCompare } from '../../src/lake/keys';
import { sortByKey } from '../../src/lake/writer';
import { goStableSort } from '../../src/zed/stable';
import { formatValue, parseValues } from '../../src/formats/zson';
import {
  Builder,
  encodeFloat64,
  encodeInt,
  encodeUint,
  TypeContext,
  TypeFloat64,
  TypeInt64,
  TypeInt8,
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
  test(`sorts stably in the reference's algorithm (${order})`, () => {
    const getter = new KeyGetter(['k']);
    const kc = keyCompare(order);
    fc.assert(
      fc.property(fc.array(keyArb, { maxLength: 300 }), (keys) => {
        const vals = keys.map(record);
        const ks = vals.map((v) => getter.get(v, Value.null()).copy());
        // The reference's algorithm on the pool's order: any stable sort
        // gives its answer where the order is transitive, only Go's where
        // it is not (numbers beside strings). Equal keys keep their order.
        const idx = vals.map((_, i) => i);
        goStableSort(idx, (i, j) => kc(ks[i], ks[j]) < 0);
        const want = idx.map((i) => vals[i]);
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

test('int8 keys beside a missing key compare by their bytes, as the reference', () => {
  // A missing key is a null of type null: not every key is an integer, so
  // the reference compares the int8s by their bytes (1, -1, 2, -2: the sign
  // is bit 0), nulls last.
  const getter = new KeyGetter(['k']);
  const vals = [2, -2, 1, -1].map((k, i) => record([TypeInt8, encodeInt(k)], i));
  vals.push(record(null, 4));
  const got = sortByKey(vals, getter, 'asc').map((v) => v.buf[v.len - 1] >> 1);
  expect(got).toEqual([2, 3, 0, 1, 4]);
  // All int8 (the reference's native path): by value.
  const native = sortByKey(vals.slice(0, 4), getter, 'asc').map((v) => v.buf[v.len - 1] >> 1);
  expect(native).toEqual([1, 3, 2, 0]);
});

test("input in order pair by pair is still sorted by Go's algorithm where the order cycles", () => {
  // 2 < 2.5 by value, 2.5 < "x"(=g) and "x"(=g) < 2 by type name (float64 <
  // g < int64): every neighbour is in order, yet Go's stable sort, which
  // compares far apart values too, moves some, and so does the reference.
  const getter = new KeyGetter(['k']);
  const named = ctx.lookupTypeNamed('g', TypeString);
  const cycle: Key[] = [
    [TypeInt64, encodeInt(2)],
    [TypeFloat64, encodeFloat64(2.5)],
    [named, Buffer.from('x')],
  ];
  const vals = Array.from({ length: 45 }, (_, i) => record(cycle[i % 3], i));
  const kc = keyCompare('asc');
  const ks = vals.map((v) => getter.get(v, Value.null()).copy());
  const idx = vals.map((_, i) => i);
  goStableSort(idx, (i, j) => kc(ks[i], ks[j]) < 0);
  expect(idx).not.toEqual(vals.map((_, i) => i));
  expect(sortByKey(vals, getter, 'asc')).toEqual(idx.map((i) => vals[i]));
});

test('a NaN key takes the place the reference gives it, not a wall the numbers stop at', () => {
  // NaN equals every number; the reference breaks such ties by the values'
  // bytes, so the numbers still sort around it (an object with its keys
  // out of order would have a wrong span, and range queries miss rows).
  const getter = new KeyGetter(['k']);
  const keys = (s: string, order: 'asc' | 'desc') =>
    sortByKey(parseValues(ctx, s), getter, order)
      .map((v) => formatValue(v))
      .join(' ');
  expect(keys('{k:2.5} {k:2} {k:NaN} {k:1} {k:0.5}', 'asc')).toBe(
    '{k:0.5} {k:1} {k:2} {k:2.5} {k:NaN}',
  );
  expect(keys('{k:3} {k:NaN} {k:1} {k:2}', 'asc')).toBe('{k:1} {k:2} {k:3} {k:NaN}');
  expect(keys('{k:3} {k:NaN} {k:1} {k:2}', 'desc')).toBe('{k:NaN} {k:3} {k:2} {k:1}');
});
