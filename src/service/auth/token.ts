// Validation of the bearer tokens of requests: JSON Web Tokens signed with
// RS256 by a key of the service's JWKS, for its audience and its Auth0
// domain, carrying the tenant and user claims of the reference. The checks
// and their order follow the reference (golang-jwt v4 under its own
// checks), so each bad token is refused with the reference's reason:
//
//   no Authorization header         no token present in request
//   an empty bearer token           missing authentication credentials
//   not a JWT, an unknown key ID, a bad signature, an algorithm other
//   than an RSA one (none, HS256...), expired (exp), not yet valid (nbf),
//   issued in the future (iat)      invalid token
//   signed validly by RS384, PS256...  invalid signing method
//   then: aud → invalid audience, no exp → invalid expiration,
//   iss → invalid issuer, an empty or anonymous tenant or user ID →
//   invalid tenant ID (sic, for both).
//
// Nothing is kept between requests: any replica with the same JWKS
// answers the same.

import { constants, KeyObject, timingSafeEqual, verify } from 'node:crypto';
import { NoCredentialsError } from '../errors';

export const TENANT_ID_CLAIM = 'https://lake.brimdata.io/tenant_id';
export const USER_ID_CLAIM = 'https://lake.brimdata.io/user_id';

/** The identity of a request without authentication (and of tokens without the claims). */
export const ANONYMOUS_TENANT_ID = 'tenant_000000000000000000000000001';
export const ANONYMOUS_USER_ID = 'user_000000000000000000000000001';

export interface Identity {
  tenantId: string;
  userId: string;
}

export const anonymous: Identity = { tenantId: ANONYMOUS_TENANT_ID, userId: ANONYMOUS_USER_ID };

/** What golang-jwt verifies an RSA key with, by algorithm; other algorithms fail with an RSA key. */
const rsaMethods: Record<string, { hash: string; pss: boolean }> = {
  RS256: { hash: 'sha256', pss: false },
  RS384: { hash: 'sha384', pss: false },
  RS512: { hash: 'sha512', pss: false },
  PS256: { hash: 'sha256', pss: true },
  PS384: { hash: 'sha384', pss: true },
  PS512: { hash: 'sha512', pss: true },
};

/** Unpadded base64url, strictly (as Go's RawURLEncoding); undefined when it is not. */
function decodeSegment(s: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) return undefined;
  return Buffer.from(s, 'base64url');
}

function parseObject(seg: string): Record<string, unknown> | undefined {
  const bytes = decodeSegment(seg);
  if (!bytes) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  // JSON null decodes to an empty map in Go.
  if (v === null) return {};
  return typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A time claim against now (whole seconds): true when it holds. An absent
 * or zero claim holds unless required; a claim that is not a number fails.
 */
function timeClaim(
  claims: Record<string, unknown>,
  name: string,
  required: boolean,
  holds: (at: number) => boolean,
): boolean {
  if (!(name in claims)) return !required;
  const v = claims[name];
  if (typeof v !== 'number') return false;
  if (v === 0) return !required;
  // Go truncates fractional seconds down.
  return holds(Math.floor(v));
}

/** Tokens remembered as verified, per process (a client sends the same token many times). */
const CACHE_SIZE = 4096;

export class TokenValidator {
  private readonly issuer: string;
  /**
   * Tokens that passed, with their identity and expiry: the same bytes
   * need no second signature check (most of a validation's 30-50 µs)
   * until they expire. The key set never changes while the process runs,
   * so what passed once passes again; nothing is shared between replicas.
   */
  private readonly passed = new Map<string, { ident: Identity; exp: number }>();

  /** domain: the Auth0 domain as a URL; tokens' issuer is it with a trailing slash. */
  constructor(
    private readonly audience: string,
    domain: string,
    private readonly keys: Map<string, KeyObject>,
  ) {
    this.issuer = domain + '/';
  }

  /**
   * The identity of the request whose Authorization header is given;
   * throws NoCredentialsError with the reference's reason.
   */
  validateHeader(authorization: string | undefined): Identity {
    if (!authorization) throw new NoCredentialsError('no token present in request');
    let token = authorization;
    if (token.length > 6 && token.slice(0, 7).toUpperCase() === 'BEARER ') token = token.slice(7);
    return this.validate(token);
  }

  /** The identity a token carries; throws NoCredentialsError when it is not valid here. */
  validate(token: string, now: number = Math.floor(Date.now() / 1000)): Identity {
    if (token === '') throw new NoCredentialsError();
    const hit = this.passed.get(token);
    if (hit) {
      if (now < hit.exp) return { ...hit.ident };
      this.passed.delete(token);
    }
    const passed = this.check(token, now);
    if (this.passed.size >= CACHE_SIZE) {
      // Drop the oldest entry (a Map iterates in insertion order).
      this.passed.delete(this.passed.keys().next().value as string);
    }
    this.passed.set(token, passed);
    return { ...passed.ident };
  }

  /** The full validation of a token not seen before: its identity and expiry (whole seconds). */
  private check(token: string, now: number): { ident: Identity; exp: number } {
    const claims = this.verified(token, now);
    if (!claims) throw new NoCredentialsError('invalid token');
    if (claims.alg !== 'RS256') throw new NoCredentialsError('invalid signing method');
    const c = claims.claims;
    if (!this.audienceHolds(c.aud)) throw new NoCredentialsError('invalid audience');
    if (!timeClaim(c, 'exp', true, (exp) => now < exp)) {
      throw new NoCredentialsError('invalid expiration');
    }
    if (typeof c.iss !== 'string' || c.iss === '' || !sameText(c.iss, this.issuer)) {
      throw new NoCredentialsError('invalid issuer');
    }
    const ident = { ...anonymous };
    if (TENANT_ID_CLAIM in c) {
      const t = c[TENANT_ID_CLAIM];
      if (typeof t !== 'string' || t === '' || t === ANONYMOUS_TENANT_ID) {
        throw new NoCredentialsError('invalid tenant ID');
      }
      ident.tenantId = t;
    }
    if (USER_ID_CLAIM in c) {
      const u = c[USER_ID_CLAIM];
      // The reference says "tenant" here too.
      if (typeof u !== 'string' || u === '' || u === ANONYMOUS_USER_ID) {
        throw new NoCredentialsError('invalid tenant ID');
      }
      ident.userId = u;
    }
    return { ident, exp: Math.floor(c.exp as number) };
  }

  /**
   * The token's algorithm and claims when it parses, names a known key,
   * its time claims hold and its signature verifies; else undefined.
   */
  private verified(
    token: string,
    now: number,
  ): { alg: string; claims: Record<string, unknown> } | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const header = parseObject(parts[0]);
    const claims = parseObject(parts[1]);
    if (!header || !claims) return undefined;
    const alg = header.alg;
    if (typeof alg !== 'string') return undefined;
    const kid = typeof header.kid === 'string' ? header.kid : '';
    const key = this.keys.get(kid);
    if (!key) return undefined;
    if (
      !timeClaim(claims, 'exp', false, (exp) => now < exp) ||
      !timeClaim(claims, 'iat', false, (iat) => now >= iat) ||
      !timeClaim(claims, 'nbf', false, (nbf) => now >= nbf)
    ) {
      return undefined;
    }
    // HS*, ES*, EdDSA and none cannot verify with an RSA key.
    const method = rsaMethods[alg];
    const sig = decodeSegment(parts[2]);
    if (!method || !sig) return undefined;
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
    let ok: boolean;
    try {
      ok = verify(
        method.hash,
        signed,
        method.pss
          ? {
              key,
              padding: constants.RSA_PKCS1_PSS_PADDING,
              saltLength: constants.RSA_PSS_SALTLEN_AUTO,
            }
          : key,
        sig,
      );
    } catch {
      ok = false;
    }
    return ok ? { alg, claims } : undefined;
  }

  /** aud is the audience, or a list of strings holding it. */
  private audienceHolds(aud: unknown): boolean {
    let list: string[];
    if (typeof aud === 'string') list = [aud];
    else if (Array.isArray(aud)) {
      if (aud.some((a) => typeof a !== 'string')) return false;
      list = aud as string[];
    } else return false;
    let found = false;
    for (const a of list) if (sameText(a, this.audience)) found = true;
    return found;
  }
}
