// The client's token refresh: a request the service refuses as an invalid
// token (an expired one) gets new tokens from the Auth0 stand-in with the
// stored refresh token, stores them, and is sent once more with its body,
// streamed bodies included (up to 16 MiB, as the reference's client).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { openLake } from '../../src/backend/open';
import { CredentialStore, LakeClient, StoredTokenRefresher } from '../../src/client';
import { Lake } from '../../src/lake';
import { Authenticator } from '../../src/service/auth/authenticator';
import { Service } from '../../src/service/server';
import { testLakeOptions } from '../helpers/backend';
import { jwk, makeKey, TestKey, writeJWKS } from '../helpers/jwt';
import { OAuthServer } from '../helpers/oauth';

const AUD = 'aud';
const CLIENT = 'cid';

let dir: string;
let key: TestKey;
let oauth: OAuthServer;
let lake: Lake;
let service: Service;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'zlake-refresh-'));
  key = makeKey('k1');
  oauth = await new OAuthServer(key, AUD, CLIENT).start();
  const auth = Authenticator.open({
    enabled: true,
    audience: AUD,
    clientId: CLIENT,
    domain: oauth.url,
    jwksPath: writeJWKS(path.join(dir, 'jwks.json'), [jwk(key)]),
  });
  lake = await openLake(await testLakeOptions(path.join(dir, 'lake')));
  service = new Service({ lake, auth });
  url = `http://127.0.0.1:${(await service.listen('127.0.0.1:0')).port}`;
});

afterAll(async () => {
  await service.close();
  await lake.close();
  await oauth.close();
});

/** A client whose stored access token has expired, with a good refresh token. */
function expiredClient(): { client: LakeClient; store: CredentialStore; refresh: string } {
  const store = new CredentialStore(path.join(mkdtempSync(path.join(dir, 'cfg-')), 'c.json'));
  const refresh = `refresh-${Math.random()}`;
  oauth.refreshTokens.add(refresh);
  const expired = oauth.token(-60);
  store.setTokens(url, { access: expired, expiration: '', id: '', refresh });
  const client = new LakeClient(url, {
    token: expired,
    refresher: new StoredTokenRefresher(store, url),
  });
  return { client, store, refresh };
}

function refreshes(): number {
  return oauth.requests.filter((r) => r.body.grant_type === 'refresh_token').length;
}

test('a query with an expired token is refreshed and sent again', async () => {
  const { client, store, refresh } = expiredClient();
  const before = refreshes();
  expect(await client.queryJS('from :pools | yield name')).toEqual(expect.arrayContaining([]));
  expect(refreshes() - before).toBe(1);
  const stored = store.tokens(url)!;
  expect(stored.refresh).toBe(refresh);
  expect(stored.id).toMatch(/^id-token-/);
  // The new token stays in use: no more refreshes.
  await client.queryJS('from :pools');
  expect(refreshes() - before).toBe(1);
  client.close();
});

test('a streamed load is sent again whole after the refresh', async () => {
  const { client } = expiredClient();
  const fresh = new LakeClient(url, { token: oauth.token() });
  const { pool } = await fresh.createPool({
    name: 'streamed',
    layout: { order: 'asc', keys: [['i']] },
    seekStride: 65536,
    thresh: 500 * 1024 * 1024,
  });
  const before = refreshes();
  // About 4 MB from a stream that can be read only once, in small pieces:
  // the refusal arrives while it streams.
  let made = 0;
  const source = Readable.from(
    (function* () {
      for (let i = 0; i < 60000; i++) {
        made++;
        yield `{i:${i},s:"${'y'.repeat(50)}"}\n`;
      }
    })(),
  );
  const r = await client.load(pool.id.toString(), 'main', source, {
    contentType: 'application/x-zson',
  });
  expect(r.commit).toBeDefined();
  expect(made).toBe(60000);
  expect(refreshes() - before).toBe(1);
  expect(await fresh.queryJS('from streamed | count()')).toEqual([60000]);
  expect(await fresh.queryJS('from streamed | tail 1 | yield i')).toEqual([59999]);
  client.close();
  fresh.close();
});

test('a streamed body over 16 MiB cannot be sent again', async () => {
  const { client } = expiredClient();
  const body = async (out: Writable) => {
    const chunk = Buffer.alloc(1 << 20, 0x20);
    for (let i = 0; i < 17; i++) {
      if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
    }
  };
  await expect(client.load('x', 'main', body)).rejects.toThrow(
    'request cannot be replayed: read buffer exceeded size limit',
  );
  client.close();
});

test('a refreshed token that is refused again is not refreshed twice', async () => {
  const { client } = expiredClient();
  const before = refreshes();
  oauth.expiresIn = -60;
  try {
    await expect(client.queryJS('from :pools')).rejects.toThrow('status code 401: invalid token');
  } finally {
    oauth.expiresIn = 3600;
  }
  expect(refreshes() - before).toBe(1);
  client.close();
});

test('without stored tokens a refresh says so', async () => {
  const store = new CredentialStore(path.join(mkdtempSync(path.join(dir, 'cfg-')), 'c.json'));
  const client = new LakeClient(url, {
    token: 'junk',
    refresher: new StoredTokenRefresher(store, url),
  });
  await expect(client.queryJS('from :pools')).rejects.toThrow(
    `auth credentials not set for lake: ${url}`,
  );
  client.close();
});

test('a body writer that fails reports its own error and runs once', async () => {
  const { client } = expiredClient();
  let calls = 0;
  const body = async (out: Writable) => {
    calls++;
    out.write('{a:1}\n');
    await new Promise((r) => setTimeout(r, 300));
    throw new Error('input broke');
  };
  await expect(client.load('x', 'main', body)).rejects.toThrow('input broke');
  expect(calls).toBe(1);
  client.close();
});
