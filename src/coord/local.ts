// In-process coordination for the embedded lake. Registers live in memory
// and in a directory (one small file per register, named by a hash of its
// key); a compare-and-swap writes the new value to a temporary file,
// fsyncs it, renames it over the register's file and fsyncs the directory
// before it is acknowledged, so branch heads survive a crash or restart.
// Swaps of one register are serialised; different registers proceed in
// parallel. Pub/sub delivers on a later turn of the event loop, so a slow
// subscriber never holds up a publisher.
//
// One process owns the directory: a LOCK file records its pid, and opening
// a directory that a live process holds fails.

import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { syncDir } from '../storage/fsutil';
import { Coordinator } from './coord';

const REG_SUFFIX = '.reg';
const TMP_PREFIX = '.tmp-';
const LOCK = 'LOCK';

const openDirs = new Set<string>();

export class LocalCoordinator implements Coordinator {
  private values = new Map<string, string>();
  private queues = new Map<string, Promise<unknown>>();
  private channels = new Map<string, Set<(m: string) => void>>();
  private closed = false;

  private constructor(readonly dir: string) {}

  /** Opens (creating if needed) the coordination state in dir. */
  static async open(dir: string): Promise<LocalCoordinator> {
    const abs = path.resolve(dir);
    if (openDirs.has(abs))
      throw new Error(`coordination directory ${abs} is already open in this process`);
    await fs.mkdir(abs, { recursive: true });
    await takeLock(abs);
    openDirs.add(abs);
    const c = new LocalCoordinator(abs);
    try {
      await c.load();
    } catch (e) {
      openDirs.delete(abs);
      await fs.unlink(path.join(abs, LOCK)).catch(() => undefined);
      throw e;
    }
    return c;
  }

  private async load(): Promise<void> {
    for (const name of await fs.readdir(this.dir)) {
      if (name.startsWith(TMP_PREFIX)) {
        // A swap that crashed before its rename: never acknowledged.
        await fs.unlink(path.join(this.dir, name)).catch(() => undefined);
        continue;
      }
      if (!name.endsWith(REG_SUFFIX)) continue;
      const text = await fs.readFile(path.join(this.dir, name), 'utf8');
      let rec: { k: string; v: string };
      try {
        rec = JSON.parse(text);
      } catch {
        throw new Error(`corrupt coordination register ${path.join(this.dir, name)}`);
      }
      if (typeof rec.k !== 'string' || typeof rec.v !== 'string' || fileOf(rec.k) !== name) {
        throw new Error(`corrupt coordination register ${path.join(this.dir, name)}`);
      }
      this.values.set(rec.k, rec.v);
    }
  }

  private check(): void {
    if (this.closed) throw new Error('coordinator is closed');
  }

  async get(key: string): Promise<string | null> {
    this.check();
    return this.values.get(key) ?? null;
  }

  compareAndSwap(key: string, expected: string | null, next: string | null): Promise<boolean> {
    this.check();
    const prev = this.queues.get(key) ?? Promise.resolve();
    const run = prev.then(() => this.swap(key, expected, next));
    const tail = run.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }

  private async swap(key: string, expected: string | null, next: string | null): Promise<boolean> {
    this.check();
    const cur = this.values.get(key) ?? null;
    if (cur !== expected) return false;
    if (cur === next) return true;
    const file = path.join(this.dir, fileOf(key));
    if (next === null) {
      try {
        await fs.unlink(file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      await syncDir(this.dir);
      this.values.delete(key);
      return true;
    }
    const tmp = path.join(this.dir, TMP_PREFIX + randomBytes(8).toString('hex'));
    const fh = await fs.open(tmp, 'wx');
    try {
      await fh.writeFile(JSON.stringify({ k: key, v: next }));
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await fs.rename(tmp, file);
    } catch (e) {
      await fs.unlink(tmp).catch(() => undefined);
      throw e;
    }
    await syncDir(this.dir);
    this.values.set(key, next);
    return true;
  }

  async list(prefix: string): Promise<Map<string, string>> {
    this.check();
    const out = new Map<string, string>();
    const keys = [...this.values.keys()].filter((k) => k.startsWith(prefix)).sort();
    for (const k of keys) out.set(k, this.values.get(k)!);
    return out;
  }

  async publish(channel: string, message: string): Promise<void> {
    this.check();
    const subs = this.channels.get(channel);
    if (!subs) return;
    for (const handler of subs) {
      setImmediate(() => {
        try {
          handler(message);
        } catch {
          // A subscriber's failure is its own business.
        }
      });
    }
  }

  subscribe(channel: string, handler: (message: string) => void): () => void {
    this.check();
    let subs = this.channels.get(channel);
    if (!subs) {
      subs = new Set();
      this.channels.set(channel, subs);
    }
    // Wrap so the same function may subscribe twice and unsubscribe once.
    const h = (m: string) => handler(m);
    subs.add(h);
    return () => {
      subs!.delete(h);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Let acknowledged-to-be swaps finish before letting go of the directory.
    await Promise.all([...this.queues.values()]);
    this.closed = true;
    this.channels.clear();
    openDirs.delete(this.dir);
    await fs.unlink(path.join(this.dir, LOCK)).catch(() => undefined);
  }
}

function fileOf(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex') + REG_SUFFIX;
}

async function takeLock(dir: string): Promise<void> {
  const lock = path.join(dir, LOCK);
  try {
    const pid = Number((await fs.readFile(lock, 'utf8')).trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
      throw new Error(`lake coordination state ${dir} is in use by process ${pid}`);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const tmp = path.join(dir, TMP_PREFIX + randomBytes(8).toString('hex'));
  await fs.writeFile(tmp, String(process.pid));
  await fs.rename(tmp, lock);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
