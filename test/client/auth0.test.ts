// The Auth0 client against a local stand-in tenant: the device flow's
// polling (pending, slow_down, a refusal) and its error texts.

import { Auth0Client, Auth0Error } from '../../src/client';
import { makeKey } from '../helpers/jwt';
import { OAuthServer } from '../helpers/oauth';

let oauth: OAuthServer;
let client: Auth0Client;

beforeAll(async () => {
  oauth = await new OAuthServer(makeKey('k', 1024), 'aud', 'cid').start();
  client = new Auth0Client({ audience: 'aud', client_id: 'cid', domain: oauth.url });
});

afterAll(() => oauth.close());

afterEach(() => {
  oauth.firstPollError = '';
  oauth.pendingPolls = 1;
});

test('slow_down waits five seconds more, then polling goes on', async () => {
  oauth.firstPollError = 'slow_down';
  const dcr = await client.deviceCode('openid');
  const start = Date.now();
  const before = oauth.requests.length;
  const tokens = await client.pollDeviceCodeTokens(dcr);
  const polls = oauth.requests.slice(before).map((r) => r.path);
  // slow_down after 1 s, then the tokens after 1 + 5 s more.
  expect(polls).toEqual(['/oauth/token', '/oauth/token']);
  expect(Date.now() - start).toBeGreaterThanOrEqual(7000);
  expect(tokens.refresh).toMatch(/^refresh-token-/);
}, 30000);

test('a refusal ends the polling with Auth0’s error', async () => {
  oauth.firstPollError = 'access_denied';
  const dcr = await client.deviceCode('openid');
  const err = await client.pollDeviceCodeTokens(dcr).catch((e: Error) => e);
  expect(err).toBeInstanceOf(Auth0Error);
  expect((err as Error).message).toBe('auth0 error: access_denied: access_denied for the test.');
});

test('polling stops when aborted', async () => {
  oauth.pendingPolls = 1000;
  const dcr = await client.deviceCode('openid');
  const stop = new AbortController();
  setTimeout(() => stop.abort(new Error('context canceled')), 1500);
  await expect(client.pollDeviceCodeTokens(dcr, stop.signal)).rejects.toThrow('context canceled');
});

test('an unreachable tenant is reported as Go reports it', async () => {
  const gone = new Auth0Client({ audience: 'a', client_id: 'c', domain: 'http://127.0.0.1:1' });
  await expect(gone.refreshToken('r')).rejects.toThrow(
    'Post "http://127.0.0.1:1/oauth/token": dial tcp 127.0.0.1:1: connect: connection refused',
  );
});
