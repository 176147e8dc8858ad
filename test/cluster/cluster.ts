// A cluster for tests: `zlake serve` replicas as child processes sharing
// one S3 bucket (s3rver behind the fault proxy) and one Redis, and the
// client-side checks the cluster tests make.

import { ChildProcess } from 'node:child_process';
import { startRedis, startS3, TestRedis, TestS3 } from '../helpers/servers';
import { call, postJSON, serveChild, sleep } from '../service/helpers';

export interface Replica {
  base: string;
  child: ChildProcess;
  /** kill -9. */
  kill(): Promise<void>;
}

export class Cluster {
  replicas: Replica[] = [];

  private constructor(
    readonly s3: TestS3,
    readonly redis: TestRedis,
    readonly lake: string,
  ) {}

  static async start(replicas: number): Promise<Cluster> {
    const [s3, redis] = await Promise.all([startS3(), startRedis()]);
    const c = new Cluster(s3, redis, s3.lake());
    for (let i = 0; i < replicas; i++) c.replicas.push(await c.startReplica());
    return c;
  }

  /** Starts another replica of the lake and waits until it serves. */
  async startReplica(): Promise<Replica> {
    const { base, child } = await serveChild([
      '-lake',
      this.lake,
      '-s3.endpoint',
      this.s3.endpoint,
      '-redis',
      this.redis.url,
      '-log.level',
      'error',
    ]);
    return {
      base,
      child,
      kill: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    };
  }

  async stop(): Promise<void> {
    for (const r of this.replicas) await r.kill();
    await Promise.all([this.s3.stop(), this.redis.stop()]);
  }
}

/** ZSON records of one writer's batch: {w, b, i, ts}, ts unique across writers. */
export function batch(w: number, b: number, n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const ns = (w * 1000 + b) * 100000 + i;
    lines.push(`{w:${w},b:${b},i:${i},ts:${new Date(ns).toISOString()}}`);
  }
  return lines.join('\n') + '\n';
}

/** POSTs data to pool@branch; the commit ID when acknowledged, null on a server failure. */
export async function tryLoad(
  base: string,
  pool: string,
  branch: string,
  data: string,
): Promise<string | null> {
  try {
    const r = await call(base, 'POST', `/pool/${pool}/branch/${encodeURIComponent(branch)}`, {
      body: data,
      headers: { 'Content-Type': 'application/x-zson', Accept: 'application/json' },
    });
    if (r.status === 200) return (r.json() as { commit: string }).commit;
    if (r.status >= 500) return null;
    throw new Error(`load: ${r.status} ${r.text}`);
  } catch (e) {
    if ((e as Error).message.startsWith('load:')) throw e;
    return null; // the connection failed: not acknowledged
  }
}

/** Runs a query; its ZSON output. */
export async function query(base: string, q: string): Promise<string> {
  const r = await postJSON(base, '/query', { query: q }, { Accept: 'application/x-zson' });
  if (r.status !== 200) throw new Error(`query ${q}: ${r.status} ${r.text}`);
  return r.text;
}

/** The commit IDs of pool@branch's log, newest first. */
export async function logOf(base: string, pool: string, branch = 'main'): Promise<string[]> {
  const r = await postJSON(
    base,
    '/query',
    { query: `from ${pool}@${branch}:log | has(parent) | yield id` },
    { Accept: 'application/json' },
  );
  if (r.status !== 200) throw new Error(`log: ${r.status} ${r.text}`);
  return JSON.parse(r.text) as string[];
}

/** An SSE client collecting the events of one replica. */
export class EventClient {
  events: { id: string; event: string; data: string }[] = [];
  private ctl = new AbortController();
  private done: Promise<void>;

  constructor(base: string, lastEventId?: string) {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    this.done = (async () => {
      const res = await fetch(`${base}/events`, { headers, signal: this.ctl.signal });
      const reader = res.body!.getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += Buffer.from(value).toString('utf8');
        let k: number;
        while ((k = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, k);
          text = text.slice(k + 2);
          const e = { id: '', event: '', data: '' };
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) e.id = line.slice(4);
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) e.data += line.slice(6);
          }
          if (e.event) this.events.push(e);
        }
      }
    })().catch(() => undefined);
  }

  /** Commit IDs of the pool-commit events seen, in order. */
  commits(): string[] {
    return this.events
      .filter((e) => e.event === 'pool-commit')
      .map((e) => (JSON.parse(e.data) as { commit_id: string }).commit_id);
  }

  async close(): Promise<void> {
    this.ctl.abort();
    await this.done;
  }
}

/** Waits until ok() holds (polling), or fails after ms. */
export async function eventually(ok: () => boolean | Promise<boolean>, ms = 15000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await sleep(50);
  }
}
