// A client of the Auth0 tenant a lake service names at /auth/method: the
// OAuth 2.0 device authorization flow that `zlake auth login` runs
// (POST <domain>/oauth/device/code, then polling <domain>/oauth/token),
// and the refresh of an access token with a refresh token. Requests and
// answers are the reference client's JSON; an error answer
// ({"error", "error_description"}) is an Auth0Error worded as the
// reference's ("auth0 error: <error>: <description>").

import http from 'node:http';
import https from 'node:https';
import type { Connection, TokenRefresher } from './connection';
import { CredentialStore, goTime, Tokens } from './credentials';
import { networkReason, RequestError } from './errors';

/** The Auth0 tenant of a lake (api.AuthMethodAuth0Details). */
export interface Auth0Details {
  audience: string;
  client_id: string;
  domain: string;
}

export interface DeviceCode {
  device_code: string;
  expires_in: number;
  interval: number;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
}

export class Auth0Error extends Error {
  constructor(
    /** The OAuth error code ("authorization_pending", "invalid_grant", ...). */
    readonly kind: string,
    readonly description: string,
  ) {
    super(`auth0 error: ${kind}: ${description}`);
    this.name = 'Auth0Error';
  }
}

interface TokenAnswer {
  access_token?: string;
  expires_in?: number;
  id_token?: string;
  refresh_token?: string;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export class Auth0Client {
  constructor(readonly details: Auth0Details) {}

  /** Starts a device authorization for scope (space-separated). */
  deviceCode(scope: string): Promise<DeviceCode> {
    return this.post<DeviceCode>('/oauth/device/code', {
      audience: this.details.audience,
      client_id: this.details.client_id,
      scope,
    });
  }

  /**
   * Polls for the tokens of a device authorization until the user has
   * approved it, every `interval` seconds (at least one) while Auth0 says
   * authorization_pending, five seconds more after each slow_down (RFC
   * 8628). Any other error (access_denied, expired_token) ends it.
   */
  async pollDeviceCodeTokens(dcr: DeviceCode, signal?: AbortSignal): Promise<Tokens> {
    let delay = dcr.interval > 0 ? dcr.interval * 1000 : 1000;
    for (;;) {
      await sleep(delay, signal);
      try {
        return this.tokens(
          await this.post<TokenAnswer>('/oauth/token', {
            client_id: this.details.client_id,
            device_code: dcr.device_code,
            grant_type: DEVICE_GRANT,
          }),
        );
      } catch (e) {
        if (e instanceof Auth0Error && e.kind === 'authorization_pending') continue;
        if (e instanceof Auth0Error && e.kind === 'slow_down') {
          delay += 5000;
          continue;
        }
        throw e;
      }
    }
  }

  /**
   * New tokens for a refresh token. The refresh token stays the same
   * unless Auth0 rotates it (then the answer carries a new one).
   */
  async refreshToken(refresh: string): Promise<Tokens> {
    const body: Record<string, string> = {
      client_id: this.details.client_id,
      grant_type: 'refresh_token',
    };
    if (refresh !== '') body.refresh_token = refresh;
    const t = this.tokens(await this.post<TokenAnswer>('/oauth/token', body));
    if (t.refresh === '') t.refresh = refresh;
    return t;
  }

  private tokens(a: TokenAnswer): Tokens {
    return {
      access: a.access_token ?? '',
      expiration: goTime(Date.now() + (a.expires_in ?? 0) * 1000),
      id: a.id_token ?? '',
      refresh: a.refresh_token ?? '',
    };
  }

  /** POSTs JSON to the domain's path (the domain URL's own path is replaced, as the reference does). */
  private post<T>(pathname: string, body: unknown): Promise<T> {
    let url: URL;
    try {
      url = new URL(pathname, this.details.domain);
    } catch {
      return Promise.reject(
        new Error(`Post "${this.details.domain}${pathname}": invalid auth0 domain URL`),
      );
    }
    const href = url.toString();
    const data = JSON.stringify(body);
    const mod = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : undefined;
    if (!mod) {
      return Promise.reject(
        new Error(`Post "${href}": unsupported protocol scheme "${url.protocol.slice(0, -1)}"`),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const req = mod.request(
        url,
        {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(data),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => reject(new RequestError('POST', href, networkReason(e))));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            let doc: unknown;
            try {
              doc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch (e) {
              reject(new Error(`${(e as Error).message} (status ${status} from ${href})`));
              return;
            }
            if (status < 200 || status > 299) {
              const o = (doc && typeof doc === 'object' ? doc : {}) as Record<string, unknown>;
              const str = (v: unknown) => (typeof v === 'string' ? v : '');
              reject(new Auth0Error(str(o.error), str(o.error_description)));
              return;
            }
            resolve(doc as T);
          });
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) =>
        reject(new RequestError('POST', href, networkReason(e), e.code)),
      );
      req.end(data);
    });
  }
}

/**
 * Refreshes a lake's access token as the reference's client does when the
 * lake refuses it: asks the lake for its Auth0 tenant, trades the stored
 * refresh token for new tokens there, and stores them.
 */
export class StoredTokenRefresher implements TokenRefresher {
  constructor(
    private readonly store: CredentialStore,
    private readonly lake: string,
  ) {}

  async refresh(conn: Connection): Promise<string> {
    const method = await conn.json<{ auth0?: Auth0Details | null }>('GET', '/auth/method', {
      noRefresh: true,
    });
    if (!method?.auth0) throw new Error(`auth not available on lake: ${this.lake}`);
    const tokens = this.store.tokens(this.lake);
    if (!tokens) throw new Error(`auth credentials not set for lake: ${this.lake}`);
    const refreshed = await new Auth0Client(method.auth0).refreshToken(tokens.refresh);
    this.store.setTokens(this.lake, refreshed);
    return refreshed.access;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
