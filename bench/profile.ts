// Where the time goes: CPU profiles of what the benchmark cases measure.
//
//   npx tsc -p tsconfig.bench.json       (what npm run bench builds), then
//   node .bench-build/bench/profile.js query '<zed after "from dns | ">' [runs]
//   node .bench-build/bench/profile.js read|write <csv|parquet|arrows|vng|zng>
//   node .bench-build/bench/profile.js summary <file.cpuprofile>
//
// `query` loads the DNS data set as ZNG into a pool keyed by ts, restarts
// `zlake serve` on that lake under `node --cpu-prof` (so the load is not in
// the profile), runs the query `runs` times (default 5) and stops it; `read`/`write` run the columnar case's single
// read or write under --cpu-prof. Each then prints the functions with the
// most self time, the source files with the most self time, and the
// functions with the most total (inclusive) time. Profiles are kept in
// bench/out/profiles/.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { dnsData } from './dnsdata';
import { createPool, load, queryZng, startServer } from './lake';
import { median, ROOT } from './lib';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const PROFILES = join(ROOT, 'bench', 'out', 'profiles');

function where(f: CallFrame): string {
  let url = f.url.replace(/^file:\/\//, '');
  if (url.startsWith(ROOT)) url = relative(ROOT, url).replace(/^\.bench-build\//, '');
  return url ? `${url}:${f.lineNumber + 1}` : '';
}

function label(f: CallFrame): string {
  const name = f.functionName || '(anonymous)';
  const at = where(f);
  return at ? `${name} ${at}` : name;
}

/** Prints self time by function and by file, and total time by function. */
export function summarize(path: string, top = 25): void {
  const p = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const self = new Map<string, number>();
  const file = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  let idle = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(p.samples[i])!;
    all += dt;
    const name = leaf.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') {
      idle += dt;
      continue;
    }
    const l = label(leaf.callFrame);
    self.set(l, (self.get(l) ?? 0) + dt);
    const f = where(leaf.callFrame).replace(/:\d+$/, '') || name;
    file.set(f, (file.get(f) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const fl = label(byId.get(id)!.callFrame);
      if (seen.has(fl) || fl === '(root)') continue;
      seen.add(fl);
      total.set(fl, (total.get(fl) ?? 0) + dt);
    }
  }
  const busy = all - idle;
  const print = (title: string, m: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [k, ms] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n))
      console.log(
        `${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${k}`,
      );
  };
  console.log(
    `${relative(ROOT, path)}: ${(all / 1000).toFixed(2)} s sampled, ${(busy / 1000).toFixed(2)} s busy (idle and (program) excluded; percentages of busy)`,
  );
  print('self time by function', self, top);
  print('self time by file', file, 15);
  print('total time by function', total, top);
}

function newest(dir: string, since: number): string | undefined {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= since)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

async function profileQuery(zed: string, runs: number): Promise<void> {
  const data = await dnsData(Number(process.env.BENCH_RECORDS ?? 1_000_000));
  const lake = mkdtempSync(join(tmpdir(), 'zlake-profile-'));
  try {
    const loader = await startServer(lake);
    try {
      await createPool(loader.port, 'dns', 'ts');
      await load(loader.port, 'dns', data.zng, 'application/x-zng');
    } finally {
      await loader.stop();
    }
    const since = Date.now();
    process.env.BENCH_PROFILE = PROFILES;
    const server = await startServer(lake);
    try {
      const times: number[] = [];
      for (let i = 0; i < runs; i++)
        times.push((await queryZng(server.port, `from dns | ${zed}`)).seconds);
      console.log(
        `from dns | ${zed}: median ${median(times).toFixed(3)} s of ${runs} (under the profiler), peak RSS ${server.peakRssMB().toFixed(0)} MB`,
      );
    } finally {
      await server.stop();
      delete process.env.BENCH_PROFILE;
    }
    const prof = newest(PROFILES, since);
    if (!prof) throw new Error('the server wrote no profile');
    summarize(prof);
  } finally {
    rmSync(lake, { recursive: true, force: true });
  }
}

function profileColumnar(mode: string, fmt: string): void {
  const since = Date.now();
  const ext = fmt === 'arrows' ? 'arrows' : fmt;
  const n = Number(process.env.BENCH_RECORDS ?? 1_000_000);
  const path = join(
    ROOT,
    'bench',
    'data',
    fmt === 'zng' ? `dns-${n}.zng` : `dns-${n}.zlake.${ext}`,
  );
  const r = spawnSync(
    process.execPath,
    [
      '--cpu-prof',
      '--cpu-prof-dir',
      PROFILES,
      join(__dirname, 'cases', 'columnar.js'),
      mode,
      fmt,
      mode === 'write' ? path + '.profiled' : path,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (r.status !== 0) throw new Error(`${mode} ${fmt}: exit ${r.status}`);
  const prof = newest(PROFILES, since);
  if (!prof) throw new Error('no profile written');
  summarize(prof);
}

async function main(): Promise<void> {
  mkdirSync(PROFILES, { recursive: true });
  const [what, a, b] = process.argv.slice(2);
  if (what === 'query') await profileQuery(a, Number(b ?? 5));
  else if (what === 'read' || what === 'write') profileColumnar(what, a);
  else if (what === 'summary') summarize(a);
  else {
    console.error(
      'usage: profile.js query <zed> [runs] | read <fmt> | write <fmt> | summary <file.cpuprofile>',
    );
    process.exitCode = 2;
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
