import { openLake } from '../../src/backend/open';
// The scan cache through the service: a load fills it (write-through), so
// the first query after it is served from the cache (as /metrics shows)
// with the same answer and the same QueryStats as a server with the cache
// off or with a budget smaller than the data; a load that fails leaves
// nothing cached.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as http from 'node:http';
import * as path from 'node:path';
import { Lake } from '../../src/lake';
import { Service } from '../../src/service/server';
import { call, load } from './helpers';

interface Running {
  base: string;
  lake: Lake;
  close(): Promise<void>;
}

async function start(cacheSize?: number): Promise<Running> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zlake-cache-'));
  // The scan cache serves the row path: pin it (ZLAKE_VECTOR_SCAN may force columns).
  const lake = await openLake({ lake: dir, cacheSize, vectorScan: 'off' });
  const service = new Service({ lake });
  const addr = await service.listen('127.0.0.1:0');
  return {
    base: `http://127.0.0.1:${addr.port}`,
    lake,
    async close() {
      await service.close();
      await lake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function metrics(base: string): Promise<Record<string, number>> {
  const r = await call(base, 'GET', '/metrics');
  const out: Record<string, number> = {};
  for (const line of r.text.split('\n')) {
    const m = /^(zlake_scan_cache_\w+) (\S+)$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** The query's ZSON output and its QueryStats (times left out). */
async function run(base: string, q: string): Promise<{ zson: string; stats: string }> {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/x-zson' };
  const r = await call(base, 'POST', '/query', { body: JSON.stringify({ query: q }), headers });
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  const s = await call(base, 'POST', '/query?ctrl=T', {
    body: JSON.stringify({ query: q }),
    headers: { ...headers, Accept: 'application/x-zjson' },
  });
  const line = s.text.split('\n').find((l) => l.includes('"QueryStats"'));
  if (!line) throw new Error(`no QueryStats in ${s.text}`);
  const v = (JSON.parse(line) as { value: Record<string, unknown> }).value;
  const stats = JSON.stringify([v.bytes_read, v.bytes_matched, v.records_read, v.records_matched]);
  return { zson: r.text, stats };
}

/** 2000 records of two shapes, over many seek-index streams. */
function data(): string {
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) {
    if (i % 7 === 0) lines.push(`{ts:${i},kind:"other",n:${i}}`);
    else lines.push(`{ts:${i},kind:"k${i % 5}",msg:"message ${i} ${'x'.repeat(i % 13)}"}`);
  }
  return lines.join('\n') + '\n';
}

const queries = [
  // (where: a full scan; a bare count() of a pool is answered from its objects' counts)
  'from p | count() where true',
  'from p | count() by kind | sort kind',
  'from p | kind=="other" | sort -r ts | head 3',
  'from p | ts >= 100 and ts < 120',
];

/** A budget far smaller than the data. */
const SMALL = 20000;

let on: Running;
let off: Running;
let small: Running;
beforeAll(async () => {
  on = await start();
  off = await start(0);
  small = await start(SMALL);
  for (const s of [on, off, small]) {
    // Small seek strides make many streams.
    const r = await call(s.base, 'POST', '/pool', {
      body: JSON.stringify({ name: 'p', layout: { keys: [['ts']] }, seek_stride: 4096 }),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    });
    expect(r.status).toBe(200);
    await load(s.base, 'p', data());
  }
});
afterAll(async () => {
  await on.close();
  await off.close();
  await small.close();
});

test('the first query after a load is served from the cache', async () => {
  // The load cached the streams it wrote; no query has run yet.
  const m0 = await metrics(on.base);
  expect(m0.zlake_scan_cache_capacity_bytes).toBeGreaterThan(0);
  expect(m0.zlake_scan_cache_streams).toBeGreaterThan(1);
  expect(m0.zlake_scan_cache_bytes).toBeGreaterThan(0);
  expect(m0.zlake_scan_cache_hits_total).toBe(0);
  expect(m0.zlake_scan_cache_misses_total).toBe(0);
  const streams = m0.zlake_scan_cache_streams;
  // run() queries twice (the answer, then the stats): both are hits.
  const first = await run(on.base, queries[0]);
  const m1 = await metrics(on.base);
  expect(m1.zlake_scan_cache_misses_total).toBe(0);
  expect(m1.zlake_scan_cache_hits_total).toBe(2 * streams);
  expect(m1.zlake_scan_cache_streams).toBe(streams);
  expect(m1.zlake_scan_cache_bytes).toBe(m0.zlake_scan_cache_bytes);
  const second = await run(on.base, queries[0]);
  const m2 = await metrics(on.base);
  expect(m2.zlake_scan_cache_misses_total).toBe(0);
  expect(m2.zlake_scan_cache_hits_total).toBe(4 * streams);
  expect(second).toEqual(first);
  expect(first.zson).toBe('2000(uint64)\n');
  expect(first).toEqual(await run(off.base, queries[0]));
});

test.each(queries)(
  '%s: the same answer and stats with the cache on, off and smaller than the data',
  async (q) => {
    const cold = await run(off.base, q);
    expect(await run(off.base, q)).toEqual(cold);
    const warm = await run(on.base, q);
    expect(warm).toEqual(cold);
    expect(await run(on.base, q)).toEqual(cold);
    expect(await run(small.base, q)).toEqual(cold);
  },
);

test('a budget smaller than the load keeps the cache within it', async () => {
  const m = await metrics(small.base);
  expect(m.zlake_scan_cache_capacity_bytes).toBe(SMALL);
  expect(m.zlake_scan_cache_bytes).toBeGreaterThan(0);
  expect(m.zlake_scan_cache_bytes).toBeLessThanOrEqual(SMALL);
  expect(m.zlake_scan_cache_evictions_total).toBeGreaterThan(0);
});

describe('loads that end early', () => {
  beforeAll(async () => {
    // Small objects, so that several are written while the body arrives.
    const r = await call(on.base, 'POST', '/pool', {
      body: JSON.stringify({
        name: 'f',
        layout: { keys: [['ts']] },
        seek_stride: 2048,
        thresh: 8192,
      }),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    });
    expect(r.status).toBe(200);
  });

  test('a client that goes away mid-load leaves nothing cached', async () => {
    const before = await metrics(on.base);
    const put = jest.spyOn(on.lake.cache, 'put');
    await new Promise<void>((resolve) => {
      const req = http.request(`${on.base}/pool/f/branch/main`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-zson', 'Transfer-Encoding': 'chunked' },
      });
      req.on('error', () => resolve());
      req.write(data());
      setTimeout(() => {
        req.destroy();
        setTimeout(resolve, 300);
      }, 200);
    });
    // Streams were written (and cached) before the load was abandoned.
    expect(put.mock.calls.length).toBeGreaterThan(1);
    put.mockRestore();
    // The load notices the end of its input after the object it is writing
    // (and that object's columnar copy): wait for it to abort.
    let after = await metrics(on.base);
    for (let i = 0; i < 50 && after.zlake_scan_cache_bytes !== before.zlake_scan_cache_bytes; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await metrics(on.base);
    }
    expect(after.zlake_scan_cache_bytes).toBe(before.zlake_scan_cache_bytes);
    expect(after.zlake_scan_cache_streams).toBe(before.zlake_scan_cache_streams);
    const r = await call(on.base, 'POST', '/query', {
      body: JSON.stringify({ query: 'from f | count()' }),
      headers: { 'Content-Type': 'application/json', Accept: 'application/x-zson' },
    });
    expect(r.text).toBe('');
  });

  test('malformed input mid-stream: what came before is loaded and cached', async () => {
    const before = await metrics(on.base);
    // As in the reference, the load ends at the bad line with a warning.
    const r = await call(on.base, 'POST', '/pool/f/branch/main', {
      body: data() + '{ts:1,kind:\n' + data(),
      headers: { 'Content-Type': 'application/x-zson', Accept: 'application/json' },
    });
    expect(r.status).toBe(200);
    expect(r.text).toContain('warnings');
    const after = await metrics(on.base);
    expect(after.zlake_scan_cache_streams).toBeGreaterThan(before.zlake_scan_cache_streams);
    expect(after.zlake_scan_cache_bytes).toBeLessThanOrEqual(after.zlake_scan_cache_capacity_bytes);
    const q = 'from f | count() by kind | sort kind';
    const got = await run(on.base, q);
    expect((await metrics(on.base)).zlake_scan_cache_misses_total).toBe(
      before.zlake_scan_cache_misses_total,
    );
    expect(got).toEqual(await run(off.base, q.replace('from f', 'from p')));
  });
});

test('with the cache off nothing is cached', async () => {
  const m = await metrics(off.base);
  expect(m).toMatchObject({
    zlake_scan_cache_capacity_bytes: 0,
    zlake_scan_cache_bytes: 0,
    zlake_scan_cache_streams: 0,
    zlake_scan_cache_hits_total: 0,
    zlake_scan_cache_misses_total: 0,
  });
});

test('bytes_read is the bytes of the values scanned, as the reference counts', async () => {
  const { stats } = await run(on.base, 'from p | kind=="other"');
  const [read, matched, records, recordsMatched] = JSON.parse(stats) as number[];
  expect(records).toBe(2000);
  expect(recordsMatched).toBe(286);
  // Every record's body is at least its fields' bytes, and the matches are a part.
  expect(read).toBeGreaterThan(2000 * 8);
  expect(matched).toBeGreaterThan(0);
  expect(matched).toBeLessThan(read / 3);
});
