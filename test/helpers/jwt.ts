// Test keys and tokens, made with node:crypto: an RSA key pair, a
// self-signed X.509 certificate of its public key (what an Auth0 JWKS
// carries in `x5c`), the JWKS file, and JSON Web Tokens signed by any
// algorithm (or forged), as the reference's gentoken makes them.

import {
  createHmac,
  generateKeyPairSync,
  KeyObject,
  sign,
  constants,
  X509Certificate,
} from 'node:crypto';
import { writeFileSync } from 'node:fs';

// ---- a little DER, enough for a certificate ----

function tlv(tag: number, body: Buffer): Buffer {
  const n = body.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const int = (n: number) => tlv(0x02, Buffer.from([n]));
const nul = Buffer.from([0x05, 0x00]);

function oid(text: string): Buffer {
  const [a, b, ...rest] = text.split('.').map(Number);
  const out = [a * 40 + b];
  for (const v of rest) {
    const parts = [v & 0x7f];
    for (let x = v >> 7; x > 0; x >>= 7) parts.unshift((x & 0x7f) | 0x80);
    out.push(...parts);
  }
  return tlv(0x06, Buffer.from(out));
}

function utcTime(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const s =
    p(d.getUTCFullYear() % 100) +
    p(d.getUTCMonth() + 1) +
    p(d.getUTCDate()) +
    p(d.getUTCHours()) +
    p(d.getUTCMinutes()) +
    p(d.getUTCSeconds()) +
    'Z';
  return tlv(0x17, Buffer.from(s));
}

const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';

/** A self-signed certificate (DER) of the key pair, named CN=name. */
export function selfSignedCertificate(
  privateKey: KeyObject,
  publicKey: KeyObject,
  name = 'zlake test',
): Buffer {
  const alg = seq(oid(SHA256_WITH_RSA), nul);
  const dn = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(name)))));
  const now = Date.now();
  const tbs = seq(
    tlv(0xa0, int(2)),
    int(1),
    alg,
    dn,
    seq(utcTime(new Date(now - 3600e3)), utcTime(new Date(now + 365 * 86400e3))),
    dn,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const cert = seq(tbs, alg, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  // Node parses it, or the test is wrong.
  new X509Certificate(cert);
  return cert;
}

// ---- keys and key sets ----

export interface TestKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key's self-signed certificate, base64 DER (an x5c entry). */
  x5c: string;
}

export function makeKey(kid: string, bits = 2048): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  const x5c = selfSignedCertificate(privateKey, publicKey).toString('base64');
  return { kid, privateKey, publicKey, x5c };
}

/** A JWKS entry as Auth0 publishes it: the certificate, and n and e too. */
export function jwk(k: TestKey, form: 'x5c' | 'ne' | 'both' = 'both'): Record<string, unknown> {
  const { n, e } = k.publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  const out: Record<string, unknown> = { alg: 'RS256', kty: 'RSA', use: 'sig', kid: k.kid };
  if (form !== 'x5c') Object.assign(out, { n, e });
  if (form !== 'ne') out.x5c = [k.x5c];
  return out;
}

export function writeJWKS(path: string, keys: Record<string, unknown>[]): string {
  writeFileSync(path, JSON.stringify({ keys }, null, 2));
  return path;
}

// ---- tokens ----

export const TENANT_CLAIM = 'https://lake.brimdata.io/tenant_id';
export const USER_CLAIM = 'https://lake.brimdata.io/user_id';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/**
 * A JWT of header and claims signed by alg: RS*, PS* with the key,
 * HS* with secret, "none" unsigned, anything else as RS256.
 */
export function signToken(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  key: KeyObject,
  secret = 'secret',
): string {
  const alg = String(header.alg);
  const input = `${b64(header)}.${b64(claims)}`;
  // Unknown algorithms (ES256, made-up ones) get an RS256 signature.
  const hash = /^(RS|PS|HS)(256|384|512)$/.test(alg) ? `sha${alg.slice(2)}` : 'sha256';
  let sig: Buffer;
  if (alg === 'none') sig = Buffer.alloc(0);
  else if (alg.startsWith('HS')) sig = createHmac(hash, secret).update(input).digest();
  else if (alg.startsWith('PS')) {
    sig = sign(hash, Buffer.from(input), {
      key,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
    });
  } else sig = sign(hash, Buffer.from(input), key);
  return `${input}.${sig.toString('base64url')}`;
}

export interface TokenSpec {
  audience: string;
  /** The Auth0 domain; the issuer is it plus "/". */
  domain: string;
  tenantId?: string;
  userId?: string;
  /** Seconds until expiry (negative: expired). */
  expiresIn?: number;
}

/** An access token as the reference's gentoken makes it (RS256, kid, aud, exp, iss, ids). */
export function accessToken(key: TestKey, spec: TokenSpec): string {
  const claims: Record<string, unknown> = {
    aud: spec.audience,
    exp: Math.floor(Date.now() / 1000) + (spec.expiresIn ?? 4 * 3600),
    iss: spec.domain + '/',
  };
  if (spec.tenantId !== undefined) claims[TENANT_CLAIM] = spec.tenantId;
  if (spec.userId !== undefined) claims[USER_CLAIM] = spec.userId;
  return signToken({ alg: 'RS256', kid: key.kid, typ: 'JWT' }, claims, key.privateKey);
}
