// docker-compose.yml, deploy/nginx and deploy/Dockerfile, checked offline
// (no Docker engine here): the compose file validates and describes three
// zlake replicas on MinIO and Redis behind one published port; nginx
// balances exactly those replicas and streams; the image runs `zlake
// serve` as a non-root user.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isServeEnv, onPath, parseYaml, readRepoFile, run, serveFlags, tool } from './tools';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

/** The environment without variables the compose file interpolates. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(ZLAKE_|MINIO_|MC_|REDIS_|NGINX_|COMPOSE_)/.test(k)) env[k] = v;
  }
  return env;
}

/** A flag's value in a Go-style argument list. */
function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`-${name}`);
  return i < 0 ? undefined : args[i + 1];
}

describe('docker-compose.yml', () => {
  let compose: string;
  let config: Obj;
  beforeAll(() => {
    compose = tool('docker-compose');
    const r = run(compose, ['-f', 'docker-compose.yml', 'config'], cleanEnv());
    if (r.status !== 0) throw new Error(`docker-compose config failed:\n${r.stderr}`);
    config = parseYaml(r.stdout) as Obj;
  });

  test('docker-compose config -q passes', () => {
    const r = run(compose, ['-f', 'docker-compose.yml', 'config', '-q'], cleanEnv());
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  });

  test('three zlake replicas on MinIO and Redis', () => {
    const services = config.services as Obj;
    const zlakes = Object.keys(services).filter((s) => /^zlake\d+$/.test(s));
    expect(zlakes.sort()).toEqual(['zlake1', 'zlake2', 'zlake3']);
    const flags = serveFlags();
    for (const name of zlakes) {
      const s = services[name];
      expect(s.build).toMatchObject({ dockerfile: 'deploy/Dockerfile' });
      const args = s.command as string[];
      expect(flag(args, 'l')).toBe('0.0.0.0:9867');
      expect(flag(args, 'lake')).toBe('s3://zlake/lake');
      expect(flag(args, 's3.endpoint')).toBe('http://minio:9000');
      expect(flag(args, 'redis')).toBe('redis://redis:6379');
      const given = args.filter((a) => a.startsWith('-')).map((a) => a.slice(1));
      expect(given.filter((f) => !flags.has(f))).toEqual([]);
      expect(s.environment).toMatchObject({
        AWS_ACCESS_KEY_ID: services.minio.environment.MINIO_ROOT_USER,
        AWS_SECRET_ACCESS_KEY: services.minio.environment.MINIO_ROOT_PASSWORD,
        AWS_REGION: 'us-east-1',
      });
      expect(Object.keys(s.environment).filter((k) => !isServeEnv(k, flags))).toEqual([]);
      expect(s.depends_on).toMatchObject({
        redis: { condition: 'service_healthy' },
        createbucket: { condition: 'service_completed_successfully' },
      });
      expect(s.healthcheck.test.join(' ')).toContain('/readyz');
      // Longer than the default -shutdown.grace of 30s.
      expect(s.stop_grace_period).toBe('40s');
      expect(s.ports).toBeUndefined();
    }
  });

  test('MinIO, the bucket and Redis', () => {
    const services = config.services as Obj;
    expect(services.minio.image).toMatch(/^minio\/minio/);
    expect(services.minio.command.slice(0, 2)).toEqual(['server', '/data']);
    const mb = services.createbucket.entrypoint.join(' ');
    expect(mb).toContain('http://minio:9000');
    expect(mb).toMatch(/mc mb --ignore-existing local\/zlake\b/);
    expect(services.createbucket.depends_on.minio.condition).toBe('service_healthy');
    expect(services.redis.image).toMatch(/^redis:/);
    expect(services.redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  test('the load balancer publishes the only port, 9867', () => {
    const services = config.services as Obj;
    const published = Object.entries(services).filter(([, s]) => s.ports);
    expect(published.map(([name]) => name)).toEqual(['lb']);
    expect(services.lb.ports).toEqual([{ published: 9867, target: 9867 }]);
    expect(services.lb.image).toMatch(/^nginx:/);
    expect(services.lb.volumes.join(' ')).toMatch(
      /deploy\/nginx\/nginx\.conf:\/etc\/nginx\/nginx\.conf:ro/,
    );
    expect(Object.keys(services.lb.depends_on).sort()).toEqual(['zlake1', 'zlake2', 'zlake3']);
  });
});

describe('deploy/nginx/nginx.conf', () => {
  const conf = readRepoFile('deploy/nginx/nginx.conf').replace(/#.*$/gm, '');

  /** The body of the block that opens with `head {`, braces balanced. */
  function block(head: RegExp): string {
    const m = head.exec(conf);
    if (!m) throw new Error(`no block ${head}`);
    let depth = 0;
    for (let i = m.index + m[0].length - 1; i < conf.length; i++) {
      if (conf[i] === '{') depth++;
      else if (conf[i] === '}' && --depth === 0) return conf.slice(m.index + m[0].length, i);
    }
    throw new Error(`unbalanced block ${head}`);
  }

  test('braces balance', () => {
    expect(conf.split('{').length).toBe(conf.split('}').length);
  });

  test('the upstream is the three replicas', () => {
    const up = block(/upstream zlake\s*\{/);
    const servers = [...up.matchAll(/^\s*server\s+(\S+)/gm)].map((m) => m[1]);
    expect(servers).toEqual(['zlake1:9867', 'zlake2:9867', 'zlake3:9867']);
  });

  test('listens on 9867 and streams: no buffering, long timeouts, any body size', () => {
    const server = block(/server\s*\{/);
    expect(server).toMatch(/^\s*listen 9867;/m);
    expect(server).toMatch(/^\s*proxy_buffering off;/m);
    expect(server).toMatch(/^\s*proxy_request_buffering off;/m);
    expect(server).toMatch(/^\s*client_max_body_size 0;/m);
    expect(server).toMatch(/^\s*proxy_http_version 1\.1;/m);
    const events = block(/location = \/events\s*\{/);
    expect(events).toMatch(/proxy_pass http:\/\/zlake;/);
    expect(events).toMatch(/proxy_buffering off;/);
    const timeout = /proxy_read_timeout (\d+)h;/.exec(events);
    expect(Number(timeout?.[1])).toBeGreaterThanOrEqual(1);
    // A proxy_set_header in a location would drop the server's headers.
    expect(events).not.toMatch(/proxy_set_header/);
  });

  // nginx itself, when installed (Debian's nginx-light): the replicas'
  // names become a loopback address, `resolve` (nginx 1.27.3+, the
  // image's version) is dropped for older nginx, and logs go to a file.
  const nginx = onPath('nginx');
  (nginx ? test : test.skip)('nginx -t accepts it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'zlake-nginx-'));
    try {
      const local = readRepoFile('deploy/nginx/nginx.conf')
        .replace(/zlake\d:9867 resolve/g, '127.0.0.1:9867')
        .replace('resolver 127.0.0.11', 'resolver 127.0.0.1')
        .replace(/\/tmp\/nginx\.pid/, path.join(dir, 'nginx.pid'))
        .replace(/\/dev\/std(out|err)/g, path.join(dir, 'log'));
      writeFileSync(path.join(dir, 'nginx.conf'), local);
      const r = run(nginx!, [
        '-t',
        '-c',
        path.join(dir, 'nginx.conf'),
        '-g',
        `error_log ${dir}/error.log;`,
      ]);
      expect(r.stderr).toMatch(/test is successful/);
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('deploy/Dockerfile', () => {
  const lines = readRepoFile('deploy/Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trimStart().startsWith('#'));
  const stages = lines.filter((l) => /^FROM /.test(l));
  const last = lines.slice(lines.indexOf(stages[stages.length - 1]));

  test('builds in one stage and runs in a smaller one', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const text = lines.join('\n');
    expect(text).toMatch(/RUN npm ci --ignore-scripts\b/);
    expect(text).toMatch(/RUN npm run build/);
    // `prepare` (the tsc build) must not run when dev dependencies are absent.
    expect(text).toMatch(/npm ci --omit=dev --ignore-scripts/);
    // ...and the lz4 addon built in that stage, with its toolchain.
    expect(text).toMatch(/apt-get install [^\n]*\bg\+\+[^\n]*&& npm rebuild lz4\b/);
    const copies = last.filter((l) => /^COPY /.test(l)).join('\n');
    expect(copies).toMatch(/\/dist \.\/dist/);
    expect(copies).toMatch(/bin \.\/bin/);
    expect(copies).toMatch(/node_modules/);
    expect(copies).toMatch(/package\.json/);
  });

  test('runs zlake serve as a non-root user on 9867 with a /healthz check', () => {
    const user = last.find((l) => /^USER /.test(l));
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)\b/);
    expect(last).toContain('ENTRYPOINT ["node", "bin/zlake.js", "serve"]');
    expect(last).toContain('CMD ["-l", "0.0.0.0:9867"]');
    expect(last).toContain('EXPOSE 9867');
    const health = last.find((l) => /^HEALTHCHECK /.test(l));
    expect(health).toMatch(/CMD \["node", "-e", ".*fetch\('http:\/\/127\.0\.0\.1:9867\/healthz'/);
    expect(health).not.toMatch(/curl|wget/);
  });

  test('the build context holds what the build needs', () => {
    for (const f of ['deploy/Dockerfile.dockerignore', '.dockerignore']) {
      const ignore = readRepoFile(f);
      for (const kept of [
        'package.json',
        'package-lock.json',
        'tsconfig.json',
        'tsconfig.build.json',
        'src/**',
        'bin/**',
      ]) {
        expect(ignore).toContain(`!${kept}`);
      }
    }
  });
});
