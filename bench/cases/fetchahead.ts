// Fetching ahead (-vector.ahead, src/lake/vectorscan.ts) measured: the
// DNS data set loaded in OBJECTS loads, so the pool has that many objects,
// queried cold (-cache.size 0) by two servers on the same lake, one
// fetching the next four objects' columns ahead (-vector.ahead 4, the
// default on S3) and one not (-vector.ahead 0, the default on a local
// disk), the queries alternated between them run by run. On
// S3 (s3rver behind the test proxy) with no added latency and with
// LATENCY_MS before each GET (a real S3's first-byte time is about that),
// and on a local disk (the second server on a copy of the lake). Then on
// S3 again with -vector.scan off, where the scan reads by rows and fetches
// the next objects' first ranges ahead: the pool, and a pool of a tenth of
// its records (objects of one range each), since reading the whole pool
// by rows moves six times the bytes and the local S3 server's throughput
// bounds it more than latency. The answers must be the same bytes.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3 } from '../../test/helpers/servers';
import { dnsData } from '../dnsdata';
import { alternate, createPool, load, Server, startServer } from '../lake';
import { median, report, runsText } from '../lib';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const OBJECTS = 16;
const LATENCY_MS = 20;

const QUERIES = [
  'count() by qtype_name',
  'cut ts,query',
  'summarize count(), sum(rtt), dcount(id.orig_h) by query',
];

/**
 * The NDJSON file cut into OBJECTS files of consecutive records (the
 * pool's key order), each the first share (a fraction) of its part.
 */
function parts(ndjson: string, dir: string, share = 1): string[] {
  const lines = readFileSync(ndjson, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const per = Math.ceil(lines.length / OBJECTS);
  mkdirSync(dir, { recursive: true });
  return Array.from({ length: OBJECTS }, (_, i) => {
    const f = join(dir, `part${i}.ndjson`);
    const part = lines.slice(i * per, i * per + Math.ceil(per * share));
    writeFileSync(f, part.join('\n') + '\n');
    return f;
  });
}

/** Runs the queries on the two servers, alternated; reports each one's median. */
async function compare(
  label: string,
  ahead: Server,
  none: Server,
  pool = 'dns',
  records = N,
): Promise<void> {
  for (const q of QUERIES) {
    const zed = `from ${pool} | ${q}`;
    const secs = (await alternate([ahead, none], zed, RUNS)).seconds;
    const [a, b] = secs.map(median);
    report({
      name: `${label}, ${q}: -vector.ahead 4`,
      records,
      seconds: a,
      note: `runs ${runsText(secs[0])}; ${(a / b).toFixed(2)}× the time without`,
    });
    report({
      name: `${label}, ${q}: -vector.ahead 0`,
      records,
      seconds: b,
      note: `runs ${runsText(secs[1])}`,
    });
  }
}

async function main(): Promise<void> {
  const data = await dnsData(N);
  const dir = mkdtempSync(join(tmpdir(), 'zlake-bench-fetchahead-'));
  const s3 = await startS3();
  const tenth = Math.ceil(N / OBJECTS / 10) * OBJECTS;
  /** compare() on S3 over loopback, then with LATENCY_MS before each GET. */
  const onS3 = async (
    how: string,
    ahead: Server,
    none: Server,
    pool?: string,
    records?: number,
  ) => {
    await compare(`S3 (loopback)${how}`, ahead, none, pool, records);
    s3.faults({ delayMs: LATENCY_MS, match: (req) => req.method === 'GET' });
    await compare(`S3 (+${LATENCY_MS} ms a GET)${how}`, ahead, none, pool, records);
    s3.faults({});
  };
  const servers: Server[] = [];
  try {
    const files = parts(data.ndjson, join(dir, 'parts'));
    for (const backend of ['S3', 'local disk']) {
      const lake = backend === 'S3' ? s3.lake('ahead') : join(dir, 'lake');
      const args = backend === 'S3' ? ['-s3.endpoint', s3.endpoint] : [];
      const cold = [...args, '-cache.size', '0'];
      const four = [...cold, '-vector.ahead', '4'];
      let ahead = await startServer(lake, four);
      servers.push(ahead);
      await createPool(ahead.port, 'dns', 'ts');
      for (const f of files) await load(ahead.port, 'dns', f, 'application/json');
      if (backend === 'S3') {
        await createPool(ahead.port, 'tenth', 'ts');
        for (const f of parts(data.ndjson, join(dir, 'tenth'), 0.1))
          await load(ahead.port, 'tenth', f, 'application/json');
      }
      // A second server reads the same lake on S3; a local lake is one
      // process's (its coordination), so that server reads a copy.
      let other = lake;
      if (backend !== 'S3') {
        await Promise.all(servers.splice(0).map((s) => s.stop()));
        other = join(dir, 'lake2');
        cpSync(lake, other, { recursive: true });
        ahead = await startServer(lake, four);
        servers.push(ahead);
      }
      const none = await startServer(other, [...cold, '-vector.ahead', '0']);
      servers.push(none);
      if (backend === 'S3') {
        await onS3('', ahead, none);
        await Promise.all(servers.splice(0).map((s) => s.stop()));
        const rows = ['-vector.scan', 'off'];
        const rowsAhead = await startServer(lake, [...four, ...rows]);
        servers.push(rowsAhead);
        const rowsNone = await startServer(lake, [...cold, ...rows, '-vector.ahead', '0']);
        servers.push(rowsNone);
        await onS3(', by rows', rowsAhead, rowsNone);
        await onS3(', by rows, a tenth', rowsAhead, rowsNone, 'tenth', tenth);
      } else await compare(backend, ahead, none);
      await Promise.all(servers.splice(0).map((s) => s.stop()));
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await s3.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
