// The Helm chart (helm/zlake): it lints strictly, renders with its
// defaults and with each optional part on, the rendered manifests say what
// `zlake serve` understands, and the schema refuses bad values.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  chartDir,
  isServeEnv,
  parseYaml,
  parseYamlDocs,
  readRepoFile,
  run,
  Run,
  serveFlags,
  tool,
} from './tools';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

let helm: string;
let tmp: string;
let n = 0;

beforeAll(() => {
  helm = tool('helm');
  tmp = mkdtempSync(path.join(tmpdir(), 'zlake-helm-'));
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Values as a file (JSON is YAML), so types stay exactly as written. */
function valuesFile(values: Obj): string {
  const f = path.join(tmp, `values-${n++}.json`);
  writeFileSync(f, JSON.stringify(values));
  return f;
}

function template(values: Obj = {}, extra: string[] = []): Run {
  return run(helm, [
    'template',
    'rel',
    chartDir,
    '--namespace',
    'lakes',
    '-f',
    valuesFile(values),
    ...extra,
  ]);
}

function render(values: Obj = {}): Obj[] {
  const r = template(values);
  if (r.status !== 0) throw new Error(`helm template failed:\n${r.stderr}`);
  return parseYamlDocs(r.stdout) as Obj[];
}

function kinds(docs: Obj[]): string[] {
  return docs.map((d) => d.kind as string).sort();
}

function one(docs: Obj[], kind: string): Obj {
  const found = docs.filter((d) => d.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
}

/** The ConfigMap of flags (not the dashboard's or the key set's). */
function envConfig(docs: Obj[]): Obj {
  return one(
    docs.filter((d) => !/-(dashboard|auth-jwks)$/.test(String(d.metadata?.name))),
    'ConfigMap',
  );
}

function container(docs: Obj[]): Obj {
  const pod = one(docs, 'Deployment').spec.template.spec;
  expect(pod.containers).toHaveLength(1);
  return pod.containers[0];
}

function secretRef(c: Obj, name: string): { name: string; key: string } | undefined {
  const e = (c.env as Obj[]).find((v) => v.name === name);
  return e?.valueFrom?.secretKeyRef;
}

const chart = parseYaml(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as Obj;
const pkg = JSON.parse(readRepoFile('package.json')) as { version: string };

// Every optional part on at once.
const everything: Obj = {
  autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 9 },
  podDisruptionBudget: { enabled: true },
  metrics: {
    serviceMonitor: { enabled: true },
    prometheusRule: { enabled: true },
    dashboard: { enabled: true },
  },
  ingress: {
    enabled: true,
    className: 'nginx',
    tls: [{ hosts: ['zlake.local'], secretName: 'tls' }],
  },
  s3: {
    endpoint: 'http://minio.storage:9000',
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 's3cr3t' },
  },
  redis: { auth: { password: 'redispw' } },
  tracing: { enabled: true, endpoint: 'http://otel-collector:4318' },
  config: { corsOrigins: ['https://app.example.com'], limits: { body: 1048576, queries: 8 } },
  auth: {
    enabled: true,
    audience: 'https://lake.example.com',
    clientId: 'cid',
    domain: 'https://example.us.auth0.com',
    jwks: { inline: '{"keys":[]}' },
  },
};

describe('chart metadata', () => {
  test('appVersion is the package version', () => {
    expect(chart.appVersion).toBe(pkg.version);
    expect(chart.apiVersion).toBe('v2');
  });

  test('helm lint --strict passes with the defaults and with every option on', () => {
    for (const values of [{}, everything]) {
      const r = run(helm, ['lint', '--strict', chartDir, '-f', valuesFile(values)]);
      expect({ status: r.status, out: r.stdout + r.stderr }).toMatchObject({ status: 0 });
    }
  });
});

describe('default values', () => {
  let docs: Obj[];
  beforeAll(() => {
    docs = render();
  });

  test('render the core objects only', () => {
    expect(kinds(docs)).toEqual(['ConfigMap', 'Deployment', 'Service', 'ServiceAccount']);
  });

  test('the image tag follows appVersion unless image.tag is set', () => {
    expect(container(docs).image).toBe(`ghcr.io/zlake/zlake:${chart.appVersion}`);
    const tagged = render({ image: { repository: 'registry.example/zlake', tag: '9.9.9' } });
    expect(container(tagged).image).toBe('registry.example/zlake:9.9.9');
  });

  test('probes: readiness on /readyz, liveness on /healthz, on the container port', () => {
    const c = container(docs);
    const port = (c.ports as Obj[]).find((p) => p.name === c.readinessProbe.httpGet.port);
    expect(port).toMatchObject({ name: 'http', containerPort: 9867, protocol: 'TCP' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    // The server listens where the probes look.
    expect(c.args.slice(0, 2)).toEqual(['-l', '0.0.0.0:9867']);
    const svc = one(docs, 'Service');
    expect(svc.spec.ports).toEqual([
      { name: 'http', port: 9867, targetPort: 'http', protocol: 'TCP' },
    ]);
    expect(svc.spec.selector).toEqual(one(docs, 'Deployment').spec.selector.matchLabels);
  });

  test('the ConfigMap holds flags as variables zlake serve reads', () => {
    const cm = envConfig(docs);
    const flags = serveFlags();
    const names = Object.keys(cm.data);
    expect(names.filter((k) => !isServeEnv(k, flags))).toEqual([]);
    expect(cm.data).toMatchObject({
      ZED_LAKE: 's3://zlake/lake',
      ZLAKE_REDIS: 'redis://redis:6379/0',
      ZLAKE_REDIS_PREFIX: 'zlake',
      ZLAKE_LOG_LEVEL: 'info',
      ZLAKE_CACHE_SIZE: '268435456',
      ZLAKE_SHUTDOWN_GRACE: '30s',
    });
    // Every value of a ConfigMap must be a string.
    for (const v of Object.values(cm.data)) expect(typeof v).toBe('string');
    const c = container(docs);
    expect(c.envFrom).toEqual([{ configMapRef: { name: cm.metadata.name } }]);
  });

  test('termination grace outlasts the shutdown grace; pod runs as non-root', () => {
    const pod = one(docs, 'Deployment').spec.template.spec;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(30 + 5);
    expect(container(docs).lifecycle.preStop.exec.command).toEqual(['sleep', '5']);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(container(docs).securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(container(docs).resources.requests).toBeDefined();
    expect(one(docs, 'Deployment').spec.replicas).toBe(2);
  });

  test('no credentials: no Secret and no AWS keys (the pod identity is used)', () => {
    const names = (container(docs).env as Obj[]).map((e) => e.name);
    expect(names).not.toContain('AWS_ACCESS_KEY_ID');
    expect(names).not.toContain('ZLAKE_REDIS_PASSWORD');
  });
});

describe('every env name the Deployment sets is one zlake serve reads', () => {
  test.each([
    ['defaults', {}],
    ['everything on', everything],
    [
      'existing secrets',
      { s3: { credentials: { existingSecret: 's3' } }, redis: { auth: { existingSecret: 'r' } } },
    ],
  ])('%s', (_name, values) => {
    const docs = render(values);
    const flags = serveFlags();
    const c = container(docs);
    const names = [
      ...(c.env as Obj[]).map((e) => e.name as string),
      ...Object.keys(envConfig(docs).data),
    ];
    expect(names.filter((k) => !isServeEnv(k, flags))).toEqual([]);
    // Flags on the command line are flags serve takes.
    const given = (c.args as string[]).filter((a) => a.startsWith('-')).map((a) => a.slice(1));
    expect(given.filter((f) => !flags.has(f))).toEqual([]);
  });
});

describe('optional parts', () => {
  let docs: Obj[];
  beforeAll(() => {
    docs = render(everything);
  });

  test('all render', () => {
    expect(kinds(docs)).toEqual([
      'ConfigMap',
      'ConfigMap',
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'Ingress',
      'PodDisruptionBudget',
      'PrometheusRule',
      'Secret',
      'Service',
      'ServiceAccount',
      'ServiceMonitor',
    ]);
  });

  test('HorizontalPodAutoscaler owns the replica count', () => {
    const hpa = one(docs, 'HorizontalPodAutoscaler');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec).toMatchObject({
      minReplicas: 3,
      maxReplicas: 9,
      scaleTargetRef: { kind: 'Deployment', name: one(docs, 'Deployment').metadata.name },
    });
    expect(one(docs, 'Deployment').spec.replicas).toBeUndefined();
  });

  test('PodDisruptionBudget selects the pods', () => {
    const pdb = one(docs, 'PodDisruptionBudget');
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(pdb.spec.minAvailable).toBe(1);
    expect(pdb.spec.selector.matchLabels).toEqual(
      one(docs, 'Deployment').spec.selector.matchLabels,
    );
    const max = one(
      render({ podDisruptionBudget: { enabled: true, maxUnavailable: '50%' } }),
      'PodDisruptionBudget',
    );
    expect(max.spec).toMatchObject({ maxUnavailable: '50%' });
    expect(max.spec.minAvailable).toBeUndefined();
  });

  test('ServiceMonitor scrapes /metrics on the http port', () => {
    const sm = one(docs, 'ServiceMonitor');
    expect(sm.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(sm.spec.endpoints).toEqual([
      expect.objectContaining({ port: 'http', path: '/metrics' }),
    ]);
    expect(sm.spec.selector.matchLabels).toEqual(one(docs, 'Service').spec.selector);
    expect(sm.spec.namespaceSelector.matchNames).toEqual(['lakes']);
  });

  test('Ingress is SSE-friendly and routes to the Service', () => {
    const ing = one(docs, 'Ingress');
    expect(ing.metadata.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
      'nginx.ingress.kubernetes.io/proxy-request-buffering': 'off',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
      'nginx.ingress.kubernetes.io/proxy-body-size': '0',
    });
    expect(ing.spec.ingressClassName).toBe('nginx');
    expect(ing.spec.tls).toEqual([{ hosts: ['zlake.local'], secretName: 'tls' }]);
    const backend = ing.spec.rules[0].http.paths[0].backend;
    expect(backend).toEqual({
      service: { name: one(docs, 'Service').metadata.name, port: { name: 'http' } },
    });
    // The user's annotations win over the defaults.
    const mine = one(
      render({
        ingress: {
          enabled: true,
          annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': '86400' },
        },
      }),
      'Ingress',
    );
    expect(mine.metadata.annotations['nginx.ingress.kubernetes.io/proxy-read-timeout']).toBe(
      '86400',
    );
    expect(mine.metadata.annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
  });

  test('inline credentials create a Secret the pods read', () => {
    const secret = one(docs, 'Secret');
    const decode = (s: string) => Buffer.from(s, 'base64').toString();
    expect(decode(secret.data.AWS_ACCESS_KEY_ID)).toBe('AKIAEXAMPLE');
    expect(decode(secret.data.AWS_SECRET_ACCESS_KEY)).toBe('s3cr3t');
    expect(decode(secret.data['redis-password'])).toBe('redispw');
    const c = container(docs);
    const name = secret.metadata.name;
    expect(secretRef(c, 'AWS_ACCESS_KEY_ID')).toEqual({ name, key: 'AWS_ACCESS_KEY_ID' });
    expect(secretRef(c, 'AWS_SECRET_ACCESS_KEY')).toEqual({ name, key: 'AWS_SECRET_ACCESS_KEY' });
    expect(secretRef(c, 'ZLAKE_REDIS_PASSWORD')).toEqual({ name, key: 'redis-password' });
    // The ConfigMap holds no secret.
    expect(JSON.stringify(envConfig(docs).data)).not.toMatch(/s3cr3t|redispw|AKIAEXAMPLE/);
  });

  test('existingSecret names are referenced and no Secret is made', () => {
    const d = render({
      s3: {
        credentials: {
          existingSecret: 'lake-s3',
          accessKeyIdKey: 'id',
          secretAccessKeyKey: 'key',
          // Ignored: the existing Secret wins.
          accessKeyId: 'x',
          secretAccessKey: 'y',
        },
      },
      redis: { auth: { existingSecret: 'lake-redis', passwordKey: 'pw' } },
    });
    expect(kinds(d)).not.toContain('Secret');
    const c = container(d);
    expect(secretRef(c, 'AWS_ACCESS_KEY_ID')).toEqual({ name: 'lake-s3', key: 'id' });
    expect(secretRef(c, 'AWS_SECRET_ACCESS_KEY')).toEqual({ name: 'lake-s3', key: 'key' });
    expect(secretRef(c, 'ZLAKE_REDIS_PASSWORD')).toEqual({ name: 'lake-redis', key: 'pw' });
  });

  test('S3, tracing and limits reach the environment; CORS origins the flags', () => {
    const cm = envConfig(docs).data;
    expect(cm).toMatchObject({
      ZLAKE_S3_ENDPOINT: 'http://minio.storage:9000',
      ZLAKE_S3_REGION: 'eu-west-1',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      OTEL_SERVICE_NAME: 'rel-zlake',
      OTEL_TRACES_EXPORTER: 'otlp',
      ZLAKE_LIMIT_BODY: '1048576',
      ZLAKE_LIMIT_QUERIES: '8',
    });
    expect(container(docs).args).toEqual([
      '-l',
      '0.0.0.0:9867',
      '-cors.origin',
      'https://app.example.com',
    ]);
    expect(Object.keys(envConfig(render()).data).filter((k) => k.startsWith('OTEL_'))).toEqual([]);
  });

  test('PrometheusRule holds alerts/zlake-rules.yaml; the dashboard ConfigMap its JSON', () => {
    const rules = parseYaml(
      readFileSync(path.join(chartDir, 'alerts', 'zlake-rules.yaml'), 'utf8'),
    );
    expect(one(docs, 'PrometheusRule').spec).toEqual(rules);
    const dash = docs.find(
      (d) => d.kind === 'ConfigMap' && d.metadata.name.endsWith('-dashboard'),
    )!;
    expect(dash.metadata.labels.grafana_dashboard).toBe('1');
    const json = JSON.parse(dash.data['zlake.json']);
    expect(json).toEqual(
      JSON.parse(readFileSync(path.join(chartDir, 'dashboards', 'zlake.json'), 'utf8')),
    );
  });

  test('auth: the flags reach the environment and the key set the path they name', () => {
    const cm = envConfig(docs).data;
    expect(cm).toMatchObject({
      ZLAKE_AUTH_ENABLED: 'true',
      ZLAKE_AUTH_AUDIENCE: 'https://lake.example.com',
      ZLAKE_AUTH_CLIENTID: 'cid',
      ZLAKE_AUTH_DOMAIN: 'https://example.us.auth0.com',
      ZLAKE_AUTH_JWKSPATH: '/etc/zlake/auth/jwks.json',
    });
    const jwks = docs.find(
      (d) => d.kind === 'ConfigMap' && d.metadata.name === 'rel-zlake-auth-jwks',
    );
    expect(jwks?.data).toEqual({ 'jwks.json': '{"keys":[]}' });
    const c = container(docs);
    const mount = (c.volumeMounts as Obj[]).find((m) => m.name === 'auth-jwks');
    expect(mount).toEqual({ name: 'auth-jwks', mountPath: '/etc/zlake/auth', readOnly: true });
    const vol = (one(docs, 'Deployment').spec.template.spec.volumes as Obj[]).find(
      (v) => v.name === 'auth-jwks',
    );
    expect(vol!.configMap).toEqual({
      name: 'rel-zlake-auth-jwks',
      items: [{ key: 'jwks.json', path: 'jwks.json' }],
    });
    // Pods roll when the inline key set changes.
    const annotations = (d: Obj[]) =>
      one(d, 'Deployment').spec.template.metadata.annotations['checksum/auth-jwks'];
    const other = render({ ...everything, auth: { ...everything.auth, jwks: { inline: '{}' } } });
    expect(annotations(other)).not.toBe(annotations(docs));
    // Off by default: no variables, no volume.
    const plain = render();
    expect(Object.keys(envConfig(plain).data).filter((k) => k.startsWith('ZLAKE_AUTH'))).toEqual(
      [],
    );
    expect((container(plain).volumeMounts as Obj[]).map((m) => m.name)).not.toContain('auth-jwks');
  });

  test('auth: an existing ConfigMap of the key set is mounted, none is made', () => {
    const d = render({
      auth: {
        enabled: true,
        audience: 'a',
        clientId: 'c',
        domain: 'https://d',
        jwks: { existingConfigMap: 'lake-jwks', key: 'keys.json', inline: 'ignored' },
      },
    });
    expect(d.filter((x) => x.kind === 'ConfigMap')).toHaveLength(1);
    expect(envConfig(d).data.ZLAKE_AUTH_JWKSPATH).toBe('/etc/zlake/auth/keys.json');
    const vol = (one(d, 'Deployment').spec.template.spec.volumes as Obj[]).find(
      (v) => v.name === 'auth-jwks',
    );
    expect(vol!.configMap).toEqual({
      name: 'lake-jwks',
      items: [{ key: 'keys.json', path: 'keys.json' }],
    });
  });

  test('a local lake runs one replica without Redis', () => {
    const d = render({ replicaCount: 1, lake: { location: '/data/lake' }, redis: { url: '' } });
    expect(envConfig(d).data.ZED_LAKE).toBe('/data/lake');
    expect(envConfig(d).data.ZLAKE_REDIS).toBeUndefined();
    expect((container(d).volumeMounts as Obj[]).map((m) => m.mountPath)).toContain('/data');
  });
});

describe('bad values fail', () => {
  test.each([
    ['replicaCount: "three"', { replicaCount: 'three' }, /replicaCount/],
    ['replicaCount: 0', { replicaCount: 0 }, /replicaCount/],
    ['an unknown logLevel', { config: { logLevel: 'verbose' } }, /logLevel/],
    ['an unknown default format', { config: { defaultFormat: 'xml' } }, /defaultFormat/],
    ['a misspelt top-level key', { replicas: 3 }, /replicas/],
    ['a misspelt nested key', { redis: { URL: 'redis://r:6379' } }, /URL/],
    ['an http lake', { lake: { location: 'http://lake' } }, /location/],
    ['a redis URL without scheme', { redis: { url: 'redis:6379' } }, /url/],
    ['a bad service type', { service: { type: 'Cluster' } }, /type/],
    ['a bad pull policy', { image: { pullPolicy: 'Sometimes' } }, /pullPolicy/],
    ['a port as a string', { containerPort: '9867' }, /containerPort/],
    ['a bad duration', { config: { shutdownGrace: 'thirty seconds' } }, /shutdownGrace/],
    ['cacheSize below 0', { config: { cacheSize: -1 } }, /cacheSize/],
    ['tracing protocol', { tracing: { protocol: 'udp' } }, /protocol/],
    ['a misspelt auth key', { auth: { clientID: 'c' } }, /clientID/],
    ['auth.enabled as a string', { auth: { enabled: 'yes' } }, /enabled/],
    ['a JWKS key with a slash', { auth: { jwks: { key: 'a/b' } } }, /key/],
  ])('schema: %s', (_name, values, where) => {
    const r = template(values);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/values don't meet the specifications of the schema/);
    expect(r.stderr).toMatch(where);
  });

  test.each([
    ['replicas on a local lake', { lake: { location: '/data/lake' } }, /need a shared lake/],
    ['replicas without Redis', { redis: { url: '' } }, /need Redis/],
    [
      'an autoscaler without Redis',
      { replicaCount: 1, redis: { url: '' }, autoscaling: { enabled: true } },
      /need Redis/,
    ],
    [
      'termination grace too short',
      { terminationGracePeriodSeconds: 30 },
      /terminationGracePeriodSeconds/,
    ],
    [
      'a longer shutdown grace',
      { config: { shutdownGrace: '1m' } },
      /must exceed config.shutdownGrace \(60s\)/,
    ],
    ['half the S3 keys', { s3: { credentials: { accessKeyId: 'a' } } }, /both/],
    ['tracing without an endpoint', { tracing: { enabled: true } }, /tracing.endpoint/],
    [
      'auth without a domain',
      { auth: { enabled: true, audience: 'a', clientId: 'c', jwks: { inline: '{}' } } },
      /auth.domain/,
    ],
    [
      'auth without a key set',
      { auth: { enabled: true, audience: 'a', clientId: 'c', domain: 'https://d' } },
      /auth.jwks.existingConfigMap or auth.jwks.inline/,
    ],
  ])('chart checks: %s', (_name, values, message) => {
    const r = template(values);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(message);
  });

  test('--set with a string where a number belongs fails too', () => {
    const r = run(helm, ['template', 'rel', chartDir, '--set-string', 'replicaCount=three']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/replicaCount/);
  });
});
