// Faults, each with "nothing acknowledged lost, nothing partial visible":
// a replica killed mid-load, Redis flushed or restarted between and during
// loads, and S3 errors, dropped connections and latency injected by the
// fault proxy in front of the S3 server.

import { Readable } from 'node:stream';
import { createPool } from '../service/helpers';
import { batch, Cluster, eventually, logOf, query, tryLoad } from './cluster';

let cluster: Cluster;
let pools = 0;

beforeAll(async () => {
  cluster = await Cluster.start(2);
}, 60000);

afterAll(() => cluster?.stop());

afterEach(() => cluster.s3.faults({}));

const N = 20;

/** Writers loading batches until stop(); the commits acknowledged and their batches. */
function writers(pool: string, count: number) {
  const acked = new Map<string, number>();
  let stopped = false;
  let b = 0;
  const runs = Array.from({ length: count }, async (_, w) => {
    while (!stopped) {
      const mine = b++;
      const base = cluster.replicas[w % cluster.replicas.length].base;
      const c = await tryLoad(base, pool, 'main', batch(w, mine, N));
      if (c) acked.set(c, mine);
      else await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    acked,
    async stop() {
      stopped = true;
      await Promise.all(runs);
    },
  };
}

/** Checks the pool holds exactly the acknowledged commits and their records, on every replica. */
async function expectExactly(pool: string, acked: Map<string, number>): Promise<void> {
  for (const r of cluster.replicas) {
    const log = await logOf(r.base, pool);
    expect(new Set(log).size).toBe(log.length);
    // Every acknowledged commit is there; a commit whose writer got no
    // answer may be there too (it may have happened), nothing else.
    for (const c of acked.keys()) expect(log).toContain(c);
    const count = await query(r.base, `from ${pool} | count()`);
    const commits = log.length;
    expect(count).toBe(`${commits * N}(uint64)\n`);
  }
}

async function newPool(): Promise<string> {
  const name = `f${++pools}`;
  await createPool(cluster.replicas[0].base, name);
  return name;
}

test('Redis FLUSHALL between loads loses nothing: heads come back from the journal', async () => {
  const pool = await newPool();
  const [a, b] = cluster.replicas;
  const acked = new Map<string, number>();
  for (let i = 0; i < 3; i++) acked.set((await tryLoad(a.base, pool, 'main', batch(0, i, N)))!, i);
  await cluster.redis.flushAll();
  // Both replicas still see the pool, its branch and all its data.
  for (const r of [a, b])
    expect(await query(r.base, `from ${pool} | count()`)).toBe(`${3 * N}(uint64)\n`);
  acked.set((await tryLoad(b.base, pool, 'main', batch(0, 3, N)))!, 3);
  await expectExactly(pool, acked);
});

test('Redis FLUSHALL during concurrent loads loses no acknowledged commit', async () => {
  const pool = await newPool();
  const w = writers(pool, 6);
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 250));
    await cluster.redis.flushAll();
  }
  await new Promise((r) => setTimeout(r, 250));
  await w.stop();
  expect(w.acked.size).toBeGreaterThan(5);
  await expectExactly(pool, w.acked);
}, 60000);

test('Redis restarted empty during loads: writers wait it out, nothing acknowledged is lost', async () => {
  const pool = await newPool();
  const w = writers(pool, 4);
  await new Promise((r) => setTimeout(r, 300));
  await cluster.redis.restart();
  await new Promise((r) => setTimeout(r, 500));
  await w.stop();
  expect(w.acked.size).toBeGreaterThan(2);
  await expectExactly(pool, w.acked);
  // The replicas are back in business.
  expect(await tryLoad(cluster.replicas[1].base, pool, 'main', batch(9, 0, N))).not.toBeNull();
}, 60000);

test('S3 errors, dropped connections and latency: loads and queries ride them out', async () => {
  const pool = await newPool();
  cluster.s3.faults({ errorRate: 0.15, status: 503, dropRate: 0.1, delayMs: 5 });
  const w = writers(pool, 4);
  await new Promise((r) => setTimeout(r, 1500));
  await w.stop();
  expect(cluster.s3.injected).toBeGreaterThan(0);
  expect(w.acked.size).toBeGreaterThan(2);
  // The checks read under lighter faults: at the rates above one call in
  // about 6000 exhausts its 6 attempts (0.235^6) and answers 503, which is
  // the retry budget at work, not a lost commit (CI once hit it).
  cluster.s3.faults({ errorRate: 0.05, status: 503, dropRate: 0.03, delayMs: 5 });
  await expectExactly(pool, w.acked);
  cluster.s3.faults({});
}, 60000);

test('S3 down past the retries: 503, and nothing partial is visible', async () => {
  const pool = await newPool();
  const [a] = cluster.replicas;
  await tryLoad(a.base, pool, 'main', batch(0, 0, N));
  const before = await logOf(a.base, pool);
  cluster.s3.faults({ errorRate: 1, status: 500, match: (req) => req.method === 'PUT' });
  const r = await fetch(`${a.base}/pool/${pool}/branch/main`, {
    method: 'POST',
    body: batch(0, 1, N),
    headers: { 'Content-Type': 'application/x-zson', Accept: 'application/json' },
  });
  expect(r.status).toBe(503);
  expect(await r.json()).toMatchObject({ type: 'Error', kind: 'unavailable' });
  cluster.s3.faults({});
  expect(await logOf(a.base, pool)).toEqual(before);
  expect(await query(a.base, `from ${pool} | count()`)).toBe(`${N}(uint64)\n`);
}, 60000);

test('a replica killed mid-load: its load never appears, the others go on', async () => {
  const pool = await newPool();
  const [a, b] = cluster.replicas;
  const acked = new Map<string, number>();
  acked.set((await tryLoad(b.base, pool, 'main', batch(1, 0, N)))!, 0);
  // A large load streamed slowly into A, which dies halfway.
  let sent = 0;
  const body = new Readable({
    read() {
      if (sent++ < 40) setTimeout(() => this.push(batch(2, sent, 500)), 10);
    },
  });
  const doomed = fetch(`${a.base}/pool/${pool}/branch/main`, {
    method: 'POST',
    body: Readable.toWeb(body) as ReadableStream,
    headers: { 'Content-Type': 'application/x-zson' },
    duplex: 'half',
  } as RequestInit).catch(() => null);
  await eventually(() => sent > 10);
  await a.kill();
  expect(await doomed).toBeNull();
  acked.set((await tryLoad(b.base, pool, 'main', batch(1, 1, N)))!, 1);
  const log = await logOf(b.base, pool);
  expect([...log].sort()).toEqual([...acked.keys()].sort());
  expect(await query(b.base, `from ${pool} | count()`)).toBe(`${2 * N}(uint64)\n`);
  // A replacement replica answers alike.
  cluster.replicas[0] = await cluster.startReplica();
  expect(await query(cluster.replicas[0].base, `from ${pool} | count()`)).toBe(
    `${2 * N}(uint64)\n`,
  );
}, 60000);
