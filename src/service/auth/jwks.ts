// The public keys of a JSON Web Key Set file (zlake serve -auth.jwkspath),
// by key ID. As the reference reads them, a key's first X.509 certificate
// (`x5c`, as Auth0 publishes at <domain>/.well-known/jwks.json) holds its
// RSA public key; a key without one is skipped, unless it gives an RSA key
// by its modulus and exponent (`kty: "RSA"`, `n`, `e`), which zlake also
// takes (docs/compatibility.md).

import { createPublicKey, KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Go's texts for the reasons a file cannot be read. */
const fsReasons: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
};

/** The keys of the JWKS file at path; throws with what is wrong with it. */
export function loadJWKS(path: string): Map<string, KeyObject> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const verb = err.code === 'EISDIR' ? 'read' : 'open';
    throw new Error(`${verb} ${path}: ${fsReasons[err.code ?? ''] ?? err.message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: unmarshaling error: ${(e as Error).message}`);
  }
  const keys = new Map<string, KeyObject>();
  if (doc === null) return keys;
  const list = (doc as { keys?: unknown }).keys;
  if (typeof doc !== 'object' || Array.isArray(doc) || (list != null && !Array.isArray(list))) {
    throw new Error(`${path}: unmarshaling error: want an object with a "keys" array`);
  }
  for (const [i, jwk] of (list ?? []).entries()) {
    if (jwk === null) continue;
    if (typeof jwk !== 'object' || Array.isArray(jwk)) {
      throw new Error(`${path}: unmarshaling error: keys[${i}] is not an object`);
    }
    const k = jwk as Record<string, unknown>;
    for (const f of ['kid', 'kty', 'n', 'e']) {
      if (k[f] != null && typeof k[f] !== 'string') {
        throw new Error(`${path}: unmarshaling error: keys[${i}].${f} is not a string`);
      }
    }
    const x5c = k.x5c;
    if (x5c != null && (!Array.isArray(x5c) || x5c.some((c) => typeof c !== 'string'))) {
      throw new Error(`${path}: unmarshaling error: keys[${i}].x5c is not an array of strings`);
    }
    const kid = (k.kid as string | undefined) ?? '';
    let key: KeyObject | undefined;
    if (Array.isArray(x5c) && x5c.length > 0) key = certificateKey(x5c[0] as string);
    else if (k.kty === 'RSA' && k.n && k.e) key = modulusKey(k.n as string, k.e as string, i);
    if (key) keys.set(kid, key);
  }
  return keys;
}

/**
 * The RSA public key of a base64 DER certificate (or, as the reference's
 * PEM parser also takes, a bare SubjectPublicKeyInfo), with its error texts.
 */
function certificateKey(b64: string): KeyObject {
  const clean = b64.replace(/\s+/g, '');
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(clean)) {
    throw new Error('Invalid Key: Key must be a PEM encoded PKCS1 or PKCS8 key');
  }
  const der = Buffer.from(clean, 'base64');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    try {
      key = new X509Certificate(der).publicKey;
    } catch {
      throw new Error('x509: malformed certificate');
    }
  }
  if (key.asymmetricKeyType !== 'rsa') throw new Error('key is not a valid RSA public key');
  return key;
}

function modulusKey(n: string, e: string, i: number): KeyObject {
  try {
    return createPublicKey({ key: { kty: 'RSA', n, e }, format: 'jwk' });
  } catch (err) {
    throw new Error(`keys[${i}]: invalid RSA key: ${(err as Error).message}`);
  }
}
