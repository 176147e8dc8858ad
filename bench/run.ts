// npm run bench [-- case ...]: runs each benchmark case in its own process
// (so peak RSS is per case) and prints a table of the results with the
// machine they ran on, then a table of the figures judged against their
// targets (CHECK lines). Cases live in bench/cases/<name>.ts. The same
// report is written to bench/out/latest.md.

import { spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Check, checkMet, ROOT, Result } from './lib';

const casesDir = join(__dirname, 'cases');
// The issues' order (2: formats, 3: service, 4 and 5: query, 6: columnar, 13: needle),
// then any other case by name.
const ORDER = ['formats', 'service', 'query', 'columnar', 'cluster', 'needle'];
const rank = (c: string) => (ORDER.includes(c) ? ORDER.indexOf(c) : ORDER.length);
const all = readdirSync(casesDir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => f.slice(0, -3))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const cases = wanted.length > 0 ? wanted : all;

function fmt(n: number | undefined, digits = 0): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  return n.toLocaleString('en-US', {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}

/** The CPU's full model name (os.cpus() may shorten it). */
function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) return m[1].trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? 'unknown CPU';
}

function duckdbVersion(): string {
  try {
    const p = require.resolve('@duckdb/node-api/package.json', { paths: [ROOT] });
    return (JSON.parse(readFileSync(p, 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

/** The commit measured, and whether src/ had uncommitted changes. */
function commit(): string {
  const git = (...args: string[]) =>
    spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  const head = git('rev-parse', '--short', 'HEAD');
  if (!head) return 'unknown (not a git checkout)';
  const dirty = git('status', '--porcelain', '--', 'src')
    .split('\n')
    .filter((l) => l).length;
  return dirty > 0 ? `${head} with ${dirty} uncommitted file(s) in src/` : head;
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');
const lines: string[] = [];
function out(line: string): void {
  lines.push(line);
  console.log(line);
}

const started = Date.now();
out('# zlake benchmarks\n');
out(`- date: ${new Date().toISOString()}`);
out(
  `- machine: ${cpus().length} × ${cpuModel()}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, DuckDB (@duckdb/node-api) ${duckdbVersion()}`,
);
out(`- commit: ${commit()}`);
out(`- load average at start (1, 5, 15 min): ${load()}`);
if (process.env.BENCH_SERVE_ARGS) out(`- zlake serve flags added: ${process.env.BENCH_SERVE_ARGS}`);
out(`- cases: ${cases.join(', ')}\n`);
out('| case | measure | records | MB | seconds | records/s | MB/s | peak RSS MB | note |');
out('|---|---|---:|---:|---:|---:|---:|---:|---|');
const checks: (Check & { case: string })[] = [];
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
    out(`| ${c} | FAILED (exit ${r.status}) | | | | | | | |`);
    failed = true;
  }
  for (const line of (r.stdout ?? '').split('\n')) {
    if (line.startsWith('CHECK ')) {
      checks.push({ ...(JSON.parse(line.slice(6)) as Check), case: c });
      continue;
    }
    if (!line.startsWith('RESULT ')) continue;
    const x = JSON.parse(line.slice(7)) as Result;
    const mb = x.bytes !== undefined ? x.bytes / 1e6 : undefined;
    const rps = x.records !== undefined && x.seconds ? x.records / x.seconds : undefined;
    const mbps = mb !== undefined && x.seconds ? mb / x.seconds : undefined;
    out(
      `| ${c} | ${x.name} | ${fmt(x.records)} | ${fmt(mb, 1)} | ${fmt(x.seconds, 3)} | ${fmt(rps)} | ${fmt(mbps, 1)} | ${fmt(x.rssMB)} | ${x.note ?? ''} |`,
    );
  }
}

if (checks.length > 0) {
  out('\n## Targets\n');
  out('| issue | figure | measured | target | met | note |');
  out('|---|---|---:|---:|---|---|');
  for (const k of checks) {
    // JSON turns NaN (not measured) into null.
    const measured = k.value === null || !Number.isFinite(k.value);
    const digits = k.unit === '×' || k.unit === '%' ? 2 : 0;
    const value = measured ? 'not measured' : `${fmt(k.value, digits)} ${k.unit}`;
    const bound = `${k.kind === 'max' ? '≤' : '≥'} ${fmt(k.target, k.unit === '×' ? 1 : 0)} ${k.unit}`;
    const met = !measured && checkMet(k) ? 'yes' : '**no**';
    out(`| ${k.issue ?? ''} | ${k.name} | ${value} | ${bound} | ${met} | ${k.note ?? ''} |`);
  }
}
out(
  `\n- load average at end (1, 5, 15 min): ${load()}; whole run ${((Date.now() - started) / 60000).toFixed(1)} min`,
);
try {
  mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'out', 'latest.md'), lines.join('\n') + '\n');
} catch {
  // a read-only tree: the report went to stdout anyway
}
process.exitCode = failed ? 1 : 0;
