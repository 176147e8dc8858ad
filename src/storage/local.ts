// The embedded object store: a local directory. Keys map to files under the
// root. An object becomes visible whole or not at all: it is written to a
// temporary file in the same directory, fsynced, renamed over its key, and
// the directory is fsynced before put() resolves. (The rename is this
// implementation's business; the lake never renames.)

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { syncDir } from './fsutil';
import { ObjectNotFoundError, ObjectStore, ObjectWriter } from './storage';

const TMP_PREFIX = '.tmp-';
const WRITE_BUFFER = 1 << 20;

export class LocalStore implements ObjectStore {
  readonly location: string;
  /** A local disk reads ahead by itself; one read in flight keeps it busy. */
  readonly readAhead = 1;
  /**
   * Fetching the next objects ahead measured no faster here (reads from
   * the page cache are not round trips, and the reads ahead take the
   * second core from the response's compression): docs/benchmarks.md,
   * "Fetching ahead".
   */
  readonly objectsAhead = 0;
  readonly rangeSize = 1 << 20;
  private knownDirs = new Set<string>();

  constructor(readonly root: string) {
    this.location = path.resolve(root);
  }

  private pathOf(key: string): string {
    checkKey(key);
    return path.join(this.location, ...key.split('/'));
  }

  async put(key: string, data: Buffer): Promise<void> {
    const w = await this.create(key);
    try {
      await w.write(data);
      await w.commit();
    } catch (e) {
      // After a failed commit too: abort closes whatever is still open.
      await w.abort();
      throw e;
    }
  }

  async putIfAbsent(key: string, data: Buffer): Promise<boolean> {
    const final = this.pathOf(key);
    const dir = path.dirname(final);
    await this.ensureDir(dir);
    const tmp = path.join(dir, TMP_PREFIX + randomBytes(8).toString('hex'));
    try {
      const fh = await fs.open(tmp, 'wx');
      try {
        await fh.writeFile(data);
        await fh.sync();
      } finally {
        await fh.close();
      }
      // link() fails when the key exists: the atomic create-if-absent.
      try {
        await fs.link(tmp, final);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e;
      }
    } finally {
      await fs.unlink(tmp).catch(() => undefined);
    }
    await syncDir(dir);
    return true;
  }

  async ping(): Promise<void> {
    await fs.access(this.location);
  }

  async create(key: string): Promise<ObjectWriter> {
    const final = this.pathOf(key);
    const dir = path.dirname(final);
    await this.ensureDir(dir);
    const tmp = path.join(dir, TMP_PREFIX + randomBytes(8).toString('hex'));
    let fh;
    try {
      fh = await fs.open(tmp, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      // The directory went away under us (a pool was dropped): remake it.
      this.knownDirs.delete(dir);
      await this.ensureDir(dir);
      fh = await fs.open(tmp, 'wx');
    }
    let done = false;
    const pending = Buffer.allocUnsafe(WRITE_BUFFER);
    let pendingLen = 0;
    const writeAll = async (buf: Buffer) => {
      let off = 0;
      while (off < buf.length) {
        const { bytesWritten } = await fh.write(buf, off, buf.length - off);
        off += bytesWritten;
      }
    };
    const flushPending = async () => {
      if (pendingLen === 0) return;
      const n = pendingLen;
      pendingLen = 0;
      await writeAll(pending.subarray(0, n));
    };
    const finish = async (keep: boolean) => {
      if (done) return;
      done = true;
      if (!keep) {
        await fh.close().catch(() => undefined);
        await fs.unlink(tmp).catch(() => undefined);
        return;
      }
      try {
        await fh.sync();
        await fh.close();
        await fs.rename(tmp, final);
      } catch (e) {
        await fh.close().catch(() => undefined);
        await fs.unlink(tmp).catch(() => undefined);
        throw e;
      }
      await syncDir(dir);
    };
    return {
      async write(chunk: Buffer) {
        if (done) throw new Error(`write to finished object ${key}`);
        // Small writes are gathered: a system call per frame costs more than the copy.
        if (pendingLen + chunk.length <= WRITE_BUFFER) {
          chunk.copy(pending, pendingLen);
          pendingLen += chunk.length;
          return;
        }
        await flushPending();
        if (chunk.length < WRITE_BUFFER) {
          chunk.copy(pending, 0);
          pendingLen = chunk.length;
        } else {
          await writeAll(chunk);
        }
      },
      commit: async () => {
        if (!done) {
          try {
            await flushPending();
          } catch (e) {
            // Nothing half-written stays, and the handle is closed now, not at GC.
            await finish(false);
            throw e;
          }
        }
        await finish(true);
      },
      abort: () => finish(false),
    };
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await fs.readFile(this.pathOf(key));
    } catch (e) {
      throw mapNotFound(e, key);
    }
  }

  async getRange(key: string, offset: number, length: number): Promise<Buffer> {
    let fh;
    try {
      fh = await fs.open(this.pathOf(key), 'r');
    } catch (e) {
      throw mapNotFound(e, key);
    }
    try {
      const buf = Buffer.allocUnsafe(length);
      let n = 0;
      while (n < length) {
        const { bytesRead } = await fh.read(buf, n, length - n, offset + n);
        if (bytesRead === 0) break;
        n += bytesRead;
      }
      return n === length ? buf : buf.subarray(0, n);
    } finally {
      await fh.close();
    }
  }

  async size(key: string): Promise<number> {
    try {
      return (await fs.stat(this.pathOf(key))).size;
    } catch (e) {
      throw mapNotFound(e, key);
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fs.access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async list(prefix: string): Promise<string[]> {
    // Walk from the deepest directory the prefix names in full.
    const cut = prefix.lastIndexOf('/');
    const base = cut < 0 ? '' : prefix.slice(0, cut);
    if (base !== '') checkKey(base);
    const out: string[] = [];
    await this.walk(base, prefix, out);
    return out.sort();
  }

  private async walk(dirKey: string, prefix: string, out: string[]): Promise<void> {
    const dir = dirKey === '' ? this.location : path.join(this.location, ...dirKey.split('/'));
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const ent of entries) {
      if (ent.name.startsWith(TMP_PREFIX)) continue;
      const key = dirKey === '' ? ent.name : dirKey + '/' + ent.name;
      if (ent.isDirectory()) {
        // Descend when the directory's keys could match the prefix.
        if (key.startsWith(prefix) || prefix.startsWith(key + '/'))
          await this.walk(key, prefix, out);
      } else if (key.startsWith(prefix)) {
        out.push(key);
      }
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await fs.unlink(this.pathOf(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  async deleteByPrefix(prefix: string): Promise<void> {
    if (prefix.endsWith('/')) {
      // A whole directory: remove it in one go.
      const dir = this.pathOf(prefix.slice(0, -1));
      await fs.rm(dir, { recursive: true, force: true });
      for (const d of this.knownDirs)
        if (d === dir || d.startsWith(dir + path.sep)) this.knownDirs.delete(d);
      return;
    }
    for (const key of await this.list(prefix)) await this.delete(key);
  }

  private async ensureDir(dir: string): Promise<void> {
    if (this.knownDirs.has(dir)) return;
    // Create missing ancestors one by one so each new entry can be synced.
    const missing: string[] = [];
    for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
      try {
        await fs.stat(d);
        break;
      } catch {
        missing.push(d);
      }
    }
    for (let i = missing.length - 1; i >= 0; i--) {
      try {
        await fs.mkdir(missing[i]);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      await syncDir(path.dirname(missing[i]));
    }
    this.knownDirs.add(dir);
  }
}

/** Keys are relative, slash-separated, with no empty, dot or dot-dot parts. */
function checkKey(key: string): void {
  if (key === '' || key.includes('\\') || key.includes('\0'))
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  for (const part of key.split('/')) {
    if (part === '' || part === '.' || part === '..' || part.startsWith(TMP_PREFIX)) {
      throw new Error(`invalid object key: ${JSON.stringify(key)}`);
    }
  }
}

function mapNotFound(e: unknown, key: string): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' ? new ObjectNotFoundError(key) : e;
}
