// Issues 4, 5 and 14: queries through the service from a stored pool on a
// warm zlake server, each beside DuckDB running the same query on the same
// records as NDJSON (read_json_auto on the file), as a native table and as
// Parquet (read_parquet on a file DuckDB wrote from its table); then the
// same queries on a cold zlake server (the scan cache off, the pool's
// objects on local disk), where the columnar copies are read (issue 14).
// Both servers also answer the columnar queries on pool dns20, the same
// records loaded in 20 commits (an object each, as a pool loaded batch by
// batch is), and on pool dns2, loaded in two commits over the same ts
// (two objects that overlap, as two sources' are), in turns with pool dns,
// beside its times.
//
// Data: the Zeek-DNS-like set of bench/dnsdata.ts, loaded as ZNG into a pool
// keyed by ts. zlake's time is the client's wall time from sending the
// request to the last byte of the ZNG response (compile, scan, operators,
// encoding and HTTP included); DuckDB's is `connection.run()` in an open
// connection, which materializes the whole result in DuckDB's memory. A
// new server (warm and cold alike) first answers WARMUP_QUERIES count()s,
// while V8 compiles its query path (the first server's median is
// reported). Each query runs once to warm up and then BENCH_RUNS times
// (default 7), the three systems interleaved run by run so that load from
// other processes on the machine falls on all of them alike; the figures
// are medians. Beside each zlake time is the server's CPU a query, all
// its threads (cpuText). Each DuckDB (NDJSON and table) has its own child
// process and the server its own, so each peak RSS is per system and,
// reset before every query, per query.

import { dnsData } from '../dnsdata';
import { Duck, DuckResult } from '../duckdb';
import {
  createPool,
  load,
  queryWithStoredBytes,
  queryZng,
  request,
  Response,
  startServer,
  zngValues,
} from '../lake';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  check,
  cpuSeconds,
  ensureDataDir,
  fileSize,
  median,
  now,
  report,
  Result,
  runsText,
  since,
} from '../lib';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** Small queries a new server answers before the warm figures (see below). */
const WARMUP_QUERIES = 40;

/**
 * A query's server CPU (all its threads, user and system, from /proc: in
 * 10 ms ticks, so a mean over the runs) and the wall time it could take
 * at best were that CPU spread evenly over the machine's cores: the
 * floor that only less work, not more threads, can lower.
 */
function cpuText(cpu: number): string {
  const cores = availableParallelism();
  return `server CPU ${cpu.toFixed(3)} s a query, so at least ${(cpu / cores).toFixed(3)} s on ${cores} cores`;
}

/** The times of WARMUP_QUERIES count()s, a new server's first queries. */
async function warmQueryPath(port: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP_QUERIES; i++)
    times.push((await queryZng(port, 'from dns | count()')).seconds);
  return times;
}

interface Query {
  label: string;
  issue: string;
  /** The operators after `from dns | `. */
  zed: string;
  /** The SQL, with {t} for the table expression. */
  sql: string;
  /** Target for zlake / DuckDB-on-NDJSON. */
  target: number;
  /** Run only where the engine lacks something `zed` needs. */
  fallbackFor?: string;
  /** Issue 14's targets apply: warm ≤ 3× DuckDB's table, cold ≤ 0.5× DuckDB-on-NDJSON. */
  columnar?: boolean;
}

/** Issue 14's targets. */
const WARM_VS_TABLE = 3;
const COLD_VS_NDJSON = 0.5;
const CUT_BYTES_PERCENT = 25;

/** Node's own JSON.parse of every line of the NDJSON file, for scale. */
function jsonParseBaseline(path: string): Result {
  const text = readFileSync(path, 'utf8');
  const t0 = now();
  let n = 0;
  for (let start = 0; ; n++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    JSON.parse(text.slice(start, nl));
    start = nl + 1;
  }
  return {
    name: 'Node JSON.parse of the NDJSON lines',
    records: n,
    bytes: fileSize(path),
    seconds: since(t0),
    note: 'for scale, not a query',
  };
}

/** Pool dns's records loaded again, another way: the pool's name, what it is, and the queries whose ZNG loads it. */
interface OtherPool {
  name: string;
  label: string;
  loads: (n: number) => string[];
}

/** The many-objects pool: the same records, loaded in this many commits. */
const SLICES = 20;

const OTHER_POOLS: OtherPool[] = [
  {
    // Consecutive ts (a log pool loaded a batch at a time): one object each.
    name: 'dns20',
    label: `${SLICES} objects`,
    loads: (n) => {
      const per = Math.ceil(n / SLICES);
      return Array.from(
        { length: SLICES },
        (_, i) => `from dns | head ${Math.min(n, (i + 1) * per)} | tail ${per}`,
      );
    },
  },
  {
    // Two loads over the same hours (two sources): two objects whose ts overlap, merged by key.
    name: 'dns2',
    label: '2 overlapping objects',
    loads: () => ['from dns | id.orig_p % 2 == 0', 'from dns | id.orig_p % 2 != 0'],
  },
];

/** Loads pool p from pool dns's records; the load's seconds. */
async function loadOther(port: number, p: OtherPool, n: number): Promise<number> {
  await createPool(port, p.name, 'ts');
  let secs = 0;
  for (const q of p.loads(n)) {
    const part = await queryZng(port, q);
    const r = await request(port, 'POST', `/pool/${p.name}/branch/main`, part.body, {
      'Content-Type': 'application/x-zng',
    });
    if (r.status !== 200) throw new Error(`load ${p.name} (${q}): HTTP ${r.status}`);
    secs += r.seconds;
  }
  return secs;
}

/**
 * The columnar queries on pool dns (one object) and on each other pool,
 * taken in turns run by run: the other pool's median beside dns's.
 */
async function otherPools(port: number, queries: Query[], cold: boolean): Promise<void> {
  for (const p of OTHER_POOLS) {
    for (const q of queries) {
      if (!q.columnar) continue;
      const one = `from dns | ${q.zed}`;
      const other = `from ${p.name} | ${q.zed}`;
      // The same bytes, but for the order of records of equal ts that a
      // load split between two objects.
      const same = (await queryZng(port, one)).body.equals((await queryZng(port, other)).body);
      const t: number[][] = [[], []];
      for (let i = 0; i < RUNS; i++) {
        for (let k = 0; k < 2; k++) {
          const j = (i + k) % 2;
          t[j].push((await queryZng(port, j === 0 ? one : other)).seconds);
        }
      }
      const [os, ms] = [median(t[0]), median(t[1])];
      report({
        name: `${q.label}: zlake ${cold ? 'cold' : 'warm'}, ${p.label}`,
        records: N,
        seconds: ms,
        note: `${(ms / os).toFixed(2)}× the one-object pool's ${os.toFixed(3)} s (taken in turns); runs ${runsText(t[1])}; ${same ? 'the same answer' : 'the answer differs in bytes'}`,
      });
    }
  }
}

async function main(): Promise<void> {
  const data = await dnsData(N);
  const ndjsonTable = `read_json_auto('${data.ndjson}')`;
  const queries: Query[] = [
    {
      label: 'count()',
      issue: '#4',
      zed: 'count()',
      sql: 'SELECT count(*) FROM {t}',
      target: 1,
      columnar: true,
    },
    {
      label: 'count() by qtype_name',
      issue: '#4',
      zed: 'count() by qtype_name',
      sql: 'SELECT qtype_name, count(*) FROM {t} GROUP BY qtype_name',
      target: 1,
      columnar: true,
    },
    {
      label: `search query=="${data.needle}"`,
      issue: '#4',
      zed: `query=="${data.needle}"`,
      sql: `SELECT * FROM {t} WHERE query = '${data.needle}'`,
      target: 1,
      columnar: true,
    },
    {
      label: 'sort rtt (all records)',
      issue: '#4',
      zed: 'sort rtt',
      sql: 'SELECT * FROM {t} ORDER BY rtt',
      target: 2,
    },
    // A sort that a head cuts short keeps N values (TopN), here of whole
    // records and of a summarize's groups: not issue targets, but no
    // slower than DuckDB reading NDJSON.
    {
      label: 'sort rtt | head 10',
      issue: '#14',
      zed: 'sort rtt | head 10',
      sql: 'SELECT * FROM {t} ORDER BY rtt LIMIT 10',
      target: 1,
    },
    // The latest records: the pool is kept in ts order, so the scan reads
    // only the streams at its end (lake/endrange.ts).
    {
      label: 'sort -r ts | head 10',
      issue: '#14',
      zed: 'sort -r ts | head 10',
      sql: 'SELECT * FROM {t} ORDER BY ts DESC LIMIT 10',
      target: 1,
    },
    {
      label: 'count() by query | sort -r count | head 10',
      issue: '#14',
      zed: 'count() by query | sort -r count | head 10',
      sql: 'SELECT query, count(*) AS c FROM {t} GROUP BY query ORDER BY c DESC LIMIT 10',
      target: 1,
    },
    // A group-by on an expression of a field: its column computed once
    // per distinct value (query/vector/compute.ts), not a target.
    {
      label: 'count(), sum(rtt) by lower(qtype_name)',
      issue: '#14',
      zed: 'count(), sum(rtt) by lower(qtype_name)',
      sql: 'SELECT lower(qtype_name), count(*), sum(rtt) FROM {t} GROUP BY 1',
      target: 1,
    },
    {
      label: 'cut ts,query',
      issue: '#4',
      zed: 'cut ts,query',
      sql: 'SELECT ts, query FROM {t}',
      target: 2,
      columnar: true,
    },
    {
      label: 'count(), sum(rtt), dcount(id.orig_h) by query',
      issue: '#5',
      zed: 'summarize count(), sum(rtt), dcount(id.orig_h) by query',
      sql: 'SELECT query, count(*), sum(rtt), approx_count_distinct(id.orig_h) FROM {t} GROUP BY query',
      target: 1.5,
      columnar: true,
    },
    {
      label: 'count(), sum(rtt) by query',
      issue: '#5',
      zed: 'summarize count(), sum(rtt) by query',
      sql: 'SELECT query, count(*), sum(rtt) FROM {t} GROUP BY query',
      target: 1.5,
      fallbackFor: 'count(), sum(rtt), dcount(id.orig_h) by query',
    },
  ];

  const lakeDir = mkdtempSync(join(tmpdir(), 'zlake-bench-query-'));
  let server = await startServer(join(lakeDir, 'lake'));
  const duckJson = await Duck.start();
  const duckTable = await Duck.start();
  const parquet = join(ensureDataDir(), `dns-${N}.parquet`);
  const parquetTable = `read_parquet('${parquet}')`;
  /** DuckDB-on-NDJSON medians by query, for the cold comparison. */
  const ndjsonSecs = new Map<string, number>();
  try {
    const port = server.port;
    await createPool(port, 'dns', 'ts');
    const loadSecs = await load(port, 'dns', data.zng, 'application/x-zng');
    report({
      name: 'zlake: load the pool (ZNG over HTTP)',
      records: N,
      bytes: fileSize(data.zng),
      seconds: loadSecs,
      note: 'setup, not a query',
    });
    const created = await duckTable.run(`CREATE TABLE dns AS SELECT * FROM ${ndjsonTable}`);
    report({
      name: 'DuckDB: CREATE TABLE from the NDJSON',
      records: N,
      bytes: fileSize(data.ndjson),
      seconds: created.seconds,
      note: 'setup, not a query',
    });
    await duckTable.run(`COPY dns TO '${parquet}' (FORMAT PARQUET)`);
    const threads = (await duckTable.run("SELECT current_setting('threads')")).first;
    report(jsonParseBaseline(data.ndjson));

    // A new server answers its first few dozen queries slower while V8
    // compiles the query path (parser, compiler, HTTP handling): measured
    // outside the bench, a count() took 4-9 ms up to the 34th query, then
    // 2-3 ms. The warm figures are of a server that has been answering
    // queries, so it answers WARMUP_QUERIES count()s first; their median
    // is reported beside them.
    const first = await warmQueryPath(port);
    report({
      name: `count(): zlake, a new server's first ${WARMUP_QUERIES} queries`,
      records: N,
      seconds: median(first),
      note: `median; not a target (the query path not yet compiled by V8); first 5 ${runsText(first.slice(0, 5))}, last 5 ${runsText(first.slice(-5))}`,
    });

    const failed = new Set<string>();
    let zlakePeak = 0;
    for (const q of queries) {
      if (q.fallbackFor && !failed.has(q.fallbackFor)) continue;
      const zedQuery = `from dns | ${q.zed}`;
      const jsonSql = q.sql.replace('{t}', ndjsonTable);
      const tableSql = q.sql.replace('{t}', 'dns');
      const parquetSql = q.sql.replace('{t}', parquetTable);

      // Warm-up, and the answers compared.
      let warm: Response;
      try {
        warm = await queryZng(port, zedQuery);
      } catch (e) {
        const msg = (e as Error).message.split('\n')[0];
        failed.add(q.label);
        report({ name: `${q.label}: zlake`, note: `FAILED: ${msg}` });
        check({
          name: `${q.label}: zlake / DuckDB-NDJSON`,
          issue: q.issue,
          value: NaN,
          target: q.target,
          kind: 'max',
          unit: '×',
          note: `zlake cannot run it: ${msg}`,
        });
        continue;
      }
      const vals = zngValues(warm.body);
      const dj = await duckJson.run(jsonSql);
      const dt = await duckTable.run(tableSql);
      if (vals.length !== dj.rows || dj.rows !== dt.rows)
        throw new Error(
          `${q.label}: zlake returned ${vals.length} rows, DuckDB ${dj.rows} (NDJSON) and ${dt.rows} (table)`,
        );

      server.resetPeak();
      duckJson.resetPeak();
      duckTable.resetPeak();
      const z: number[] = [];
      const j: DuckResult[] = [];
      const t: DuckResult[] = [];
      const pq: DuckResult[] = [];
      let bytes = 0;
      let cpu = 0;
      await duckTable.run(parquetSql);
      for (let i = 0; i < RUNS; i++) {
        const c0 = cpuSeconds(server.pid);
        const r = await queryZng(port, zedQuery);
        cpu += cpuSeconds(server.pid) - c0;
        bytes = r.body.length;
        z.push(r.seconds);
        j.push(await duckJson.run(jsonSql));
        t.push(await duckTable.run(tableSql));
        pq.push(await duckTable.run(parquetSql));
      }
      const zs = median(z);
      const js = median(j.map((x) => x.seconds));
      const ts = median(t.map((x) => x.seconds));
      const ps = median(pq.map((x) => x.seconds));
      ndjsonSecs.set(q.label, js);
      const zPeak = server.peakRssMB();
      zlakePeak = Math.max(zlakePeak, zPeak);
      report({
        name: `${q.label}: zlake`,
        records: N,
        seconds: zs,
        rssMB: zPeak,
        note: `${vals.length} rows, ${(bytes / 1e6).toFixed(1)} MB ZNG; runs ${runsText(z)}; ${cpuText(cpu / RUNS)}`,
      });
      report({
        name: `${q.label}: DuckDB NDJSON`,
        records: N,
        bytes: fileSize(data.ndjson),
        seconds: js,
        rssMB: duckJson.peakRssMB(),
        note: `runs ${runsText(j.map((x) => x.seconds))}`,
      });
      report({
        name: `${q.label}: DuckDB table`,
        records: N,
        seconds: ts,
        rssMB: duckTable.peakRssMB(),
        note: `zlake is ${(zs / ts).toFixed(0)}× the table's time`,
      });
      report({
        name: `${q.label}: DuckDB Parquet`,
        records: N,
        bytes: fileSize(parquet),
        seconds: ps,
        note: `zlake is ${(zs / ps).toFixed(1)}× Parquet's time; runs ${runsText(pq.map((x) => x.seconds))}`,
      });
      if (q.columnar) {
        check({
          name: `${q.label}: zlake warm / DuckDB table`,
          issue: '#14',
          value: zs / ts,
          target: WARM_VS_TABLE,
          kind: 'max',
          unit: '×',
          note: `${zs.toFixed(3)} s vs ${ts.toFixed(3)} s`,
        });
      }
      check({
        name: `${q.label}: zlake / DuckDB-NDJSON`,
        issue: q.issue,
        value: zs / js,
        target: q.target,
        kind: 'max',
        unit: '×',
        note:
          `${zs.toFixed(3)} s vs ${js.toFixed(3)} s` +
          (q.fallbackFor ? `; stands in while "${q.fallbackFor}" cannot run` : ''),
      });
    }
    check({
      name: 'zlake server peak RSS over all queries',
      issue: '#4',
      value: zlakePeak,
      target: 1024,
      kind: 'max',
      unit: 'MB',
      note: 'includes the RSS the server held after the load',
    });
    report({ name: 'DuckDB threads', note: `${threads} (zlake answers a query on one thread)` });

    // The same records loaded in many commits, and in two that overlap.
    for (const p of OTHER_POOLS) {
      report({
        name: `zlake: load the pool again as ${p.label} (${p.name})`,
        records: N,
        seconds: await loadOther(port, p, N),
        note: 'setup, not a query',
      });
    }
    await otherPools(port, queries, false);

    // Cold: a server on the same lake with the scan cache off, so each
    // query reads the objects from disk (columnar copies where it can).
    await server.stop();
    server = await startServer(join(lakeDir, 'lake'), ['-cache.size', '0']);
    // Cold caches, not a cold compiler: it warms up as the first did.
    await warmQueryPath(server.port);
    for (const q of queries) {
      if (!q.columnar) continue;
      const zedQuery = `from dns | ${q.zed}`;
      await queryZng(server.port, zedQuery);
      const z: number[] = [];
      let cpu = 0;
      for (let i = 0; i < RUNS; i++) {
        const c0 = cpuSeconds(server.pid);
        z.push((await queryZng(server.port, zedQuery)).seconds);
        cpu += cpuSeconds(server.pid) - c0;
      }
      const zs = median(z);
      const js = ndjsonSecs.get(q.label) ?? NaN;
      report({
        name: `${q.label}: zlake cold`,
        records: N,
        seconds: zs,
        note: `scan cache off; runs ${runsText(z)}; ${cpuText(cpu / RUNS)}`,
      });
      check({
        name: `${q.label}: zlake cold / DuckDB-NDJSON`,
        issue: '#14',
        value: zs / js,
        target: COLD_VS_NDJSON,
        kind: 'max',
        unit: '×',
        note: `${zs.toFixed(3)} s vs ${js.toFixed(3)} s`,
      });
    }
    await otherPools(server.port, queries, true);
    // What a whole-value read of the pool decodes (no fields known), and
    // what the column read of `cut ts,query` does (QueryStats bytes_read).
    // The cut's records are all taken: the optimizer drops a cut that only a
    // count() follows, which then reads no field at all.
    const all = await queryWithStoredBytes(server.port, 'from dns | count() by typeof(this)');
    const cut = await queryWithStoredBytes(server.port, 'from dns | cut ts,query');
    check({
      name: 'cut ts,query: bytes read / the whole pool (cold)',
      issue: '#14',
      value: (100 * cut.stats.bytes_read) / all.stats.bytes_read,
      target: CUT_BYTES_PERCENT,
      kind: 'max',
      unit: '%',
      note: `${(cut.stats.bytes_read / 1e6).toFixed(1)} MB of ${(all.stats.bytes_read / 1e6).toFixed(1)} MB`,
    });
    // QueryStats count the values' bytes, as the reference's do; what the
    // store is asked for (compressed segments) is beside it.
    report({
      name: 'cut ts,query: stored bytes fetched (cold)',
      bytes: cut.data,
      note: `${((100 * cut.data) / all.data).toFixed(2)}% of the ${(all.data / 1e6).toFixed(1)} MB a whole-value read fetches (zlake_scan_bytes_read_total)`,
    });
  } finally {
    await Promise.all([server.stop(), duckJson.stop(), duckTable.stop()]);
    rmSync(lakeDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
