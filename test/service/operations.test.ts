// Running well: health and readiness, request limits (body size, query
// time, concurrent queries), graceful shutdown of a real `zlake serve`
// process on SIGTERM, flags from the environment, and the backend and
// commit metrics operators alert on.

import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { FlagSet } from '../../src/cli/flags';
import { Coordinator } from '../../src/coord/coord';
import { QueryEngine } from '../../src/service/engine';
import { zedEngine } from '../../src/service/zedengine';
import {
  call,
  createPool,
  load,
  postJSON,
  serveChild,
  sleep,
  startService,
  TestService,
} from './helpers';

/** A query engine whose queries wait for `gate` before their first output. */
function gatedEngine(gate: Promise<void>): QueryEngine {
  return {
    ...zedEngine,
    async compile(spec) {
      const run = await zedEngine.compile(spec);
      let opened = false;
      return {
        ...run,
        progress: () => run.progress(),
        close: () => run.close(),
        async next() {
          if (!opened) {
            opened = true;
            await Promise.race([
              gate,
              new Promise((_, reject) =>
                spec.signal.addEventListener('abort', () => reject(new Error('cancelled'))),
              ),
            ]);
          }
          return run.next();
        },
      };
    },
  };
}

describe('in process', () => {
  let t: TestService | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  test('liveness and readiness', async () => {
    t = await startService();
    expect((await call(t.base, 'GET', '/healthz')).text).toBe('ok');
    const ready = await call(t.base, 'GET', '/readyz');
    expect([ready.status, ready.text]).toEqual([200, 'ok']);
  });

  test('readiness fails, naming the backend, when the coordinator does not answer', async () => {
    t = await startService();
    const coord = t.lake.coord as Coordinator & { ping: () => Promise<void> };
    coord.ping = async () => {
      throw new Error('connection refused');
    };
    const r = await call(t.base, 'GET', '/readyz');
    expect(r.status).toBe(503);
    expect(r.json()).toMatchObject({ type: 'Error', kind: 'unavailable' });
    expect(r.text).toMatch(/coordinator .*connection refused/);
    // Liveness is unaffected: the process is fine.
    expect((await call(t.base, 'GET', '/healthz')).status).toBe(200);
  });

  test('a body over -limit.body is refused with 413 and nothing is committed', async () => {
    t = await startService({ limits: { bodyBytes: 1000 } });
    await createPool(t.base, 'p');
    const big = Array.from({ length: 100 }, (_, i) => `{x:${i},pad:"${'a'.repeat(20)}"}`).join(
      '\n',
    );
    // With a Content-Length: refused before reading.
    const r1 = await call(t.base, 'POST', '/pool/p/branch/main', {
      body: big,
      headers: { 'Content-Type': 'application/x-zson', Accept: 'application/json' },
    });
    expect(r1.status).toBe(413);
    expect(r1.json()).toMatchObject({
      type: 'Error',
      error: expect.stringMatching(/limit of 1000 bytes/),
    });
    // Streamed without a length: refused as it arrives.
    const r2 = await fetch(`${t.base}/pool/p/branch/main`, {
      method: 'POST',
      body: Readable.toWeb(Readable.from([big.slice(0, 600), big.slice(600)])) as ReadableStream,
      headers: { 'Content-Type': 'application/x-zson', Accept: 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect(r2.status).toBe(413);
    // A small one is fine.
    await load(t.base, 'p', '{x:1}');
    const q = await postJSON(
      t.base,
      '/query',
      { query: 'from p | count()' },
      { Accept: 'application/x-zson' },
    );
    expect(q.text).toBe('1(uint64)\n');
  });

  test('a query past -limit.querytime answers 408', async () => {
    t = await startService({
      limits: { queryMs: 200 },
      engine: gatedEngine(new Promise(() => {})),
    });
    await createPool(t.base, 'p');
    const started = Date.now();
    const r = await postJSON(t.base, '/query', { query: 'from p' });
    expect(r.status).toBe(408);
    expect(r.json()).toMatchObject({ error: expect.stringMatching(/time limit of 0.2s/) });
    expect(Date.now() - started).toBeLessThan(5000);
    const m = await call(t.base, 'GET', '/metrics');
    expect(m.text).toMatch(/zlake_query_duration_seconds_count\{outcome="timeout"\} 1/);
  });

  test('queries past -limit.queries get 429 with Retry-After', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    t = await startService({ limits: { queries: 1 }, engine: gatedEngine(gate) });
    await createPool(t.base, 'p');
    const first = postJSON(t.base, '/query', { query: 'from p' });
    await sleep(200);
    const second = await postJSON(t.base, '/query', { query: 'from p' });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(second.text).toMatch(/too many queries running \(limit 1\)/);
    open();
    expect((await first).status).toBe(200);
    // The slot is free again.
    expect((await postJSON(t.base, '/query', { query: 'from p' })).status).toBe(200);
  });
});

test('flags come from ZLAKE_ environment variables; the command line wins', () => {
  const fs = new FlagSet('serve');
  const endpoint = fs.string('s3.endpoint', '', '');
  const size = fs.int('cache.size', 5, '');
  const level = fs.string('log.level', 'info', '');
  fs.env('ZLAKE_', {
    ZLAKE_S3_ENDPOINT: 'http://minio:9000',
    ZLAKE_CACHE_SIZE: '42',
    ZLAKE_LOG_LEVEL: 'warn',
  });
  fs.parse(['-log.level', 'debug']);
  expect([endpoint.value, size.value, level.value]).toEqual(['http://minio:9000', 42, 'debug']);
  expect(() => new FlagSet('x').env('ZLAKE_', {}).parse([])).not.toThrow();
  const bad = new FlagSet('serve');
  bad.int('cache.size', 0, '');
  expect(() => bad.env('ZLAKE_', { ZLAKE_CACHE_SIZE: 'lots' })).toThrow(/ZLAKE_CACHE_SIZE/);
});

describe('a zlake serve process', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'zlake-ops-'));
  });
  afterEach(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string> = {}): Promise<string> {
    const served = await serveChild(['-lake', path.join(dir, 'lake')], env);
    child = served.child;
    return served.base;
  }

  test('SIGTERM: readiness goes first, in-flight loads finish, event streams end, exit 0', async () => {
    const base = await start({ ZLAKE_SHUTDOWN_GRACE: '20s' });
    await createPool(base, 'p');
    await load(base, 'p', '{x:0}');
    // The backends' and the commit protocol's metrics are there.
    const metrics = (await call(base, 'GET', '/metrics')).text;
    expect(metrics).toMatch(
      /zlake_storage_operation_duration_seconds_count\{backend="local",op="put"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /zlake_coord_operation_duration_seconds_count\{backend="local",op="compareAndSwap"\} [1-9]/,
    );
    expect(metrics).toMatch(/zlake_loads_total\{outcome="ok"\} 1/);
    expect(metrics).toMatch(/process_resident_memory_bytes/);
    // An event stream, and a load whose body trickles in over ~1.5 s.
    const events = await fetch(`${base}/events`);
    const streamEnded = events.text();
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent >= 15) return this.push(null);
        const i = ++sent;
        setTimeout(() => this.push(`{x:${i}}\n`), 100);
      },
    });
    const loading = fetch(`${base}/pool/p/branch/main`, {
      method: 'POST',
      body: Readable.toWeb(body) as ReadableStream,
      headers: { 'Content-Type': 'application/x-zson', Accept: 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await sleep(300);
    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    child!.kill('SIGTERM');
    await sleep(100);
    // Not ready any more: 503, or the listener is already closed.
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(ready);
    const loaded = await loading;
    expect(loaded.status).toBe(200);
    await streamEnded;
    expect(await exited).toBe(0);
    // Everything acknowledged is there after a restart.
    const again = await start();
    const r = await postJSON(
      again,
      '/query',
      { query: 'from p | count()' },
      { Accept: 'application/x-zson' },
    );
    expect(r.text).toBe('16(uint64)\n');
  }, 60000);
});
