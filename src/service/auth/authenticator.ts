// The service's authentication (zlake serve -auth.*), as the reference's
// Auth0 authenticator: every API route but a few public ones needs a
// bearer token that the validator accepts; /auth/method tells clients the
// Auth0 tenant (audience, client ID, domain) to get tokens from.

import { loadJWKS } from './jwks';
import { Identity, TokenValidator } from './token';

export interface AuthConfig {
  /** -auth.enabled */
  enabled: boolean;
  /** -auth.audience: the `aud` tokens must carry. */
  audience: string;
  /** -auth.clientid: the public client ID clients log in with. */
  clientId: string;
  /** -auth.domain: the Auth0 domain as a URL; tokens' issuer is it plus "/". */
  domain: string;
  /** -auth.jwkspath: the JSON Web Key Set file of the signing keys. */
  jwksPath: string;
}

/** What /auth/method tells clients (api.AuthMethodAuth0Details). */
export interface Auth0Details {
  audience: string;
  clientId: string;
  domain: string;
}

/**
 * The URL text as Go's url.Parse and String give it back: the scheme in
 * lower case; a control character or a missing scheme before ':' is an
 * error, with Go's text.
 */
function normalizeDomain(domain: string): string {
  const fail = (why: string) =>
    new Error(`bad auth.domain URL: parse ${JSON.stringify(domain)}: ${why}`);
  if (/[\x00-\x1f\x7f]/.test(domain)) throw fail('net/url: invalid control character in URL');
  if (domain.startsWith(':')) throw fail('missing protocol scheme');
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(domain);
  return m ? m[1].toLowerCase() + domain.slice(m[1].length) : domain;
}

export class Authenticator {
  readonly details: Auth0Details;
  private readonly validator: TokenValidator;
  /** How many usable keys the JWKS file has (zero refuses every token). */
  readonly keyCount: number;

  private constructor(config: AuthConfig) {
    const domain = normalizeDomain(config.domain);
    let keys;
    try {
      keys = loadJWKS(config.jwksPath);
    } catch (e) {
      throw new Error(`failed to load JWKS file: ${(e as Error).message}`);
    }
    this.keyCount = keys.size;
    this.validator = new TokenValidator(config.audience, domain, keys);
    this.details = { audience: config.audience, clientId: config.clientId, domain: config.domain };
  }

  /**
   * The authenticator of config, or null when authentication is off.
   * Throws the reference's texts for an incomplete configuration, a bad
   * domain or an unreadable key set.
   */
  static open(config: AuthConfig): Authenticator | null {
    if (!config.enabled) return null;
    if (!config.audience || !config.clientId || !config.domain || !config.jwksPath) {
      throw new Error(
        'auth.audience, auth.clientid, auth.domain, and auth.jwkspath must be set when auth enabled',
      );
    }
    return new Authenticator(config);
  }

  /** The identity of a request with this Authorization header; throws NoCredentialsError. */
  authenticate(authorization: string | undefined): Identity {
    return this.validator.validateHeader(authorization);
  }
}
