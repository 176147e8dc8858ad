// The summarize group table against a Map of the same keys: lookups that
// must compare key bytes (every key given one hash, so each probe meets
// other keys), keys that differ in one byte at any position and at any
// offset in their buffers, and the miss-then-add path (addMissed) with and
// without the table changing in between.

import { GroupTable } from '../../../src/query/runtime/ops/summarize-table';
import { hashBytes } from '../../../src/zed/hash';

/** A deterministic PRNG (mulberry32), so a failure repeats. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** key's bytes at offset `at` of a new buffer with other bytes around them. */
function placed(key: Buffer, at: number): Buffer {
  const b = Buffer.alloc(at + key.length + 7, 0xa5);
  key.copy(b, at);
  return b;
}

/** Keys of lengths 0 to 40 and, for each, keys that differ from it in exactly one byte. */
function keys(rand: () => number): Buffer[] {
  const out: Buffer[] = [];
  for (let len = 0; len <= 40; len++) {
    const base = Buffer.alloc(len);
    for (let i = 0; i < len; i++) base[i] = Math.floor(rand() * 256);
    out.push(base);
    for (let i = 0; i < len; i++) {
      const k = Buffer.from(base);
      k[i] ^= 1 + Math.floor(rand() * 255);
      out.push(k);
    }
  }
  return out;
}

describe('GroupTable', () => {
  test.each([
    ['one hash for every key', () => 12345],
    ['each key its own hash', (k: Buffer) => hashBytes(k, 0, k.length, 7)],
  ])('finds each key it was given, and no other (%s)', (_, hashOf) => {
    const rand = rng(1);
    const all = keys(rand);
    const table = new GroupTable(16);
    const model = new Map<string, number>();
    // Insert every other key, each from a buffer of its own at an odd
    // offset (the four-byte compares read unaligned), then look every key
    // up from other buffers and offsets.
    all.forEach((k, i) => {
      if (i % 2 === 1) return;
      const b = placed(k, 1 + (i % 5));
      const g = table.find(b, 1 + (i % 5), k.length, 3, hashOf(k), true);
      model.set(k.toString('hex'), g);
    });
    expect(table.size).toBe(model.size);
    all.forEach((k, i) => {
      const at = (i * 7) % 11;
      const got = table.find(placed(k, at), at, k.length, 3, hashOf(k), false);
      expect(got).toBe(model.get(k.toString('hex')) ?? -1);
      // The same bytes with another type vector are another key.
      expect(table.find(placed(k, at), at, k.length, 4, hashOf(k), false)).toBe(-1);
    });
  });

  test('a null key is apart from the empty key', () => {
    const table = new GroupTable();
    const empty = Buffer.alloc(0);
    const g = table.find(empty, 0, 0, 1, 9, true);
    expect(table.find(empty, 0, -1, 1, 9, false)).toBe(-1);
    const n = table.find(empty, 0, -1, 1, 9, true);
    expect(n).not.toBe(g);
    expect(table.find(empty, 0, 0, 1, 9, false)).toBe(g);
  });

  test('addMissed adds the key a find just missed, as find would', () => {
    const rand = rng(2);
    const all = keys(rand);
    const table = new GroupTable(16);
    /** Each key's group and hash, by its hex. */
    const model = new Map<string, { g: number; h: number }>();
    const add = (k: Buffer, g: number, h: number) => {
      expect(model.has(k.toString('hex'))).toBe(false);
      model.set(k.toString('hex'), { g, h });
    };
    for (let round = 0; round < 3; round++) {
      all.forEach((k, i) => {
        // Few hashes, so that misses end in runs of other keys' slots.
        const h = i % 13;
        const at = (i + round) % 6;
        const g = table.find(placed(k, at), at, k.length, 0, h, false);
        if (g >= 0) {
          expect(g).toBe(model.get(k.toString('hex'))?.g);
          return;
        }
        const r = rand();
        if (r < 0.3) {
          // Another key of the same hash goes in first, in the slot the
          // miss ended at (by find or by addMissed after its own miss):
          // addMissed must find a slot afresh.
          const other = Buffer.concat([k, Buffer.from([round, i & 0xff, 0xee])]);
          expect(table.find(other, 0, other.length, 0, h, false)).toBe(-1);
          const og =
            r < 0.15
              ? table.find(other, 0, other.length, 0, h, true)
              : table.addMissed(other, 0, other.length, 0, h);
          add(other, og, h);
        }
        add(k, table.addMissed(placed(k, at), at, k.length, 0, h), h);
      });
    }
    expect(table.size).toBe(model.size);
    // Every key is found, at its own group, after all the growing.
    for (const [hex, { g, h }] of model) {
      const k = Buffer.from(hex, 'hex');
      expect(table.find(placed(k, 3), 3, k.length, 0, h, false)).toBe(g);
    }
    // Groups are numbered in order of first appearance.
    const groups = [...model.values()].map((e) => e.g).sort((a, b) => a - b);
    expect(groups).toEqual(groups.map((_, i) => i));
  });

  test('addMissed of a key of another hash than the miss finds its own slot', () => {
    const table = new GroupTable(16);
    for (let i = 0; i < 8; i++) table.find(Buffer.from([i]), 0, 1, 0, i * 3, true);
    const a = Buffer.from('a');
    const b = Buffer.from('b');
    expect(table.find(a, 0, 1, 0, 1, false)).toBe(-1);
    const g = table.addMissed(b, 0, 1, 0, 7);
    expect(table.find(b, 0, 1, 0, 7, false)).toBe(g);
    expect(table.find(a, 0, 1, 0, 1, false)).toBe(-1);
  });

  test("keys that end at their buffer's end, from buffers used in turn", () => {
    const rand = rng(3);
    const all = keys(rand).filter((k) => k.length >= 4);
    const table = new GroupTable(16);
    all.forEach((k, i) => {
      if (i % 2 === 0) table.find(k, 0, k.length, 0, 5, true);
    });
    // Each key alone in its buffer (no bytes after it), and the same keys
    // read from two buffers used in turn, then from a third.
    const a = Buffer.concat(all);
    const b = Buffer.concat([Buffer.alloc(1), ...all]);
    const c = Buffer.concat([Buffer.alloc(2), ...all]);
    let at = 0;
    all.forEach((k, i) => {
      const want = i % 2 === 0 ? Math.floor(i / 2) : -1;
      expect(table.find(Buffer.from(k), 0, k.length, 0, 5, false)).toBe(want);
      expect(table.find(i % 2 ? a : b, at + (i % 2 ? 0 : 1), k.length, 0, 5, false)).toBe(want);
      expect(table.find(c, at + 2, k.length, 0, 5, false)).toBe(want);
      expect(table.find(a, at, k.length, 0, 5, false)).toBe(want);
      at += k.length;
    });
  });

  test('compact keeps groups findable, renumbered in order', () => {
    const table = new GroupTable(16);
    const key = (i: number) => Buffer.from(`key-${i}-${'x'.repeat(i % 9)}`);
    for (let i = 0; i < 300; i++) table.find(key(i), 0, key(i).length, i % 3, i % 17, true);
    const kept = table.compact((g) => g % 4 !== 1);
    expect(kept).toEqual([...Array(300).keys()].filter((g) => g % 4 !== 1));
    for (let i = 0; i < 300; i++) {
      const want = i % 4 === 1 ? -1 : kept.indexOf(i);
      expect(table.find(key(i), 0, key(i).length, i % 3, i % 17, false)).toBe(want);
    }
    // And grows on from there.
    const g = table.find(key(1), 0, key(1).length, 1, 1, true);
    expect(g).toBe(kept.length);
    expect(table.find(key(1), 0, key(1).length, 1, 1, false)).toBe(g);
  });

  test('room reserved, then used up and past: groups appended and found keep their keys', () => {
    const table = new GroupTable(16);
    const key = (i: number) => Buffer.from(`k${'y'.repeat(i % 23)}${i}`);
    const hash = (i: number) => hashBytes(key(i), 0, key(i).length, 5);
    for (let i = 0; i < 10; i++) table.find(key(i), 0, key(i).length, 5, hash(i), true);
    // Less room than the keys take, so the arena grows past it too.
    table.reserve(2000, 4000);
    for (let i = 10; i < 3000; i++)
      if (i % 2 === 0) table.append(key(i), 0, key(i).length, 5, hash(i));
      else table.find(key(i), 0, key(i).length, 5, hash(i), true);
    expect(table.size).toBe(3000);
    for (let i = 0; i < 3000; i++) {
      expect(table.find(key(i), 0, key(i).length, 5, hash(i), false)).toBe(i);
      expect(table.keyLen(i)).toBe(key(i).length);
    }
  });
});
