// Authentication's cost: the time to validate one bearer token (an RS256
// signature check and the claims), and what it adds to the cheapest API
// request, measured as the same request stream against two `zlake serve`
// processes over one small lake, one with -auth.enabled and one without,
// alternating rounds so that the machine's noise falls on both alike.

import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticator } from '../../src/service/auth/authenticator';
import { startServer } from '../lake';
import { check, median, now, report, since } from '../lib';

const VALIDATIONS = 20000;
const ROUNDS = Number(process.env.BENCH_RUNS ?? 5);
const PER_ROUND = 1000;
const AUD = 'https://bench';
const DOMAIN = 'https://bench.example';

function token(privateKey: import('node:crypto').KeyObject): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const claims = {
    aud: AUD,
    iss: DOMAIN + '/',
    exp: Math.floor(Date.now() / 1000) + 3600,
    'https://lake.brimdata.io/tenant_id': 't',
    'https://lake.brimdata.io/user_id': 'u',
  };
  const input = `${b64({ alg: 'RS256', kid: 'k', typ: 'JWT' })}.${b64(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** n sequential GETs over one kept-alive connection; seconds. */
async function requests(port: number, path: string, n: number, headers: Record<string, string>) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const t0 = now();
  for (let i = 0; i < n; i++) {
    await new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode}`));
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  }
  const s = since(t0);
  agent.destroy();
  return s;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'zlake-bench-auth-'));
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  const jwks = join(dir, 'jwks.json');
  writeFileSync(jwks, JSON.stringify({ keys: [{ kid: 'k', kty: 'RSA', n: jwk.n, e: jwk.e }] }));
  const t = token(privateKey);
  const authFlags = [
    '-auth.enabled',
    `-auth.audience=${AUD}`,
    '-auth.clientid=c',
    `-auth.domain=${DOMAIN}`,
    `-auth.jwkspath=${jwks}`,
  ];

  const auth = Authenticator.open({
    enabled: true,
    audience: AUD,
    clientId: 'c',
    domain: DOMAIN,
    jwksPath: jwks,
  })!;
  const header = `Bearer ${t}`;
  for (let i = 0; i < 1000; i++) auth.authenticate(header); // warm-up
  const t0 = now();
  for (let i = 0; i < VALIDATIONS; i++) auth.authenticate(header);
  const perToken = since(t0) / VALIDATIONS;
  report({
    name: 'token validation (RS256, 2048-bit key)',
    records: VALIDATIONS,
    seconds: perToken * VALIDATIONS,
    note: `${(perToken * 1e6).toFixed(1)} µs per token, in process`,
  });

  const [open, guarded] = await Promise.all([
    startServer(join(dir, 'open')),
    startServer(join(dir, 'guarded'), authFlags),
  ]);
  try {
    // One pool on each; the request reads its branch tip (GET /pool/p/branch/main).
    for (const [s, h] of [
      [open, {}],
      [guarded, { Authorization: header }],
    ] as const) {
      await new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: s.port,
            method: 'POST',
            path: '/pool',
            headers: { ...h, 'Content-Type': 'application/json' },
          },
          (res) => (res.statusCode === 200 ? resolve() : reject(new Error(`${res.statusCode}`))),
        );
        req.end('{"name":"p"}');
      });
    }
    const path = '/pool/p/branch/main';
    const withAuth = { Accept: 'application/json', Authorization: header };
    const without = { Accept: 'application/json' };
    await requests(open.port, path, 300, without);
    await requests(guarded.port, path, 300, withAuth);
    const offTimes: number[] = [];
    const onTimes: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      offTimes.push(await requests(open.port, path, PER_ROUND, without));
      onTimes.push(await requests(guarded.port, path, PER_ROUND, withAuth));
    }
    const off = median(offTimes) / PER_ROUND;
    const on = median(onTimes) / PER_ROUND;
    report({
      name: 'GET branch tip, auth off',
      records: PER_ROUND,
      seconds: off * PER_ROUND,
      note: `${(off * 1e6).toFixed(0)} µs per request, median of ${ROUNDS} rounds, kept-alive connection`,
    });
    report({
      name: 'GET branch tip, auth on (valid token)',
      records: PER_ROUND,
      seconds: on * PER_ROUND,
      note: `${(on * 1e6).toFixed(0)} µs per request; +${((on - off) * 1e6).toFixed(0)} µs, ${(on / off).toFixed(2)}× of off`,
    });
    check({
      name: 'cheapest API request: auth on / auth off',
      value: on / off,
      target: 1.2,
      kind: 'max',
      unit: '×',
      note: 'a token check should cost a small part of a request',
    });
  } finally {
    await Promise.all([open.stop(), guarded.stop()]);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
