// The token validator and the JWKS loader: every way a token can be bad
// gets the reference's reason, a good one its identity.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Authenticator } from '../../../src/service/auth/authenticator';
import { loadJWKS } from '../../../src/service/auth/jwks';
import { TokenValidator } from '../../../src/service/auth/token';
import { NoCredentialsError } from '../../../src/service/errors';
import {
  accessToken,
  jwk,
  makeKey,
  signToken,
  TENANT_CLAIM,
  TestKey,
  USER_CLAIM,
  writeJWKS,
} from '../../helpers/jwt';

const AUD = 'testaudience';
const DOMAIN = 'https://testdomain';

let dir: string;
let key: TestKey;
let other: TestKey;
let auth: Authenticator;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'zlake-jwks-'));
  key = makeKey('testkey');
  other = makeKey('otherkey');
  const jwks = writeJWKS(path.join(dir, 'jwks.json'), [jwk(key, 'x5c')]);
  auth = Authenticator.open({
    enabled: true,
    audience: AUD,
    clientId: 'testclientid',
    domain: DOMAIN,
    jwksPath: jwks,
  })!;
});

const now = () => Math.floor(Date.now() / 1000);

function claims(over: Record<string, unknown> = {}): Record<string, unknown> {
  const c: Record<string, unknown> = {
    aud: AUD,
    exp: now() + 3600,
    iss: DOMAIN + '/',
    [TENANT_CLAIM]: 'test_tenant_id',
    [USER_CLAIM]: 'test_user_id',
    ...over,
  };
  for (const k of Object.keys(c)) if (c[k] === undefined) delete c[k];
  return c;
}

const rs256 = (c: Record<string, unknown>, k: TestKey = key) =>
  signToken({ alg: 'RS256', kid: k.kid }, c, k.privateKey);

/** The reason a header is refused, or the identity it carries. */
function check(authorization: string | undefined): string | { tenantId: string; userId: string } {
  try {
    return auth.authenticate(authorization);
  } catch (e) {
    expect(e).toBeInstanceOf(NoCredentialsError);
    return (e as Error).message;
  }
}

test('a token as gentoken makes it carries its tenant and user', () => {
  const t = accessToken(key, { audience: AUD, domain: DOMAIN, tenantId: 't1', userId: 'u1' });
  expect(check(`Bearer ${t}`)).toEqual({ tenantId: 't1', userId: 'u1' });
  // The scheme is matched in any case; a bare token is taken as it is.
  expect(check(`bearer ${t}`)).toEqual({ tenantId: 't1', userId: 'u1' });
  expect(check(t)).toEqual({ tenantId: 't1', userId: 'u1' });
});

test('without the tenant and user claims the identity is the anonymous one', () => {
  const t = rs256(claims({ [TENANT_CLAIM]: undefined, [USER_CLAIM]: undefined }));
  expect(check(`Bearer ${t}`)).toEqual({
    tenantId: 'tenant_000000000000000000000000001',
    userId: 'user_000000000000000000000000001',
  });
});

test('an audience list holding ours is accepted; one without it is not', () => {
  expect(check(`Bearer ${rs256(claims({ aud: [AUD, 'foobar'] }))}`)).toEqual({
    tenantId: 'test_tenant_id',
    userId: 'test_user_id',
  });
  expect(check(`Bearer ${rs256(claims({ aud: ['foo', 'bar'] }))}`)).toBe('invalid audience');
});

test('missing or empty credentials', () => {
  expect(check(undefined)).toBe('no token present in request');
  expect(check('')).toBe('no token present in request');
  expect(check('Bearer ')).toBe('missing authentication credentials');
  // "Bearer" alone is not the scheme and a space: it is taken as the token.
  expect(check('Bearer')).toBe('invalid token');
  expect(check('Basic dXNlcjpwdw==')).toBe('invalid token');
});

test('malformed tokens, bad signatures and unknown keys are invalid tokens', () => {
  const good = rs256(claims());
  const [h, c, s] = good.split('.');
  const cases: Record<string, string> = {
    'not a JWT': 'abc',
    'two segments': `${h}.${c}`,
    'four segments': `${good}.x`,
    'padded base64': `${h}=.${c}.${s}`,
    'standard base64': `${h}.${c}.${s.replace(/-/g, '+').replace(/_/g, '/')}x+/`,
    'header not JSON': `${Buffer.from('{alg').toString('base64url')}.${c}.${s}`,
    'claims an array': `${h}.${Buffer.from('[1]').toString('base64url')}.${s}`,
    'signature of other claims': `${h}.${rs256(claims({ aud: 'x' })).split('.')[1]}.${s}`,
    'truncated signature': `${h}.${c}.${s.slice(0, -4)}`,
    'signed by a key not in the set': rs256(claims(), { ...other, kid: 'testkey' }),
    'unknown kid': signToken({ alg: 'RS256', kid: 'foo' }, claims(), key.privateKey),
    'no kid': signToken({ alg: 'RS256' }, claims(), key.privateKey),
    'kid not a string': signToken({ alg: 'RS256', kid: 7 }, claims(), key.privateKey),
    'no alg': signToken({ kid: 'testkey' }, claims(), key.privateKey),
    'unknown alg': signToken({ alg: 'XS256', kid: 'testkey' }, claims(), key.privateKey),
    'alg none': signToken({ alg: 'none', kid: 'testkey' }, claims(), key.privateKey),
    'alg none, signature kept': `${signToken({ alg: 'none', kid: 'testkey' }, claims(), key.privateKey)}${s}`,
    // The classic confusion: HMAC keyed with the public key's text.
    'HS256 with the public key as secret': signToken(
      { alg: 'HS256', kid: 'testkey' },
      claims(),
      key.privateKey,
      key.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    ),
    'HS256 with a secret': signToken({ alg: 'HS256', kid: 'testkey' }, claims(), key.privateKey),
    'ES256 header': signToken({ alg: 'ES256', kid: 'testkey' }, claims(), key.privateKey),
    expired: rs256(claims({ exp: now() - 1 })),
    'expires this second': rs256(claims({ exp: now() })),
    'exp not a number': rs256(claims({ exp: String(now() + 3600) })),
    'not valid before a later time': rs256(claims({ nbf: now() + 60 })),
    'issued in the future': rs256(claims({ iat: now() + 60 })),
  };
  for (const [name, token] of Object.entries(cases)) {
    expect([name, check(`Bearer ${token}`)]).toEqual([name, 'invalid token']);
  }
});

test('a token that passed is refused once it expires, and each caller gets its own identity', () => {
  const v = new TokenValidator(AUD, DOMAIN, loadJWKS(path.join(dir, 'jwks.json')));
  const exp = now() + 100;
  const t = rs256(claims({ exp }));
  const first = v.validate(t);
  expect(first).toEqual({ tenantId: 'test_tenant_id', userId: 'test_user_id' });
  first.userId = 'changed';
  expect(v.validate(t, exp - 1).userId).toBe('test_user_id');
  expect(() => v.validate(t, exp)).toThrow('invalid token');
  expect(() => v.validate(t, exp + 3600)).toThrow('invalid token');
});

test('a valid signature by another RSA algorithm is an invalid signing method', () => {
  for (const alg of ['RS384', 'RS512', 'PS256']) {
    const t = signToken({ alg, kid: 'testkey' }, claims(), key.privateKey);
    expect([alg, check(`Bearer ${t}`)]).toEqual([alg, 'invalid signing method']);
  }
});

test('bad claims get their reasons, in the reference order', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['missing audience', { aud: undefined }, 'invalid audience'],
    ['other audience', { aud: 'foo' }, 'invalid audience'],
    ['empty audience', { aud: '' }, 'invalid audience'],
    ['audience a number', { aud: 7 }, 'invalid audience'],
    ['audience list with a number', { aud: [AUD, 7] }, 'invalid audience'],
    ['missing expiration', { exp: undefined }, 'invalid expiration'],
    ['zero expiration', { exp: 0 }, 'invalid expiration'],
    ['missing issuer', { iss: undefined }, 'invalid issuer'],
    ['other issuer', { iss: 'foo' }, 'invalid issuer'],
    ['issuer without the slash', { iss: DOMAIN }, 'invalid issuer'],
    ['issuer not a string', { iss: 5 }, 'invalid issuer'],
    ['empty user id', { [USER_CLAIM]: '' }, 'invalid tenant ID'],
    [
      'anonymous user id',
      { [USER_CLAIM]: 'user_000000000000000000000000001' },
      'invalid tenant ID',
    ],
    ['user id not a string', { [USER_CLAIM]: 1 }, 'invalid tenant ID'],
    ['empty tenant id', { [TENANT_CLAIM]: '' }, 'invalid tenant ID'],
    [
      'anonymous tenant id',
      { [TENANT_CLAIM]: 'tenant_000000000000000000000000001' },
      'invalid tenant ID',
    ],
    // The first failing check decides.
    ['bad audience and issuer', { aud: 'x', iss: 'y' }, 'invalid audience'],
    ['no exp and bad issuer', { exp: undefined, iss: 'y' }, 'invalid expiration'],
  ];
  for (const [name, over, reason] of cases) {
    expect([name, check(`Bearer ${rs256(claims(over))}`)]).toEqual([name, reason]);
  }
});

test('a key set with several keys accepts each; n/e keys count too', () => {
  const k3 = makeKey('nekey');
  const jwks = writeJWKS(path.join(dir, 'multi.json'), [
    jwk(key, 'x5c'),
    jwk(other, 'both'),
    jwk(k3, 'ne'),
  ]);
  const a = Authenticator.open({
    enabled: true,
    audience: AUD,
    clientId: 'c',
    domain: DOMAIN,
    jwksPath: jwks,
  })!;
  expect(a.keyCount).toBe(3);
  for (const k of [key, other, k3]) {
    const t = accessToken(k, { audience: AUD, domain: DOMAIN, tenantId: 't', userId: k.kid });
    expect(a.authenticate(`Bearer ${t}`).userId).toBe(k.kid);
  }
});

test('the issuer is the domain as a URL plus a slash', () => {
  const jwks = writeJWKS(path.join(dir, 'd.json'), [jwk(key)]);
  const open = (domain: string) =>
    Authenticator.open({ enabled: true, audience: AUD, clientId: 'c', domain, jwksPath: jwks })!;
  // The scheme is case-insensitive, as Go's url.Parse has it.
  const a = open('HTTPS://testdomain');
  expect(a.details.domain).toBe('HTTPS://testdomain');
  const t = accessToken(key, { audience: AUD, domain: 'https://testdomain', tenantId: 't' });
  expect(a.authenticate(`Bearer ${t}`).tenantId).toBe('t');
  // A bare word works too (the reference's python-auth.yaml uses "d").
  const d = open('d');
  expect(d.authenticate(`Bearer ${accessToken(key, { audience: AUD, domain: 'd' })}`)).toEqual({
    tenantId: 'tenant_000000000000000000000000001',
    userId: 'user_000000000000000000000000001',
  });
});

describe('configuration errors', () => {
  const base = { enabled: true, audience: AUD, clientId: 'c', domain: DOMAIN, jwksPath: '' };

  test('off means no authenticator', () => {
    expect(Authenticator.open({ ...base, enabled: false })).toBeNull();
  });

  test('every setting is required', () => {
    const jwksPath = writeJWKS(path.join(dir, 'r.json'), [jwk(key)]);
    for (const missing of ['audience', 'clientId', 'domain', 'jwksPath']) {
      expect(() => Authenticator.open({ ...base, jwksPath, [missing]: '' })).toThrow(
        'auth.audience, auth.clientid, auth.domain, and auth.jwkspath must be set when auth enabled',
      );
    }
  });

  test('bad domains and key sets say what is wrong', () => {
    const jwksPath = writeJWKS(path.join(dir, 'ok.json'), [jwk(key)]);
    expect(() => Authenticator.open({ ...base, jwksPath, domain: ':x' })).toThrow(
      'bad auth.domain URL: parse ":x": missing protocol scheme',
    );
    const missing = path.join(dir, 'nope.json');
    expect(() => Authenticator.open({ ...base, jwksPath: missing })).toThrow(
      `failed to load JWKS file: open ${missing}: no such file or directory`,
    );
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{"keys": [');
    expect(() => Authenticator.open({ ...base, jwksPath: bad })).toThrow(
      new RegExp(`^failed to load JWKS file: ${bad}: unmarshaling error: `),
    );
    writeFileSync(bad, '{"keys": {}}');
    expect(() => Authenticator.open({ ...base, jwksPath: bad })).toThrow(/unmarshaling error/);
    writeFileSync(bad, JSON.stringify({ keys: [{ kid: 'k', x5c: ['not base64!'] }] }));
    expect(() => Authenticator.open({ ...base, jwksPath: bad })).toThrow(
      'failed to load JWKS file: Invalid Key: Key must be a PEM encoded PKCS1 or PKCS8 key',
    );
    writeFileSync(bad, JSON.stringify({ keys: [{ kid: 'k', x5c: ['AAAA'] }] }));
    expect(() => Authenticator.open({ ...base, jwksPath: bad })).toThrow(
      'failed to load JWKS file: x509: malformed certificate',
    );
  });

  test('keys with neither a certificate nor an RSA modulus are skipped', () => {
    const p = path.join(dir, 'skip.json');
    writeFileSync(
      p,
      JSON.stringify({ keys: [{ kid: 'a', kty: 'EC' }, { kid: 'b' }, null, jwk(key, 'x5c')] }),
    );
    expect([...loadJWKS(p).keys()]).toEqual(['testkey']);
    writeFileSync(p, JSON.stringify({ keys: [] }));
    expect(loadJWKS(p).size).toBe(0);
  });

  test('a certificate of a non-RSA key is refused', () => {
    // An SPKI of an EC key, where a certificate would go.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { generateKeyPairSync } = require('node:crypto') as typeof import('node:crypto');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    const p = path.join(dir, 'ec.json');
    writeFileSync(
      p,
      JSON.stringify({
        keys: [{ kid: 'e', x5c: [ec.export({ type: 'spki', format: 'der' }).toString('base64')] }],
      }),
    );
    expect(() => loadJWKS(p)).toThrow('key is not a valid RSA public key');
  });
});
