// Three replicas sharing one bucket and one Redis; eight writers spread
// over them load, delete, merge and revert on the same branch at once.
// Afterwards every acknowledged commit is in the log exactly once, the
// records add up, every replica answers alike, and an SSE client on each
// replica saw every commit, in commit order.

import { call, createPool, postJSON } from '../service/helpers';
import { batch, Cluster, EventClient, eventually, logOf, query } from './cluster';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.start(3);
}, 60000);

afterAll(() => cluster?.stop());

const N = 40;

async function ok(r: Promise<{ status: number; text: string }>): Promise<unknown> {
  const res = await r;
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  try {
    return JSON.parse(res.text);
  } catch {
    throw new Error(`not JSON: ${res.text}`);
  }
}

test('eight concurrent writers on three replicas: nothing acknowledged is lost', async () => {
  const [a] = cluster.replicas;
  await createPool(a.base, 'p');
  const sse = cluster.replicas.map((r) => new EventClient(r.base));
  await new Promise((r) => setTimeout(r, 300));

  /** Commits acknowledged on main, by every writer. */
  const acked: string[] = [];
  const writer = async (w: number) => {
    const base = cluster.replicas[w % 3].base;
    const load = async (b: number, branch = 'main') => {
      const r = (await ok(
        call(base, 'POST', `/pool/p/branch/${branch}`, {
          body: batch(w, b, N),
          headers: { 'Content-Type': 'application/x-zson', Accept: 'application/json' },
        }),
      )) as { commit: string };
      return r.commit;
    };
    // b0: loaded, then deleted by filter.
    acked.push(await load(0));
    // b1: loaded, then reverted.
    const c1 = await load(1);
    acked.push(c1);
    // b2: loaded on the writer's branch, merged into main.
    const tip = (
      (await ok(
        call(base, 'GET', '/pool/p/branch/main', { headers: { Accept: 'application/json' } }),
      )) as { commit: string }
    ).commit;
    await ok(postJSON(base, '/pool/p', { name: `w${w}`, commit: tip }));
    await load(2, `w${w}`);
    acked.push(
      ((await ok(postJSON(base, `/pool/p/branch/main/merge/w${w}`, {}))) as { commit: string })
        .commit,
    );
    acked.push(
      (
        (await ok(postJSON(base, '/pool/p/branch/main/delete', { where: `w==${w} and b==0` }))) as {
          commit: string;
        }
      ).commit,
    );
    acked.push(
      ((await ok(postJSON(base, `/pool/p/branch/main/revert/${c1}`, {}))) as { commit: string })
        .commit,
    );
    // b3: a last plain load.
    acked.push(await load(3));
  };
  await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));

  // Every acknowledged commit is in main's log exactly once, and the log
  // holds nothing else: one chain, no lost or duplicated commit.
  for (const r of cluster.replicas) {
    const log = await logOf(r.base, 'p');
    expect(new Set(log).size).toBe(log.length);
    expect([...log].sort()).toEqual([...acked].sort());
  }
  // Records add up: b2 and b3 of each writer remain.
  const counts = await Promise.all(
    cluster.replicas.map((r) => query(r.base, 'from p | count() by b | sort b')),
  );
  expect(counts[0]).toBe(`{b:2,count:${8 * N}(uint64)}\n{b:3,count:${8 * N}(uint64)}\n`);
  // Every replica answers the same query with the same bytes.
  const all = await Promise.all(cluster.replicas.map((r) => query(r.base, 'from p | sort w,b,i')));
  expect(all[0].split('\n').length - 1).toBe(16 * N);
  for (const x of counts) expect(x).toBe(counts[0]);
  for (const x of all) expect(x).toBe(all[0]);
  // Each replica's SSE client saw every commit of main, in commit order.
  const order = (await logOf(a.base, 'p')).reverse();
  for (const s of sse) {
    await eventually(() => acked.every((c) => s.commits().includes(c)));
    expect(s.commits().filter((c) => acked.includes(c))).toEqual(order);
    const ids = s.events.map((e) => e.id);
    expect(ids.every((id) => /^\d+-\d+$/.test(id))).toBe(true);
  }
  // A client reconnecting with Last-Event-ID resumes after that event.
  const events = sse[0].events;
  const mid = events[Math.floor(events.length / 2)];
  const resumed = new EventClient(cluster.replicas[2].base, mid.id);
  const rest = events.slice(events.indexOf(mid) + 1).map((e) => e.id);
  await eventually(() => resumed.events.length >= rest.length);
  expect(resumed.events.map((e) => e.id)).toEqual(rest);
  await resumed.close();
  for (const s of sse) await s.close();
}, 120000);

/** A replica's zlake_scan_cache_streams gauge. */
async function cachedStreams(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^zlake_scan_cache_streams (\S+)$/m.exec(text)![1]);
}

test('a delete or vacuum on one replica drops the cached streams on the others', async () => {
  const [a, b, c] = cluster.replicas;
  await createPool(a.base, 'cached');
  const load = async (base: string, bt: number) =>
    (
      (await ok(
        call(base, 'POST', '/pool/cached/branch/main', {
          body: batch(0, bt, N),
          headers: { 'Content-Type': 'application/x-zson', Accept: 'application/json' },
        }),
      )) as { commit: string }
    ).commit;
  await load(a.base, 0);
  await load(a.base, 1);
  // B and C read the pool's rows (yield this: whole values): its streams are now in their caches.
  const baseline = await Promise.all([b, c].map((r) => cachedStreams(r.base)));
  for (const r of [b, c]) await query(r.base, 'from cached | yield this | count()');
  const filled = await Promise.all([b, c].map((r) => cachedStreams(r.base)));
  expect(filled[0]).toBeGreaterThan(baseline[0]);
  expect(filled[1]).toBeGreaterThan(baseline[1]);
  // A deletes batch 0's object: B and C drop its streams.
  const objects = JSON.parse(
    (await postJSON(a.base, '/query', { query: 'from cached@main:objects | yield id' })).text,
  ) as string[];
  expect(objects).toHaveLength(2);
  const before = (
    (await ok(
      call(a.base, 'GET', '/pool/cached/branch/main', { headers: { Accept: 'application/json' } }),
    )) as { commit: string }
  ).commit;
  await ok(postJSON(a.base, '/pool/cached/branch/main/delete', { where: 'b==0' }));
  await eventually(async () => (await cachedStreams(b.base)) < filled[0]);
  await eventually(async () => (await cachedStreams(c.base)) < filled[1]);
  expect(await query(b.base, 'from cached | count()')).toBe(`${N}(uint64)\n`);
  // Time travel to before the delete caches the deleted object again on B;
  // A's vacuum removes it, and B forgets it too.
  const old = `from cached@${before} | yield this | count()`;
  expect(await query(b.base, old)).toBe(`${2 * N}(uint64)\n`);
  const refilled = await cachedStreams(b.base);
  await ok(postJSON(a.base, '/pool/cached/revision/main/vacuum', {}));
  await eventually(async () => (await cachedStreams(b.base)) < refilled);
  const r = await postJSON(b.base, '/query', { query: old });
  expect(r.text).toMatch(/removed by vacuum/);
  // A bare count() (answered from the objects' counts) says so too.
  const bare = await postJSON(b.base, '/query', { query: `from cached@${before} | count()` });
  expect(bare.text).toMatch(/removed by vacuum/);
});
