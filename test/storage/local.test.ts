import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LocalStore } from '../../src/storage/local';
import { isNotFound, ObjectNotFoundError } from '../../src/storage/storage';
import { exited, spawnTs, waitForLine } from '../lake/spawn-ts';

let dir: string;
let store: LocalStore;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'zlake-store-'));
  store = new LocalStore(dir);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every file under dir, relative, temp files included. */
function files(d = dir, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...files(path.join(d, e.name), r));
    else out.push(r);
  }
  return out.sort();
}

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
});

test('missing objects raise ObjectNotFoundError', async () => {
  await expect(store.get('nope')).rejects.toBeInstanceOf(ObjectNotFoundError);
  await expect(store.getRange('a/b', 0, 1)).rejects.toThrow('a/b: object not found');
  await expect(store.size('a/b').catch((e) => isNotFound(e))).resolves.toBe(true);
  // A path through a file is not found too.
  await store.put('f', Buffer.from('x'));
  await expect(store.get('f/g')).rejects.toBeInstanceOf(ObjectNotFoundError);
});

test('put replaces an object whole', async () => {
  await store.put('k', Buffer.alloc(1000, 1));
  await store.put('k', Buffer.alloc(10, 2));
  expect(await store.get('k')).toEqual(Buffer.alloc(10, 2));
  expect(files()).toEqual(['k']);
});

test('list by prefix, sorted, across directories', async () => {
  for (const k of ['a/commits/2.zng', 'a/commits/1.zng', 'a/data/1.zng', 'b/data/1.zng', 'ab']) {
    await store.put(k, Buffer.from(k));
  }
  expect(await store.list('a/commits/')).toEqual(['a/commits/1.zng', 'a/commits/2.zng']);
  expect(await store.list('a')).toEqual([
    'a/commits/1.zng',
    'a/commits/2.zng',
    'a/data/1.zng',
    'ab',
  ]);
  expect(await store.list('a/')).toEqual(['a/commits/1.zng', 'a/commits/2.zng', 'a/data/1.zng']);
  expect(await store.list('a/commits/1')).toEqual(['a/commits/1.zng']);
  expect(await store.list('zz/')).toEqual([]);
  expect(await store.list('')).toHaveLength(5);
});

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
  // Writing under a removed directory works.
  await store.put('p/data/3.zng', Buffer.from('3'));
  expect(await store.get('p/data/3.zng')).toEqual(Buffer.from('3'));
});

test('a written object is invisible until committed and gone when aborted', async () => {
  const w = await store.create('p/data/big.zng');
  await w.write(Buffer.alloc(100000, 7));
  expect(await store.exists('p/data/big.zng')).toBe(false);
  expect(await store.list('')).toEqual([]);
  await w.write(Buffer.alloc(5, 8));
  await w.commit();
  expect((await store.get('p/data/big.zng')).length).toBe(100005);

  const a = await store.create('p/data/aborted.zng');
  await a.write(Buffer.from('partial'));
  await a.abort();
  expect(await store.exists('p/data/aborted.zng')).toBe(false);
  expect(files()).toEqual(['p/data/big.zng']);
  await expect(a.write(Buffer.from('x'))).rejects.toThrow('finished object');
});

test('bad keys are refused', async () => {
  for (const k of ['', '/abs', 'a//b', '../x', 'a/./b', 'a\\b', 'a/.tmp-1']) {
    await expect(store.put(k, Buffer.from('x'))).rejects.toThrow('invalid object key');
  }
});

test('a writer killed mid-object leaves no object and nothing listed', async () => {
  const child = spawnTs(path.join(__dirname, 'fixtures/slow-writer.ts'), [dir]);
  try {
    await waitForLine(child, (l) => l === 'writing');
  } finally {
    child.kill('SIGKILL');
  }
  await exited(child);
  // The partial write is a temp file nobody sees.
  expect(files().some((f) => f.startsWith('p/data/.tmp-'))).toBe(true);
  expect(await store.list('')).toEqual(['p/data/done.zng']);
  expect(await store.exists('p/data/partial.zng')).toBe(false);
  expect((await store.get('p/data/done.zng')).toString()).toBe('committed');
});
