// Issue 6: writing and reading 1M records as CSV, Parquet and Arrow IPC
// (and VNG, the reference's columnar format), beside DuckDB reading the
// same files zlake wrote.
//
// Data: the Zeek-DNS-like set of bench/dnsdata.ts (one record type, with a
// nested record and two arrays). A write streams the ZNG file through
// zlake's ZNG reader into the format's writer, as `zlake zq -f <fmt>` does,
// so its time includes decoding the ZNG (the "ZNG read" row gives that part
// alone). A read streams the file through the format's reader to Zed values.
// Each write and read runs BENCH_COLUMNAR_RUNS times (default 3), each in a
// fresh process so its peak RSS is its own; figures are medians (peak RSS the
// largest). DuckDB cannot read Arrow IPC here: its arrow extension is not
// bundled and cannot be installed offline. So DuckDB reads zlake's CSV and
// Parquet (materializing every column), and also writes the same records as
// CSV and Parquet, which zlake then reads too.

import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { arrowsFormat } from '../../src/formats/arrow';
import { csvFormat } from '../../src/formats/csv';
import { Format, sinkToWritable, sourceFromReadable, ValueReader } from '../../src/formats/io';
import { parquetFormat } from '../../src/formats/parquet';
import { vngFormat } from '../../src/formats/vng';
import { zngFormat } from '../../src/formats/zng';
import { TypeContext } from '../../src/zed/context';
import { dnsData } from '../dnsdata';
import { Duck } from '../duckdb';
import { check, ensureDataDir, fileSize, median, now, peakRssMB, report, since } from '../lib';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_COLUMNAR_RUNS ?? 3);
const DUCK_RUNS = Number(process.env.BENCH_RUNS ?? 5);

const formats: Record<string, { format: Format; ext: string; label: string }> = {
  csv: { format: csvFormat, ext: 'csv', label: 'CSV' },
  parquet: { format: parquetFormat, ext: 'parquet', label: 'Parquet' },
  arrows: { format: arrowsFormat, ext: 'arrows', label: 'Arrow IPC stream' },
  vng: { format: vngFormat, ext: 'vng', label: 'VNG' },
  zng: { format: zngFormat, ext: 'zng', label: 'ZNG (LZ4)' },
};

function fileFor(fmt: string, by = 'zlake'): string {
  return join(ensureDataDir(), `dns-${N}.${by}.${formats[fmt].ext}`);
}

function fileReader(format: Format, path: string): ValueReader {
  return format.newReader!(sourceFromReadable(createReadStream(path, { highWaterMark: 1 << 20 })), {
    ctx: new TypeContext(),
  });
}

interface Sub {
  records: number;
  seconds: number;
  rssMB: number;
}

/** In a child process: one write or read, printed as a SUB line. */
async function sub(mode: string, fmt: string, path: string): Promise<void> {
  const { format } = formats[fmt];
  const data = await dnsData(N);
  let records = 0;
  const t0 = now();
  if (mode === 'write') {
    const r = fileReader(zngFormat, data.zng);
    const w = format.newWriter!(sinkToWritable(createWriteStream(path)), {});
    for (let b = await r.read(); b; b = await r.read()) {
      records += b.length;
      await w.write(b);
    }
    await w.close();
  } else {
    const r = fileReader(format, path);
    for (let b = await r.read(); b; b = await r.read()) records += b.length;
  }
  const out: Sub = { records, seconds: since(t0), rssMB: peakRssMB() };
  process.stdout.write('SUB ' + JSON.stringify(out) + '\n');
}

/** Runs `sub` RUNS times in fresh processes: median time, largest peak RSS. */
function runSub(mode: string, fmt: string, path: string): Sub & { times: number[] } {
  const subs: Sub[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(
      process.execPath,
      ['--max-old-space-size=4096', __filename, mode, fmt, path],
      { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = (r.stdout ?? '').split('\n').find((l) => l.startsWith('SUB '));
    if (r.status !== 0 || !line) throw new Error(`${mode} ${fmt}: exit ${r.status}`);
    subs.push(JSON.parse(line.slice(4)) as Sub);
  }
  const times = subs.map((s) => s.seconds);
  return {
    records: subs[0].records,
    seconds: median(times),
    rssMB: Math.max(...subs.map((s) => s.rssMB)),
    times,
  };
}

const runsNote = (xs: number[]) => 'runs ' + xs.map((x) => x.toFixed(2)).join(' ');

async function main(): Promise<void> {
  const [mode, fmt, path] = process.argv.slice(2);
  if (mode) return sub(mode, fmt, path);

  const data = await dnsData(N);
  const zngRead = runSub('read', 'zng', data.zng);
  report({
    name: 'ZNG read (the write rows include this)',
    records: zngRead.records,
    bytes: fileSize(data.zng),
    seconds: zngRead.seconds,
    rssMB: zngRead.rssMB,
    note: runsNote(zngRead.times),
  });
  const readRate: Record<string, number> = {};
  for (const fmt of ['csv', 'parquet', 'arrows', 'vng']) {
    const { label } = formats[fmt];
    const path = fileFor(fmt);
    const w = runSub('write', fmt, path);
    if (w.records !== N) throw new Error(`write ${fmt}: ${w.records} records, want ${N}`);
    report({
      name: `zlake write ${label}`,
      records: w.records,
      bytes: fileSize(path),
      seconds: w.seconds,
      rssMB: w.rssMB,
      note: `from the ZNG file; ${runsNote(w.times)}`,
    });
    const r = runSub('read', fmt, path);
    if (r.records !== N) throw new Error(`read ${fmt}: ${r.records} records, want ${N}`);
    readRate[fmt] = r.records / r.seconds;
    report({
      name: `zlake read ${label}`,
      records: r.records,
      bytes: fileSize(path),
      seconds: r.seconds,
      rssMB: r.rssMB,
      note: runsNote(r.times),
    });
  }
  for (const fmt of ['parquet', 'arrows'])
    check({
      name: `${formats[fmt].label} read: records/s`,
      issue: '#6',
      value: readRate[fmt],
      target: 200_000,
      kind: 'min',
      unit: 'records/s',
    });

  const duck = await Duck.start();
  try {
    const reads: [string, string][] = [
      ['csv', `read_csv('${fileFor('csv')}')`],
      ['parquet', `read_parquet('${fileFor('parquet')}')`],
    ];
    for (const [fmt, from] of reads) {
      const sql = `SELECT * FROM ${from}`;
      const first = await duck.run(sql);
      if (first.rows !== N) throw new Error(`DuckDB ${sql}: ${first.rows} rows, want ${N}`);
      duck.resetPeak();
      const times: number[] = [];
      for (let i = 0; i < DUCK_RUNS; i++) times.push((await duck.run(sql)).seconds);
      const secs = median(times);
      report({
        name: `DuckDB read zlake's ${formats[fmt].label}`,
        records: N,
        bytes: fileSize(fileFor(fmt)),
        seconds: secs,
        rssMB: duck.peakRssMB(),
        note: `SELECT * materialized; zlake's read takes ${(N / readRate[fmt] / secs).toFixed(1)}× as long; ${runsNote(times)}`,
      });
    }
    // DuckDB writes the same records; zlake reads what it wrote.
    await duck.run(`CREATE TABLE dns AS SELECT * FROM read_json_auto('${data.ndjson}')`);
    for (const [fmt, opts] of [
      ['csv', '(HEADER)'],
      ['parquet', '(FORMAT parquet)'],
    ] as const) {
      const path = fileFor(fmt, 'duckdb');
      duck.resetPeak();
      const times: number[] = [];
      for (let i = 0; i < DUCK_RUNS; i++)
        times.push((await duck.run(`COPY dns TO '${path}' ${opts}`)).seconds);
      report({
        name: `DuckDB write ${formats[fmt].label} (from its table)`,
        records: N,
        bytes: fileSize(path),
        seconds: median(times),
        rssMB: duck.peakRssMB(),
        note: runsNote(times),
      });
    }
  } finally {
    await duck.stop();
  }
  for (const fmt of ['csv', 'parquet']) {
    const path = fileFor(fmt, 'duckdb');
    if (!existsSync(path)) continue;
    const r = runSub('read', fmt, path);
    report({
      name: `zlake read DuckDB's ${formats[fmt].label}`,
      records: r.records,
      bytes: fileSize(path),
      seconds: r.seconds,
      rssMB: r.rssMB,
      note: runsNote(r.times),
    });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
