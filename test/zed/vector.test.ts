// Dictionaries of columns: equal values (tagged bytes and type) share a
// code, codes count up in order of first appearance, and find() answers
// for every value, across the table's growth; where asked, only for
// columns of few values.
// Numbers of float columns are read as the decoder reads them.

import { TypeFloat16, TypeFloat32, TypeFloat64 } from '../../src/zed/types';
import { buildDict, buildDictIfFew, Column, ColumnData, tagOffsets } from '../../src/zed/vector';

/** Tagged values end to end: null (undefined) or the bytes of a string. */
function column(values: (string | undefined)[]): ColumnData {
  const parts: Buffer[] = [];
  for (const v of values) {
    if (v === undefined) parts.push(Buffer.from([0]));
    else {
      const body = Buffer.from(v);
      // Short values only: a one-byte tag.
      parts.push(Buffer.concat([Buffer.from([body.length + 1]), body]));
    }
  }
  const buf = Buffer.concat(parts);
  return new ColumnData(buf, tagOffsets(buf, values.length));
}

function tagged(v: string): Uint8Array {
  return Buffer.concat([Buffer.from([Buffer.byteLength(v) + 1]), Buffer.from(v)]);
}

test('a dictionary of thousands of values across two types, nulls among them', () => {
  // Values repeat in a scrambled order; every 97th row is null; rows of
  // type index 1 hold the same bytes as rows of type index 0 (distinct values).
  const n = 20000;
  const values: (string | undefined)[] = [];
  const tix = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    values.push(i % 97 === 0 ? undefined : `v${(i * 7919) % 3001}`);
    tix[i] = (i >> 3) & 1;
  }
  const d = buildDict(column(values), tix);
  // The expected codes: by (type, value), numbered on first appearance.
  const want = new Map<string, number>();
  const firstRow: number[] = [];
  for (let i = 0; i < n; i++) {
    const key = `${tix[i]}:${values[i] ?? '<null>'}`;
    if (!want.has(key)) {
      want.set(key, want.size);
      firstRow.push(i);
    }
  }
  expect(d.count).toBe(want.size);
  expect(want.size).toBeGreaterThan(5000);
  const codes = values.map((v, i) => want.get(`${tix[i]}:${v ?? '<null>'}`));
  expect(Array.from(d.codes)).toEqual(codes);
  expect(Array.from(d.rows)).toEqual(firstRow);
  const found = [...want.keys()].map((key) => {
    const [t, v] = [Number(key[0]), key.slice(2)];
    return d.find(v === '<null>' ? new Uint8Array([0]) : tagged(v), t);
  });
  expect(found).toEqual([...want.values()]);
  expect(d.find(tagged('absent'), 0)).toBe(-1);
  expect(d.find(tagged('v1'), 2)).toBe(-1);
});

test('a dictionary of one type (no type index)', () => {
  const values = ['a', 'b', 'a', '', 'bb', 'b', '', 'a'];
  const d = buildDict(column(values), null);
  expect(Array.from(d.codes)).toEqual([0, 1, 0, 2, 3, 1, 2, 0]);
  expect(Array.from(d.rows)).toEqual([0, 1, 3, 4]);
  expect(d.find(tagged('bb'), 0)).toBe(3);
  expect(d.find(tagged('c'), 0)).toBe(-1);
});

test('runs of a value share the code of the row before, but not across types or bytes', () => {
  const values = ['a', 'a', 'a', 'b', 'b', 'a', 'ab', 'ba', 'ba', undefined, undefined, 'a'];
  const tix = new Uint8Array([0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0]);
  const d = buildDict(column(values), tix);
  expect(Array.from(d.codes)).toEqual([0, 0, 1, 2, 2, 0, 3, 4, 4, 5, 6, 0]);
  expect(Array.from(d.rows)).toEqual([0, 2, 3, 6, 7, 9, 10]);
});

test('a dictionary only where the values are few', () => {
  // A quarter of 4096 rows distinct: a dictionary, the same as buildDict's.
  const few = Array.from({ length: 4096 }, (_, i) => `v${(i * 31) % 1000}`);
  const d = buildDictIfFew(column(few), null)!;
  const all = buildDict(column(few), null);
  expect(d.count).toBe(1000);
  expect(Array.from(d.codes)).toEqual(Array.from(all.codes));
  expect(Array.from(d.rows)).toEqual(Array.from(all.rows));
  // Past the first 1024 rows, more than a quarter of them distinct: none.
  const many = Array.from({ length: 4096 }, (_, i) => `v${(i * 31) % 1200}`);
  expect(buildDictIfFew(column(many), null)).toBeNull();
  expect(buildDict(column(many), null).count).toBe(1200);
});

describe('numbers of a float column', () => {
  /** A column of tagged float bodies (undefined: null) of a byte width. */
  function floats(values: (number | undefined)[], width: 8 | 4 | 2): ColumnData {
    const parts = values.map((v) => {
      if (v === undefined) return Buffer.from([0]);
      const body = Buffer.alloc(width);
      if (width === 8) body.writeDoubleLE(v);
      else if (width === 4) body.writeFloatLE(v);
      else body.writeUInt16LE(v); // the float16 bits themselves
      return Buffer.concat([Buffer.from([width + 1]), body]);
    });
    const buf = Buffer.concat([Buffer.from('pad'), ...parts]).subarray(3);
    return new ColumnData(buf, tagOffsets(buf, values.length));
  }

  test('float64 values are read in place, nulls marked, at any offset of the buffer', () => {
    const values = [
      1.5,
      undefined,
      -0,
      NaN,
      Infinity,
      -Infinity,
      5e-324,
      1.7976931348623157e308,
      0.1,
    ];
    const nums = Column.uniform(floats(values, 8), TypeFloat64).numbers()!;
    expect(Array.from(nums.vals).map((v, i) => (values[i] === undefined ? 'null' : v))).toEqual(
      values.map((v) => (v === undefined ? 'null' : v)),
    );
    expect(Object.is(nums.vals[2], -0)).toBe(true);
    expect(Array.from(nums.nulls!)).toEqual(values.map((v) => (v === undefined ? 1 : 0)));
  });

  test('float32 and float16 values as before', () => {
    const f32 = Column.uniform(floats([0.5, undefined, -2.25], 4), TypeFloat32).numbers()!;
    expect(Array.from(f32.vals)).toEqual([0.5, 0, -2.25]);
    // 0x3c00 is 1 and 0xc000 is -2 in float16.
    const f16 = Column.uniform(floats([0x3c00, 0xc000], 2), TypeFloat16).numbers()!;
    expect(Array.from(f16.vals)).toEqual([1, -2]);
    expect(f16.nulls).toBeNull();
  });
});
