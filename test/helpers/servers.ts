// Real servers for tests: redis-server (Debian's package, installed by
// scripts/test-deps.sh) and an S3-speaking server (s3rver from npm), each a
// child process on a loopback port, and an S3 fault proxy in front of the
// S3 server.
//
// The proxy sees every request, so it gives the S3 server what AWS S3 and
// MinIO have and s3rver lacks: conditional writes. A PUT (or a multipart
// completion) with `If-None-Match: *` is answered 412 when the key exists,
// with writes to one key serialised so the check and the write are one
// step. It also injects faults on demand: error statuses, connections
// dropped mid-response, and delays.

import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(what: string, ok: () => Promise<boolean>, ms = 10000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await ok().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

// ---- Redis ----

export interface TestRedis {
  url: string;
  port: number;
  /** Runs a command with redis-cli-like arguments through a fresh connection. */
  command(...args: string[]): Promise<unknown>;
  /** FLUSHALL: Redis forgets everything. */
  flushAll(): Promise<void>;
  /** kill -9 and start again on the same port, empty (no persistence). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess;
  const Redis = (await import('ioredis')).default;
  const launch = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    child.once('error', () => undefined);
    await waitFor('redis-server', async () => {
      const r = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
      r.on('error', () => undefined);
      try {
        await r.connect();
        return (await r.ping()) === 'PONG';
      } finally {
        r.disconnect();
      }
    });
  };
  await launch();
  const command = async (...args: string[]) => {
    const r = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
    try {
      return await r.call(args[0], ...args.slice(1));
    } finally {
      r.disconnect();
    }
  };
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    command,
    async flushAll() {
      await command('FLUSHALL');
    },
    async restart() {
      child.kill('SIGKILL');
      await exited(child);
      await launch();
    },
    async stop() {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}

// ---- S3 ----

export interface Faults {
  /** Requests the faults apply to (default: all). */
  match?: (req: http.IncomingMessage) => boolean;
  /** Fraction of matching requests answered with `status` (S3's error XML). */
  errorRate?: number;
  status?: number;
  /** Fraction of matching requests whose connection is dropped mid-response. */
  dropRate?: number;
  /** Delay added before forwarding a matching request, ms. */
  delayMs?: number;
}

export interface TestS3 {
  /** The proxy's URL: what zlake is pointed at. */
  endpoint: string;
  bucket: string;
  /** `s3://bucket/prefix` for a new, empty lake. */
  lake(prefix?: string): string;
  /** Sets the faults the proxy injects (none: {}). */
  faults(f: Faults): void;
  /** Requests the proxy has seen, by method. */
  counts: Map<string, number>;
  /** Requests answered with an injected fault. */
  injected: number;
  stop(): Promise<void>;
}

export const S3_ENV = {
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_REGION: 'us-east-1',
};

let lakes = 0;

export async function startS3(bucket = 'zlake'): Promise<TestS3> {
  Object.assign(process.env, { ...S3_ENV, ...pickMissing(process.env) });
  const dir = mkdtempSync(path.join(tmpdir(), 'zlake-s3-'));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '--openssl-legacy-provider',
      require.resolve('s3rver/bin/s3rver.js'),
      '-d',
      dir,
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '--silent',
      '--allow-mismatched-signatures',
      '--no-vhost-buckets',
      '--configure-bucket',
      bucket,
    ],
    { stdio: 'ignore' },
  );
  await waitFor('s3rver', async () => {
    const r = await fetch(`http://127.0.0.1:${port}/${bucket}?list-type=2&max-keys=1`);
    await r.arrayBuffer();
    return r.status === 200;
  });
  const proxy = new FaultProxy(port);
  const proxyPort = await proxy.listen();
  const endpoint = `http://127.0.0.1:${proxyPort}`;
  return {
    endpoint,
    bucket,
    lake: (prefix) => `s3://${bucket}/${prefix ?? `lake${process.pid}-${++lakes}`}`,
    faults: (f) => {
      proxy.faults = f;
    },
    get counts() {
      return proxy.counts;
    },
    get injected() {
      return proxy.injected;
    },
    async stop() {
      await proxy.close();
      child.kill('SIGKILL');
      await exited(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function pickMissing(env: NodeJS.ProcessEnv): Partial<typeof S3_ENV> {
  const out: Partial<typeof S3_ENV> = {};
  for (const k of Object.keys(S3_ENV) as (keyof typeof S3_ENV)[]) if (env[k]) out[k] = env[k];
  return out;
}

const S3_ERRORS: Record<number, string> = {
  500: 'InternalError',
  503: 'SlowDown',
  429: 'SlowDown',
};

class FaultProxy {
  faults: Faults = {};
  counts = new Map<string, number>();
  injected = 0;
  private server: http.Server;
  private agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  /** Per key: the tail of its serialised writes. */
  private writes = new Map<string, Promise<void>>();

  constructor(private target: number) {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((e) => sendError(res, 500, 'InternalError', String(e)));
    });
    this.server.keepAliveTimeout = 1000;
  }

  listen(): Promise<number> {
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () =>
        resolve((this.server.address() as AddressInfo).port),
      );
    });
  }

  close(): Promise<void> {
    this.agent.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.counts.set(req.method!, (this.counts.get(req.method!) ?? 0) + 1);
    const body = await readAll(req);
    const f = this.faults;
    const hit = !f.match || f.match(req);
    if (hit && f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
    if (hit && f.errorRate && Math.random() < f.errorRate) {
      this.injected++;
      const status = f.status ?? 503;
      return sendError(res, status, S3_ERRORS[status] ?? 'InternalError', 'injected fault');
    }
    const drop = hit && !!f.dropRate && Math.random() < f.dropRate;
    if (drop) this.injected++;
    const conditional = req.headers['if-none-match'] === '*' && isWrite(req);
    if (!conditional) return this.forward(req, body, res, drop);
    // Serialise writes to the key: check, then write, as one step.
    const key = new URL(req.url!, 'http://x').pathname;
    const prev = this.writes.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.writes.set(key, tail);
    await prev;
    try {
      if (await this.exists(key, req.headers)) {
        return sendError(
          res,
          412,
          'PreconditionFailed',
          'At least one of the preconditions failed',
        );
      }
      await this.forward(req, body, res, drop);
    } finally {
      release();
      if (this.writes.get(key) === tail) this.writes.delete(key);
    }
  }

  private exists(key: string, headers: http.IncomingHttpHeaders): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const r = http.request(
        {
          host: '127.0.0.1',
          port: this.target,
          method: 'HEAD',
          path: key,
          agent: this.agent,
          headers: headOf(headers),
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200 || res.statusCode === 404) resolve(res.statusCode === 200);
            else reject(new Error(`fault proxy: HEAD ${key}: ${res.statusCode}`));
          });
        },
      );
      r.on('error', reject);
      r.end();
    });
  }

  private forward(
    req: http.IncomingMessage,
    body: Buffer,
    res: http.ServerResponse,
    drop: boolean,
  ): Promise<void> {
    return new Promise((resolve) => {
      const headers = { ...req.headers };
      delete headers['if-none-match'];
      const up = http.request(
        {
          host: '127.0.0.1',
          port: this.target,
          method: req.method,
          path: req.url,
          headers,
          agent: this.agent,
        },
        (ur) => {
          res.writeHead(ur.statusCode!, ur.headers);
          if (drop) {
            // Some of the body, then the connection goes.
            ur.once('data', (chunk: Buffer) => {
              res.write(chunk.subarray(0, Math.floor(chunk.length / 2)));
              res.socket?.destroy();
              ur.destroy();
              resolve();
            });
            ur.once('end', () => {
              res.socket?.destroy();
              resolve();
            });
            return;
          }
          ur.pipe(res);
          ur.on('end', () => resolve());
          ur.on('error', () => resolve());
        },
      );
      up.on('error', () => {
        res.socket?.destroy();
        resolve();
      });
      up.end(body);
    });
  }
}

/** A write's headers as a HEAD of the same key (its signed headers, no body). */
function headOf(h: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = { ...h };
  for (const k of ['content-length', 'content-type', 'content-md5', 'expect', 'if-none-match'])
    delete out[k];
  return out;
}

function isWrite(req: http.IncomingMessage): boolean {
  if (req.method === 'PUT') return !new URL(req.url!, 'http://x').searchParams.has('partNumber');
  return req.method === 'POST' && new URL(req.url!, 'http://x').searchParams.has('uploadId');
}

function readAll(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function sendError(res: http.ServerResponse, status: number, code: string, message: string): void {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': xml.length });
  res.end(xml);
}
