// A zlake server for a benchmark case: `zlake serve` from the compiled
// bench build in its own process (so its peak RSS is its own), and the few
// HTTP calls the cases make to it.

import { ChildProcess, spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeZng } from '../src/formats/zng';
import { TypeContext } from '../src/zed/context';
import { Value } from '../src/zed/value';
import { cpuSeconds, now, procPeakRssMB, resetPeakRss, since } from './lib';

export interface Server {
  port: number;
  pid: number;
  /** Peak RSS of the server in MB since start or the last resetPeak(). */
  peakRssMB(): number;
  resetPeak(): boolean;
  stop(): Promise<void>;
}

/**
 * Starts `zlake serve` on a fresh lake in a temporary directory, or on the
 * lake given (a directory or s3:// location, which then outlives the
 * server), with more `zlake serve` flags in args. With
 * BENCH_PROFILE=<dir> in the environment the server runs under
 * `node --cpu-prof` and writes its profile to <dir> when stopped;
 * BENCH_SERVE_ARGS adds flags to `zlake serve` (e.g. `-cache.size 0` to
 * measure queries with the scan cache off).
 */
export async function startServer(lake?: string, args: string[] = []): Promise<Server> {
  const tmp = mkdtempSync(join(tmpdir(), 'zlake-bench-'));
  const portfile = join(tmp, 'port');
  const main = join(__dirname, '..', 'src', 'cli', 'main.js');
  const prof = process.env.BENCH_PROFILE;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []),
      '-e',
      `require(${JSON.stringify(main)}).main(process.argv.slice(1))`,
      'serve',
      '-l',
      '127.0.0.1:0',
      '-lake',
      lake ?? join(tmp, 'lake'),
      '-portfile',
      portfile,
      '-log.level',
      'warn',
      ...args,
      ...(process.env.BENCH_SERVE_ARGS ?? '').split(/\s+/).filter((a) => a !== ''),
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      // The allocator settings `npm start` and the image run with (docs/operations.md).
      env: {
        MALLOC_MMAP_THRESHOLD_: '33554432',
        MALLOC_TRIM_THRESHOLD_: '268435456',
        ...process.env,
      },
    },
  );
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  for (let i = 0; i < 600 && !exited && !existsSync(portfile); i++)
    await new Promise((r) => setTimeout(r, 50));
  if (exited || !existsSync(portfile)) {
    child.kill('SIGKILL');
    throw new Error('zlake serve did not start');
  }
  // The portfile may exist before its contents are flushed.
  let port = 0;
  for (let i = 0; i < 100 && !(port > 0); i++) {
    port = Number(readFileSync(portfile, 'utf8'));
    if (!(port > 0)) await new Promise((r) => setTimeout(r, 20));
  }
  const pid = child.pid!;
  return {
    port,
    pid,
    peakRssMB: () => procPeakRssMB(pid),
    resetPeak: () => resetPeakRss(pid),
    async stop() {
      // SIGINT lets --cpu-prof write its profile; SIGKILL if it lingers.
      child.kill(prof ? 'SIGINT' : 'SIGKILL');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

export interface Response {
  status: number;
  body: Buffer;
  seconds: number;
}

/** One HTTP request; the body is sent from a buffer, a string or a file. */
export function request(
  port: number,
  method: string,
  path: string,
  body: Buffer | string | null,
  headers: Record<string, string> = {},
  file?: string,
): Promise<Response> {
  const t0 = now();
  return new Promise((resolve, reject) => {
    // A connection per request (agent: false), as a command-line client
    // makes: a kept-alive socket that the server times out while a case is
    // busy elsewhere would fail the next request with "socket hang up".
    const req = http.request(
      { host: '127.0.0.1', port, method, path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), seconds: since(t0) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (file) createReadStream(file, { highWaterMark: 1 << 20 }).pipe(req);
    else req.end(body ?? undefined);
  });
}

function fail(what: string, r: Response): never {
  throw new Error(`${what}: HTTP ${r.status} ${r.body.toString('utf8').slice(0, 500)}`);
}

/** Creates a pool sorted by `key` ascending. */
export async function createPool(port: number, name: string, key: string): Promise<void> {
  const r = await request(
    port,
    'POST',
    '/pool',
    JSON.stringify({ name, layout: { order: 'asc', keys: [key.split('.')] } }),
    { 'Content-Type': 'application/json' },
  );
  if (r.status !== 200) fail(`create pool ${name}`, r);
}

/** Loads a file into pool@main; returns the seconds the load took. */
export async function load(
  port: number,
  pool: string,
  file: string,
  mime: string,
): Promise<number> {
  const r = await request(
    port,
    'POST',
    `/pool/${pool}/branch/main`,
    null,
    { 'Content-Type': mime },
    file,
  );
  if (r.status !== 200) fail(`load ${file} into ${pool}`, r);
  return r.seconds;
}

/** Runs a query with ZNG output: the response's bytes and the wall time to its last byte. */
export async function queryZng(port: number, q: string): Promise<Response> {
  const r = await request(port, 'POST', '/query', JSON.stringify({ query: q }), {
    'Content-Type': 'application/json',
    Accept: 'application/x-zng',
  });
  if (r.status !== 200) fail(q, r);
  return r;
}

/**
 * A query on servers that must give the same answer: run once on each
 * (the answers must be the same bytes), then runs times on each, the
 * servers taking turns and the first of each run going round, so that
 * load from elsewhere falls on all alike. Each server's times, its
 * process's CPU seconds over the runs (all its threads), and the answer.
 */
export async function alternate(
  servers: Server[],
  zed: string,
  runs: number,
): Promise<{ seconds: number[][]; cpu: number[]; body: Buffer }> {
  const first = await Promise.all(servers.map((s) => queryZng(s.port, zed)));
  if (first.some((r) => !r.body.equals(first[0].body)))
    throw new Error(`${zed}: the servers' answers differ (${first.map((r) => r.body.length)})`);
  const seconds: number[][] = servers.map(() => []);
  const cpu: number[] = servers.map(() => 0);
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < servers.length; k++) {
      const j = (i + k) % servers.length;
      const { port, pid } = servers[j];
      const c0 = cpuSeconds(pid);
      seconds[j].push((await queryZng(port, zed)).seconds);
      cpu[j] += cpuSeconds(pid) - c0;
    }
  }
  return { seconds, cpu, body: first[0].body };
}

/** The values of a ZNG response. */
export function zngValues(body: Buffer): Value[] {
  return [...decodeZng(body, { ctx: new TypeContext() })];
}

export interface QueryStats {
  bytes_read: number;
  bytes_matched: number;
  records_read: number;
  records_matched: number;
}

/** Runs a query with ZJSON output and ctrl=T: its values and its last QueryStats. */
export async function queryWithStats(
  port: number,
  q: string,
): Promise<{ values: unknown[]; stats: QueryStats; seconds: number }> {
  const r = await request(port, 'POST', '/query?ctrl=T', JSON.stringify({ query: q }), {
    'Content-Type': 'application/json',
    Accept: 'application/x-zjson',
  });
  if (r.status !== 200) fail(q, r);
  const values: unknown[] = [];
  let stats: QueryStats | undefined;
  for (const line of r.body.toString('utf8').split('\n')) {
    if (!line) continue;
    const m = JSON.parse(line) as { type: unknown; value: unknown };
    if (m.type === 'QueryStats') stats = m.value as QueryStats;
    else if (typeof m.type !== 'string') values.push(m.value);
  }
  if (!stats) throw new Error(`${q}: no QueryStats in the response`);
  return { values, stats, seconds: r.seconds };
}

/** The server's scan counters (from /metrics). */
async function scanCounters(port: number): Promise<Record<string, number>> {
  const r = await request(port, 'GET', '/metrics', null);
  const out: Record<string, number> = {};
  for (const line of r.body.toString('utf8').split('\n')) {
    const m = /^(zlake_(?:scan|index)_\w+_total) (\S+)$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/**
 * One run of q: its QueryStats (value bytes, as the reference counts
 * them) and the stored bytes of data and index objects it read (from the
 * server's counters).
 */
export async function queryWithStoredBytes(
  port: number,
  q: string,
): Promise<{ stats: QueryStats; data: number; index: number }> {
  const a = await scanCounters(port);
  const { stats } = await queryWithStats(port, q);
  const b = await scanCounters(port);
  const d = (k: string) => (b[k] ?? 0) - (a[k] ?? 0);
  return {
    stats,
    data: d('zlake_scan_bytes_read_total'),
    index: d('zlake_index_bytes_read_total'),
  };
}
