// The least-recently-used cache: by entries, or by the entries' weight.

import { LRU } from '../../src/lake/lru';

test('by entries: the least recently used goes first', () => {
  const c = new LRU<string, number>(2);
  c.set('a', 1);
  c.set('b', 2);
  expect(c.get('a')).toBe(1);
  c.set('c', 3);
  expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([1, undefined, 3]);
  c.set('c', 4);
  expect(c.size).toBe(2);
});

test('by weight: entries go, eldest first, until the rest fit; one too heavy is not kept', () => {
  const c = new LRU<string, number[]>(10, (v) => v.length);
  c.set('a', [1, 2, 3, 4]);
  c.set('b', [1, 2, 3, 4]);
  c.get('a');
  c.set('c', [1, 2, 3]);
  // 11 > 10: b (least recently used) goes.
  expect([c.get('a'), c.get('b'), c.get('c')].map((v) => v?.length)).toEqual([4, undefined, 3]);
  c.set('big', new Array(11).fill(0));
  expect(c.get('big')).toBeUndefined();
  expect(c.size).toBe(2);
  // Replacing and deleting give their weight back.
  c.set('a', [1]);
  c.delete('c');
  c.set('d', new Array(9).fill(0));
  expect([c.get('a'), c.get('d')].map((v) => v?.length)).toEqual([1, 9]);
  c.deletePrefix('d');
  c.set('e', new Array(9).fill(0));
  expect([c.get('a'), c.get('e')].map((v) => v?.length)).toEqual([1, 9]);
});

test("an entry's weight is the one it had when set, and the key may weigh", () => {
  const c = new LRU<string, number[]>(10, (v, k) => v.length + k.length);
  const a = [1, 2];
  c.set('a', a); // 3
  a.push(3, 4, 5, 6, 7, 8); // heavier now, but counted as 3
  c.set('bb', [1, 2, 3]); // 5: 8 in all
  expect([c.get('a')?.length, c.get('bb')?.length]).toEqual([8, 3]);
  c.set('c', [1, 2]); // 3: 11 > 10, so the eldest (a) goes
  expect([c.get('a'), c.get('bb')?.length, c.get('c')?.length]).toEqual([undefined, 3, 2]);
});
