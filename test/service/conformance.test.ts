// The shared conformance runner against `zlake serve`, end to end: it must
// run to completion, and the cases whose query passes its input through
// (`*`, `pass` or nothing) must all pass; they exercise loading, storage
// and output formats, which are this service's. The language cases' pass
// rate is reported, not asserted here.

import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { spawnTs } from '../lake/spawn-ts';
import { serveLakeArgs } from '../helpers/backend';
import { sleep } from './helpers';

const SHARED = path.resolve(__dirname, '../../../shared/conformance');
const RUNNER = path.join(SHARED, 'run.mjs');
const CASES = path.join(SHARED, 'cases.jsonl');

interface Case {
  id: string;
  query: string;
  expect_error: boolean;
  skip_reason: string | null;
}

function run(cmd: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('close', (code) => resolve({ code, out }));
  });
}

const maybe = existsSync(RUNNER) && existsSync(CASES) ? test : test.skip;

maybe(
  'run.mjs runs end to end against zlake serve; pass-through cases pass',
  async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'zlake-conformance-'));
    const portfile = path.join(dir, 'port');
    let server: ChildProcess | undefined;
    try {
      server = spawnTs(path.join(__dirname, 'serve-child.ts'), [
        '-l',
        '127.0.0.1:0',
        ...(await serveLakeArgs(path.join(dir, 'lake'))),
        '-portfile',
        portfile,
        '-log.level',
        'error',
      ]);
      server.stdout?.resume();
      for (let i = 0; i < 200 && !existsSync(portfile); i++) await sleep(50);
      const base = `http://127.0.0.1:${readFileSync(portfile, 'utf8')}`;
      const failures = path.join(dir, 'failures.jsonl');
      const { code, out } = await run(process.execPath, [
        RUNNER,
        '--base',
        base,
        '--cases',
        CASES,
        '--failures',
        failures,
      ]);
      process.stdout.write(out.split('\n').slice(-60).join('\n') + '\n');
      expect(code).toBe(0);
      const last = out.trim().split('\n').pop()!;
      const m = /^conformance: (\d+) passed, (\d+) failed$/.exec(last);
      expect(m).not.toBeNull();
      const cases = readFileSync(CASES, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Case);
      const runnable = cases.filter((c) => !c.skip_reason);
      expect(Number(m![1]) + Number(m![2])).toBe(runnable.length);
      const failed = new Set(
        existsSync(failures)
          ? readFileSync(failures, 'utf8')
              .split('\n')
              .filter((l) => l.trim() !== '')
              .map((l) => (JSON.parse(l) as { id: string }).id)
          : [],
      );
      const passThrough = runnable.filter((c) => ['*', 'pass', ''].includes(c.query.trim()));
      expect(passThrough.length).toBeGreaterThan(100);
      expect(passThrough.filter((c) => failed.has(c.id)).map((c) => c.id)).toEqual([]);
    } finally {
      server?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  },
  600000,
);
