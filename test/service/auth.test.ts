// Authentication end to end: a `zlake serve` child with -auth.* (some
// flags given as ZLAKE_AUTH_* variables), a JWKS and tokens made here.
// Every protected route refuses a request without a valid token with the
// reference's 401 body and serves one with a token; public routes and
// 404/405 answers need none.

import { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { onS3Redis, serveLakeArgs } from '../helpers/backend';
import { accessToken, jwk, makeKey, signToken, TestKey, writeJWKS } from '../helpers/jwt';
import { serve } from '../../src/cli/serve';
import { call, Reply, serveChild, sleep } from './helpers';

jest.setTimeout(120000);

const AUD = 'a';
const DOMAIN = 'https://testdomain';

let dir: string;
let key: TestKey;
let base: string;
let child: ChildProcess;
let logPath: string;
let token: string;
/** The serve arguments, for a second replica of the same lake. */
let serveArgs: string[];
let serveEnv: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'zlake-auth-'));
  key = makeKey('testkey');
  const jwks = writeJWKS(path.join(dir, 'jwks.json'), [jwk(key, 'x5c')]);
  logPath = path.join(dir, 'serve.log');
  serveArgs = [...(await serveLakeArgs(path.join(dir, 'lake'))), '-auth.enabled=true'];
  serveArgs.push('-auth.audience', AUD);
  serveEnv = {
    ZLAKE_AUTH_CLIENTID: 'testuser',
    ZLAKE_AUTH_DOMAIN: DOMAIN,
    ZLAKE_AUTH_JWKSPATH: jwks,
  };
  ({ base, child } = await serveChild([...serveArgs, '-log.path', logPath], serveEnv));
  token = accessToken(key, { audience: AUD, domain: DOMAIN, tenantId: 'tenant1', userId: 'user1' });
});

afterAll(async () => {
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
  rmSync(dir, { recursive: true, force: true });
});

const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

/** A request with the test's token (JSON answers unless headers say otherwise). */
function authed(
  method: string,
  urlPath: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call(base, method, urlPath, {
    body,
    headers: { Accept: 'application/json', ...bearer(token), ...headers },
  });
}

const noToken =
  '{"type":"Error","kind":"missing authentication credentials","error":"no token present in request"}\n';
const invalidToken =
  '{"type":"Error","kind":"missing authentication credentials","error":"invalid token"}\n';

/** Every protected route, with a body where it takes one. */
const protectedRoutes: [string, string, string?][] = [
  ['GET', '/auth/identity'],
  ['GET', '/events'],
  ['POST', '/pool', '{name:"x"}'],
  ['GET', '/pool/x'],
  ['POST', '/pool/x', '{name:"b",commit:"main"}'],
  ['PUT', '/pool/x', '{name:"y"}'],
  ['DELETE', '/pool/x'],
  ['GET', '/pool/x/branch/main'],
  ['POST', '/pool/x/branch/main', '{a:1}'],
  ['DELETE', '/pool/x/branch/main'],
  ['POST', '/pool/x/branch/main/compact', '{object_ids:[]}'],
  ['POST', '/pool/x/branch/main/delete', '{where:"a==1"}'],
  ['POST', '/pool/x/branch/main/index', '{}'],
  ['POST', '/pool/x/branch/main/index/update', '{}'],
  ['POST', '/pool/x/branch/main/merge/b'],
  ['POST', '/pool/x/branch/main/revert/27aaaaaaaaaaaaaaaaaaaaaaaaa'],
  ['POST', '/pool/x/revision/main/vacuum'],
  ['GET', '/pool/x/stats'],
  ['POST', '/query', '{query:"from :pools"}'],
  ['GET', '/query/status/abc'],
  ['POST', '/index', '{}'],
  ['DELETE', '/index', '{}'],
];

test('without a token every protected route answers 401 with the reference body', async () => {
  for (const [method, p, body] of protectedRoutes) {
    const r = await call(base, method, p, { body });
    expect([method, p, r.status, r.headers.get('content-type'), r.text]).toEqual([
      method,
      p,
      401,
      'application/json',
      noToken,
    ]);
  }
});

test('with a bad token every protected route answers 401 invalid token', async () => {
  const forged = signToken(
    { alg: 'HS256', kid: 'testkey' },
    { aud: AUD, exp: Math.floor(Date.now() / 1000) + 60, iss: DOMAIN + '/' },
    key.privateKey,
  );
  for (const [method, p, body] of protectedRoutes) {
    const r = await call(base, method, p, { body, headers: bearer(forged) });
    expect([method, p, r.status, r.text]).toEqual([method, p, 401, invalidToken]);
  }
});

test('each kind of bad token gets its reason', async () => {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const claims = { aud: AUD, exp, iss: DOMAIN + '/' };
  const rs = (c: Record<string, unknown>) =>
    signToken({ alg: 'RS256', kid: 'testkey' }, c, key.privateKey);
  const other = makeKey('testkey');
  const cases: [string, string][] = [
    // HTTP trims the value: "Bearer" alone is taken as the token.
    ['Bearer ', 'invalid token'],
    ['Bearer not.a.token', 'invalid token'],
    [`Bearer ${rs({ ...claims })}x`, 'invalid token'],
    [`Bearer ${signToken({ alg: 'RS256', kid: 'k2' }, claims, key.privateKey)}`, 'invalid token'],
    [
      `Bearer ${signToken({ alg: 'RS256', kid: 'testkey' }, claims, other.privateKey)}`,
      'invalid token',
    ],
    [
      `Bearer ${signToken({ alg: 'none', kid: 'testkey' }, claims, key.privateKey)}`,
      'invalid token',
    ],
    [`Bearer ${rs({ ...claims, exp: exp - 7200 })}`, 'invalid token'],
    [
      `Bearer ${signToken({ alg: 'RS512', kid: 'testkey' }, claims, key.privateKey)}`,
      'invalid signing method',
    ],
    [`Bearer ${rs({ ...claims, aud: 'b' })}`, 'invalid audience'],
    [`Bearer ${rs({ aud: AUD, iss: DOMAIN + '/' })}`, 'invalid expiration'],
    [`Bearer ${rs({ ...claims, iss: 'https://other/' })}`, 'invalid issuer'],
    [`Bearer ${rs({ ...claims, 'https://lake.brimdata.io/user_id': '' })}`, 'invalid tenant ID'],
  ];
  for (const [header, reason] of cases) {
    const r = await call(base, 'POST', '/query', {
      body: '{query:"from :pools"}',
      headers: { Authorization: header },
    });
    expect([r.status, r.json()]).toEqual([
      401,
      { type: 'Error', kind: 'missing authentication credentials', error: reason },
    ]);
  }
});

test('credentials are checked before anything else of the request', async () => {
  // A bad Accept header would be 400; without a token it is the 401.
  let r = await call(base, 'GET', '/pool/x', { headers: { Accept: 'application/x-nope' } });
  expect([r.status, r.text]).toEqual([401, noToken]);
  r = await call(base, 'GET', '/pool/x', {
    headers: { Accept: 'application/x-nope', ...bearer(token) },
  });
  expect(r.status).toBe(400);
});

test('public routes, 404, 405 and CORS preflights need no token', async () => {
  for (const p of ['/', '/status', '/version', '/metrics', '/healthz', '/readyz']) {
    expect([p, (await call(base, 'GET', p)).status]).toEqual([p, 200]);
  }
  let r = await call(base, 'GET', '/auth/method', { headers: { Accept: 'application/json' } });
  expect(r.json()).toEqual({
    kind: 'auth0',
    auth0: { audience: AUD, client_id: 'testuser', domain: DOMAIN },
  });
  r = await call(base, 'GET', '/auth/method');
  expect(r.text).toBe(
    '{kind:"auth0"(=api.AuthMethod),auth0:{audience:"a",client_id:"testuser",domain:"https://testdomain"}(=api.AuthMethodAuth0Details)}(=api.AuthMethodResponse)\n',
  );
  expect((await call(base, 'GET', '/nosuch')).status).toBe(404);
  expect((await call(base, 'PATCH', '/pool')).status).toBe(405);
  r = await call(base, 'OPTIONS', '/query', {
    headers: {
      Origin: 'http://zui',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization',
    },
  });
  expect(r.status).toBe(204);
});

test('with a token every route kind works, and identity is the token’s', async () => {
  let r = await authed('GET', '/auth/identity');
  expect([r.status, r.json()]).toEqual([200, { tenant_id: 'tenant1', user_id: 'user1' }]);
  r = await authed('GET', '/auth/identity', undefined, { Accept: '*/*' });
  expect(r.text).toBe('{tenant_id:"tenant1",user_id:"user1"}(=api.AuthIdentityResponse)\n');
  r = await authed('POST', '/pool', '{name:"p",layout:{order:"asc",keys:[["a"]]}}');
  expect(r.status).toBe(200);
  expect((await authed('GET', '/pool/p')).status).toBe(200);
  const c1 = (await authed('POST', '/pool/p/branch/main', '{a:1}{a:2}')).json() as {
    commit: string;
  };
  expect((await authed('POST', '/pool/p/branch/main', '{a:3}')).status).toBe(200);
  r = await authed('POST', '/pool/p', JSON.stringify({ name: 'dev', commit: c1.commit }), {
    'Content-Type': 'application/json',
  });
  expect(r.status).toBe(200);
  expect((await authed('POST', '/pool/p/branch/dev', '{a:4}')).status).toBe(200);
  expect((await authed('POST', '/pool/p/branch/main/merge/dev')).status).toBe(200);
  expect((await authed('GET', '/pool/p/branch/main')).status).toBe(200);
  expect((await authed('GET', '/pool/p/stats')).status).toBe(200);
  r = await authed('POST', '/query', '{query:"from p | sort a | yield a"}', {
    'X-Request-Id': 'q1',
  });
  expect([r.status, r.text]).toEqual([200, '[1,2,3,4]\n']);
  r = await authed('GET', '/query/status/q1');
  expect([r.status, r.json()]).toEqual([200, { error: '' }]);
  const objs = (
    await authed('POST', '/query', '{query:"from p@main:objects | yield id"}')
  ).json() as string[];
  expect(objs.length).toBeGreaterThanOrEqual(2);
  r = await authed('POST', '/pool/p/branch/main/compact', JSON.stringify({ object_ids: objs }), {
    'Content-Type': 'application/json',
  });
  expect(r.status).toBe(200);
  r = await authed('POST', '/pool/p/branch/main/delete', '{where:"a==4"}');
  expect(r.status).toBe(200);
  const del = (r.json() as { commit: string }).commit;
  expect((await authed('POST', `/pool/p/branch/main/revert/${del}`)).status).toBe(200);
  expect((await authed('POST', '/pool/p/revision/main/vacuum?dryrun=T')).status).toBe(200);
  r = await authed('POST', '/index', JSON.stringify({ rules: [{ name: 'As', fields: ['a'] }] }), {
    'Content-Type': 'application/json',
  });
  expect(r.status).toBe(204);
  r = await authed('POST', '/pool/p/branch/main/index/update', '{}', {
    'Content-Type': 'application/json',
  });
  expect(r.status).toBe(200);
  expect((await authed('DELETE', '/pool/p/branch/dev')).status).toBe(204);
  expect((await authed('PUT', '/pool/p', '{name:"q"}')).status).toBe(204);
  expect((await authed('DELETE', '/pool/q')).status).toBe(204);
  // Lowercase scheme, as some clients send it.
  r = await call(base, 'GET', '/auth/identity', {
    headers: { Accept: 'application/json', Authorization: `bearer ${token}` },
  });
  expect(r.status).toBe(200);
});

/** Opens GET /events with headers and collects its text until closed. */
function subscribe(headers: Record<string, string>) {
  let text = '';
  let status = 0;
  let req: http.ClientRequest | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    req = http.get(`${base}/events`, { headers }, (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', resolve);
      resolve();
    });
    req.on('error', reject);
  });
  return {
    ready,
    status: () => status,
    text: () => text,
    close: () => req?.destroy(),
  };
}

test('the event stream needs a token and then streams commits', async () => {
  const refused = subscribe({});
  await refused.ready;
  expect(refused.status()).toBe(401);
  for (let i = 0; i < 100 && !refused.text().endsWith('\n'); i++) await sleep(10);
  expect(refused.text()).toBe(noToken);
  refused.close();

  const s = subscribe({ ...bearer(token), Accept: 'application/json' });
  await s.ready;
  expect(s.status()).toBe(200);
  expect((await authed('POST', '/pool', '{name:"ev"}')).status).toBe(200);
  expect((await authed('POST', '/pool/ev/branch/main', '{x:1}')).status).toBe(200);
  for (let i = 0; i < 500 && !s.text().includes('event: branch-commit'); i++) await sleep(10);
  s.close();
  expect(s.text()).toContain('event: pool-new');
  expect(s.text()).toContain('event: branch-commit');
});

test('refusals are counted in /metrics and logged', async () => {
  const refusals = () => readFileSync(logPath, 'utf8').split('Unauthorized request').length - 1;
  // Earlier tests' refusals may still be on their way to the file.
  await sleep(200);
  const logged = refusals();
  const before = await metric();
  await call(base, 'GET', '/pool/x');
  await call(base, 'GET', '/pool/x', { headers: bearer('junk') });
  expect((await metric()) - before).toBe(2);
  // The log is written as it goes: wait for these two lines.
  for (let i = 0; i < 200 && refusals() < logged + 2; i++) await sleep(10);
  const lines = readFileSync(logPath, 'utf8')
    .split('\n')
    .filter((l) => l.includes('Unauthorized request'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines.length).toBeGreaterThanOrEqual(2);
  const last = lines[lines.length - 1];
  expect(last).toMatchObject({
    level: 'info',
    logger: 'auth',
    msg: 'Unauthorized request',
    error: 'missing authentication credentials: invalid token',
  });
  expect(typeof last.request_id).toBe('string');
  // A token never reaches the log.
  expect(readFileSync(logPath, 'utf8')).not.toContain(token);
});

// Replicas share only the lake and the key set: a token works on any of
// them, and one's event stream carries the other's commits.
(onS3Redis ? test : test.skip)('a second replica accepts the same tokens', async () => {
  const second = await serveChild(serveArgs, serveEnv);
  try {
    const r = await call(second.base, 'GET', '/auth/identity', {
      headers: { Accept: 'application/json', ...bearer(token) },
    });
    expect([r.status, r.json()]).toEqual([200, { tenant_id: 'tenant1', user_id: 'user1' }]);
    expect((await call(second.base, 'GET', '/pool/x')).text).toBe(noToken);
    const events: string[] = [];
    const req = http.get(
      `${second.base}/events`,
      { headers: { ...bearer(token), Accept: 'application/json' } },
      (res) => res.setEncoding('utf8').on('data', (c: string) => events.push(c)),
    );
    req.on('error', () => undefined);
    await sleep(200);
    expect((await authed('POST', '/pool', '{name:"rep"}')).status).toBe(200);
    for (let i = 0; i < 500 && !events.join('').includes('pool-new'); i++) await sleep(10);
    req.destroy();
    expect(events.join('')).toContain('event: pool-new');
  } finally {
    const gone = new Promise((r) => second.child.once('exit', r));
    second.child.kill('SIGTERM');
    await gone;
  }
});

async function metric(): Promise<number> {
  const text = (await call(base, 'GET', '/metrics')).text;
  const m = /^zlake_request_errors_unauthorized_total (\d+)$/m.exec(text);
  return Number(m![1]);
}

describe('zlake serve refuses an incomplete or bad configuration', () => {
  // Checked before the lake is opened or anything listens.
  const lake = () => ['-l', '127.0.0.1:0', '-lake', path.join(dir, 'never')];

  test('every -auth setting is needed', async () => {
    await expect(serve([...lake(), '-auth.enabled', '-auth.audience', 'a'])).rejects.toThrow(
      'auth.audience, auth.clientid, auth.domain, and auth.jwkspath must be set when auth enabled',
    );
  });

  test('a key set that cannot be read', async () => {
    const missing = path.join(dir, 'none.json');
    await expect(
      serve([
        ...lake(),
        '-auth.enabled',
        '-auth.audience=a',
        '-auth.clientid=c',
        '-auth.domain=https://d',
        `-auth.jwkspath=${missing}`,
      ]),
    ).rejects.toThrow(`failed to load JWKS file: open ${missing}: no such file or directory`);
  });
});
