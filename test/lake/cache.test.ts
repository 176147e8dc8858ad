import { openLake } from '../../src/backend/open';
// The scan cache: eviction by bytes in least-recently-used order, scans served from it once warm
// (same values, in the scanning query's type context), partly warm scans,
// and entries dropped when objects are deleted, vacuumed or their pool
// removed. Write-through: a load (or a delete by filter) caches the
// streams it writes exactly as a scan of them would, and a load that fails
// leaves nothing behind.

import { Lake, ScanOptions } from '../../src/lake';
import { CachedFrame, CachedStream, ScanCache } from '../../src/lake/cache';
import { newInt64, TypeContext, TypeInt64, Value } from '../../src/zed';
import { arrayReader, Plain, rec, recs, rmDir, show, tmpDir } from './helpers';

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
    lake = await openLake({ lake: dir, cacheSize, vectorScan: 'off' });
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

    // (The load cached its streams: start cold.)
    lake.cache.clear();
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

describe('write-through: what the lake writes is cached', () => {
  let dir: string;
  let lake: Lake;

  async function open(cacheSize?: number): Promise<void> {
    dir = tmpDir();
    lake = await openLake({ lake: dir, cacheSize, vectorScan: 'off' });
  }

  afterEach(async () => {
    await lake.close();
    rmDir(dir);
  });

  /** The cache's entries by key, with their frames' contents (no hits counted). */
  function entries(): Map<string, { size: number; frames: unknown[] }> {
    const out = new Map<string, { size: number; frames: unknown[] }>();
    for (const e of lake.cache.entries()) {
      out.set(`${e.object}@${e.key}`, {
        size: e.size,
        frames: e.frames.map((f) => ({
          buf: f.buf.toString('hex'),
          types: f.types, // the cache's own type objects: compared by identity below
          typeIndex: f.typeIndex && Array.from(f.typeIndex),
          offs: Array.from(f.offs),
          lens: Array.from(f.lens),
          bytes: f.bytes,
        })),
      });
    }
    return out;
  }

  async function scan(pool: string, revision = 'main') {
    const s = await lake.scan(pool, revision, { ctx: new TypeContext() });
    const text: string[] = [];
    for (let b = await s.pull(); b; b = await s.pull()) for (const v of b) text.push(show(v));
    return { text, stats: { ...s.stats } };
  }

  /**
   * Values of several shapes: two record types, nulls, long compressible
   * strings and (with noise) incompressible bytes, so that frames are both
   * compressed and stored as they are.
   */
  function values(n: number, noise: boolean, seed = 1): Value[] {
    const ctx = new TypeContext();
    let x = seed;
    const rand = (): number => (x = (x * 1103515245 + 12345) % 2147483648);
    const out = recs(ctx, [...Array(n).keys()], (k, i): Record<string, Plain> => {
      if (i % 11 === 3) return { other: i, s: null };
      const s = noise
        ? Array.from({ length: 40 + (i % 90) }, () => String.fromCharCode(33 + (rand() % 90))).join(
            '',
          )
        : `value ${k} `.repeat(1 + (i % 9));
      return { s };
    });
    // A null value and an empty record (a body of no bytes).
    out[7] = Value.null(out[8].type);
    out[9] = rec(ctx, {});
    return out;
  }

  test('a load caches its streams exactly as a scan of them would', async () => {
    await open();
    // Streams of one frame (compressed and not), and streams of several
    // frames (bigger than the ZNG writer's 512 KiB frame threshold).
    await lake.createPool('small', {
      layout: { keys: [['k']] },
      threshold: 60000,
      seekStride: 3000,
    });
    await lake.createPool('noisy', {
      layout: { keys: [['k']] },
      threshold: 60000,
      seekStride: 3000,
    });
    await lake.createPool('big', { layout: { keys: [['k']] }, seekStride: 2 << 20 });
    await lake.load('small', 'main', arrayReader(values(2000, false), 300));
    await lake.load('noisy', 'main', arrayReader(values(2000, true), 300));
    await lake.load('big', 'main', arrayReader(values(30000, false), 1000));
    const written = entries();
    const streams = written.size;
    expect(streams).toBeGreaterThan(40);
    const multiFrame = [...written.values()].filter((e) => e.frames.length > 1);
    expect(multiFrame.length).toBeGreaterThan(0);
    const bytes = lake.cache.stats().bytes;
    const stats0 = lake.cache.stats();
    expect(stats0).toMatchObject({ hits: 0, misses: 0, entries: streams });

    // The first scans after the loads are served from the cache.
    const warm: Record<string, string[]> = {};
    for (const p of ['small', 'noisy', 'big']) {
      const w = await scan(p);
      expect(w.stats.cacheMisses).toBe(0);
      expect(w.stats.bytesCached).toBe(w.stats.bytesRead);
      warm[p] = w.text;
    }
    expect(warm.small).toHaveLength(2000);
    expect(warm.big).toHaveLength(30000);
    expect(lake.cache.stats()).toMatchObject({ hits: streams, misses: 0 });

    // Scanning from storage makes the same entries, byte for byte, with
    // the same types.
    lake.cache.clear();
    for (const p of ['small', 'noisy', 'big']) {
      const cold = await scan(p);
      expect(cold.stats.cacheHits).toBe(0);
      expect(cold.text).toEqual(warm[p]);
    }
    const scanned = entries();
    expect([...scanned.keys()].sort()).toEqual([...written.keys()].sort());
    for (const [key, e] of scanned) expect(written.get(key)).toEqual(e);
    expect(lake.cache.stats().bytes).toBe(bytes);
  });

  test('the same answers as a lake with the cache off', async () => {
    const results: string[][] = [];
    for (const size of [undefined, 0, 30000]) {
      await open(size);
      await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 60000, seekStride: 3000 });
      await lake.load('p', 'main', arrayReader(values(3000, false), 250));
      await lake.load('p', 'main', arrayReader(values(500, true, 7), 250));
      const s = await scan('p');
      results.push(s.text);
      const c = lake.cache.stats();
      if (size === 0) expect(c).toMatchObject({ entries: 0, bytes: 0, hits: 0, misses: 0 });
      else expect(c.bytes).toBeLessThanOrEqual(size ?? Infinity);
      if (size === 30000) {
        // A budget smaller than the load keeps what fits (the latest
        // streams written) and the rest is read from storage.
        expect(c.evictions).toBeGreaterThan(0);
        expect(s.stats.cacheMisses).toBeGreaterThan(0);
      }
      if (size === undefined) expect(s.stats.cacheMisses).toBe(0);
      await lake.close();
      rmDir(dir);
    }
    expect(results[0]).toHaveLength(3500);
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
    await open(); // for afterEach
  });

  test('a stream larger than the whole budget is not cached', async () => {
    await open(5000);
    await lake.createPool('p', { layout: { keys: [['k']] }, seekStride: 1 << 20 });
    await lake.load('p', 'main', arrayReader(values(2000, false), 500));
    expect(lake.cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
    expect((await scan('p')).text).toHaveLength(2000);
  });

  test('a load that fails leaves nothing cached', async () => {
    await open();
    await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 20000, seekStride: 2000 });
    await lake.load('p', 'main', arrayReader(values(1000, false), 200));
    const before = lake.cache.stats();
    const want = (await scan('p')).text;

    // The input fails after several objects were written.
    const good = arrayReader(values(3000, false, 3), 200);
    let batches = 0;
    const failing = {
      async read() {
        if (++batches > 10) throw new Error('bad input');
        return good.read();
      },
    };
    await expect(lake.load('p', 'main', failing)).rejects.toThrow('bad input');
    expect(lake.cache.stats()).toMatchObject({ entries: before.entries, bytes: before.bytes });

    // The commit fails (the branch went away while loading): the objects
    // and their entries are dropped.
    await lake.createBranch('p', 'gone', (await lake.lookupBranch('p', 'main')).commit);
    const more = arrayReader(values(3000, false, 5), 200);
    const deleting = {
      async read() {
        const b = await more.read();
        if (b === null) await lake.deleteBranch('p', 'gone');
        return b;
      },
    };
    await expect(lake.load('p', 'gone', deleting)).rejects.toThrow('branch not found');
    expect(lake.cache.stats()).toMatchObject({ entries: before.entries, bytes: before.bytes });

    const after = await scan('p');
    expect(after.text).toEqual(want);
    expect(after.stats.cacheMisses).toBe(0);
  });

  test("a storage failure while writing drops the object's entries", async () => {
    await open();
    await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 20000, seekStride: 2000 });
    // The second object's data fails to commit, after its streams were written.
    const store = lake.storage;
    const create = store.create.bind(store);
    let objects = 0;
    store.create = async (key: string) => {
      const w = await create(key);
      if (++objects !== 2) return w;
      return { ...w, write: w.write.bind(w), commit: () => Promise.reject(new Error('disk full')) };
    };
    await expect(lake.load('p', 'main', arrayReader(values(3000, false), 200))).rejects.toThrow(
      'disk full',
    );
    expect(lake.cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  test('a delete by filter caches the objects it writes', async () => {
    await open();
    await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 60000, seekStride: 3000 });
    await lake.load('p', 'main', arrayReader(values(3000, false), 250));
    const doomed = (text: string): boolean => /"value 1\d\d /.test(text);
    const want = (await scan('p')).text.filter((t) => !doomed(t));
    expect(want.length).toBeLessThan(3000 - 50);
    const ctx = new TypeContext();
    await lake.deleteWhere('p', 'main', (v) => doomed(show(v)), {}, { ctx });
    const s = await scan('p');
    expect(s.text).toEqual(want);
    expect(s.stats.cacheMisses).toBe(0);
    // Only entries of live objects: the deleted ones were dropped.
    const live = new Set((await lake.objects('p', 'main')).map((o) => `p/${o.id}`));
    const pool = (await lake.lookupPool('p')).id.toString();
    for (const e of lake.cache.entries()) expect(live.has(e.object.replace(pool, 'p'))).toBe(true);
    // The same as reading it all from storage.
    lake.cache.clear();
    expect((await scan('p')).text).toEqual(s.text);
  });
});
