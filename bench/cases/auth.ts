// Authentication's cost: the time to validate one bearer token (an RS256
// signature check and the claims), and what it adds to the cheapest API
// request, measured as the same requests against two `zlake serve`
// processes, one with -auth.enabled and one without, alternating request
// by request so that the machine's noise falls on both alike.

import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticator } from '../../src/service/auth/authenticator';
import { startServer } from '../lake';
import { check, median, now, report, runCase, since } from '../lib';

const VALIDATIONS = 20000;
/** Distinct tokens for the first-sight figure (each costs a signature to make). */
const DISTINCT = 2000;
const REQUESTS = 5000;
const WARMUP = 500;
const AUD = 'https://bench';
const DOMAIN = 'https://bench.example';

function token(privateKey: import('node:crypto').KeyObject, n = 0): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const claims = {
    aud: AUD,
    iss: DOMAIN + '/',
    exp: Math.floor(Date.now() / 1000) + 3600 + n,
    'https://lake.brimdata.io/tenant_id': 't',
    'https://lake.brimdata.io/user_id': 'u',
  };
  const input = `${b64({ alg: 'RS256', kid: 'k', typ: 'JWT' })}.${b64(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** A GET over a kept-alive agent; resolves with its seconds. */
function get(agent: http.Agent, port: number, path: string, headers: Record<string, string>) {
  const t0 = now();
  return new Promise<number>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode}`));
        res.resume();
        res.on('end', () => resolve(since(t0)));
      })
      .on('error', reject);
  });
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
  // A token seen for the first time: parse, signature check, claims.
  const fresh = Array.from({ length: DISTINCT }, (_, i) => `Bearer ${token(privateKey, i)}`);
  let t0 = now();
  for (const h of fresh) auth.authenticate(h);
  const perNew = since(t0) / DISTINCT;
  report({
    name: 'token validation, first sight (RS256, 2048-bit key)',
    records: DISTINCT,
    seconds: perNew * DISTINCT,
    note: `${(perNew * 1e6).toFixed(1)} µs per token, in process`,
  });
  // The same token again (as a client sends it): remembered until it expires.
  for (let i = 0; i < 1000; i++) auth.authenticate(header); // warm-up
  t0 = now();
  for (let i = 0; i < VALIDATIONS; i++) auth.authenticate(header);
  const perToken = since(t0) / VALIDATIONS;
  report({
    name: 'token validation, seen before',
    records: VALIDATIONS,
    seconds: perToken * VALIDATIONS,
    note: `${(perToken * 1e6).toFixed(2)} µs per token, in process`,
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
    const agents = [0, 1].map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    // Requests alternate between the servers, one at a time, so that the
    // machine's noise falls on both alike; medians of the latencies.
    const offTimes: number[] = [];
    const onTimes: number[] = [];
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      const a = await get(agents[0], open.port, path, without);
      const b = await get(agents[1], guarded.port, path, withAuth);
      if (i >= WARMUP) {
        offTimes.push(a);
        onTimes.push(b);
      }
    }
    for (const a of agents) a.destroy();
    const off = median(offTimes);
    const on = median(onTimes);
    report({
      name: 'GET branch tip, auth off',
      records: REQUESTS,
      seconds: offTimes.reduce((x, y) => x + y, 0),
      note: `median ${(off * 1e6).toFixed(0)} µs per request, kept-alive connection`,
    });
    report({
      name: 'GET branch tip, auth on (valid token)',
      records: REQUESTS,
      seconds: onTimes.reduce((x, y) => x + y, 0),
      note: `median ${(on * 1e6).toFixed(0)} µs per request; +${((on - off) * 1e6).toFixed(0)} µs, ${(on / off).toFixed(2)}× of off`,
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

runCase(main);
