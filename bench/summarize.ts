// The grouped aggregations of the query case, without the scan: the DNS
// data set's ZNG is decoded into memory once, then each query's summarize
// runs over those values (in batches, as the scan hands them out) in this
// process, several times; the figures are medians of the wall-clock time
// and of the process's CPU time (steadier on a busy machine). It isolates the group
// table, the aggregates and the spill path from decompression, HTTP and the
// response encoding, which `npm run bench -- query` includes.
//
//   npx tsc -p tsconfig.bench.json
//   node --expose-gc .bench-build/bench/summarize.js [runs] [query ...]
//
// BENCH_MEMORY_LIMIT=<bytes> sets the query's memory limit (to measure the
// spill path); BENCH_RECORDS as for the other cases.

import { readFileSync } from 'node:fs';
import { decodeZng } from '../src/formats/zng';
import { compileQuery, QueryContext } from '../src/query';
import { BATCH_SIZE } from '../src/query/runtime/operator';
import { TypeContext } from '../src/zed/context';
import { Value } from '../src/zed/value';
import { dnsData } from './dnsdata';
import { median, now, runsText, since } from './lib';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);

const DEFAULT_QUERIES = [
  'count() by qtype_name',
  'count(), sum(rtt) by query',
  'dcount(id.orig_h) by query',
  'count(), sum(rtt), dcount(id.orig_h) by query',
  'count() by id.orig_p',
];

/** Each query's times (wall and CPU seconds) and its number of output rows. */
async function runQuery(
  zctx: TypeContext,
  vals: Value[],
  text: string,
  runs: number,
): Promise<{ secs: number[]; cpu: number[]; rows: number }> {
  const secs: number[] = [];
  const cpu: number[] = [];
  let rows = 0;
  const memoryLimit = process.env.BENCH_MEMORY_LIMIT
    ? Number(process.env.BENCH_MEMORY_LIMIT)
    : undefined;
  for (let r = 0; r <= runs; r++) {
    (globalThis as { gc?: () => void }).gc?.();
    let pos = 0;
    const reader = {
      read: async () => {
        if (pos >= vals.length) return null;
        const b = vals.slice(pos, pos + BATCH_SIZE);
        pos += b.length;
        return b;
      },
    };
    const ctx = new QueryContext({ zctx, ...(memoryLimit ? { memoryLimit } : {}) });
    const t0 = now();
    const c0 = process.cpuUsage();
    const q = await compileQuery(text, { ctx, inputs: [reader] });
    rows = 0;
    for (let b = await q.pull(); b; b = await q.pull()) rows += b.length;
    await q.close();
    // The first run warms up.
    if (r > 0) {
      secs.push(since(t0));
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1e6);
    }
  }
  return { secs, cpu, rows };
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 5);
  const queries = process.argv.length > 3 ? process.argv.slice(3) : DEFAULT_QUERIES;
  const data = await dnsData(N);
  const zctx = new TypeContext();
  const t0 = now();
  const vals = decodeZng(readFileSync(data.zng), { ctx: zctx });
  console.log(`decoded ${vals.length} records in ${since(t0).toFixed(2)} s`);
  for (const q of queries) {
    const { secs, cpu, rows } = await runQuery(zctx, vals, q, runs);
    console.log(
      `${median(secs).toFixed(3)} s (CPU ${median(cpu).toFixed(3)} s)  ${q}  (${rows} rows; runs ${runsText(secs)})`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
