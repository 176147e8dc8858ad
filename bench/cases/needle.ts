// Issue 13: a needle search (one value of a high-cardinality field) over a
// pool of 1M records in 100+ data objects, without and with a field index
// on it, beside DuckDB running the same search on the same records (as
// NDJSON and as a native table).
//
// Data: the Zeek-DNS-like set of bench/dnsdata.ts, loaded as ZNG into a pool
// keyed by ts whose threshold cuts it into about 120 objects. The needle is
// the `uid` of the record in the middle of the data (uids are unique). The
// index is a field rule on uid made by `index update` (timed). Each search
// runs once to warm up and then BENCH_RUNS times (default 7), zlake with and
// without the index and DuckDB interleaved; figures are medians of the
// client's wall time to the last byte of the ZNG response. Bytes read are
// the server's metrics: data-object bytes its scans read (stored bytes,
// from storage or the scan cache) plus index-object bytes, against the
// pool's stored bytes; QueryStats' decoded bytes are reported beside them.
// The search without the index is the same query at the commit of the
// load (before the index commit), so both read the same data objects.
// The runs are repeated on a server with the scan cache off (-cache.size
// 0), where every byte comes from the disk.

import { dnsData } from '../dnsdata';
import { Duck } from '../duckdb';
import {
  load,
  queryWithStats,
  queryWithStoredBytes,
  queryZng,
  request,
  startServer,
  zngValues,
} from '../lake';
import { check, fileSize, median, now, report, runsText, since } from '../lib';
import { sourceFromReadable } from '../../src/formats/io';
import { zngFormat } from '../../src/formats/zng';
import { Ksuid } from '../../src/lake/ksuid';
import { TypeContext } from '../../src/zed/context';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const OBJECTS = 120;

async function post(port: number, path: string, body: unknown): Promise<number> {
  const r = await request(port, 'POST', path, JSON.stringify(body), {
    'Content-Type': 'application/json',
    Accept: 'application/json',
  });
  if (r.status !== 200 && r.status !== 204)
    throw new Error(`${path}: HTTP ${r.status} ${r.body.toString('utf8')}`);
  return r.seconds;
}

/** The sum of the value bodies' bytes in a ZNG file (what a pool's threshold counts). */
async function valueBytes(file: string): Promise<number> {
  const r = zngFormat.newReader!(sourceFromReadable(createReadStream(file)), {
    ctx: new TypeContext(),
  });
  let n = 0;
  for (let b = await r.read(); b; b = await r.read()) for (const v of b) n += Math.max(v.len, 0);
  return n;
}

/** A query's one numeric value. */
async function one(port: number, q: string): Promise<number> {
  return Number(String((await queryWithStats(port, q)).values[0]));
}

async function main(): Promise<void> {
  const data = await dnsData(N);
  const lakeDir = mkdtempSync(join(tmpdir(), 'zlake-bench-needle-'));
  const duckJson = await Duck.start();
  const duckTable = await Duck.start();
  const ndjsonTable = `read_json_auto('${data.ndjson}')`;
  let server = await startServer(join(lakeDir, 'lake'));
  const port = () => server.port;
  try {
    await duckTable.run(`CREATE TABLE dns AS SELECT * FROM ${ndjsonTable}`);
    const needle = (await duckTable.run(`SELECT uid FROM dns LIMIT 1 OFFSET ${N >> 1}`)).first!;
    const jsonSql = `SELECT * FROM ${ndjsonTable} WHERE uid = '${needle}'`;
    const tableSql = `SELECT * FROM dns WHERE uid = '${needle}'`;

    // About OBJECTS objects: the threshold counts the values' bytes.
    const thresh = Math.ceil((await valueBytes(data.zng)) / OBJECTS);
    await post(port(), '/pool', { name: 'dns', layout: { order: 'asc', keys: [['ts']] }, thresh });
    const loadSecs = await load(port(), 'dns', data.zng, 'application/x-zng');
    const tip = await request(port(), 'GET', '/pool/dns/branch/main', null, {
      Accept: 'application/json',
    });
    const loaded = Ksuid.mustParse((JSON.parse(tip.body.toString()) as { commit: string }).commit);
    const nObjects = await one(port(), 'from dns@main:objects | count()');
    const poolBytes = await one(port(), 'from dns@main:objects | sum(size)');
    report({
      name: 'zlake: load the pool (ZNG over HTTP)',
      records: N,
      bytes: fileSize(data.zng),
      seconds: loadSecs,
      note: `setup: ${nObjects} data objects, ${(poolBytes / 1e6).toFixed(1)} MB stored`,
    });

    await post(port(), '/index', { rules: [{ name: 'uid', fields: [['uid']] }] });
    const t0 = now();
    await post(port(), '/pool/dns/branch/main/index/update', {});
    const indexSecs = since(t0);
    const nIndexes = await one(port(), 'from dns@main:indexes | count()');
    report({
      name: 'zlake: index update (field rule on uid)',
      records: N,
      seconds: indexSecs,
      note: `setup: ${nIndexes} index objects`,
    });

    // The same search at the load's commit (no indexes yet) and at the tip.
    const plainQ = `from dns@${loaded} | uid=="${needle}"`;
    const indexedQ = `from dns | uid=="${needle}"`;
    for (const q of [plainQ, indexedQ]) {
      const got = zngValues((await queryZng(port(), q)).body).length;
      if (got !== 1) throw new Error(`${q}: ${got} rows`);
    }
    if ((await duckJson.run(jsonSql)).rows !== 1 || (await duckTable.run(tableSql)).rows !== 1)
      throw new Error('DuckDB: the needle is not one row');

    const measure = async () => {
      const p: number[] = [];
      const z: number[] = [];
      const j: number[] = [];
      const t: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        p.push((await queryZng(port(), plainQ)).seconds);
        z.push((await queryZng(port(), indexedQ)).seconds);
        j.push((await duckJson.run(jsonSql)).seconds);
        t.push((await duckTable.run(tableSql)).seconds);
      }
      return {
        p,
        z,
        plain: median(p),
        indexed: median(z),
        json: median(j),
        table: median(t),
        plainRead: await queryWithStoredBytes(port(), plainQ),
        indexedRead: await queryWithStoredBytes(port(), indexedQ),
      };
    };
    const runs = (xs: number[]) => runsText(xs, 4);
    const pct = (x: number) => `${((100 * x) / poolBytes).toFixed(2)}%`;
    const results = async (mode: string) => {
      const m = await measure();
      const read = m.indexedRead.data + m.indexedRead.index;
      report({
        name: `needle uid, ${mode}: zlake, no index`,
        records: N,
        seconds: m.plain,
        note: `reads ${pct(m.plainRead.data)} of the pool's bytes; QueryStats ${m.plainRead.stats.records_read} records, ${m.plainRead.stats.bytes_read} bytes; runs ${runs(m.p)}`,
      });
      report({
        name: `needle uid, ${mode}: zlake, indexed`,
        records: N,
        seconds: m.indexed,
        note: `reads ${pct(read)} of the pool's bytes (${m.indexedRead.data} data + ${m.indexedRead.index} index); QueryStats ${m.indexedRead.stats.records_read} records, ${m.indexedRead.stats.bytes_read} bytes; runs ${runs(m.z)}`,
      });
      report({ name: `needle uid, ${mode}: DuckDB NDJSON`, records: N, seconds: m.json });
      report({ name: `needle uid, ${mode}: DuckDB table`, records: N, seconds: m.table });
      check({
        name: `needle, ${mode}: bytes read with the index / pool bytes`,
        issue: '#13',
        value: (100 * read) / poolBytes,
        target: 5,
        kind: 'max',
        unit: '%',
        note: `${read} of ${poolBytes} stored bytes (data and index objects)`,
      });
      check({
        name: `needle, ${mode}: indexed / unindexed time`,
        issue: '#13',
        value: m.indexed / m.plain,
        target: 0.2,
        kind: 'max',
        unit: '×',
        note: `${m.indexed.toFixed(4)} s vs ${m.plain.toFixed(4)} s; DuckDB table ${m.table.toFixed(4)} s, NDJSON ${m.json.toFixed(3)} s`,
      });
    };
    await results('scan cache on');
    // Again with the scan cache off: every byte from the disk.
    await server.stop();
    server = await startServer(join(lakeDir, 'lake'), ['-cache.size', '0']);
    await queryZng(port(), plainQ);
    await results('scan cache off');
  } finally {
    await Promise.all([server.stop(), duckJson.stop(), duckTable.stop()]);
    rmSync(lakeDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
