// A summarize grouped by the pool key reads its input as sorted and emits
// groups as they complete. Keys the pool's merge has no order for (int8s,
// which the writer sorts by value and the merge compares by bytes; float
// NaNs, which equal every number; keys of several types) came back after
// their group was emitted and split it. Each key must be one group, with
// its whole count, by rows and by columns, in either pool order.

import { openLake } from '../../src/backend/open';
import { VectorScanMode } from '../../src/lake/lake';
import { arrayReader } from '../../src/query/runtime/ops/scan';
import { parseValues } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed/context';
import { run, tempLakes } from './vectordata';

const lakes = tempLakes();

/** Three loads of 1500 records each: the ZSON of key x of record i of load l. */
const DATA: Record<string, (l: number, i: number) => string> = {
  // Load 0 holds keys 0..99, load 1 -50..49, load 2 -100..19: merged by
  // bytes, load 0's small keys come before load 1's negative ones.
  int8: (l, i) => `${(i % [100, 100, 120][l]) - [0, 50, 100][l]}(int8)`,
  // Every 7th key a NaN, the others from -25 to 24 (shifted per load).
  float: (l, i) => (i % 7 === 3 ? 'NaN' : `${(i % 50) - 25 + 5 * l}.5`),
  // int64s, uint64s and strings, in each load in a different mix.
  mixed: (l, i) => {
    const n = (i * (l + 1)) % 60;
    return [`${n}`, `${n}(uint64)`, `"s${n % 20}"`][(i + l) % 3];
  },
};

describe.each(['asc', 'desc'] as const)('pool order %s', (order) => {
  test.each(Object.keys(DATA))(
    '%s keys: one group per key, by rows and by columns',
    async (kind) => {
      const outs: string[][] = [];
      for (const mode of ['off', 'on'] as VectorScanMode[]) {
        const lake = await openLake({
          lake: `${lakes.dir}/${mode}`,
          vectorScan: mode,
          cacheSize: 0,
        });
        lakes.open.push(lake);
        await lake.createPool('p', { layout: { keys: [['x']], order } });
        const want = new Map<string, number>();
        for (let l = 0; l < 3; l++) {
          const recs: string[] = [];
          for (let i = 0; i < 1500; i++) {
            const x = DATA[kind](l, i);
            recs.push(`{x:${x},i:${i}}`);
            want.set(x, (want.get(x) ?? 0) + 1);
          }
          await lake.load(
            'p',
            'main',
            arrayReader(parseValues(new TypeContext(), recs.join('\n'))),
          );
        }
        // The keys are written as the data gives them.
        const out = (await run(lake, 'from p | count() by x')).out;
        const counts = new Map<string, number>();
        for (const line of out) {
          const m = /^\{x:(.*),count:(\d+)\(uint64\)\}$/.exec(line);
          expect(m).not.toBeNull();
          expect(counts.has(m![1])).toBe(false);
          counts.set(m![1], Number(m![2]));
        }
        expect([...counts].sort()).toEqual([...want].sort());
        // In the order a sort by the key gives (where the keys have one).
        if (kind === 'int8') {
          const sort = order === 'asc' ? 'sort x' : 'sort -r x';
          expect(out).toEqual((await run(lake, `from p | count() by x | ${sort}`)).out);
        }
        outs.push(out);
      }
      // The same order by rows and by columns.
      expect(outs[1]).toEqual(outs[0]);
    },
  );
});

// A key of another type between an object's first and last keys (a
// uint64 among int64s, which sorts among them by value) is not in the
// objects' spans; the columnar copies' types show it, so no group is
// emitted early, and a head after the summarize reads the whole pool.
// With int64s alone the head stops early: after the first of two objects
// one after the other in key order (each read whole by columns), or, by
// rows, part way through two overlapping objects (by columns, a run of
// overlapping objects is merged whole, so the head cannot stop it early).
describe.each(['separate', 'overlapping'] as const)('%s objects', (objects) => {
  test.each(['off', 'on'] as VectorScanMode[])(
    'a key of another type inside an object stops early output, column path %s',
    async (mode) => {
      const lake = await openLake({ lake: `${lakes.dir}/${mode}`, vectorScan: mode, cacheSize: 0 });
      lakes.open.push(lake);
      const shift = objects === 'separate' ? 2000 : 0;
      const load = async (pool: string, other: boolean) => {
        await lake.createPool(pool, { layout: { keys: [['x']] }, seekStride: 1000 });
        for (let l = 0; l < 2; l++) {
          const recs = Array.from({ length: 2000 }, (_, i) =>
            other && l === 0 && i === 1000 ? '{x:1000(uint64),i:0}' : `{x:${i + shift * l},i:${l}}`,
          );
          await lake.load(
            pool,
            'main',
            arrayReader(parseValues(new TypeContext(), recs.join('\n'))),
          );
        }
      };
      await load('plain', false);
      await load('hidden', true);
      const spans = (await run(lake, 'from hidden@main:objects | yield [min, max]')).out;
      expect(spans).toEqual(['[0,1999]', `[${shift},${shift + 1999}]`]);
      for (const [pool, early] of [
        ['plain', true],
        ['hidden', false],
      ] as const) {
        const all = await run(lake, `from ${pool} | count() by x`);
        // One group per key, each whole: with overlapping objects 1000 and
        // 1000(uint64) apart; separate, 1000(uint64) in place of 1000.
        expect(all.out).toHaveLength(shift === 0 ? (early ? 2000 : 2001) : 4000);
        expect(new Set(all.out).size).toBe(all.out.length);
        if (!early) {
          if (shift === 0) expect(all.out).toContain('{x:1000,count:1(uint64)}');
          else expect(all.out).not.toContain('{x:1000,count:1(uint64)}');
          expect(all.out).toContain('{x:1000(uint64),count:1(uint64)}');
        }
        const one = await run(lake, `from ${pool} | count() by x | head 1`);
        expect(one.out).toEqual([`{x:0,count:${shift === 0 ? 2 : 1}(uint64)}`]);
        const stops = early && !(shift === 0 && mode === 'on');
        if (stops) expect(one.stats.bytesRead).toBeLessThan(all.stats.bytesRead / 2);
        else expect(one.stats.bytesRead).toBe(all.stats.bytesRead);
      }
    },
  );
});

// Values without the key (their key is error("missing")) are kept to the
// end as the errors' group; they do not stop early output for the rest.
test.each(['off', 'on'] as VectorScanMode[])(
  'values without the key leave early output on, column path %s',
  async (mode) => {
    const lake = await openLake({ lake: `${lakes.dir}/${mode}`, vectorScan: mode, cacheSize: 0 });
    lakes.open.push(lake);
    await lake.createPool('p', { layout: { keys: [['x']] }, seekStride: 1000 });
    for (let l = 0; l < 2; l++) {
      const recs = Array.from({ length: 2000 }, (_, i) => `{x:${i},i:${l}}`);
      if (l === 1) recs.push('{y:1}');
      await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs.join('\n'))));
    }
    const all = await run(lake, 'from p | count() by x');
    expect(all.out).toHaveLength(2001);
    expect(all.out[2000]).toBe('{x:error("missing"),count:1(uint64)}');
    const one = await run(lake, 'from p | count() by x | head 1');
    expect(one.out).toEqual(['{x:0,count:2(uint64)}']);
    expect(one.stats.bytesRead).toBeLessThan(all.stats.bytesRead / 2);
  },
);

// Without columnar copies the objects' first and last keys tell the keys'
// type: int8 and mixed keys still make one group per key.
test.each(['int8', 'mixed'])(
  '%s keys in a pool without copies: one group per key',
  async (kind) => {
    const lake = await openLake({ lake: `${lakes.dir}/nv`, cacheSize: 0 });
    lakes.open.push(lake);
    await lake.createPool('p', { layout: { keys: [['x']] }, vectors: false });
    const want = new Map<string, number>();
    for (let l = 0; l < 3; l++) {
      const recs = Array.from({ length: 1500 }, (_, i) => {
        const x = DATA[kind](l, i);
        want.set(x, (want.get(x) ?? 0) + 1);
        return `{x:${x},i:${i}}`;
      });
      await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs.join('\n'))));
    }
    const out = (await run(lake, 'from p | count() by x')).out;
    expect(out).toHaveLength(want.size);
    expect(new Set(out.map((l) => /^\{x:(.*),count:/.exec(l)![1])).size).toBe(want.size);
  },
);

test('int64 keys in a pool without copies: groups still come out early', async () => {
  const lake = await openLake({ lake: `${lakes.dir}/nv`, cacheSize: 0 });
  lakes.open.push(lake);
  await lake.createPool('p', { layout: { keys: [['x']] }, vectors: false, seekStride: 1000 });
  for (let l = 0; l < 2; l++) {
    const recs = Array.from({ length: 2000 }, (_, i) => `{x:${i},i:${l}}`);
    await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs.join('\n'))));
  }
  const all = await run(lake, 'from p | count() by x');
  const one = await run(lake, 'from p | count() by x | head 1');
  expect(one.out).toEqual(['{x:0,count:2(uint64)}']);
  expect(one.stats.bytesRead).toBeLessThan(all.stats.bytesRead / 2);
});
