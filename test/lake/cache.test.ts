// The scan cache: eviction by bytes in least-recently-used order, scans served from it once warm
// (same values, in the scanning query's type context), partly warm scans,
// and entries dropped when objects are deleted, vacuumed or their pool
// removed.

import { Lake, ScanOptions } from '../../src/lake';
import { CachedFrame, CachedStream, ScanCache } from '../../src/lake/cache';
import { newInt64, TypeContext, TypeInt64, Value } from '../../src/zed';
import { arrayReader, recs, rmDir, show, tmpDir } from './helpers';

function stream(bytes: number): CachedStream {
  const v = new Value(TypeInt64, Buffer.alloc(bytes), 0, 1);
  return new CachedStream(bytes, [CachedFrame.of([v], v.buf, 0)]);
}

describe('ScanCache', () => {
  test('holds at most its budget in bytes, evicting the least recently used', () => {
    const one = stream(1000).bytes;
    const cache = new ScanCache(3 * one);
    cache.put('p/a', 0, stream(1000));
    cache.put('p/a', 1000, stream(1000));
    cache.put('p/b', 0, stream(1000));
    expect(cache.stats()).toMatchObject({ entries: 3, bytes: 3 * one, evictions: 0 });
    expect(cache.get('p/a', 0)).toBeDefined(); // a@0 is now the most recently used
    cache.put('p/c', 0, stream(1000));
    expect(cache.get('p/a', 1000)).toBeUndefined(); // evicted
    expect(cache.get('p/a', 0)).toBeDefined();
    expect(cache.stats()).toMatchObject({ entries: 3, evictions: 1, hits: 2, misses: 1 });
    // Replacing an entry re-counts its bytes.
    cache.put('p/c', 0, stream(500));
    expect(cache.stats()).toMatchObject({ entries: 3, bytes: 2 * one + stream(500).bytes });
    expect(cache.get('p/c', 0)?.size).toBe(500);
    // A stream bigger than the budget is not kept.
    cache.put('p/d', 0, stream(4 * one));
    expect(cache.get('p/d', 0)).toBeUndefined();
    expect(cache.stats().entries).toBe(3);
    cache.dropObject('p/a');
    expect(cache.get('p/a', 0)).toBeUndefined();
    cache.dropPool('p');
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  test('a budget of 0 keeps nothing', () => {
    const cache = new ScanCache(0);
    expect(cache.enabled).toBe(false);
    cache.put('p/a', 0, stream(10));
    expect(cache.stats().entries).toBe(0);
  });
});

describe('scans through the cache', () => {
  let dir: string;
  let lake: Lake;

  async function open(cacheSize?: number): Promise<void> {
    dir = tmpDir();
    lake = await Lake.openLocal(dir, cacheSize === undefined ? {} : { cacheSize });
  }

  afterEach(async () => {
    await lake.close();
    rmDir(dir);
  });

  const N = 3000;

  /** A pool of N records in about 3 objects of many small streams. */
  async function fill(pool = 'p'): Promise<void> {
    const ctx = new TypeContext();
    await lake.createPool(pool, { layout: { keys: [['k']] }, threshold: 40000, seekStride: 2000 });
    const keys = [...Array(N).keys()];
    const vals = recs(ctx, keys, (k) => ({ s: `value ${k} `.repeat(1 + ((k ?? 0) % 5)) }));
    // Some values of a second type and some nulls, so frames hold several types.
    vals[10] = recs(ctx, [10], () => ({ other: 1 }))[0];
    vals[11] = recs(ctx, [11], () => ({ s: null }))[0];
    await lake.load(pool, 'main', arrayReader(vals, 500));
  }

  async function scan(revision = 'main', opts: Partial<ScanOptions> = {}, pool = 'p') {
    const ctx = new TypeContext();
    const s = await lake.scan(pool, revision, { ctx, ...opts });
    const vals: Value[] = [];
    let batches = 0;
    for (let b = await s.pull(); b; b = await s.pull()) {
      batches++;
      for (const v of b) vals.push(v);
    }
    return { ctx, vals, batches, text: vals.map(show), stats: { ...s.stats } };
  }

  test('a second scan is served from the cache with the same values', async () => {
    await open();
    await fill();
    const objects = await lake.objects('p', 'main');
    expect(objects.length).toBeGreaterThan(1);
    const total = objects.reduce((n, o) => n + o.size, 0);

    const cold = await scan();
    expect(cold.vals).toHaveLength(N);
    expect(cold.stats.cacheHits).toBe(0);
    expect(cold.stats.cacheMisses).toBeGreaterThan(objects.length); // many streams per object
    expect(cold.stats.bytesRead).toBe(total);
    expect(cold.stats.bytesCached).toBe(0);
    const streams = cold.stats.cacheMisses;
    expect(lake.cache.stats()).toMatchObject({ entries: streams, evictions: 0 });

    const warm = await scan();
    expect(warm.text).toEqual(cold.text);
    expect(warm.stats).toMatchObject({
      cacheHits: streams,
      cacheMisses: 0,
      bytesRead: total,
      bytesCached: total,
      recordsRead: N,
    });
    // Cached frames are joined into fuller batches.
    expect(warm.batches).toBeLessThan(cold.batches / 2);
    // The values' types are the scanning query's, not the cache's.
    const rt = warm.vals[0].type;
    expect(warm.ctx.lookupByValue(warm.ctx.typeValue(rt))).toBe(rt);
    expect(rt).not.toBe(cold.vals[0].type);
    expect(new Set(warm.vals.map((v) => v.type)).size).toBe(3);

    // A key range reads only its streams, from the cache.
    const ranged = await scan('main', {
      range: { lower: newInt64(1000), upper: newInt64(1010) },
    });
    expect(ranged.stats.cacheMisses).toBe(0);
    expect(ranged.stats.cacheHits).toBeGreaterThan(0);
    expect(ranged.stats.cacheHits).toBeLessThan(streams / 4);
  });

  test('partly cached objects read the rest from storage', async () => {
    await open();
    await fill();
    const all = (await scan()).text;
    // Keep only the streams of a key range in the cache, then scan everything:
    // the scan alternates between cached streams and fetches.
    lake.cache.clear();
    const mid = await scan('main', {
      range: { lower: newInt64(1200), upper: newInt64(1300) },
    });
    // (A stream the exact range stops reading midway is not kept.)
    const cachedStreams = lake.cache.stats().entries;
    expect(cachedStreams).toBeGreaterThan(0);
    expect(cachedStreams).toBeLessThanOrEqual(mid.stats.cacheMisses);
    const mixed = await scan();
    expect(mixed.text).toEqual(all);
    expect(mixed.stats.cacheHits).toBe(cachedStreams);
    expect(mixed.stats.cacheMisses).toBeGreaterThan(0);
  });

  test('a budget smaller than the data evicts and still scans correctly', async () => {
    await open(20000);
    await fill();
    const first = await scan();
    const second = await scan();
    expect(second.text).toEqual(first.text);
    const s = lake.cache.stats();
    expect(s.evictions).toBeGreaterThan(0);
    expect(s.bytes).toBeLessThanOrEqual(20000);
  });

  test('with the cache off nothing is kept', async () => {
    await open(0);
    await fill();
    const first = await scan();
    const second = await scan();
    expect(second.text).toEqual(first.text);
    expect(second.stats).toMatchObject({ cacheHits: 0, cacheMisses: 0, bytesCached: 0 });
    expect(lake.cache.stats()).toMatchObject({ entries: 0, bytes: 0, hits: 0, misses: 0 });
  });

  test('deleting, vacuuming or removing the pool drops the entries', async () => {
    await open();
    await fill();
    const before = (await lake.lookupBranch('p', 'main')).commit.toString();
    await scan();
    const objects = await lake.objects('p', 'main');
    expect(lake.cache.stats().entries).toBeGreaterThan(0);

    // Deleting an object from the branch drops its streams.
    const entries = lake.cache.stats().entries;
    await lake.deleteObjects('p', 'main', [objects[0].id]);
    const afterDelete = lake.cache.stats().entries;
    expect(afterDelete).toBeGreaterThan(0);
    expect(afterDelete).toBeLessThan(entries);

    // Time travel reads it again (and caches it); vacuum drops it for good.
    const old = await scan(before);
    expect(old.vals).toHaveLength(N);
    expect(lake.cache.stats().entries).toBe(entries);
    expect(await lake.vacuum('p', 'main', false)).toHaveLength(1);
    expect(lake.cache.stats().entries).toBe(afterDelete);

    await fill('q');
    await scan('main', {}, 'q');
    await lake.deletePool('p');
    const left = lake.cache.stats().entries;
    expect(left).toBeGreaterThan(0);
    await lake.deletePool('q');
    expect(lake.cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });
});
