import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LocalCoordinator } from '../../src/coord/local';
import { exited, spawnTs, waitForLine } from '../lake/spawn-ts';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'zlake-coord-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('compare-and-swap creates, updates and deletes registers', async () => {
  const c = await LocalCoordinator.open(dir);
  expect(await c.get('a')).toBeNull();
  expect(await c.compareAndSwap('a', 'x', '1')).toBe(false); // absent, not "x"
  expect(await c.compareAndSwap('a', null, '1')).toBe(true);
  expect(await c.compareAndSwap('a', null, '2')).toBe(false); // exists now
  expect(await c.get('a')).toBe('1');
  expect(await c.compareAndSwap('a', '2', '3')).toBe(false);
  expect(await c.compareAndSwap('a', '1', '3')).toBe(true);
  expect(await c.get('a')).toBe('3');
  expect(await c.compareAndSwap('a', '3', null)).toBe(true);
  expect(await c.get('a')).toBeNull();
  expect(await c.compareAndSwap('a', null, null)).toBe(true);
  await c.close();
});

test('list by prefix', async () => {
  const c = await LocalCoordinator.open(dir);
  await c.compareAndSwap('branch/p1/main', null, 'm');
  await c.compareAndSwap('branch/p1/dev', null, 'd');
  await c.compareAndSwap('branch/p2/main', null, 'x');
  await c.compareAndSwap('pools', null, '[]');
  expect([...(await c.list('branch/p1/'))]).toEqual([
    ['branch/p1/dev', 'd'],
    ['branch/p1/main', 'm'],
  ]);
  expect((await c.list('')).size).toBe(4);
  expect((await c.list('nothing')).size).toBe(0);
  await c.close();
});

test('of concurrent swaps from one value exactly one wins', async () => {
  const c = await LocalCoordinator.open(dir);
  await c.compareAndSwap('head', null, 'v0');
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => c.compareAndSwap('head', 'v0', `w${i}`)),
  );
  expect(results.filter((r) => r)).toHaveLength(1);
  expect(await c.get('head')).toBe(`w${results.indexOf(true)}`);
  await c.close();
});

test('registers survive close and reopen, with any key text', async () => {
  const keys = [
    'pools',
    'branch/x/main',
    'branch/x/名前 with spaces/and/slashes',
    'k'.repeat(1000),
  ];
  const c = await LocalCoordinator.open(dir);
  for (const k of keys) await c.compareAndSwap(k, null, `value of ${k}`);
  await c.compareAndSwap('gone', null, 'soon');
  await c.compareAndSwap('gone', 'soon', null);
  await c.close();
  await expect(c.get('pools')).rejects.toThrow('closed');
  const d = await LocalCoordinator.open(dir);
  for (const k of keys) expect(await d.get(k)).toBe(`value of ${k}`);
  expect(await d.get('gone')).toBeNull();
  expect((await d.list('')).size).toBe(keys.length);
  await d.close();
});

test('one owner at a time', async () => {
  const c = await LocalCoordinator.open(dir);
  await expect(LocalCoordinator.open(dir)).rejects.toThrow('already open in this process');
  await c.close();
  // A lock left by a live process (our parent, say) refuses the open.
  writeFileSync(path.join(dir, 'LOCK'), String(process.ppid));
  await expect(LocalCoordinator.open(dir)).rejects.toThrow(`in use by process ${process.ppid}`);
  // A lock left by a dead process is taken over.
  writeFileSync(path.join(dir, 'LOCK'), '999999999');
  const d = await LocalCoordinator.open(dir);
  await d.close();
});

test('a corrupt register file is reported, not ignored', async () => {
  const c = await LocalCoordinator.open(dir);
  await c.compareAndSwap('a', null, '1');
  await c.close();
  const reg = readdirSync(dir).find((f) => f.endsWith('.reg'))!;
  writeFileSync(path.join(dir, reg), '{"k":"a","v":');
  await expect(LocalCoordinator.open(dir)).rejects.toThrow('corrupt coordination register');
  // The failed open let go of the directory.
  writeFileSync(path.join(dir, reg), JSON.stringify({ k: 'a', v: '2' }));
  const d = await LocalCoordinator.open(dir);
  expect(await d.get('a')).toBe('2');
  await d.close();
});

test('pub/sub delivers later, in order, and never waits for subscribers', async () => {
  const c = await LocalCoordinator.open(dir);
  const got: string[] = [];
  const also: string[] = [];
  const unsub = c.subscribe('ev', (m) => got.push(m));
  c.subscribe('ev', (m) => {
    also.push(m);
    throw new Error('a broken subscriber');
  });
  c.subscribe('other', () => got.push('wrong channel'));
  // A subscriber that blocks for a while holds up nobody's publish.
  c.subscribe('ev', () => {
    const until = Date.now() + 20;
    while (Date.now() < until);
  });
  const t0 = Date.now();
  for (let i = 0; i < 5; i++) await c.publish('ev', `m${i}`);
  expect(Date.now() - t0).toBeLessThan(20);
  expect(got).toEqual([]); // not yet: delivery is on a later turn
  await new Promise((r) => setTimeout(r, 200));
  expect(got).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  expect(also).toEqual(got);
  unsub();
  await c.publish('ev', 'after');
  await new Promise((r) => setTimeout(r, 50));
  expect(got).toHaveLength(5);
  expect(also).toHaveLength(6);
  await c.close();
});

test('a process killed mid-swap keeps every acknowledged value', async () => {
  const child = spawnTs(path.join(__dirname, 'fixtures/cas-loop.ts'), [dir]);
  let acked = 0;
  try {
    await waitForLine(child, (l) => {
      acked = Number(l);
      return acked >= 30;
    });
  } finally {
    child.kill('SIGKILL');
  }
  await exited(child);
  const c = await LocalCoordinator.open(dir);
  const v = await c.get('counter');
  expect(v).not.toBeNull();
  const [n, pad] = v!.split(':');
  // The last acknowledged value or one swapped in after it (never older, never torn).
  expect(Number(n)).toBeGreaterThanOrEqual(acked);
  expect(Number(n)).toBeLessThanOrEqual(acked + 1);
  expect(pad).toBe('x'.repeat(2000));
  // Temp files of the interrupted swap were cleared away.
  expect(readdirSync(dir).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
  await c.close();
});
