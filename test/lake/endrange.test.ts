// A query that keeps only the values at one end of the pool-key order
// (`sort -r k | head N`, `sort k | head N`, `tail N`) reads only the
// objects and seek streams that can hold them, and answers exactly as the
// whole scan does: ties at the bound, overlapping objects, either pool
// order, both column modes. Pools whose keys lack one total order (mixed
// types, floats, int8, nulls) or whose objects lack columnar copies, and
// queries whose cut drops the key, are scanned whole.

import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLake } from '../../src/backend/open';
import { Lake, VectorScanMode } from '../../src/lake/lake';
import { arrayReader } from '../../src/query/runtime/ops/scan';
import { parseValues } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed/context';
import { run, tempLakes } from './vectordata';

const lakes = tempLakes();

async function lakeWith(mode: VectorScanMode): Promise<Lake> {
  const lake = await openLake({ lake: `${lakes.dir}/${mode}`, vectorScan: mode, cacheSize: 0 });
  lakes.open.push(lake);
  return lake;
}

/** Loads each list of keys (ZSON) as its own commit: objects that overlap. */
async function loadKeys(lake: Lake, pool: string, loads: string[][]): Promise<void> {
  let i = 0;
  for (const keys of loads) {
    const recs = keys.map((k) => `{k:${k},i:${i++},s:"${'x'.repeat(i % 7)}"}`);
    await lake.load(pool, 'main', arrayReader(parseValues(new TypeContext(), recs.join('\n'))));
  }
}

/** A pseudo-random sequence (the same every run). */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/**
 * The query's answer and bytes read, beside the same query with a
 * `yield this` before its last part (which the scan cannot see past, so
 * it reads everything it would without one).
 */
async function compare(lake: Lake, pool: string, ops: string) {
  const parts = ops.split(' | ');
  const end = parts.findIndex((p) => p.startsWith('sort') || p.startsWith('tail'));
  parts.splice(end, 0, 'yield this');
  const fast = await run(lake, `from ${pool} | ${ops}`);
  const whole = await run(lake, `from ${pool} | ${parts.join(' | ')}`);
  expect(fast.out).toEqual(whole.out);
  return { out: fast.out, read: fast.stats.bytesRead, all: whole.stats.bytesRead };
}

const ENDS = (n: number) => [
  `sort -r k | head ${n}`,
  `sort k | head ${n}`,
  `tail ${n}`,
  `cut k,i | sort -r k | head ${n}`,
];

describe.each(['off', 'on'] as VectorScanMode[])('column path %s', (mode) => {
  test.each(['asc', 'desc'])(
    '%s pool: the same answers, from the streams at the end',
    async (order) => {
      const lake = await lakeWith(mode);
      await lake.createPool('p', { layout: { order, keys: [['k']] }, seekStride: 400 });
      // Three overlapping objects of keys with many ties.
      const r = rng(7);
      const loads = [0, 1, 2].map(() =>
        Array.from({ length: 600 }, () => String(Math.floor(r() * 150))),
      );
      await loadKeys(lake, 'p', loads);
      for (const n of [1, 3, 10, 59, 250, 1799, 1800, 5000])
        for (const ops of ENDS(n)) {
          const c = await compare(lake, 'p', ops);
          expect(c.out).toHaveLength(Math.min(n, 1800));
          // A few values at an end read a small part of the pool.
          if (n <= 10) expect(c.read).toBeLessThan(c.all / 4);
          if (n >= 1800) expect(c.read).toBe(c.all);
        }
    },
  );

  test.each(['asc', 'desc'])(
    '%s pool: a filter that is a key range narrows the end within it',
    async (order) => {
      const lake = await lakeWith(mode);
      await lake.createPool('p', { layout: { order, keys: [['k']] }, seekStride: 300 });
      const r = rng(11);
      const loads = [0, 1, 2].map(() =>
        Array.from({ length: 500 }, () => String(Math.floor(r() * 200))),
      );
      await loadKeys(lake, 'p', loads);
      const filters = [
        'k < 100',
        'k <= 100',
        'k > 37 and k < 120',
        'k >= 150',
        '160 > k',
        'k == 77',
      ];
      for (const f of filters)
        for (const n of [1, 4, 33, 2000]) {
          for (const ops of [`sort -r k | head ${n}`, `sort k | head ${n}`, `tail ${n}`]) {
            const c = await compare(lake, 'p', `${f} | ${ops}`);
            // The filter's range alone reads more than its end does.
            if (n === 1 && f !== 'k == 77') expect(c.read).toBeLessThan(c.all);
          }
        }
      // A bound of another type than the keys' (a float64 beside int64 keys)
      // is a filter the range cannot stand for: the filter's range alone.
      const other = await compare(lake, 'p', 'k < 100.5 | sort -r k | head 3');
      expect(other.read).toBe(other.all);
      // Nor can a filter on another field.
      const more = await compare(lake, 'p', 'k < 100 and i > 5 | sort -r k | head 3');
      expect(more.read).toBe(more.all);
    },
  );

  test('ties across objects at the bound come in pool order', async () => {
    const lake = await lakeWith(mode);
    await lake.createPool('p', { layout: { keys: [['k']] }, seekStride: 200 });
    // Every object ends in a run of 9s; the top 5 are all 9s, which the
    // stable sort keeps in pool order.
    const load = (lo: number) => [
      ...Array.from({ length: 300 }, (_, j) => String(lo + (j % 7))),
      ...Array.from({ length: 40 }, () => '9'),
    ];
    await loadKeys(lake, 'p', [load(0), load(1), load(2)]);
    for (const ops of [
      'sort -r k | head 5',
      'sort -r k | head 121',
      'tail 41',
      'cut i | tail 41',
      'sort k | head 3',
    ]) {
      const c = await compare(lake, 'p', ops);
      expect(c.read).toBeLessThan(c.all);
    }
  });

  test.each([
    ['mixed numeric and string keys', ['1', '2(uint64)', '"a"', '3', '4(uint64)', '"b"']],
    ['float keys with NaN', ['1.5', 'NaN', '2.5', '-1.', '3.', '+Inf']],
    ['int8 keys', ['-3(int8)', '5(int8)', '-100(int8)', '7(int8)', '0(int8)', '127(int8)']],
    ['null keys', ['1', 'null(int64)', '2', '3', 'null(int64)', '4']],
    ['null keys, descending', ['1', 'null(int64)', '2', '3', 'null(int64)', '4'], 'desc'],
  ])('%s: the whole pool is read', async (_, keys, order = 'asc') => {
    const lake = await lakeWith(mode);
    await lake.createPool('p', { layout: { order, keys: [['k']] }, seekStride: 200 });
    const load = (j: number) => Array.from({ length: 300 }, (_, x) => keys[(x + j) % keys.length]);
    await loadKeys(lake, 'p', [load(0), load(1), load(2)]);
    for (const ops of ENDS(4)) {
      const c = await compare(lake, 'p', ops);
      expect(c.read).toBe(c.all);
    }
  });

  test('an object without its columnar copy, a cut without the key, another sort key: the whole pool', async () => {
    const lake = await lakeWith(mode);
    await lake.createPool('p', { layout: { keys: [['k']] }, seekStride: 200 });
    const load = (lo: number) => Array.from({ length: 400 }, (_, j) => String(lo + j));
    await loadKeys(lake, 'p', [load(0), load(1000)]);
    for (const ops of [
      'cut i | sort -r k | head 3',
      'cut k:=i | sort -r k | head 3',
      'sort -r i | head 3',
    ]) {
      const c = await compare(lake, 'p', ops);
      expect(c.read).toBe(c.all);
    }
    const some = await compare(lake, 'p', 'sort -r k | head 3');
    expect(some.read).toBeLessThan(some.all);
    const first = (await lake.objects('p', 'main'))[0].id;
    await lake.deleteVectors('p', 'main', [first]);
    const c = await compare(lake, 'p', 'sort -r k | head 3');
    expect(c.read).toBe(c.all);
  });
});

// The metadata the range needs is the columnar copies'; one that cannot be
// read leaves the scan as it was, not failed (with the column path off, no
// query reads the copies otherwise).
test('unreadable columnar copies: the whole pool, the same answers', async () => {
  const lake = await lakeWith('off');
  await lake.createPool('p', { layout: { keys: [['k']] }, seekStride: 200 });
  await loadKeys(lake, 'p', [
    Array.from({ length: 300 }, (_, j) => String(j)),
    Array.from({ length: 300 }, (_, j) => String(1000 + j)),
  ]);
  const vngs = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? vngs(join(dir, e.name))
        : e.name.endsWith('.vng')
          ? [join(dir, e.name)]
          : [],
    );
  const files = vngs(lakes.dir);
  expect(files).toHaveLength(2);
  for (const f of files) writeFileSync(f, 'not a VNG file');
  for (const ops of ['tail 2', 'sort -r k | head 2', 'k < 1100 | sort -r k | head 2']) {
    const c = await compare(lake, 'p', ops);
    expect(c.out).toHaveLength(2);
    expect(c.read).toBe(c.all);
  }
});
