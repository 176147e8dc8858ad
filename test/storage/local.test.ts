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

test('put replaces an object whole', async () => {
  await store.put('k', Buffer.alloc(1000, 1));
  await store.put('k', Buffer.alloc(10, 2));
  expect(await store.get('k')).toEqual(Buffer.alloc(10, 2));
  expect(files()).toEqual(['k']);
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

test('a path through a file is not found; putIfAbsent leaves no temporary file', async () => {
  await store.put('f', Buffer.from('x'));
  await expect(store.get('f/g')).rejects.toBeInstanceOf(ObjectNotFoundError);
  expect(await store.size('f/g').catch((e) => isNotFound(e))).toBe(true);
  expect(await store.putIfAbsent('j/1', Buffer.from('a'))).toBe(true);
  expect(await store.putIfAbsent('j/1', Buffer.from('b'))).toBe(false);
  expect(files()).toEqual(['f', 'j/1']);
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
