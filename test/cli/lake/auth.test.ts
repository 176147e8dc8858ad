// zlake auth login|logout|method|store|verify, and the lake commands with
// stored credentials, against a `zlake serve` child with authentication
// on and a real local HTTP server standing in for its Auth0 tenant
// (device-code login, token refresh).

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { jwk, makeKey, TestKey, writeJWKS } from '../../helpers/jwt';
import { OAuthServer } from '../../helpers/oauth';
import {
  bashScript,
  serveChild,
  Served,
  tempDir,
  writeTemp,
  zlake,
  zlakeBin,
  Result,
} from '../../client/helpers';

jest.setTimeout(120000);

const AUD = 'https://lake.example.com';
const CLIENT = 'testclient';

let key: TestKey;
let oauth: OAuthServer;
let srv: Served;
let plain: Served;
let bin: string;

beforeAll(async () => {
  key = makeKey('testkey');
  oauth = await new OAuthServer(key, AUD, CLIENT).start();
  const dir = tempDir('zlake-auth-cli-');
  const jwks = writeJWKS(path.join(dir, 'jwks.json'), [jwk(key, 'x5c')]);
  [srv, plain, bin] = await Promise.all([
    serveChild([
      '-auth.enabled',
      `-auth.audience=${AUD}`,
      `-auth.clientid=${CLIENT}`,
      `-auth.domain=${oauth.url}`,
      `-auth.jwkspath=${jwks}`,
    ]),
    serveChild(),
    zlakeBin(),
  ]);
});

afterAll(async () => {
  await Promise.all([srv.close(), plain.close(), oauth.close()]);
});

/** Runs zlake against the auth service with a config directory of its own. */
function run(configDir: string, ...args: string[]): Promise<Result> {
  return zlake(args, { ZED_LAKE: srv.url, ZED_HEAD_DIR: configDir, ZED_USER: 'tester' }, '');
}

function credentials(dir: string): {
  version: number;
  services: Record<string, { access: string; expiration: string; id: string; refresh: string }>;
} {
  return JSON.parse(readFileSync(path.join(dir, 'credentials.json'), 'utf8'));
}

test('auth.yaml: store a token, verify it, use it; without it a 401', async () => {
  // The reference's script, with the token made here instead of by gentoken.
  const dir = tempDir('zlake-auth-script-');
  const token = oauth.token();
  const script = `
zed auth store -configdir user1 -access $TOKEN
zed auth verify -configdir user1
zed create -configdir user1 -q test0
# Unauthenticated user should not be able to create a pool.
! zed create -q test1
`;
  const r = await bashScript(
    script,
    dir,
    bin,
    {
      ZED_LAKE: srv.url,
      ZED_HEAD_DIR: dir,
      HOME: dir,
      TOKEN: token,
    },
    ['-e'],
  );
  expect(r).toEqual({
    code: 0,
    stdout: '{\n\t"tenant_id": "tenant1",\n\t"user_id": "user1"\n}\n',
    stderr: 'status code 401: no token present in request\n',
  });
  // The credentials file, as the reference lays it out.
  const file = path.join(dir, 'user1', 'credentials.json');
  expect(readFileSync(file, 'utf8')).toBe(
    `{\n    "version": 1,\n    "services": {\n        "${srv.url}": {\n            "access": "${token}",\n            "expiration": "0001-01-01T00:00:00Z",\n            "id": "",\n            "refresh": ""\n        }\n    }\n}\n`,
  );
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
});

test('auth method prints the service’s method as the reference does', async () => {
  const dir = tempDir('zlake-auth-');
  let r = await run(dir, 'auth', 'method');
  expect(r).toEqual({
    code: 0,
    stdout: `{\n\t"kind": "auth0",\n\t"auth0": {\n\t\t"audience": "${AUD}",\n\t\t"client_id": "${CLIENT}",\n\t\t"domain": "${oauth.url}"\n\t}\n}\n`,
    stderr: '',
  });
  r = await zlake(['auth', 'method'], { ZED_LAKE: plain.url });
  expect(r.stdout).toBe('{\n\t"kind": ""\n}\n');
  r = await zlake(['auth', 'verify'], { ZED_LAKE: plain.url });
  expect(r.stdout).toBe(
    '{\n\t"tenant_id": "tenant_000000000000000000000000001",\n\t"user_id": "user_000000000000000000000000001"\n}\n',
  );
});

test('verify without credentials, with a bad token, and logout', async () => {
  const dir = tempDir('zlake-auth-');
  let r = await run(dir, 'auth', 'verify', '-configdir', dir);
  expect([r.code, r.stderr]).toEqual([1, 'status code 401: no token present in request\n']);
  expect((await run(dir, 'auth', 'store', '-configdir', dir, '-access', 'junk')).code).toBe(0);
  r = await run(dir, 'auth', 'verify', '-configdir', dir);
  // An invalid token with no refresh token to trade: Auth0 says why.
  expect([r.code, r.stderr]).toEqual([
    1,
    'auth0 error: invalid_grant: Unknown or invalid refresh token.\n',
  ]);
  expect((await run(dir, 'auth', 'store', '-configdir', dir, '-access', oauth.token())).code).toBe(
    0,
  );
  expect((await run(dir, 'auth', 'verify', '-configdir', dir)).code).toBe(0);
  // Root flags before the command name carry to the subcommand.
  expect((await run(dir, '-configdir', dir, 'auth', 'verify')).code).toBe(0);
  expect(await run(dir, 'auth', 'logout', '-configdir', dir)).toEqual({
    code: 0,
    stdout: '',
    stderr: '',
  });
  expect(credentials(dir).services).toEqual({});
  r = await run(dir, 'auth', 'verify', '-configdir', dir);
  expect(r.stderr).toBe('status code 401: no token present in request\n');
});

test('the subcommands take no arguments; auth alone prints help', async () => {
  const dir = tempDir('zlake-auth-');
  for (const sub of ['login', 'logout', 'method', 'store', 'verify']) {
    const r = await run(dir, 'auth', sub, '-configdir', dir, 'extra');
    expect([sub, r.code, r.stderr]).toEqual([sub, 1, `${sub} command takes no arguments\n`]);
  }
  let r = await run(dir, 'auth');
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/^NAME\n {4}zlake auth - authentication and authorization commands\n/);
  r = await run(dir, 'auth', 'nope');
  expect(r.stderr).toBe(
    '"zlake auth": no such sub-command "nope": options are: login logout method verify\n',
  );
});

test('login runs the device flow, stores the tokens, and commands then work', async () => {
  const dir = tempDir('zlake-auth-');
  const before = oauth.requests.length;
  const r = await run(dir, 'auth', 'login', '-configdir', dir, '-launchbrowser=false');
  expect(r).toEqual({
    code: 0,
    stdout:
      `method ${CLIENT}\ndomain ${oauth.url}\naudience ${AUD}\n` +
      `Complete authentication at ${oauth.url}/activate?user_code=WDJB-MJHT\n` +
      `Verification code: WDJB-MJHT\n` +
      `Login successful, stored credentials for ${srv.url}\n`,
    stderr: '',
  });
  const seen = oauth.requests.slice(before);
  expect(seen[0]).toEqual({
    path: '/oauth/device/code',
    body: { audience: AUD, client_id: CLIENT, scope: 'openid email profile offline_access' },
  });
  // One authorization_pending, then the tokens.
  expect(seen.slice(1)).toEqual([
    {
      path: '/oauth/token',
      body: {
        client_id: CLIENT,
        device_code: 'device-code-1',
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      },
    },
    {
      path: '/oauth/token',
      body: {
        client_id: CLIENT,
        device_code: 'device-code-1',
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      },
    },
  ]);
  const t = credentials(dir).services[srv.url];
  expect(t.refresh).toMatch(/^refresh-token-\d+$/);
  expect(t.id).toMatch(/^id-token-\d+$/);
  const exp = Date.parse(t.expiration);
  expect(Math.abs(exp - (Date.now() + 3600e3))).toBeLessThan(60e3);
  expect((await run(dir, 'create', '-configdir', dir, '-q', 'loggedin')).code).toBe(0);
  expect((await run(dir, 'ls', '-configdir', dir)).stdout).toMatch(/^loggedin /m);
});

test('login to a service without authentication says so', async () => {
  const dir = tempDir('zlake-auth-');
  const r = await zlake(['auth', 'login', '-configdir', dir, '-launchbrowser=false'], {
    ZED_LAKE: plain.url,
  });
  expect([r.code, r.stderr]).toEqual([
    1,
    `Zed lake service at ${plain.url} does not support authentication\n`,
  ]);
  const gone = await zlake(['auth', 'login', '-configdir', dir], {
    ZED_LAKE: 'http://127.0.0.1:1',
  });
  expect(gone.stderr).toMatch(
    /^failed to obtain authentication method: Get "http:\/\/127\.0\.0\.1:1\/auth\/method": dial tcp 127\.0\.0\.1:1: connect: connection refused\n$/,
  );
});

test('an expired access token is refreshed with the refresh token', async () => {
  const dir = tempDir('zlake-auth-');
  // Log in, then let the access token expire.
  await run(dir, 'auth', 'login', '-configdir', dir, '-launchbrowser=false');
  const first = credentials(dir).services[srv.url];
  const expired = oauth.token(-60);
  await run(dir, 'auth', 'store', '-configdir', dir, '-access', expired);
  expect(credentials(dir).services[srv.url]).toEqual({ ...first, access: expired });

  const before = oauth.requests.length;
  expect((await run(dir, 'create', '-configdir', dir, '-q', 'refreshed')).code).toBe(0);
  expect(oauth.requests.slice(before)).toEqual([
    {
      path: '/oauth/token',
      body: { client_id: CLIENT, grant_type: 'refresh_token', refresh_token: first.refresh },
    },
  ]);
  const now = credentials(dir).services[srv.url];
  expect(now.access).not.toBe(expired);
  // Without rotation the refresh token is kept.
  expect(now.refresh).toBe(first.refresh);

  // A load after its token expired (test/client/refresh.test.ts sends a
  // streamed body again after a refresh; here the pool lookup refreshes).
  await run(dir, 'auth', 'store', '-configdir', dir, '-access', oauth.token(-60));
  const lines = Array.from({ length: 20000 }, (_, i) => `{i:${i},s:"${'x'.repeat(40)}"}`);
  const file = writeTemp(lines.join('\n'));
  let r = await run(dir, 'load', '-configdir', dir, '-use', 'refreshed', '-q', file);
  expect([r.code, r.stderr]).toEqual([0, '']);
  r = await run(dir, 'query', '-configdir', dir, '-z', 'from refreshed | count()');
  expect(r.stdout).toBe('20000(uint64)\n');

  // With rotation the new refresh token is stored.
  oauth.rotate = true;
  try {
    await run(dir, 'auth', 'store', '-configdir', dir, '-access', oauth.token(-60));
    expect((await run(dir, 'ls', '-configdir', dir)).code).toBe(0);
    expect(credentials(dir).services[srv.url].refresh).not.toBe(first.refresh);
  } finally {
    oauth.rotate = false;
  }
});

test('a failed refresh is reported and leaves the credentials as they were', async () => {
  const dir = tempDir('zlake-auth-');
  await run(dir, 'auth', 'login', '-configdir', dir, '-launchbrowser=false');
  const expired = oauth.token(-60);
  await run(dir, 'auth', 'store', '-configdir', dir, '-access', expired);
  oauth.refreshTokens.clear();
  const saved = readFileSync(path.join(dir, 'credentials.json'), 'utf8');
  const r = await run(dir, 'ls', '-configdir', dir);
  expect([r.code, r.stderr]).toEqual([
    1,
    'auth0 error: invalid_grant: Unknown or invalid refresh token.\n',
  ]);
  expect(readFileSync(path.join(dir, 'credentials.json'), 'utf8')).toBe(saved);
});

test('credentials are per lake and a file of another version starts afresh', async () => {
  const dir = tempDir('zlake-auth-');
  const file = path.join(dir, 'credentials.json');
  writeFileSync(file, JSON.stringify({ version: 99, services: { x: { access: 'a' } } }));
  await run(dir, 'auth', 'store', '-configdir', dir, '-access', 'one');
  expect(credentials(dir)).toEqual({
    version: 1,
    services: {
      [srv.url]: { access: 'one', expiration: '0001-01-01T00:00:00Z', id: '', refresh: '' },
    },
  });
  // Another lake's entry; each keeps its own.
  await zlake(['auth', 'store', '-configdir', dir, '-access', 'two'], { ZED_LAKE: plain.url });
  expect(Object.keys(credentials(dir).services).sort()).toEqual([plain.url, srv.url].sort());
  await zlake(['auth', 'logout', '-configdir', dir], { ZED_LAKE: plain.url });
  expect(Object.keys(credentials(dir).services)).toEqual([srv.url]);
  // A file that is not JSON is an error for every command that reads it.
  writeFileSync(file, '{not json');
  const r = await run(dir, 'ls', '-configdir', dir);
  expect(r.code).toBe(1);
  expect(r.stderr).not.toBe('');
});
