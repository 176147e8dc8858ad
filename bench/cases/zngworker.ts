// The ZNG compression worker (-zng.worker, src/formats/zng/compresspool.ts)
// measured: two servers on copies of one pool, one with the worker off and
// one with it on, the same queries alternated between them run by run (the
// first server of each run alternates too), so load from elsewhere falls
// on both alike. Each server's time is the client's wall time to the last
// byte of the ZNG response (medians); its CPU is the server process's
// user + system time per query (all its threads), read from /proc. The
// answers must be the same bytes.

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dnsData } from '../dnsdata';
import { createPool, load, queryZng, Server, startServer } from '../lake';
import { median, report, runsText } from '../lib';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

const QUERIES = [
  'cut ts,query',
  'summarize count(), sum(rtt), dcount(id.orig_h) by query',
  'sort rtt',
  'count()',
];

/** CPU seconds (user + system, all threads) a process has used. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th.
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / 100;
}

async function main(): Promise<void> {
  const data = await dnsData(N);
  const dir = mkdtempSync(join(tmpdir(), 'zlake-bench-zngworker-'));
  const servers: { name: string; server: Server }[] = [];
  try {
    const first = await startServer(join(dir, 'off'), ['-zng.worker', 'off']);
    await createPool(first.port, 'dns', 'ts');
    await load(first.port, 'dns', data.zng, 'application/x-zng');
    await first.stop();
    cpSync(join(dir, 'off'), join(dir, 'on'), { recursive: true });
    servers.push({
      name: 'worker off',
      server: await startServer(join(dir, 'off'), ['-zng.worker', 'off']),
    });
    servers.push({
      name: 'worker on',
      server: await startServer(join(dir, 'on'), ['-zng.worker', 'on']),
    });
    for (const q of QUERIES) {
      const zed = `from dns | ${q}`;
      const warm = await Promise.all(servers.map((s) => queryZng(s.server.port, zed)));
      if (!warm[0].body.equals(warm[1].body))
        throw new Error(`${q}: the servers' answers differ (${warm.map((w) => w.body.length)})`);
      const secs: number[][] = servers.map(() => []);
      const cpu: number[] = servers.map(() => 0);
      const runs = q.startsWith('sort') ? Math.ceil(RUNS / 3) : RUNS;
      for (let i = 0; i < runs; i++) {
        for (let k = 0; k < servers.length; k++) {
          const j = (i + k) % servers.length;
          const { server } = servers[j];
          const c0 = cpuSeconds(server.pid);
          secs[j].push((await queryZng(server.port, zed)).seconds);
          cpu[j] += cpuSeconds(server.pid) - c0;
        }
      }
      const med = secs.map(median);
      servers.forEach((s, k) =>
        report({
          name: `${q}: ${s.name}`,
          records: N,
          seconds: med[k],
          note:
            `server CPU ${((1000 * cpu[k]) / runs).toFixed(0)} ms/query; ` +
            `${(warm[k].body.length / 1e6).toFixed(1)} MB ZNG; ` +
            `runs ${runsText(secs[k])}` +
            (k === 1 ? `; on/off ${(med[1] / med[0]).toFixed(2)}×` : ''),
        }),
      );
    }
  } finally {
    await Promise.all(servers.map((s) => s.server.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
