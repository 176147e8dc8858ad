import { openLake, OpenOptions } from '../../src/backend/open';
import { testLakeOptions } from '../helpers/backend';
// Test helpers: a service over a temporary lake on a loopback port, and
// plain HTTP requests against it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Lake } from '../../src/lake';
import { Service, ServiceOptions } from '../../src/service/server';

export interface TestService {
  base: string;
  port: number;
  service: Service;
  lake: Lake;
  dir: string;
  close(): Promise<void>;
}

export async function startService(
  opts: Partial<ServiceOptions> = {},
  lakeOpts: Partial<OpenOptions> = {},
): Promise<TestService> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zlake-service-'));
  const lake = await openLake({ ...(await testLakeOptions(dir)), ...lakeOpts });
  const service = new Service({ lake, ...opts });
  const addr = await service.listen('127.0.0.1:0');
  return {
    base: `http://127.0.0.1:${addr.port}`,
    port: addr.port,
    service,
    lake,
    dir,
    async close() {
      await service.close();
      await lake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
  text: string;
  /** The body parsed as JSON (throws if it is not). */
  json(): unknown;
}

export interface RequestOptions {
  body?: string | Buffer | Uint8Array;
  headers?: Record<string, string>;
}

export async function call(
  base: string,
  method: string,
  urlPath: string,
  opts: RequestOptions = {},
): Promise<Reply> {
  const res = await fetch(base + urlPath, {
    method,
    headers: opts.headers,
    body: opts.body as RequestInit['body'],
  });
  const body = Buffer.from(await res.arrayBuffer());
  const text = body.toString('utf8');
  return { status: res.status, headers: res.headers, body, text, json: () => JSON.parse(text) };
}

/** POSTs a JSON body (Accept JSON unless headers say otherwise). */
export function postJSON(
  base: string,
  urlPath: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call(base, 'POST', urlPath, {
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
  });
}

/** Creates a pool and returns its ID (0x form). */
export async function createPool(
  base: string,
  name: string,
  layout?: { order?: string; keys?: string[][] },
): Promise<string> {
  const r = await postJSON(base, '/pool', layout ? { name, layout } : { name });
  if (r.status !== 200) throw new Error(`create pool: ${r.status} ${r.text}`);
  return (r.json() as { pool: { id: string } }).pool.id;
}

/** Loads ZSON (or other) text into pool@branch and returns the commit ID. */
export async function load(
  base: string,
  pool: string,
  data: string | Buffer,
  opts: { branch?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<string> {
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  if (opts.contentType !== '') headers['Content-Type'] = opts.contentType ?? 'application/x-zson';
  const r = await call(
    base,
    'POST',
    `/pool/${encodeURIComponent(pool)}/branch/${encodeURIComponent(opts.branch ?? 'main')}`,
    { body: data, headers },
  );
  if (r.status !== 200) throw new Error(`load: ${r.status} ${r.text}`);
  return (r.json() as { commit: string }).commit;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The values at pool@revision as ZSON lines, read from the lake directly. */
export async function contents(lake: Lake, pool: string, revision = 'main'): Promise<string[]> {
  const { TypeContext } = await import('../../src/zed/context');
  const { formatValue } = await import('../../src/formats/zson');
  const scan = await lake.scan(pool, revision, { ctx: new TypeContext() });
  const out: string[] = [];
  for (let b = await scan.pull(); b; b = await scan.pull())
    for (const v of b) out.push(formatValue(v));
  return out;
}

/** The error body of a reply (asserting its shape). */
export function errorOf(r: Reply): { kind: string; error: string; info?: Record<string, unknown> } {
  expect(r.headers.get('content-type')).toBe('application/json');
  const j = r.json() as { type: string; kind: string; error: string };
  expect(j.type).toBe('Error');
  return j;
}

/**
 * Starts `zlake serve` (from the TypeScript sources) as a child process
 * on a loopback port, with env added to its environment, and waits until
 * it serves. args are more serve flags (-lake among them).
 */
export async function serveChild(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ base: string; child: import('node:child_process').ChildProcess }> {
  const { spawnTs } = await import('../lake/spawn-ts');
  const { existsSync, readFileSync } = await import('node:fs');
  const portfile = path.join(mkdtempSync(path.join(tmpdir(), 'zlake-port-')), 'port');
  // spawnTs passes this process's environment: add env for the child only.
  const saved = Object.keys(env).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, env);
  const child = spawnTs(path.join(__dirname, 'serve-child.ts'), [
    '-l',
    '127.0.0.1:0',
    '-portfile',
    portfile,
    ...args,
  ]);
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  child.stdout.resume();
  for (let i = 0; i < 400 && !existsSync(portfile); i++) await sleep(25);
  if (!existsSync(portfile)) {
    child.kill('SIGKILL');
    throw new Error('zlake serve did not start');
  }
  const base = `http://127.0.0.1:${readFileSync(portfile, 'utf8')}`;
  rmSync(path.dirname(portfile), { recursive: true, force: true });
  return { base, child };
}
