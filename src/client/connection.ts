// The HTTP layer of the lake client: one keep-alive agent per connection,
// requests with streamed bodies and streamed responses, and the reference
// client's error handling (a non-2xx answer becomes a ResponseError holding
// the server's message; a transport failure a RequestError worded as Go's).

import http from 'node:http';
import https from 'node:https';
import { PassThrough, Writable } from 'node:stream';
import { ErrorBody, networkReason, RequestError, ResponseError } from './errors';

/** The lake service's default address, as the reference's client has it. */
export const DEFAULT_LAKE = 'http://localhost:9867';

export const MediaType = {
  ZNG: 'application/x-zng',
  ZSON: 'application/x-zson',
  JSON: 'application/json',
  NDJSON: 'application/x-ndjson',
  ZJSON: 'application/x-zjson',
} as const;

/**
 * Writes a request body into the request stream (honouring back-pressure)
 * and resolves when all of it is written; the connection ends the request.
 */
export type BodyWriter = (out: Writable) => Promise<void>;

export interface RequestOptions {
  /** The body: bytes, text, or a writer that streams it. */
  body?: Buffer | string | BodyWriter;
  /** Content-Type of the body; '' sends none (the server detects the format). */
  contentType?: string;
  /** Accept header (default JSON). */
  accept?: string;
  /** More headers (e.g. Zed-Commit). */
  headers?: Record<string, string>;
  /** Do not refresh the token on an invalid-token answer (the refresher's own requests). */
  noRefresh?: boolean;
}

export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The response body as a stream; read it to the end or destroy it. */
  body: http.IncomingMessage;
}

export interface ConnectionOptions {
  /** Sent as User-Agent. */
  userAgent?: string;
  /** A bearer token for the Authorization header. */
  token?: string;
  /**
   * Where a new access token comes from when the server refuses the
   * current one as an invalid token (an expired one, typically).
   */
  refresher?: TokenRefresher;
}

/** Gets a new access token (and keeps it wherever tokens are kept). */
export interface TokenRefresher {
  refresh(conn: Connection): Promise<string>;
}

/**
 * The bytes of a streamed body that a request keeps so that it can send
 * them again after refreshing its token, as the reference's client keeps
 * them; a longer body cannot be sent again.
 */
const REPLAY_LIMIT = 16 * 1024 * 1024;

export class Connection {
  /** The base URL without a trailing slash. */
  readonly url: string;
  private agent: http.Agent;
  private headers: Record<string, string> = {};
  private refresher?: TokenRefresher;

  constructor(url: string = DEFAULT_LAKE, opts: ConnectionOptions = {}) {
    this.url = url.replace(/\/+$/, '');
    const secure = this.url.startsWith('https:');
    this.agent = secure
      ? new https.Agent({ keepAlive: true })
      : new http.Agent({ keepAlive: true });
    this.headers['User-Agent'] = opts.userAgent ?? 'zlake-client';
    if (opts.token) this.setAuthToken(opts.token);
    this.refresher = opts.refresher;
  }

  /** Closes idle keep-alive sockets so a short-lived process can exit. */
  close(): void {
    this.agent.destroy();
  }

  /** Sends this bearer token from now on. */
  setAuthToken(token: string): void {
    this.headers.Authorization = `Bearer ${token}`;
  }

  /**
   * Sends a request and resolves with the response once its headers arrive
   * (2xx only). A non-2xx response is read whole and rejected as a
   * ResponseError; a transport failure as a RequestError; a failure of a
   * streamed body's writer with that writer's own error. When the server
   * refuses the token as invalid and the connection has a refresher, the
   * token is refreshed and the request sent once more, body and all, as
   * the reference's client does.
   */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const refresher = opts.noRefresh ? undefined : this.refresher;
    const body =
      typeof opts.body === 'function' && refresher ? new ReplayableBody(opts.body) : opts.body;
    try {
      return await this.attempt(method, path, opts, body);
    } catch (e) {
      if (!refresher || !isInvalidToken(e)) throw e;
      this.setAuthToken(await refresher.refresh(this));
      if (body instanceof ReplayableBody) await body.stopped();
      return this.attempt(method, path, opts, body);
    }
  }

  private attempt(
    method: string,
    path: string,
    opts: RequestOptions,
    body: Buffer | string | BodyWriter | ReplayableBody | undefined,
  ): Promise<Response> {
    const href = this.url + path;
    const url = new URL(href);
    const headers: Record<string, string> = {
      ...this.headers,
      Accept: opts.accept ?? MediaType.JSON,
    };
    if (opts.contentType) headers['Content-Type'] = opts.contentType;
    Object.assign(headers, opts.headers);
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      let done = false;
      let answered = false;
      let refused = false;
      const finish = (err: Error | null, res?: Response) => {
        if (done) return;
        done = true;
        if (err) reject(err);
        else resolve(res!);
      };
      const req = mod.request(url, { method, headers, agent: this.agent }, (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        if (status >= 200 && status <= 299) {
          finish(null, { status, headers: res.headers, body: res });
          return;
        }
        refused = true;
        readError(res).then(
          (err) => {
            // Stop sending a body the server has already refused.
            req.destroy();
            finish(err);
          },
          (err: Error) => finish(new RequestError(method, href, networkReason(err))),
        );
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        refused = true;
        if (!answered) finish(new RequestError(method, href, networkReason(err), err.code));
      });
      const sending =
        body instanceof ReplayableBody
          ? body.send(req, () => refused)
          : typeof body === 'function'
            ? body(req)
            : undefined;
      if (!sending) {
        req.end(body);
        return;
      }
      sending.then(
        () => {
          if (!req.destroyed) req.end();
        },
        (err: Error) => {
          // The server's answer (if it came) explains more than the
          // broken pipe the writer saw.
          if (answered) return;
          req.destroy();
          finish(err);
        },
      );
    });
  }

  /** Sends a request and parses the JSON response (undefined for an empty body). */
  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.request(method, path, opts);
    const text = (await readAll(res.body)).toString('utf8');
    if (text.trim() === '') return undefined as T;
    return JSON.parse(text) as T;
  }

  /** Sends a request whose response has no body of interest (204). */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<void> {
    const res = await this.request(method, path, opts);
    res.body.resume();
    await new Promise<void>((resolve, reject) => {
      res.body.on('end', resolve);
      res.body.on('error', reject);
    });
  }
}

/** The server refused the request's token as invalid (expired, typically). */
function isInvalidToken(e: unknown): boolean {
  return e instanceof ResponseError && e.status === 401 && e.detail === 'invalid token';
}

/** Writes c into out, resolving when out can take more (or is gone). */
function writeChunk(out: Writable, c: Buffer): Promise<void> {
  if (out.destroyed || out.write(c)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    out.on('error', done);
  });
}

/**
 * A streamed body that can be sent more than once: the writer writes into
 * a pipe that each sending reads, and the first REPLAY_LIMIT bytes read
 * are kept to be sent again first. Sendings take turns: the next begins
 * once the last has stopped.
 */
class ReplayableBody {
  private kept: Buffer[] = [];
  private keptBytes = 0;
  private overflow = false;
  private readonly chunks: AsyncIterator<Buffer>;
  private last: Promise<void> = Promise.resolve();

  constructor(writer: BodyWriter) {
    const pipe = new PassThrough();
    this.chunks = pipe[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    writer(pipe).then(
      () => pipe.end(),
      (err: Error) => pipe.destroy(err),
    );
  }

  /** Resolves once the last sending has stopped. */
  stopped(): Promise<void> {
    return this.last.catch(() => undefined);
  }

  /**
   * Sends the kept bytes, then the rest as the writer makes it, into out;
   * stops early (without ending out) once stop() says so.
   */
  send(out: Writable, stop: () => boolean): Promise<void> {
    this.last = this.sendAll(out, stop);
    return this.last;
  }

  private async sendAll(out: Writable, stop: () => boolean): Promise<void> {
    if (this.overflow) {
      throw new Error('request cannot be replayed: read buffer exceeded size limit');
    }
    for (const c of [...this.kept]) {
      if (stop()) return;
      await writeChunk(out, c);
    }
    for (;;) {
      if (stop()) return;
      const r = await this.chunks.next();
      if (r.done) return;
      // Kept (a copy: the writer owns its buffers) before it is sent, so a
      // sending that stops here leaves it for the next.
      if (this.keptBytes + r.value.length <= REPLAY_LIMIT) {
        this.kept.push(Buffer.from(r.value));
        this.keptBytes += r.value.length;
      } else this.overflow = true;
      if (stop()) return;
      await writeChunk(out, r.value);
    }
  }
}

async function readAll(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks);
}

/** The error of a non-2xx response: its JSON error body, else its text. */
async function readError(res: http.IncomingMessage): Promise<ResponseError> {
  const status = res.statusCode ?? 0;
  const text = (await readAll(res)).toString('utf8');
  const type = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === MediaType.JSON) {
    try {
      const b = JSON.parse(text) as ErrorBody;
      if (b && typeof b === 'object' && typeof b.error === 'string') {
        return new ResponseError(status, b.error, b.kind, b.info);
      }
    } catch {
      // not the error body we expect: show the text
    }
  }
  return new ResponseError(status, text);
}

/**
 * A path from elements, each escaped as Go's url.PathEscape does (the
 * reference's client builds paths this way).
 */
export function urlPath(...elems: string[]): string {
  return elems.map((e) => '/' + pathEscape(e)).join('');
}

function pathEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && KEEP.test(c) ? c : '%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
  }
  return out;
}

/** Characters Go's url.PathEscape leaves as they are. */
const KEEP = /[A-Za-z0-9\-_.~$&+,;=:@]/;
