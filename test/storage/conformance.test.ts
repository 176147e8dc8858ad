// One suite for every ObjectStore: the lake assumes exactly these
// semantics, so each backend must give them. S3 runs against a real
// S3-speaking server behind the fault proxy (test/helpers/servers.ts).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isUnavailable } from '../../src/backend/retry';
import { LocalStore } from '../../src/storage/local';
import { PART_SIZE, S3Store } from '../../src/storage/s3';
import { ObjectNotFoundError, ObjectStore } from '../../src/storage/storage';
import { startS3, TestS3 } from '../helpers/servers';

let s3: TestS3;
const dirs: string[] = [];

beforeAll(async () => {
  s3 = await startS3();
}, 30000);

afterAll(async () => {
  await s3.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const backends: [string, () => ObjectStore][] = [
  [
    'local',
    () => {
      const d = mkdtempSync(path.join(tmpdir(), 'zlake-store-'));
      dirs.push(d);
      return new LocalStore(d);
    },
  ],
  [
    's3',
    () =>
      new S3Store(s3.lake(), {
        endpoint: s3.endpoint,
        // 10 attempts: the retry test below makes 30 calls at a 30% fault
        // rate, and at 6 one run in 45 would exhaust a call (0.3^6 x 30).
        retry: { attempts: 10, baseMs: 5, capMs: 50 },
      }),
  ],
];

describe.each(backends)('%s object store', (name, make) => {
  let store: ObjectStore;
  beforeEach(() => {
    s3.faults({});
    store = make();
  });
  afterEach(async () => {
    s3.faults({});
    await store.close?.();
  });

  test('put then get, whole and by range', async () => {
    const data = Buffer.from('0123456789abcdef');
    await store.put('p/data/x.zng', data);
    expect(await store.get('p/data/x.zng')).toEqual(data);
    expect((await store.getRange('p/data/x.zng', 4, 3)).toString()).toBe('456');
    // A range past the end gives what there is.
    expect((await store.getRange('p/data/x.zng', 14, 10)).toString()).toBe('ef');
    expect((await store.getRange('p/data/x.zng', 20, 10)).length).toBe(0);
    expect(await store.size('p/data/x.zng')).toBe(16);
    expect(await store.exists('p/data/x.zng')).toBe(true);
    expect(await store.exists('p/data/y.zng')).toBe(false);
    await store.ping();
  });

  test('missing objects raise ObjectNotFoundError', async () => {
    await expect(store.get('nope')).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(store.getRange('a/b', 0, 1)).rejects.toThrow('a/b: object not found');
    await expect(store.size('a/b')).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  test('put replaces an object whole', async () => {
    await store.put('k', Buffer.alloc(1000, 1));
    await store.put('k', Buffer.alloc(10, 2));
    expect(await store.get('k')).toEqual(Buffer.alloc(10, 2));
    expect(await store.list('')).toEqual(['k']);
  });

  test('list by prefix, sorted, across "directories"', async () => {
    for (const k of ['a/commits/2.zng', 'a/commits/1.zng', 'a/data/1.zng', 'b/data/1.zng', 'ab'])
      await store.put(k, Buffer.from(k));
    expect(await store.list('a/commits/')).toEqual(['a/commits/1.zng', 'a/commits/2.zng']);
    expect(await store.list('a')).toEqual([
      'a/commits/1.zng',
      'a/commits/2.zng',
      'a/data/1.zng',
      'ab',
    ]);
    expect(await store.list('a/commits/1')).toEqual(['a/commits/1.zng']);
    expect(await store.list('zz/')).toEqual([]);
    expect(await store.list('')).toHaveLength(5);
  });

  test('list pages through more keys than one answer holds', async () => {
    const keys = Array.from({ length: 1234 }, (_, i) => `many/${String(i).padStart(5, '0')}`);
    for (let i = 0; i < keys.length; i += 100)
      await Promise.all(keys.slice(i, i + 100).map((k) => store.put(k, Buffer.from('x'))));
    expect(await store.list('many/')).toEqual(keys);
    await store.deleteByPrefix('many/');
    expect(await store.list('many/')).toEqual([]);
  }, 60000);

  test('delete and delete by prefix', async () => {
    for (const k of ['p/data/1.zng', 'p/data/2.zng', 'p/commits/1.zng', 'q/data/1.zng'])
      await store.put(k, Buffer.from(k));
    await store.delete('p/data/1.zng');
    await store.delete('p/data/1.zng'); // deleting a missing object is fine
    expect(await store.list('p/')).toEqual(['p/commits/1.zng', 'p/data/2.zng']);
    await store.deleteByPrefix('p/data/');
    expect(await store.list('')).toEqual(['p/commits/1.zng', 'q/data/1.zng']);
    await store.deleteByPrefix('p/');
    expect(await store.list('')).toEqual(['q/data/1.zng']);
    await store.put('p/data/3.zng', Buffer.from('3'));
    expect(await store.get('p/data/3.zng')).toEqual(Buffer.from('3'));
  });

  test('a written object is invisible until committed and gone when aborted', async () => {
    // Larger than a multipart part, written in uneven pieces.
    const total = PART_SIZE * 2 + 12345;
    const expected = Buffer.alloc(total);
    for (let i = 0; i < total; i++) expected[i] = (i * 7) & 0xff;
    const w = await store.create('p/data/big.zng');
    for (let off = 0; off < total; off += 3_000_001)
      await w.write(Buffer.from(expected.subarray(off, Math.min(total, off + 3_000_001))));
    expect(await store.exists('p/data/big.zng')).toBe(false);
    expect(await store.list('')).toEqual([]);
    await w.commit();
    expect(await store.size('p/data/big.zng')).toBe(total);
    expect((await store.get('p/data/big.zng')).equals(expected)).toBe(true);
    expect(
      (await store.getRange('p/data/big.zng', PART_SIZE - 2, 4)).equals(
        expected.subarray(PART_SIZE - 2, PART_SIZE + 2),
      ),
    ).toBe(true);

    const a = await store.create('p/data/aborted.zng');
    await a.write(Buffer.alloc(PART_SIZE + 10, 1));
    await a.abort();
    expect(await store.exists('p/data/aborted.zng')).toBe(false);
    expect(await store.list('')).toEqual(['p/data/big.zng']);
    await expect(a.write(Buffer.from('x'))).rejects.toThrow('finished object');

    const small = await store.create('p/data/small.zng');
    await small.write(Buffer.from('tiny'));
    await small.commit();
    expect((await store.get('p/data/small.zng')).toString()).toBe('tiny');
  }, 60000);

  test('putIfAbsent: of concurrent writers exactly one creates the object', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => store.putIfAbsent('j/1', Buffer.from(`writer ${i}`))),
    );
    expect(results.filter((r) => r)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect((await store.get('j/1')).toString()).toBe(`writer ${winner}`);
    expect(await store.putIfAbsent('j/1', Buffer.from('late'))).toBe(false);
    expect(await store.putIfAbsent('j/2', Buffer.from('next'))).toBe(true);
  });

  if (name !== 's3') return;

  test('retries throttling, server errors and dropped connections', async () => {
    const data = Buffer.alloc(200000, 9);
    await store.put('r/x', data);
    s3.faults({ errorRate: 0.3, status: 503 });
    for (let i = 0; i < 10; i++) await store.put(`r/${i}`, Buffer.from(String(i)));
    s3.faults({ errorRate: 0.3, status: 500 });
    for (let i = 0; i < 10; i++) expect((await store.get(`r/${i}`)).toString()).toBe(String(i));
    s3.faults({ dropRate: 0.3, match: (req) => req.method === 'GET' });
    for (let i = 0; i < 10; i++) expect((await store.get('r/x')).equals(data)).toBe(true);
    expect(s3.injected).toBeGreaterThan(0);
    s3.faults({ delayMs: 50 });
    expect((await store.getRange('r/x', 10, 5)).equals(data.subarray(10, 15))).toBe(true);
  }, 60000);

  test('a failure that outlives the retries is UnavailableError, leaving nothing', async () => {
    s3.faults({ errorRate: 1, status: 503 });
    const err = await store.put('u/x', Buffer.from('x')).catch((e) => e);
    expect(isUnavailable(err)).toBe(true);
    expect(String(err.message)).toMatch(/s3 unavailable \(put\)/);
    s3.faults({});
    expect(await store.exists('u/x')).toBe(false);
  });

  test('a multipart upload that fails is aborted: no object appears', async () => {
    const w = await store.create('m/x');
    await w.write(Buffer.alloc(PART_SIZE + 1, 1));
    s3.faults({ errorRate: 1, status: 500, match: (req) => req.method === 'POST' });
    await expect(w.commit()).rejects.toThrow(/unavailable/);
    s3.faults({});
    expect(await store.exists('m/x')).toBe(false);
  }, 60000);
});
