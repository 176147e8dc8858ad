// Helpers of the deployment tests: find the outside programs (helm,
// docker-compose), run them, and parse the YAML they print.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';

export const repoRoot = path.resolve(__dirname, '..', '..');
export const chartDir = path.join(repoRoot, 'helm', 'zlake');

export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/** A program in .tools/bin of the repository, or on PATH; throws with how to get it. */
export function tool(name: string): string {
  const local = path.join(repoRoot, '.tools', 'bin', name);
  const found = existsSync(local) ? local : onPath(name);
  if (!found) {
    throw new Error(
      `${name} not found in .tools/bin or on PATH: run \`bash scripts/test-deps.sh\` to install it`,
    );
  }
  return found;
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv): Run {
  const r = spawnSync(cmd, args, {
    cwd: repoRoot,
    encoding: 'utf8',
    env: env ?? process.env,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The documents of a YAML stream, without the empty ones. */
export function parseYamlDocs(text: string): unknown[] {
  return yaml.loadAll(text).filter((d) => d !== null && d !== undefined);
}

export function parseYaml(text: string): unknown {
  const docs = parseYamlDocs(text);
  if (docs.length !== 1) throw new Error(`expected one YAML document, got ${docs.length}`);
  return docs[0];
}

export function readRepoFile(rel: string): string {
  return readFileSync(path.join(repoRoot, rel), 'utf8');
}

/**
 * The flags `zlake serve` takes: the contract's list (docs/operations.md)
 * and every flag src/cli/serve.ts declares today.
 */
export function serveFlags(): Set<string> {
  const flags = new Set([
    'l',
    'lake',
    's3.endpoint',
    's3.region',
    'redis',
    'redis.prefix',
    'redis.password',
    'cache.size',
    'log.level',
    'log.path',
    'defaultfmt',
    'cors.origin',
    'shutdown.grace',
    'limit.body',
    'limit.querytime',
    'limit.queries',
  ]);
  const src = readRepoFile('src/cli/serve.ts');
  for (const m of src.matchAll(/\.(?:string|strings|int|bool|duration|float)\(\s*'([^']+)'/g)) {
    flags.add(m[1]);
  }
  return flags;
}

/** The environment variable that stands for a flag: -a.b is ZLAKE_A_B. */
export function envOfFlag(flag: string): string {
  return 'ZLAKE_' + flag.toUpperCase().replace(/[.-]/g, '_');
}

/** Whether `zlake serve` (or a library it uses) reads this variable. */
export function isServeEnv(name: string, flags = serveFlags()): boolean {
  if (name === 'ZED_LAKE' || name === 'NODE_ENV') return true;
  // The AWS SDK's credential chain and region.
  if (/^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|REGION|DEFAULT_REGION)$/.test(name)) {
    return true;
  }
  // OpenTelemetry's standard variables.
  if (/^OTEL_[A-Z0-9_]+$/.test(name)) return true;
  for (const f of flags) if (envOfFlag(f) === name) return true;
  return false;
}
