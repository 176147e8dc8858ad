// The ZNG compression worker (-zng.worker, src/formats/zng/compresspool.ts)
// measured: two servers on copies of one pool, one with the worker off and
// one with it on, the same queries alternated between them run by run (the
// first server of each run alternates too), so load from elsewhere falls
// on both alike. Each server's time is the client's wall time to the last
// byte of the ZNG response (medians); its CPU is the server process's
// user + system time per query (all its threads), read from /proc. The
// answers must be the same bytes.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dnsData } from '../dnsdata';
import { alternate, createPool, load, Server, startServer } from '../lake';
import { median, report, runsText } from '../lib';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

const QUERIES = [
  'cut ts,query',
  'summarize count(), sum(rtt), dcount(id.orig_h) by query',
  'sort rtt',
  'count()',
];

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
      const runs = q.startsWith('sort') ? Math.ceil(RUNS / 3) : RUNS;
      const servs = servers.map((s) => s.server);
      const { seconds: secs, cpu, body } = await alternate(servs, zed, runs);
      const med = secs.map(median);
      servers.forEach((s, k) =>
        report({
          name: `${q}: ${s.name}`,
          records: N,
          seconds: med[k],
          note:
            `server CPU ${((1000 * cpu[k]) / runs).toFixed(0)} ms/query; ` +
            `${(body.length / 1e6).toFixed(1)} MB ZNG; ` +
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
