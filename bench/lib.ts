// Shared benchmark plumbing: test data made by repeating the sample logs,
// timing, and the JSON-lines protocol between a case and the runner.

import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export const ROOT = join(__dirname, '..', '..');
export const SAMPLES = join(ROOT, '..', 'shared', 'sample-data');
export const DATA = join(ROOT, 'bench', 'data');

export function ensureDataDir(): string {
  if (!existsSync(DATA)) mkdirSync(DATA, { recursive: true });
  return DATA;
}

/** Names of the sample logs (analyzer, capture_loss, ...). */
export function sampleLogs(): string[] {
  return readdirSync(join(SAMPLES, 'zng-uncompressed'))
    .filter((f) => f.endsWith('.zng.gz'))
    .map((f) => f.slice(0, -'.zng.gz'.length))
    .sort();
}

/** A sample file's bytes, gunzipped. */
export function sample(dir: string, file: string): Buffer {
  return gunzipSync(readFileSync(join(SAMPLES, dir, file + '.gz')));
}

export function fileSize(path: string): number {
  return statSync(path).size;
}

/** Seconds since start (from process.hrtime.bigint()). */
export function since(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

export function now(): bigint {
  return process.hrtime.bigint();
}

/**
 * Peak resident set size of this process so far, in MB. Linux's VmHWM is
 * used because getrusage's maxRSS survives exec and so reports the parent's
 * peak in a freshly spawned child.
 */
export function peakRssMB(): number {
  const mb = procPeakRssMB('self');
  return Number.isNaN(mb) ? process.resourceUsage().maxRSS / 1024 : mb;
}

/** CPU seconds (user + system, all threads) a process has used. */
export function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th.
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / 100;
}

/** Peak RSS (VmHWM) of another process in MB, or NaN where /proc is missing. */
export function procPeakRssMB(pid: number | 'self'): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch {
    // not Linux, or the process is gone
  }
  return NaN;
}

/**
 * Resets a process's peak RSS to its current RSS (Linux: writing 5 to
 * /proc/<pid>/clear_refs), so the next procPeakRssMB covers only what ran
 * since. Returns false where that is not allowed.
 */
export function resetPeakRss(pid: number | 'self'): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface Result {
  /** What was measured, e.g. "ZNG read". */
  name: string;
  records?: number;
  bytes?: number;
  seconds?: number;
  /** Peak RSS of the measuring process in MB. */
  rssMB?: number;
  note?: string;
}

/** Emits a result line for the runner. */
export function report(r: Result): void {
  process.stdout.write('RESULT ' + JSON.stringify(r) + '\n');
}

/**
 * A figure judged against its target, e.g. a ratio zlake/DuckDB that must
 * be at most 1. The runner lists every check in a table after the figures.
 */
export interface Check {
  /** What is judged, e.g. "count(): zlake / DuckDB-NDJSON". */
  name: string;
  /** The issue whose target this is, e.g. "#4". */
  issue?: string;
  value: number;
  /** The bound, e.g. 1 for "≤ 1×" or 200000 for "≥ 200k records/s". */
  target: number;
  /** "max" when value must be ≤ target, "min" when it must be ≥ target. */
  kind: 'max' | 'min';
  /** Unit for display: "×", "records/s", "MB", "%". */
  unit: string;
  note?: string;
}

/** Emits a check line for the runner. NaN (not measured) counts as missed. */
export function check(c: Check): void {
  process.stdout.write('CHECK ' + JSON.stringify(c) + '\n');
}

/** Whether a check's value meets its target. */
export function checkMet(c: Check): boolean {
  return c.kind === 'max' ? c.value <= c.target : c.value >= c.target;
}

/** Timings in seconds as text (to the millisecond unless told), for a report's note. */
export function runsText(xs: number[], digits = 3): string {
  return xs.map((x) => x.toFixed(digits)).join(' ');
}

/** Median of several timings. */
export function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs a case's main and exits: 0 when it resolves, 1 (with the error) when it fails. */
export function runCase(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
