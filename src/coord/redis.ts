// Coordination on Redis (ioredis): each register group is a hash, the
// event stream a Redis stream. Every key of a lake carries the same hash
// tag, `{<prefix>}`, so the compare-and-swap script can touch a group and
// the stream atomically on Redis Cluster too; a lake's coordination is a
// few small commands per commit, far below one node's capacity, and
// several lakes spread over a cluster by prefix.
//
//   {zlake}:reg:<group>   hash: field `loaded`, fields `r:<name>` per register
//   {zlake}:events        stream of events (field `m`), trimmed to ~RETAIN
//
// A group whose hash lacks `loaded` is not held (Redis restarted without
// persistence, FLUSHALL, a failover that lost writes): every register
// operation checks that in the same atomic step and reports it, and the
// lake reloads the group from its journal (src/lake/registers.ts).
//
// One extra connection per process reads the stream (XREAD BLOCK) and fans
// events out to local subscribers; a subscriber resuming after an event ID
// is first given the retained events after it (XRANGE).

import Redis from 'ioredis';
import { DEFAULT_RETRY, isNetworkError, RetryPolicy, withRetry } from '../backend/retry';
import { Coordinator, GroupNotLoadedError, StreamEvent } from './coord';
import { compareEventIds, EventLog, RETAIN } from './eventlog';

export interface RedisCoordinatorOptions {
  /** Key prefix (and hash tag) of this lake's keys (default `zlake`). */
  prefix?: string;
  /** Password, when not in the URL. */
  password?: string;
  retry?: RetryPolicy;
}

const LOADED = 'loaded';

// KEYS: group hash, stream. ARGV: field, expected-is-null flag, expected,
// next, retain, events...  Returns -1 not loaded, 0 no swap, 1 swapped.
const CAS = `
if redis.call('HEXISTS', KEYS[1], '${LOADED}') == 0 then return -1 end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur == ARGV[4] then return 1 end
if ARGV[2] == '1' then
  if cur then return 0 end
elseif cur ~= ARGV[3] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
for i = 6, #ARGV do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'm', ARGV[i])
end
return 1
`;

// KEYS: group hash. ARGV: field, value, field, value, ...
const LOAD = `
if redis.call('HEXISTS', KEYS[1], '${LOADED}') == 1 then return 0 end
redis.call('DEL', KEYS[1])
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], '${LOADED}', '1')
return 1
`;

export class RedisCoordinator implements Coordinator {
  readonly location: string;
  private redis: Redis;
  private reader: Redis | null = null;
  private tag: string;
  private streamKey: string;
  private retry: RetryPolicy;
  private log = new EventLog();
  private lastId = '0-0';
  private closed = false;
  private readLoop: Promise<void> | null = null;

  private constructor(url: string, opts: RedisCoordinatorOptions) {
    this.location = url.replace(/\/\/[^@/]*@/, '//***@');
    const prefix = opts.prefix ?? 'zlake';
    this.tag = `{${prefix}}`;
    this.streamKey = `${this.tag}:events`;
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.redis = new Redis(url, {
      password: opts.password || undefined,
      maxRetriesPerRequest: 2,
      connectTimeout: 3000,
      commandTimeout: 5000,
      lazyConnect: true,
      // Reconnect forever, backing off to a second between tries.
      retryStrategy: (n) => Math.min(1000, 50 * n),
    });
    this.redis.on('error', () => undefined);
    this.redis.defineCommand('zlakeCas', { numberOfKeys: 2, lua: CAS });
    this.redis.defineCommand('zlakeLoad', { numberOfKeys: 1, lua: LOAD });
  }

  /** Connects, and starts reading the event stream from its current end. */
  static async open(url: string, opts: RedisCoordinatorOptions = {}): Promise<RedisCoordinator> {
    const c = new RedisCoordinator(url, opts);
    try {
      await c.redis.connect();
      const last = (await c.redis.xrevrange(c.streamKey, '+', '-', 'COUNT', 1)) as [
        string,
        string[],
      ][];
      if (last.length > 0) c.lastId = last[0][0];
    } catch (e) {
      c.redis.disconnect();
      throw new Error(`redis ${c.location}: ${(e as Error).message}`);
    }
    c.reader = c.redis.duplicate();
    c.reader.on('error', () => undefined);
    c.readLoop = c.readEvents();
    return c;
  }

  private groupKey(group: string): string {
    return `${this.tag}:reg:${group}`;
  }

  private call<T>(op: string, fn: () => Promise<T>): Promise<T> {
    return withRetry('redis', op, this.retry, isTransient, fn);
  }

  async get(group: string, name: string): Promise<string | null> {
    const [loaded, value] = await this.call('get', () =>
      this.redis.hmget(this.groupKey(group), LOADED, 'r:' + name),
    );
    if (loaded === null) throw new GroupNotLoadedError(group);
    return value;
  }

  async list(group: string): Promise<Map<string, string>> {
    const all = await this.call('list', () => this.redis.hgetall(this.groupKey(group)));
    if (all[LOADED] === undefined) throw new GroupNotLoadedError(group);
    const out = new Map<string, string>();
    for (const name of Object.keys(all).sort()) {
      if (name.startsWith('r:')) out.set(name.slice(2), all[name]);
    }
    return out;
  }

  async compareAndSwap(
    group: string,
    name: string,
    expected: string | null,
    next: string,
    events: string[] = [],
  ): Promise<boolean> {
    const args = [
      'r:' + name,
      expected === null ? '1' : '0',
      expected ?? '',
      next,
      String(RETAIN),
      ...events,
    ];
    // A retry after an unknown outcome finds its own earlier swap: the
    // script answers 1 when the register already holds `next` (which names
    // a new version, so nobody else writes it).
    const r = (await this.call('compareAndSwap', () =>
      (this.redis as unknown as Scripts).zlakeCas(this.groupKey(group), this.streamKey, ...args),
    )) as number;
    if (r < 0) throw new GroupNotLoadedError(group);
    return r === 1;
  }

  async load(group: string, registers: Map<string, string>): Promise<void> {
    const args: string[] = [];
    for (const [name, value] of registers) args.push('r:' + name, value);
    await this.call('load', () =>
      (this.redis as unknown as Scripts).zlakeLoad(this.groupKey(group), ...args),
    );
  }

  async dropGroup(group: string): Promise<void> {
    await this.call('dropGroup', () => this.redis.del(this.groupKey(group)));
  }

  async publish(message: string): Promise<void> {
    await this.call('publish', () =>
      this.redis.xadd(this.streamKey, 'MAXLEN', '~', String(RETAIN), '*', 'm', message),
    );
  }

  subscribe(handler: (e: StreamEvent) => void, after?: string): () => void {
    if (after === undefined) return this.log.subscribe(handler);
    // Catch up from the stream, holding live events until done.
    let held: StreamEvent[] | null = [];
    let stopped = false;
    const unsub = this.log.subscribe((e) => (held ? held.push(e) : handler(e)));
    void (async () => {
      let last = after;
      try {
        const rows = (await this.redis.xrange(this.streamKey, '(' + after, '+')) as [
          string,
          string[],
        ][];
        for (const [id, fields] of rows) {
          if (stopped || compareEventIds(id, this.lastId) > 0) break;
          handler({ id, message: fields[1] });
          last = id;
        }
      } catch {
        // A malformed or unknown ID, or Redis away: resume from live events.
      }
      const pending = held ?? [];
      held = null;
      for (const e of pending) if (!stopped && compareEventIds(e.id, last) > 0) handler(e);
    })();
    return () => {
      stopped = true;
      unsub();
    };
  }

  private async readEvents(): Promise<void> {
    while (!this.closed) {
      try {
        const r = (await this.reader!.xread(
          'COUNT',
          1000,
          'BLOCK',
          2000,
          'STREAMS',
          this.streamKey,
          this.lastId,
        )) as [string, [string, string[]][]][] | null;
        if (!r) continue;
        for (const [id, fields] of r[0][1]) {
          this.lastId = id;
          this.log.deliver({ id, message: fields[1] });
        }
      } catch {
        if (this.closed) return;
        await new Promise((res) => setTimeout(res, 200));
      }
    }
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.log.close();
    this.reader?.disconnect();
    await this.readLoop?.catch(() => undefined);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

interface Scripts {
  zlakeCas(...args: string[]): Promise<number>;
  zlakeLoad(...args: string[]): Promise<number>;
}

/** Worth another attempt: the connection dropped or Redis is loading. */
function isTransient(e: unknown): boolean {
  const msg = (e as Error)?.message ?? '';
  if (
    /LOADING|TRYAGAIN|CLUSTERDOWN|READONLY|MASTERDOWN|Connection is closed|max retries/i.test(msg)
  )
    return true;
  return isNetworkError(e);
}
