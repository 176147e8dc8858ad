// In-process coordination for the embedded lake: register groups in
// memory and an event stream that keeps its latest events for resuming
// subscribers. Nothing here is durable, exactly as with a Redis that runs
// without persistence: the lake reloads each group from its journal in the
// object store the first time it is used (src/lake/registers.ts), so the
// embedded lake and replicas on Redis run the same protocol.
//
// One process owns a lake directory: a LOCK file in `dir` records its pid,
// and opening a directory that a live process holds fails. Short-lived
// lake commands open a directory shared, without owning it (see open).

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Coordinator, GroupNotLoadedError, StreamEvent } from './coord';
import { EventLog } from './eventlog';

const LOCK = 'LOCK';
const openDirs = new Set<string>();

export class LocalCoordinator implements Coordinator {
  readonly location: string;
  private groups = new Map<string, Map<string, string>>();
  private events = new EventLog();
  private closed = false;

  /** dir: the directory this process owns (its lock), if any; at: where the state is. */
  private constructor(
    private dir: string | null,
    at: string | null = dir,
  ) {
    this.location = at ? `local:${at}` : 'memory';
  }

  /**
   * Coordination for the lake in dir, owned by this process until closed.
   * A shared opening (a short-lived lake command) takes no ownership but
   * is refused while an owner (a server) lives: several short-lived
   * processes may write at once, their commits ordered by the journal's
   * create-only versions, but an owner caches register versions that
   * another process's commits would leave stale.
   */
  static async open(dir: string, opts: { shared?: boolean } = {}): Promise<LocalCoordinator> {
    const abs = path.resolve(dir);
    if (openDirs.has(abs))
      throw new Error(`coordination directory ${abs} is already open in this process`);
    await fs.mkdir(abs, { recursive: true });
    await checkLock(abs);
    if (opts.shared) return new LocalCoordinator(null, abs);
    await takeLock(abs);
    openDirs.add(abs);
    return new LocalCoordinator(abs, abs);
  }

  /** Coordination owning no directory (tests, and several lakes sharing one). */
  static memory(): LocalCoordinator {
    return new LocalCoordinator(null, null);
  }

  private group(group: string): Map<string, string> {
    if (this.closed) throw new Error('coordinator is closed');
    const g = this.groups.get(group);
    if (!g) throw new GroupNotLoadedError(group);
    return g;
  }

  async get(group: string, name: string): Promise<string | null> {
    return this.group(group).get(name) ?? null;
  }

  async list(group: string): Promise<Map<string, string>> {
    return new Map([...this.group(group)].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
  }

  async compareAndSwap(
    group: string,
    name: string,
    expected: string | null,
    next: string,
    events?: string[],
  ): Promise<boolean> {
    const g = this.group(group);
    if ((g.get(name) ?? null) !== expected) return false;
    g.set(name, next);
    for (const m of events ?? []) this.events.append(m);
    return true;
  }

  async load(group: string, registers: Map<string, string>): Promise<void> {
    if (this.closed) throw new Error('coordinator is closed');
    if (!this.groups.has(group)) this.groups.set(group, new Map(registers));
  }

  async dropGroup(group: string): Promise<void> {
    this.groups.delete(group);
  }

  /** Forgets every group, as a Redis FLUSHALL would (for tests of recovery). */
  forgetAll(): void {
    this.groups.clear();
  }

  async publish(message: string): Promise<void> {
    if (this.closed) throw new Error('coordinator is closed');
    this.events.append(message);
  }

  subscribe(handler: (e: StreamEvent) => void, after?: string): () => void {
    if (this.closed) throw new Error('coordinator is closed');
    return this.events.subscribe(handler, after);
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('coordinator is closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.events.close();
    if (this.dir) {
      openDirs.delete(this.dir);
      await fs.unlink(path.join(this.dir, LOCK)).catch(() => undefined);
    }
  }
}

/** Fails when a live process other than this one owns dir. */
async function checkLock(dir: string): Promise<void> {
  const lock = path.join(dir, LOCK);
  try {
    const pid = Number((await fs.readFile(lock, 'utf8')).trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
      throw new Error(`lake coordination state ${dir} is in use by process ${pid}`);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

async function takeLock(dir: string): Promise<void> {
  const tmp = path.join(dir, '.tmp-' + randomBytes(8).toString('hex'));
  await fs.writeFile(tmp, String(process.pid));
  await fs.rename(tmp, path.join(dir, LOCK));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
