// Issue 10: the lake on S3 + Redis beside the embedded lake, in one run.
// The S3 side is s3rver (a real S3-speaking server on loopback, in its own
// process) reached through the test fault proxy with no faults set (it
// gives s3rver the conditional writes real S3 has, and counts requests);
// Redis is redis-server. Both backends load the DNS data set, answer
// count() cold (scan cache off) and warm, and take commits from 8
// concurrent writers.
//
// Targets: a cold count() over 1M records on S3 within 2x the embedded
// cold figure; commit p50 under 25 ms on loopback.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, startS3 } from '../../test/helpers/servers';
import { dnsData } from '../dnsdata';
import { createPool, load, queryZng, request, startServer } from '../lake';
import { check, fileSize, median, report, runCase } from '../lib';

const N = Number(process.env.BENCH_CLUSTER_RECORDS ?? 1_000_000);
const WRITERS = 8;
const COMMITS_PER_WRITER = 25;

function percentile(xs: number[], p: number): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main(): Promise<void> {
  const data = await dnsData(N);
  const [s3, redis] = await Promise.all([startS3(), startRedis()]);
  const dir = mkdtempSync(join(tmpdir(), 'zlake-bench-cluster-'));
  const backends = [
    { name: 'embedded', lake: join(dir, 'lake'), args: [] as string[] },
    {
      name: 'S3 + Redis',
      lake: s3.lake('bench'),
      args: ['-s3.endpoint', s3.endpoint, '-redis', redis.url],
    },
  ];
  const cold: Record<string, number> = {};
  const p50: Record<string, number> = {};
  try {
    for (const b of backends) {
      // Loads and cold queries with the scan cache off.
      let server = await startServer(b.lake, [...b.args, '-cache.size', '0']);
      await createPool(server.port, 'dns', 'ts');
      const secs = await load(server.port, 'dns', data.zng, 'application/x-zng');
      report({
        name: `${b.name}: load ${N} DNS records (ZNG over HTTP)`,
        records: N,
        bytes: fileSize(data.zng),
        seconds: secs,
      });
      const before = new Map(s3.counts);
      const times: number[] = [];
      for (let i = 0; i < 3; i++)
        times.push((await queryZng(server.port, 'from dns | count()')).seconds);
      cold[b.name] = median(times);
      const gets = ((s3.counts.get('GET') ?? 0) - (before.get('GET') ?? 0)) / 3;
      report({
        name: `${b.name}: count() cold (cache off), median of 3`,
        records: N,
        seconds: cold[b.name],
        note: b.name === 'embedded' ? undefined : `${gets.toFixed(0)} S3 GETs per query`,
      });
      await server.stop();

      // Warm queries: the default cache, after one query to fill it.
      server = await startServer(b.lake, b.args);
      await queryZng(server.port, 'from dns | count()');
      const warm: number[] = [];
      const beforeWarm = new Map(s3.counts);
      for (let i = 0; i < 5; i++)
        warm.push((await queryZng(server.port, 'from dns | count()')).seconds);
      const warmGets = ((s3.counts.get('GET') ?? 0) - (beforeWarm.get('GET') ?? 0)) / 5;
      report({
        name: `${b.name}: count() warm, median of 5`,
        records: N,
        seconds: median(warm),
        note: b.name === 'embedded' ? undefined : `${warmGets.toFixed(1)} S3 GETs per query`,
      });

      // Commit latency: 8 concurrent writers making small loads as fast as
      // they are answered, each into a pool of its own (the commit path's
      // latency), then all into one branch (where commits queue: each
      // builds on the one before).
      for (const mode of ['alone', 'a pool each', 'one branch']) {
        const writers = mode === 'alone' ? 1 : WRITERS;
        const pools = Array.from({ length: writers }, (_, w) =>
          mode === 'one branch' ? 'one' : `${mode.replace(/ /g, '')}${w}`,
        );
        for (const p of new Set(pools)) await createPool(server.port, p, 'ts');
        const latencies: number[] = [];
        const started = Date.now();
        await Promise.all(
          pools.map(async (pool, w) => {
            for (let i = 0; i < COMMITS_PER_WRITER; i++) {
              const ts = new Date((w * 1000 + i) * 1000).toISOString();
              const r = await request(
                server.port,
                'POST',
                `/pool/${pool}/branch/main`,
                `{w:${w},i:${i},ts:${ts}}\n`,
                { 'Content-Type': 'application/x-zson' },
              );
              if (r.status !== 200) throw new Error(`commit: ${r.status} ${r.body}`);
              latencies.push(r.seconds);
            }
          }),
        );
        const wall = (Date.now() - started) / 1000;
        const p50ms = percentile(latencies, 50) * 1000;
        if (mode === 'a pool each') p50[b.name] = p50ms;
        report({
          name: `${b.name}: commits, ${mode === 'alone' ? 'one writer' : `${writers} concurrent writers, ${mode}`}`,
          records: latencies.length,
          seconds: wall,
          note: `p50 ${p50ms.toFixed(1)} ms, p99 ${(percentile(latencies, 99) * 1000).toFixed(1)} ms`,
        });
      }
      await server.stop();
    }
    check({
      name: 'cold count(): S3 + Redis / embedded',
      issue: '#10',
      value: cold['S3 + Redis'] / cold.embedded,
      target: 2,
      kind: 'max',
      unit: '×',
    });
    check({
      name: 'commit p50, 8 concurrent writers (a pool each), S3 + Redis',
      issue: '#10',
      value: p50['S3 + Redis'],
      target: 25,
      kind: 'max',
      unit: 'ms',
    });
  } finally {
    await Promise.all([s3.stop(), redis.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

runCase(main);
