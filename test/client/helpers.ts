import { openLake } from '../../src/backend/open';
import { testLakeOptions } from '../helpers/backend';
import { tsRequire } from '../helpers/ts-bootstrap';
// Test helpers: a real lake service on a loopback port (in this process,
// or as a `zlake serve` child process), and running zlake commands (in
// this process with captured streams, or as child processes).

import { spawn } from 'node:child_process';
import { mkdtempSync, promises as fsp, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { CommandIO } from '../../src/cli/lake/command';
import { runRoot } from '../../src/cli/lake';
import { Service } from '../../src/service/server';

export interface Served {
  url: string;
  /** The lake's directory. */
  dir: string;
  close(): Promise<void>;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A service over a new lake, in this process. */
export async function serveInProcess(): Promise<Served> {
  const dir = tempDir('zlake-client-lake-');
  const lake = await openLake(await testLakeOptions(dir));
  const service = new Service({ lake });
  const addr = await service.listen('127.0.0.1:0');
  return {
    url: `http://127.0.0.1:${addr.port}`,
    dir,
    async close() {
      await service.close();
      await lake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const ROOT = path.resolve(__dirname, '../..');

/** Node code that runs src/cli/main.ts with the arguments after it (compiled on require). */
const bootstrap = `${tsRequire}
require(${JSON.stringify(path.join(ROOT, 'src/cli/main.ts'))}).main(process.argv.slice(1));
`;

/** A directory holding an executable `zlake` that runs the sources. */
export async function zlakeBin(): Promise<string> {
  const dir = tempDir('zlake-bin-');
  const boot = path.join(dir, 'boot.js');
  await fsp.writeFile(boot, bootstrap.replace('process.argv.slice(1)', 'process.argv.slice(2)'));
  const bin = path.join(dir, 'zlake');
  await fsp.writeFile(
    bin,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(boot)} "$@"\n`,
  );
  await fsp.chmod(bin, 0o755);
  // `zq` too, as the reference's scripts call it.
  const zq = path.join(dir, 'zq');
  await fsp.writeFile(zq, `#!/bin/sh\nexec ${JSON.stringify(bin)} zq "$@"\n`);
  await fsp.chmod(zq, 0o755);
  return dir;
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `zlake args` as a child process. */
export function zlakeChild(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; stdin?: string | Buffer; cwd?: string } = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', bootstrap, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      }),
    );
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
  });
}

/**
 * Runs a script written for the reference's `zed` (zed → zlake) with bash
 * in dir, the zlake of binDir (zlakeBin) first on PATH, env added.
 */
export function bashScript(
  text: string,
  dir: string,
  binDir: string,
  env: NodeJS.ProcessEnv = {},
  bashArgs: string[] = [],
): Promise<Result> {
  const body = text.replace(/\bzed /g, 'zlake ');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [...bashArgs, '-c', body], {
      cwd: dir,
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** `zlake serve` over a new lake as a child process, with more serve flags if given. */
export async function serveChild(extraArgs: string[] = []): Promise<Served & { pid: number }> {
  const dir = tempDir('zlake-child-lake-');
  const portFile = path.join(dir, 'port');
  const child = spawn(
    process.execPath,
    [
      '-e',
      bootstrap,
      'serve',
      '-l',
      '127.0.0.1:0',
      '-lake',
      path.join(dir, 'lake'),
      '-portfile',
      portFile,
      '-log.level',
      'warn',
      ...extraArgs,
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (c: Buffer) => (log += c.toString()));
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      const port = (await fsp.readFile(portFile, 'utf8')).trim();
      if (port) {
        return {
          url: `http://127.0.0.1:${port}`,
          dir,
          pid: child.pid!,
          async close() {
            const gone = new Promise((r) => child.once('exit', r));
            child.kill('SIGTERM');
            await gone;
            rmSync(dir, { recursive: true, force: true });
          },
        };
      }
    } catch {
      // not yet
    }
    if (child.exitCode !== null) throw new Error(`zlake serve exited: ${log}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`zlake serve did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A writable that keeps what is written. */
export class Capture extends Writable {
  private chunks: Buffer[] = [];
  isTTY = false;

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(Buffer.from(chunk));
    cb();
  }

  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * Runs `zlake args` in this process with captured output; env adds to
 * nothing (not to process.env), so tests name ZED_LAKE and ZED_HEAD_DIR.
 */
export async function zlake(
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin: string | Buffer = '',
): Promise<Result> {
  const stdout = new Capture();
  const stderr = new Capture();
  const input = stdin.length > 0 ? [Buffer.from(stdin)] : [];
  const io: CommandIO = { stdin: Readable.from(input), stdout, stderr, env };
  const code = await runRoot(args, io);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

let inputs: string | undefined;
let inputN = 0;

/** A new file holding text (for load), with the given extension. */
export function writeTemp(text: string | Buffer, ext = 'zson'): string {
  inputs ??= tempDir('zlake-inputs-');
  const p = path.join(inputs, `in${inputN++}.${ext}`);
  writeFileSync(p, text);
  return p;
}

export interface Session {
  /** The service of this test file. */
  srv(): Served;
  /** ZED_LAKE, a fresh ZED_HEAD_DIR for each test, and ZED_USER. */
  env(): NodeJS.ProcessEnv;
  /** Runs zlake; expects success and no stderr; returns stdout. */
  ok(...args: string[]): Promise<string>;
  /** Runs zlake; expects exit 1; returns stderr. */
  fails(...args: string[]): Promise<string>;
}

/**
 * Sets up a test file's service (started before its tests, stopped after)
 * and a fresh HEAD directory before each test.
 */
export function lakeSession(): Session {
  let srv: Served;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    srv = await serveInProcess();
  });
  afterAll(async () => {
    await srv.close();
  });
  beforeEach(() => {
    env = { ZED_LAKE: srv.url, ZED_HEAD_DIR: tempDir('zlake-head-'), ZED_USER: 'tester' };
  });
  return {
    srv: () => srv,
    env: () => env,
    async ok(...args) {
      const r = await zlake(args, env);
      if (r.code !== 0) throw new Error(`zlake ${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
      expect(r.stderr).toBe('');
      return r.stdout;
    },
    async fails(...args) {
      const r = await zlake(args, env);
      expect(r.code).toBe(1);
      return r.stderr;
    },
  };
}
