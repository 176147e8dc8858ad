// One suite for every Coordinator: in-process and Redis (a real
// redis-server). The lake relies on exactly these semantics.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Coordinator, isGroupNotLoaded, StreamEvent } from '../../src/coord/coord';
import { LocalCoordinator } from '../../src/coord/local';
import { RedisCoordinator } from '../../src/coord/redis';
import { startRedis, TestRedis } from '../helpers/servers';

let redis: TestRedis;
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis();
}, 30000);

afterAll(() => redis.stop());

const backends: [string, () => Promise<Coordinator>][] = [
  ['local', async () => LocalCoordinator.memory()],
  ['redis', () => RedisCoordinator.open(redis.url, { prefix: `t${++prefixes}` })],
];

function collect(c: Coordinator, after?: string): { events: StreamEvent[]; stop: () => void } {
  const events: StreamEvent[] = [];
  const stop = c.subscribe((e) => events.push(e), after);
  return { events, stop };
}

async function until(ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.each(backends)('%s coordinator', (name, open) => {
  let c: Coordinator;
  beforeEach(async () => {
    c = await open();
  });
  afterEach(() => c.close());

  test('a group is unusable until loaded, then holds exactly what was loaded', async () => {
    for (const op of [
      () => c.get('g', 'a'),
      () => c.list('g'),
      () => c.compareAndSwap('g', 'a', null, 'x'),
    ]) {
      expect(isGroupNotLoaded(await op().catch((e) => e))).toBe(true);
    }
    await c.load('g', new Map([['a', '1']]));
    expect(await c.get('g', 'a')).toBe('1');
    expect(await c.get('g', 'b')).toBeNull();
    // A later load changes nothing: the first loader read the truth.
    await c.load('g', new Map([['b', '2']]));
    expect([...(await c.list('g'))]).toEqual([['a', '1']]);
    await c.dropGroup('g');
    expect(isGroupNotLoaded(await c.get('g', 'a').catch((e) => e))).toBe(true);
    await c.ping();
  });

  test('compare-and-swap creates and updates registers, with any name text', async () => {
    await c.load('p/branches', new Map());
    const names = ['main', 'with space', 'ünï/cödé', 'r:tricky', 'loaded'];
    for (const n of names) {
      expect(await c.compareAndSwap('p/branches', n, null, `v1 ${n}`)).toBe(true);
      expect(await c.compareAndSwap('p/branches', n, null, 'again')).toBe(false);
      expect(await c.compareAndSwap('p/branches', n, 'wrong', 'v2')).toBe(false);
      expect(await c.compareAndSwap('p/branches', n, `v1 ${n}`, `v2 ${n}`)).toBe(true);
      expect(await c.get('p/branches', n)).toBe(`v2 ${n}`);
    }
    expect([...(await c.list('p/branches')).keys()]).toEqual([...names].sort());
  });

  test('of concurrent swaps from one value exactly one wins', async () => {
    await c.load('g', new Map([['r', '0']]));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => c.compareAndSwap('g', 'r', '0', `w${i}`)),
    );
    expect(results.filter((r) => r)).toHaveLength(1);
    expect(await c.get('g', 'r')).toBe(`w${results.indexOf(true)}`);
  });

  test('events of a swap enter the stream with it, in swap order', async () => {
    await c.load('g', new Map());
    const sub = collect(c);
    expect(await c.compareAndSwap('g', 'r', null, '1', ['a', 'b'])).toBe(true);
    expect(await c.compareAndSwap('g', 'r', 'x', '2', ['lost'])).toBe(false);
    await c.publish('c');
    expect(await c.compareAndSwap('g', 'r', '1', '2', ['d'])).toBe(true);
    await until(() => sub.events.length === 4);
    expect(sub.events.map((e) => e.message)).toEqual(['a', 'b', 'c', 'd']);
    const ids = sub.events.map((e) => e.id);
    expect(new Set(ids).size).toBe(4);
    // Resuming after an event replays what followed it.
    const resumed = collect(c, ids[1]);
    await until(() => resumed.events.length === 2);
    expect(resumed.events.map((e) => e.message)).toEqual(['c', 'd']);
    await c.publish('e');
    await until(() => resumed.events.length === 3 && sub.events.length === 5);
    expect(resumed.events[2].message).toBe('e');
    sub.stop();
    resumed.stop();
  });

  test('publishing never waits on a subscriber', async () => {
    const seen: string[] = [];
    c.subscribe((e) => {
      seen.push(e.message);
      // A slow subscriber: busy for a while on each event.
      const until = Date.now() + 2;
      while (Date.now() < until);
    });
    const started = Date.now();
    for (let i = 0; i < 50; i++) await c.publish(String(i));
    expect(Date.now() - started).toBeLessThan(2000);
    await until(() => seen.length === 50);
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
  });

  if (name !== 'redis') return;

  test('a second replica sees the same registers and every event', async () => {
    const prefix = `shared${++prefixes}`;
    const a = await RedisCoordinator.open(redis.url, { prefix });
    const b = await RedisCoordinator.open(redis.url, { prefix });
    try {
      await a.load('g', new Map());
      const sub = collect(b);
      expect(await a.compareAndSwap('g', 'r', null, '1', ['from a'])).toBe(true);
      expect(await b.get('g', 'r')).toBe('1');
      expect(await b.compareAndSwap('g', 'r', '1', '2', ['from b'])).toBe(true);
      await until(() => sub.events.length === 2);
      expect(sub.events.map((e) => e.message)).toEqual(['from a', 'from b']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('after FLUSHALL every group reports it is not loaded, never empty', async () => {
    await c.load('g', new Map([['r', '1']]));
    await redis.flushAll();
    expect(isGroupNotLoaded(await c.get('g', 'r').catch((e) => e))).toBe(true);
    expect(isGroupNotLoaded(await c.compareAndSwap('g', 'r', null, 'x').catch((e) => e))).toBe(
      true,
    );
  });
});

test('local: one process owns a lake directory at a time', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'zlake-coord-'));
  try {
    const a = await LocalCoordinator.open(dir);
    await expect(LocalCoordinator.open(dir)).rejects.toThrow('already open in this process');
    await a.close();
    const b = await LocalCoordinator.open(dir);
    await b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
