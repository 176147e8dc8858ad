// Issue 3, the lake service over HTTP, with `zlake serve` in its own
// process, on the Zeek-DNS-like data set (bench/dnsdata.ts): load
// throughput of 1M records as NDJSON (sent as application/json: NDJSON is
// an output-only media type in the API) and as ZNG, count() over the stored
// pool, the same count restricted to a 1% range of the pool key ts (bytes
// read should drop to about 1%), and the server's peak RSS while loading and
// while querying.

import { dnsData } from '../dnsdata';
import { createPool, load, queryWithStats, startServer } from '../lake';
import { check, fileSize, median, report } from '../lib';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

async function main(): Promise<void> {
  const data = await dnsData(N);
  const server = await startServer();
  try {
    const port = server.port;
    const sources = [
      ['NDJSON', data.ndjson, 'application/json', 'dns_ndjson'],
      ['ZNG', data.zng, 'application/x-zng', 'dns_zng'],
    ] as const;
    for (const [name, file, mime, pool] of sources) {
      await createPool(port, pool, 'ts');
      server.resetPeak();
      const seconds = await load(port, pool, file, mime);
      const objs = await queryWithStats(port, `from ${pool}@main:objects | yield count`);
      const stored = objs.values.reduce((n: number, v) => n + Number(v), 0);
      if (stored !== N) throw new Error(`load ${name}: ${stored} records stored, want ${N}`);
      report({
        name: `HTTP load ${name} (${objs.values.length} objects)`,
        records: N,
        bytes: fileSize(file),
        seconds,
        rssMB: server.peakRssMB(),
        note: 'peak RSS: the server, during this load',
      });
    }

    server.resetPeak();
    const measure = async (q: string) => {
      const first = await queryWithStats(port, q); // warm-up
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push((await queryWithStats(port, q)).seconds);
      return { ...first, seconds: median(times), times };
    };
    const all = await measure('from dns_zng | count()');
    if (Number(all.values[0]) !== N) throw new Error(`count(): ${JSON.stringify(all.values)}`);
    report({
      name: 'count() over the pool',
      records: N,
      bytes: all.stats.bytes_read,
      seconds: all.seconds,
      note: `median of ${RUNS}; MB = QueryStats bytes_read`,
    });
    const want = Math.floor(N / 100);
    const part = await measure(
      `from dns_zng | ts >= "${data.tsLo}" and ts < "${data.tsHi}" | count()`,
    );
    if (Number(part.values[0]) !== want)
      throw new Error(`1% count: ${JSON.stringify(part.values)}, want ${want}`);
    const pct = (100 * part.stats.bytes_read) / all.stats.bytes_read;
    report({
      name: 'count() of a 1% ts range (pool key)',
      records: want,
      bytes: part.stats.bytes_read,
      seconds: part.seconds,
      note: `median of ${RUNS}; bytes_read ${pct.toFixed(2)}% and time ${((100 * part.seconds) / all.seconds).toFixed(1)}% of the full count's`,
    });
    check({
      name: '1% key range: bytes_read / full scan',
      issue: '#3',
      value: pct,
      target: 2,
      kind: 'max',
      unit: '%',
      note: '"near 1%": at most 2%',
    });
    report({
      name: 'server peak RSS while querying',
      rssMB: server.peakRssMB(),
    });
  } finally {
    await server.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
