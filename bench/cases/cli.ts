// The command line's start: how long a `zlake` command takes from start to
// exit, which is what a user waits for at a prompt or a script pays per
// call. Commands given a service URL (help, ls, a small query) and one on
// a local lake directory (which opens the lake and serves it on a loopback
// port for its lifetime), each run 15 times after 2 warm-ups, in turn, so
// that the machine's noise falls on all alike; beside a bare `node` start,
// the floor every command pays.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, startServer } from '../lake';
import { median, now, report, runCase, runsText, since } from '../lib';

const RUNS = 15;
const WARMUP = 2;
const MAIN = join(__dirname, '..', '..', 'src', 'cli', 'main.js');

/** Runs `zlake args` (or bare node, args null) to its exit; its seconds. */
function run(args: string[] | null): number {
  const argv =
    args === null
      ? ['-e', '0']
      : ['-e', `require(${JSON.stringify(MAIN)}).main(process.argv.slice(1))`, '--', ...args];
  const t0 = now();
  const r = spawnSync(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  const s = since(t0);
  if (r.status !== 0) throw new Error(`zlake ${args?.join(' ')}: ${r.stderr.toString()}`);
  return s;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'zlake-bench-cli-'));
  const server = await startServer();
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const created = await request(server.port, 'POST', '/pool', '{"name":"p"}', {
      'Content-Type': 'application/json',
    });
    if (created.status !== 200) throw new Error(`create pool: HTTP ${created.status}`);
    const local = join(dir, 'lake');
    run(['-lake', local, 'init']);
    const commands: [string, string[] | null][] = [
      ['node -e 0 (the floor)', null],
      ['zlake -h', ['-h']],
      ['zlake -lake URL ls', ['-lake', url, 'ls']],
      [
        'zlake -lake URL query (a count of an empty pool)',
        ['-lake', url, 'query', 'from p | count()'],
      ],
      ['zlake -lake DIR ls (a local lake)', ['-lake', local, 'ls']],
    ];
    const times = commands.map(() => [] as number[]);
    for (let i = 0; i < WARMUP + RUNS; i++) {
      commands.forEach(([, args], j) => {
        const s = run(args);
        if (i >= WARMUP) times[j].push(s);
      });
    }
    commands.forEach(([name], j) =>
      report({
        name: `start to exit: ${name}`,
        seconds: median(times[j]),
        note: `median of ${RUNS}; runs ${runsText(times[j])}`,
      }),
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runCase(main);
