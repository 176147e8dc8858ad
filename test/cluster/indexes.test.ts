// Index rules and index objects on two replicas sharing S3 and Redis: a
// rule made on one replica is there on the other, rules and index objects
// survive Redis forgetting everything, concurrent adds of one rule let
// exactly one win, and a query on either replica skips what the index
// (an object in S3) rules out.

import { call, createPool, load, postJSON } from '../service/helpers';
import { Cluster, query } from './cluster';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.start(2);
}, 60000);

afterAll(() => cluster?.stop());

async function stats(base: string, q: string): Promise<number> {
  const r = await call(base, 'POST', '/query?ctrl=T', {
    body: JSON.stringify({ query: q }),
    headers: { 'Content-Type': 'application/json', Accept: 'application/x-zjson' },
  });
  const line = r.text.split('\n').find((l) => l.includes('"QueryStats"'))!;
  return (JSON.parse(line) as { value: { records_read: number } }).value.records_read;
}

test('rules and indexes are shared, survive FLUSHALL, and prune on every replica', async () => {
  const [a, b] = cluster.replicas;
  // Concurrent adds of one rule on both replicas: one wins.
  const adds = await Promise.all(
    [a, b, a, b].map((r) =>
      postJSON(r.base, '/index', { rules: [{ name: 'id', fields: [['id']] }] }),
    ),
  );
  expect(adds.map((r) => r.status).sort()).toEqual([204, 409, 409, 409]);
  expect(await query(b.base, 'from :index_rules | count()')).toBe('1(uint64)\n');

  await createPool(a.base, 'p', { keys: [['k']] });
  for (let o = 0; o < 4; o++) {
    let text = '';
    for (let i = 0; i < 25; i++) text += `{k:${o * 25 + i},id:"id-${o * 25 + i}"}`;
    await load(b.base, 'p', text);
  }
  const r = await postJSON(a.base, '/pool/p/branch/main/index/update', {});
  expect(r.status).toBe(200);
  for (const rep of [a, b]) {
    expect(await query(rep.base, 'from p | id=="id-60"')).toBe('{k:60,id:"id-60"}\n');
    expect(await stats(rep.base, 'from p | id=="id-60"')).toBe(25);
  }

  await cluster.redis.flushAll();
  expect(await query(b.base, 'from :index_rules | yield name')).toBe('"id"\n');
  expect(await query(a.base, 'from p@main:indexes | count()')).toBe('4(uint64)\n');
  expect(await stats(b.base, 'from p | id=="absent"')).toBe(0);
  // A rule added after the loss is kept beside the old one.
  expect((await postJSON(b.base, '/index', { rules: [{ name: 'IPs', type: 'ip' }] })).status).toBe(
    204,
  );
  expect(await query(a.base, 'from :index_rules | sort name | yield name')).toBe('"IPs"\n"id"\n');
}, 120000);
