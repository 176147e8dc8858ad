// `zlake serve` as a command: flags, the port file, clean shutdown.

import { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { spawnTs } from '../lake/spawn-ts';
import { call, sleep } from './helpers';

function serve(args: string[]): { child: ChildProcess } {
  const child = spawnTs(path.join(__dirname, 'serve-child.ts'), args);
  child.stdout?.resume();
  return { child };
}

function exit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'zlake-serve-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

test('serves the lake named by -lake, writes the port file, stops on SIGTERM', async () => {
  const portfile = path.join(dir, 'port');
  const { child } = serve([
    '-l',
    '127.0.0.1:0',
    '-lake',
    path.join(dir, 'lake'),
    '-portfile',
    portfile,
    '-defaultfmt',
    'json',
    '-cors.origin',
    'http://a',
    '-cors.origin',
    'http://b',
    '-log.level',
    'warn',
  ]);
  for (let i = 0; i < 200 && !existsSync(portfile); i++) await sleep(50);
  const port = readFileSync(portfile, 'utf8');
  expect(port).toMatch(/^\d+$/);
  const base = `http://127.0.0.1:${port}`;
  expect((await call(base, 'GET', '/status')).text).toBe('ok');
  const r = await call(base, 'POST', '/pool', {
    body: '{name:"p"}',
    headers: { Origin: 'http://b' },
  });
  expect(r.headers.get('content-type')).toBe('application/json');
  expect(r.headers.get('access-control-allow-origin')).toBe('http://b');
  expect(existsSync(path.join(dir, 'lake'))).toBe(true);
  child.kill('SIGTERM');
  expect(await exit(child)).toBe(0);
});

test('bad flags and a bad -defaultfmt fail', async () => {
  let { child } = serve(['-nosuchflag']);
  expect(await exit(child)).toBe(2);
  ({ child } = serve(['-l', '127.0.0.1:0', '-lake', path.join(dir, 'l2'), '-defaultfmt', 'nope']));
  expect(await exit(child)).toBe(1);
  ({ child } = serve(['-lake', 'http://localhost:9867']));
  expect(await exit(child)).toBe(1);
});

/** Starts `zlake serve` on dir/lake with more flags; its base URL and its log's Started line. */
async function started(
  lake: string,
  flags: string[],
): Promise<{ child: ChildProcess; base: string; log: () => string }> {
  const portfile = path.join(dir, `port-${flags.join('')}`);
  const { child } = serve([
    '-l',
    '127.0.0.1:0',
    '-lake',
    lake,
    '-portfile',
    portfile,
    '-log.path',
    'stdout',
    ...flags,
  ]);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  for (let i = 0; i < 200 && !(existsSync(portfile) && out.includes('"Started"')); i++)
    await sleep(50);
  return { child, base: `http://127.0.0.1:${readFileSync(portfile, 'utf8')}`, log: () => out };
}

test('the Started line says whether the allocator keeps freed memory (as npm start sets it)', async () => {
  const saved = process.env.MALLOC_TRIM_THRESHOLD_;
  try {
    for (const [k, value] of [undefined, '268435456'].entries()) {
      if (value === undefined) delete process.env.MALLOC_TRIM_THRESHOLD_;
      else process.env.MALLOC_TRIM_THRESHOLD_ = value;
      const s = await started(path.join(dir, `lake${k}`), []);
      try {
        expect(s.log()).toContain(`"malloc_tuned":${value !== undefined}`);
      } finally {
        s.child.kill('SIGTERM');
        await exit(s.child);
      }
    }
  } finally {
    if (saved === undefined) delete process.env.MALLOC_TRIM_THRESHOLD_;
    else process.env.MALLOC_TRIM_THRESHOLD_ = saved;
  }
});

test('-zng.worker on and off answer a large query with the same bytes', async () => {
  const rows: string[] = [];
  for (let i = 0; i < 60000; i++)
    rows.push(
      JSON.stringify({ ts: i, host: `h${i % 977}.example.com`, bytes: (i * 7919) % 65536 }),
    );
  const answers: Buffer[] = [];
  for (const [k, mode] of ['on', 'off'].entries()) {
    const s = await started(path.join(dir, `lake${k}`), ['-zng.worker', mode]);
    try {
      expect(s.log()).toContain(`"zng_worker":${mode === 'on'}`);
      expect(
        (
          await call(s.base, 'POST', '/pool', {
            body: '{name:"p",layout:{order:"asc",keys:[["ts"]]}}',
          })
        ).status,
      ).toBe(200);
      const load = await call(s.base, 'POST', '/pool/p/branch/main', { body: rows.join('\n') });
      expect(load.status).toBe(200);
      const q = await call(s.base, 'POST', '/query', {
        body: JSON.stringify({ query: 'from p | sort -r bytes, ts | put n:=len(host)' }),
        headers: { 'Content-Type': 'application/json', Accept: 'application/x-zng' },
      });
      expect(q.status).toBe(200);
      expect(q.body.length).toBeGreaterThan(256 * 1024);
      answers.push(q.body);
      // The metric says where the big frames were compressed.
      const m = (await call(s.base, 'GET', '/metrics')).text;
      const count = (thread: string) =>
        Number(
          new RegExp(`^zlake_zng_frames_compressed_total\\{thread="${thread}"\\} (\\d+)`, 'm').exec(
            m,
          )?.[1],
        );
      const frames = count('worker') + count('query');
      if (mode === 'on') expect(count('worker')).toBeGreaterThan(0);
      else expect(frames).toBe(0);
    } finally {
      s.child.kill('SIGTERM');
      await exit(s.child);
    }
  }
  expect(answers[0].equals(answers[1])).toBe(true);
});

test('-dcount.workers 1 and off answer a large group-by with dcount with the same bytes', async () => {
  // Past the rows from which a summarize's dcounts go to a worker
  // (asideConfig.minRows), on columns whatever ZLAKE_VECTOR_SCAN says.
  const rows: string[] = [];
  for (let i = 0; i < 140_000; i++)
    rows.push(JSON.stringify({ ts: i, b: (i * 7919) % 40_000, host: `h${i % 9973}` }));
  const answers: string[] = [];
  for (const [k, mode] of ['1', 'off'].entries()) {
    const s = await started(path.join(dir, `dcount${k}`), [
      '-dcount.workers',
      mode,
      '-vector.scan',
      'on',
    ]);
    try {
      expect(s.log()).toContain(`"dcount_workers":${mode === 'off' ? 0 : 1}`);
      await call(s.base, 'POST', '/pool', {
        body: '{name:"p",layout:{order:"asc",keys:[["ts"]]}}',
      });
      expect(
        (await call(s.base, 'POST', '/pool/p/branch/main', { body: rows.join('\n') })).status,
      ).toBe(200);
      const q = await call(s.base, 'POST', '/query', {
        body: JSON.stringify({ query: 'from p | count(), dcount(host) by b' }),
        headers: { 'Content-Type': 'application/json', Accept: 'application/x-zson' },
      });
      expect(q.status).toBe(200);
      expect(q.text.split('\n').filter(Boolean).length).toBe(40_000);
      answers.push(q.text);
      const m = (await call(s.base, 'GET', '/metrics')).text;
      const worker = /^zlake_dcount_columns_total\{thread="worker"\} (\d+)/m.exec(m)?.[1];
      expect(worker).toBe(mode === 'off' ? '0' : '1');
    } finally {
      s.child.kill('SIGTERM');
      await exit(s.child);
    }
  }
  expect(answers[0]).toBe(answers[1]);
  // Some groups have several distinct hosts.
  expect(answers[0]).toMatch(/dcount:[2-9]\(uint64\)/);
});

test('a bad -zng.worker or -dcount.workers fails', async () => {
  for (const [k, flag] of ['-zng.worker', '-dcount.workers'].entries()) {
    const { child } = serve(['-l', '127.0.0.1:0', '-lake', path.join(dir, `l${3 + k}`), flag, 'x']);
    expect(await exit(child)).toBe(1);
  }
});

test('-vector.ahead sets the objects a scan fetches ahead; what is not a count fails', async () => {
  for (const [k, args, want] of [
    // auto: none on a local disk.
    [0, [], 0],
    [1, ['-vector.ahead', '3'], 3],
  ] as const) {
    const s = await started(path.join(dir, `ahead${k}`), [...args]);
    try {
      expect(s.log()).toContain(`"vector_ahead":${want}`);
    } finally {
      s.child.kill('SIGTERM');
      await exit(s.child);
    }
  }
  for (const [k, bad] of ['-1', 'x', '1.5', '257'].entries()) {
    const { child } = serve([
      '-l',
      '127.0.0.1:0',
      '-lake',
      path.join(dir, `l4${k}`),
      '-vector.ahead',
      bad,
    ]);
    expect(await exit(child)).toBe(1);
  }
});
