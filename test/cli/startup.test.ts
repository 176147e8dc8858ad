// A lake command loads only what it uses: a command given a service URL
// starts without the lake, the HTTP server or the S3 and Redis clients
// (loading them all took a lake command about three times as long to
// start), a command on a local lake directory without the S3 and Redis
// clients, and one on s3:// with the S3 client.

import * as path from 'node:path';
import { rmSync } from 'node:fs';
import { tempDir } from '../client/helpers';
import { spawnTs } from '../lake/spawn-ts';

jest.setTimeout(60000);

/** The modules `zlake args` loaded (paths), and its exit code. */
async function loaded(args: string[]): Promise<{ code: number; modules: string[] }> {
  const child = spawnTs(path.join(__dirname, 'fixtures/modules-loaded.ts'), args);
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c: string) => (out += c));
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? -1)));
  const last = out.trim().split('\n').pop()!;
  return { code, modules: JSON.parse(last) as string[] };
}

const heavy = {
  s3: `${path.sep}@aws-sdk${path.sep}client-s3${path.sep}`,
  redis: `${path.sep}ioredis${path.sep}`,
  express: `${path.sep}express${path.sep}`,
  lake: path.join('src', 'lake', 'lake.ts'),
  server: path.join('src', 'service', 'server.ts'),
};

function has(modules: string[], part: string): boolean {
  return modules.some((m) => m.includes(part));
}

test('help and commands on a service URL load no lake, server, S3 or Redis', async () => {
  for (const args of [['-h'], ['-lake', 'http://127.0.0.1:1', 'ls']]) {
    const { modules } = await loaded(args);
    // The command ran (its own module is there).
    expect(has(modules, path.join('src', 'cli', 'lake', 'index.ts'))).toBe(true);
    for (const part of Object.values(heavy))
      expect([args, part, has(modules, part)]).toEqual([args, part, false]);
  }
});

test('a command on a local lake directory loads the lake but not S3 or Redis', async () => {
  const dir = tempDir('zlake-startup-');
  try {
    const lake = path.join(dir, 'lake');
    expect((await loaded(['-lake', lake, 'init'])).code).toBe(0);
    const { code, modules } = await loaded(['-lake', lake, 'ls']);
    expect(code).toBe(0);
    expect(has(modules, heavy.lake)).toBe(true);
    expect(has(modules, heavy.server)).toBe(true);
    expect(has(modules, heavy.s3)).toBe(false);
    expect(has(modules, heavy.redis)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a command on an s3:// lake loads the S3 client but not Redis', async () => {
  // A refused endpoint: the command fails at once, after loading what it uses.
  Object.assign(process.env, {
    AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'y',
  });
  const { code, modules } = await loaded(['-lake', 's3://bucket/prefix', 'ls']);
  expect(code).not.toBe(0);
  expect(has(modules, heavy.s3)).toBe(true);
  expect(has(modules, heavy.redis)).toBe(false);
});
