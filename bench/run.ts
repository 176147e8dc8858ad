// npm run bench [-- case ...]: runs each benchmark case in its own process
// (so peak RSS is per case) and prints a table of the results with the
// machine they ran on. Cases live in bench/cases/<name>.ts.

import { spawnSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Result } from './lib';

const casesDir = join(__dirname, 'cases');
const all = readdirSync(casesDir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => f.slice(0, -3))
  .sort();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const cases = wanted.length > 0 ? wanted : all;

function fmt(n: number | undefined, digits = 0): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  return n.toLocaleString('en-US', {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
console.log(`# zlake benchmarks\n\nmachine: ${machine}\ndate: ${new Date().toISOString()}\n`);
console.log('| case | measure | records | MB | seconds | records/s | MB/s | peak RSS MB | note |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---|');
let failed = false;
for (const c of cases) {
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=4096', join(casesDir, c + '.js')],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (r.status !== 0) {
    console.log(`| ${c} | FAILED (exit ${r.status}) | | | | | | | |`);
    failed = true;
  }
  for (const line of (r.stdout ?? '').split('\n')) {
    if (!line.startsWith('RESULT ')) continue;
    const x = JSON.parse(line.slice(7)) as Result;
    const mb = x.bytes !== undefined ? x.bytes / 1e6 : undefined;
    const rps = x.records !== undefined && x.seconds ? x.records / x.seconds : undefined;
    const mbps = mb !== undefined && x.seconds ? mb / x.seconds : undefined;
    console.log(
      `| ${c} | ${x.name} | ${fmt(x.records)} | ${fmt(mb, 1)} | ${fmt(x.seconds, 3)} | ${fmt(rps)} | ${fmt(mbps, 1)} | ${fmt(x.rssMB)} | ${x.note ?? ''} |`,
    );
  }
}
process.exitCode = failed ? 1 : 0;
