// A stand-in for a lake's Auth0 tenant: a real HTTP server on loopback
// with Auth0's device authorization endpoint (/oauth/device/code) and
// token endpoint (/oauth/token: device-code and refresh-token grants),
// issuing access tokens signed by a test key for the given audience, so a
// `zlake serve` with -auth.domain set to this server's URL accepts them.

import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { accessToken, TestKey } from './jwt';

export interface OAuthRequest {
  path: string;
  body: Record<string, unknown>;
}

export class OAuthServer {
  url = '';
  /** Every request, in order. */
  readonly requests: OAuthRequest[] = [];
  /** Polls answered authorization_pending before the device code is approved. */
  pendingPolls = 1;
  /** Seconds between polls the device code asks for. */
  interval = 1;
  /** The first poll answers this error instead (slow_down, access_denied), if set. */
  firstPollError = '';
  /** Seconds the access tokens issued are valid. */
  expiresIn = 3600;
  /** Whether a refresh answers with a new refresh token. */
  rotate = false;
  /** The refresh tokens that are good. */
  readonly refreshTokens = new Set<string>();
  private polls = 0;
  private issued = 0;
  private server: http.Server | undefined;

  constructor(
    private readonly key: TestKey,
    private readonly audience: string,
    readonly clientId: string,
    private readonly ids = { tenantId: 'tenant1', userId: 'user1' },
  ) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, Buffer.concat(chunks).toString(), res));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  /** A new access token as the tenant would issue it. */
  token(expiresIn = this.expiresIn): string {
    return accessToken(this.key, {
      audience: this.audience,
      domain: this.url,
      ...this.ids,
      expiresIn,
    });
  }

  private handle(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // reported below as a bad request
    }
    this.requests.push({ path: req.url ?? '', body });
    const send = (status: number, v: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(v));
    };
    const fail = (status: number, error: string, error_description: string) =>
      send(status, { error, error_description });
    if (req.method !== 'POST' || req.headers['content-type'] !== 'application/json') {
      return fail(400, 'invalid_request', 'POST JSON only');
    }
    if (body.client_id !== this.clientId) {
      return fail(401, 'unauthorized_client', 'Unknown client.');
    }
    if (req.url === '/oauth/device/code') {
      this.polls = 0;
      return send(200, {
        device_code: 'device-code-1',
        user_code: 'WDJB-MJHT',
        verification_uri: `${this.url}/activate`,
        verification_uri_complete: `${this.url}/activate?user_code=WDJB-MJHT`,
        expires_in: 900,
        interval: this.interval,
      });
    }
    if (req.url !== '/oauth/token') return fail(404, 'not_found', 'Not found.');
    if (body.grant_type === 'urn:ietf:params:oauth:grant-type:device_code') {
      if (body.device_code !== 'device-code-1') {
        return fail(403, 'invalid_grant', 'Invalid or expired device code.');
      }
      if (this.firstPollError && this.polls === 0) {
        this.polls++;
        return fail(403, this.firstPollError, `${this.firstPollError} for the test.`);
      }
      if (this.polls++ < this.pendingPolls) {
        return fail(403, 'authorization_pending', 'User has yet to authorize device code.');
      }
      return send(200, this.tokens(true));
    }
    if (body.grant_type === 'refresh_token') {
      if (typeof body.refresh_token !== 'string' || !this.refreshTokens.has(body.refresh_token)) {
        return fail(403, 'invalid_grant', 'Unknown or invalid refresh token.');
      }
      if (this.rotate) this.refreshTokens.delete(body.refresh_token);
      return send(200, this.tokens(this.rotate));
    }
    return fail(400, 'unsupported_grant_type', 'Unsupported grant type.');
  }

  private tokens(withRefresh: boolean): Record<string, unknown> {
    const n = ++this.issued;
    const out: Record<string, unknown> = {
      access_token: this.token(),
      id_token: `id-token-${n}`,
      expires_in: this.expiresIn,
      token_type: 'Bearer',
    };
    if (withRefresh) {
      const refresh = `refresh-token-${n}`;
      this.refreshTokens.add(refresh);
      out.refresh_token = refresh;
    }
    return out;
  }
}
