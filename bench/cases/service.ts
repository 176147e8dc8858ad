// The lake service over HTTP, with `zlake serve` in its own process:
// load throughput for 1M records as NDJSON and as ZNG, count() over the
// stored pool, the same count restricted to 1% of the pool key's range
// (bytes read should drop to about 1%), and the server's peak RSS.

import { ChildProcess, spawn } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sinkToWritable, sourceFromReadable } from '../../src/formats/io';
import { jsonFormat } from '../../src/formats/json';
import { zngFormat } from '../../src/formats/zng';
import { TypeContext } from '../../src/zed/context';
import { ensureDataDir, fileSize, now, report, since } from '../lib';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const dir = ensureDataDir();
const ndjson = join(dir, `service-${N}.ndjson`);
const zng = join(dir, `service-${N}.zng`);

/** Records with an integer pool key k in load order, and some payload. */
async function makeData(): Promise<void> {
  if (!existsSync(ndjson)) {
    const out = createWriteStream(ndjson);
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    let chunk = '';
    for (let k = 0; k < N; k++) {
      const host = `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`;
      chunk +=
        `{"k":${k},"ts":"2024-01-01T00:00:${String(k % 60).padStart(2, '0')}Z","host":"${host}",` +
        `"user":"${words[k % 8]}-${k % 997}","bytes":${(k * 7919) % 100000},"ok":${k % 3 !== 0},` +
        `"msg":"request ${k} from ${host} took ${(k % 1000) / 10} ms"}\n`;
      if (chunk.length > 1 << 20) {
        if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
        chunk = '';
      }
    }
    out.write(chunk);
    await new Promise<void>((r) => out.end(() => r()));
  }
  if (!existsSync(zng)) {
    const r = jsonFormat.newReader!(sourceFromReadable(createReadStream(ndjson)), {
      ctx: new TypeContext(),
    });
    const w = zngFormat.newWriter!(sinkToWritable(createWriteStream(zng)), {});
    for (let b = await r.read(); b; b = await r.read()) await w.write(b);
    await w.close();
  }
}

function request(
  port: number,
  method: string,
  path: string,
  body: Buffer | string | null,
  headers: Record<string, string> = {},
  file?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    if (file) createReadStream(file).pipe(req);
    else req.end(body ?? undefined);
  });
}

function serverPeakRssMB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function startServer(lake: string, portfile: string): Promise<ChildProcess> {
  const main = join(__dirname, '..', '..', 'src', 'cli', 'main.js');
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require(${JSON.stringify(main)}).main(process.argv.slice(1))`,
      'serve',
      '-l',
      '127.0.0.1:0',
      '-lake',
      lake,
      '-portfile',
      portfile,
      '-log.level',
      'warn',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  for (let i = 0; i < 400 && !existsSync(portfile); i++)
    await new Promise((r) => setTimeout(r, 50));
  return child;
}

/** Runs a query with ctrl=T (ZJSON) and returns its values and final QueryStats. */
async function query(
  port: number,
  q: string,
): Promise<{ values: unknown[]; stats: Record<string, number>; seconds: number }> {
  const t0 = now();
  const r = await request(port, 'POST', '/query?ctrl=T', JSON.stringify({ query: q }), {
    'Content-Type': 'application/json',
    Accept: 'application/x-zjson',
  });
  const seconds = since(t0);
  if (r.status !== 200) throw new Error(`${q}: ${r.status} ${r.text}`);
  const values: unknown[] = [];
  let stats: Record<string, number> = {};
  for (const line of r.text.split('\n')) {
    if (!line) continue;
    const m = JSON.parse(line) as { type: unknown; value: unknown };
    if (m.type === 'QueryStats') stats = m.value as Record<string, number>;
    else if (typeof m.type !== 'string') values.push(m.value);
  }
  return { values, stats, seconds };
}

async function main(): Promise<void> {
  await makeData();
  const tmp = mkdtempSync(join(tmpdir(), 'zlake-bench-service-'));
  const portfile = join(tmp, 'port');
  const child = await startServer(join(tmp, 'lake'), portfile);
  try {
    const port = Number(readFileSync(portfile, 'utf8'));
    for (const [name, file, mime] of [
      ['ndjson', ndjson, 'application/json'],
      ['zng', zng, 'application/x-zng'],
    ] as const) {
      const pool = `bench_${name}`;
      let r = await request(
        port,
        'POST',
        '/pool',
        JSON.stringify({ name: pool, layout: { keys: [['k']] } }),
        {
          'Content-Type': 'application/json',
        },
      );
      if (r.status !== 200) throw new Error(r.text);
      const t0 = now();
      r = await request(
        port,
        'POST',
        `/pool/${pool}/branch/main`,
        null,
        { 'Content-Type': mime },
        file,
      );
      const seconds = since(t0);
      if (r.status !== 200) throw new Error(`load ${name}: ${r.status} ${r.text}`);
      // Check what was committed: the objects' record counts.
      const objs = await query(port, `from ${pool}@main:objects | yield count`);
      const stored = objs.values.reduce((n: number, v) => n + Number(v), 0);
      if (stored !== N) throw new Error(`load ${name}: ${stored} records stored, want ${N}`);
      report({
        name: `HTTP load ${name.toUpperCase()}`,
        records: N,
        bytes: fileSize(file),
        seconds,
      });
    }
    const all = await query(port, 'from bench_zng | count()');
    report({
      name: 'count() over the pool',
      records: N,
      bytes: all.stats.bytes_read,
      seconds: all.seconds,
      note: `result ${JSON.stringify(all.values[0])}; bytes = bytes_read`,
    });
    const lo = Math.floor(N * 0.5);
    const hi = lo + Math.floor(N / 100);
    const part = await query(port, `from bench_zng | k >= ${lo} and k < ${hi} | count()`);
    report({
      name: 'count() of a 1% pool-key range',
      records: hi - lo,
      bytes: part.stats.bytes_read,
      seconds: part.seconds,
      note: `result ${JSON.stringify(part.values[0])}; bytes_read ${((100 * part.stats.bytes_read) / all.stats.bytes_read).toFixed(2)}% of the full count's`,
    });
    report({ name: 'server peak RSS', rssMB: serverPeakRssMB(child.pid!) });
  } finally {
    child.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
