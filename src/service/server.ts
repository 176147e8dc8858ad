// The lake service: an Express app over a Lake, with the reference's
// routes, request IDs, access logs, metrics, CORS and error bodies.

import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import express, { NextFunction, Request, Response } from 'express';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { compressPool } from '../formats/zng/compresspool';
import { asideCounts } from '../query/aggregates/dcountaside';
import * as path from 'node:path';
import { Lake } from '../lake';
import { Ksuid } from '../lake/ksuid';
import { Authenticator } from './auth/authenticator';
import { corsMiddleware } from './cors';
import { QueryEngine } from './engine';
import { goJSON, HttpError, NO_CREDENTIALS } from './errors';
import { EventHub } from './events';
import * as h from './handlers';
import * as ix from './indexes';
import { Logger, nopLogger } from './log';
import { Metrics } from './metrics';
import { isKnownFormat, negotiate } from './mime';
import { HeldOutputOptions } from './output';
import { handleQuery, QueryStatusTable } from './query';
import { respondError } from './respond';
import { bodyTooLarge, drainBody, limitBody } from './request';
import { zedEngine } from './zedengine';

export interface ServiceOptions {
  lake: Lake;
  /** The query engine (zlake's own by default). */
  engine?: QueryEngine;
  /** Response format when Accept names none (-defaultfmt). */
  defaultFormat?: string;
  /** Allowed CORS origins (-cors.origin); none: every origin. */
  corsOrigins?: string[];
  logger?: Logger;
  /** Body of GET / (-rootcontentfile). */
  rootContent?: string | Buffer;
  /** Milliseconds between event-stream keep-alive comments. */
  keepAliveMs?: number;
  /** Bytes an event subscriber may fall behind by before it is dropped. */
  maxEventBacklog?: number;
  /** How much query output is held back before committing to a status. */
  queryOutput?: HeldOutputOptions;
  /** Collect Node process metrics (off for tests that make many services). */
  processMetrics?: boolean;
  /** The metrics registry (made here when absent; serve makes it first to wrap backends). */
  metrics?: Metrics;
  /** Request limits (zlake serve -limit.*); 0 or absent means none. */
  limits?: ServiceLimits;
  /** Bearer-token authentication (zlake serve -auth.*); absent or null: off. */
  auth?: Authenticator | null;
}

export interface ServiceLimits {
  /** Bytes a request body may have: 413 past it. */
  bodyBytes?: number;
  /** Milliseconds a query may run: 408 (or a QueryError control message) past it. */
  queryMs?: number;
  /** Queries this replica runs at once: 429 with Retry-After past it. */
  queries?: number;
}

/** How long a readiness check waits for storage and coordination. */
const READY_TIMEOUT_MS = 2000;

const INDEX_PAGE = `<!DOCTYPE html>
<html>
  <title>zlake</title>
  <body style="padding:10px">
    <h2>zlake serve</h2>
    <p>A Zed lake service is listening on this address. Talk to it with the
    <code>zlake</code> command (or any client of the Zed lake API).</p>
  </body>
</html>
`;

export function version(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'),
    ) as { version?: string };
    return pkg.version ? `v${pkg.version}` : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** How long an idle keep-alive connection stays open (see listen). */
export const KEEP_ALIVE_MS = 65_000;

export class Service {
  readonly app: express.Express;
  readonly lake: Lake;
  readonly metrics: Metrics;
  readonly hub: EventHub;
  readonly log: Logger;
  readonly statuses = new QueryStatusTable();
  private server: http.Server | null = null;
  private engine: () => QueryEngine;
  private defaultFormat: string;
  /** Set once shutdown begins: readiness fails, new requests are refused. */
  private draining = false;
  /** Requests being served, event streams and health checks aside. */
  private working = new Set<Promise<void>>();
  private runningQueries = 0;
  private readonly auth: Authenticator | null;

  constructor(opts: ServiceOptions) {
    this.lake = opts.lake;
    this.auth = opts.auth ?? null;
    this.log = opts.logger ?? nopLogger;
    this.defaultFormat = opts.defaultFormat || 'zson';
    if (!isKnownFormat(this.defaultFormat)) {
      throw new Error(
        `invalid default response format: unknown format type: ${this.defaultFormat}`,
      );
    }
    this.metrics = opts.metrics ?? new Metrics(opts.processMetrics ?? false);
    const cache = this.lake.cache;
    this.metrics.observeScanCache(() => cache.stats(), cache.budget);
    this.metrics.observeScans(() => this.lake.scanTotals);
    this.metrics.observeZngWorker(() => compressPool()?.counts ?? null);
    this.metrics.observeDcountAside(() => asideCounts);
    const engine = opts.engine ?? zedEngine;
    this.engine = () => engine;
    this.hub = new EventHub(this.lake, this.metrics, this.log.with({}, 'events'), {
      keepAliveMs: opts.keepAliveMs,
      maxBacklog: opts.maxEventBacklog,
    });
    this.hub.start();
    this.app = this.buildApp(opts);
  }

  private buildApp(opts: ServiceOptions): express.Express {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.use(normalizeSlashes);
    app.use(serverSpans);
    app.use(this.accessLog());
    app.use(corsMiddleware(opts.corsOrigins ?? []));

    // Auxiliary routes (no content negotiation).
    const root = opts.rootContent ?? INDEX_PAGE;
    app.get('/', (_req, res) => {
      res.type(opts.rootContent ? 'text/plain; charset=utf-8' : 'text/html; charset=utf-8');
      res.send(root);
    });
    app.get('/status', (_req, res) => {
      res.type('text/plain; charset=utf-8').send('ok');
    });
    // Liveness: the process serves. Readiness: it can reach its object
    // store and coordinator, and is not shutting down.
    app.get('/healthz', (_req, res) => {
      res.type('text/plain; charset=utf-8').send('ok');
    });
    app.get('/readyz', async (_req, res) => {
      const problem = await this.unready();
      if (problem === null) {
        res.type('text/plain; charset=utf-8').send('ok');
        return;
      }
      res.status(503).setHeader('Content-Type', 'application/json');
      res.send(goJSON({ type: 'Error', kind: 'unavailable', error: problem }));
    });
    app.use(this.admission(opts.limits ?? {}));
    const v = version();
    app.get('/version', (_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.send(goJSON({ version: v }));
    });
    app.get('/metrics', async (_req, res, next) => {
      try {
        res.setHeader('Content-Type', this.metrics.registry.contentType);
        res.send(await this.metrics.registry.metrics());
      } catch (e) {
        next(e);
      }
    });

    const api =
      (handler: h.Handler, events = false) =>
      async (req: Request, res: Response) => {
        const log = res.locals.log as Logger;
        try {
          const format = negotiate(req.headers.accept, this.defaultFormat, events);
          await handler(
            {
              lake: this.lake,
              auth: this.auth,
              engine: this.engine,
              metrics: this.metrics,
              statuses: this.statuses,
              format,
              log,
            },
            req,
            res,
          );
        } catch (e) {
          await drainBody(req);
          this.fail(res, e, log);
        }
      };

    // Every API route needs a token when authentication is on, except
    // /auth/method (how to get one), as in the reference; the auxiliary
    // routes above (/, /status, /version, /metrics, health) are public.
    const guard = this.guard();
    app.get('/auth/identity', guard, api(h.getAuthIdentity));
    app.get('/auth/method', api(h.getAuthMethod));
    app.get(
      '/events',
      guard,
      api(async (c, req, res) => this.hub.attach(req, res, this.defaultFormat), true),
    );
    app.post('/pool', guard, api(h.createPool));
    app.get('/pool/:pool', guard, api(h.getPool));
    app.post('/pool/:pool', guard, api(h.createBranch));
    app.put('/pool/:pool', guard, api(h.renamePool));
    app.delete('/pool/:pool', guard, api(h.deletePool));
    app.get('/pool/:pool/branch/:branch', guard, api(h.getBranch));
    app.post(
      '/pool/:pool/branch/:branch',
      guard,
      api(async (c, req, res) => {
        try {
          await h.load(c, req, res);
          this.metrics.loads.inc({ outcome: 'ok' });
        } catch (e) {
          this.metrics.loads.inc({ outcome: 'error' });
          throw e;
        }
      }),
    );
    app.delete('/pool/:pool/branch/:branch', guard, api(h.deleteBranch));
    app.post('/pool/:pool/branch/:branch/compact', guard, api(h.compact));
    app.post('/pool/:pool/branch/:branch/delete', guard, api(h.deleteData));
    app.post('/pool/:pool/branch/:branch/vectors', guard, api(h.addVectors));
    app.post('/pool/:pool/branch/:branch/vectors/delete', guard, api(h.deleteVectors));
    app.post('/pool/:pool/branch/:branch/merge/:child', guard, api(h.merge));
    app.post('/pool/:pool/branch/:branch/revert/:commit', guard, api(h.revert));
    app.post('/pool/:pool/revision/:revision/vacuum', guard, api(h.vacuum));
    app.get('/pool/:pool/stats', guard, api(h.poolStats));
    const maxQueries = opts.limits?.queries ?? 0;
    app.post('/query', guard, (req, res, next) => {
      if (maxQueries <= 0) return next();
      if (this.runningQueries >= maxQueries) {
        this.metrics.queriesRejected.inc({ reason: 'concurrency' });
        res.setHeader('Retry-After', '1');
        void drainBody(req).then(() =>
          this.fail(
            res,
            new HttpError('invalid', `too many queries running (limit ${maxQueries})`, 429),
            res.locals.log as Logger,
          ),
        );
        return;
      }
      this.runningQueries++;
      let counted = true;
      const done = () => {
        if (counted) this.runningQueries--;
        counted = false;
      };
      res.on('finish', done);
      res.on('close', done);
      next();
    });
    app.post(
      '/query',
      api((c, req, res) =>
        handleQuery(
          {
            lake: this.lake,
            engine: this.engine,
            metrics: this.metrics,
            statuses: this.statuses,
            output: opts.queryOutput,
            timeoutMs: opts.limits?.queryMs,
          },
          req,
          res,
          c.format,
          res.locals.requestId as string,
          c.log,
        ),
      ),
    );
    app.get('/query/status/:requestID', guard, api(h.queryStatus));
    app.post('/index', guard, api(ix.addIndexRules));
    app.delete('/index', guard, api(ix.deleteIndexRules));
    app.post('/pool/:pool/branch/:branch/index', guard, api(ix.applyIndex));
    app.post('/pool/:pool/branch/:branch/index/update', guard, api(ix.updateIndex));

    app.use(async (req: Request, res: Response) => {
      await drainBody(req);
      const known = KNOWN_PATHS.some((re) => re.test(req.path));
      res.status(known ? 405 : 404);
      res.setHeader('Content-Type', 'application/json');
      res.end(
        goJSON({
          type: 'Error',
          kind: known ? 'invalid operation' : 'item does not exist',
          error: known ? `method ${req.method} not allowed on ${req.path}` : '404 page not found',
        }),
      );
    });
    app.use(async (err: unknown, req: Request, res: Response, _next: NextFunction) => {
      void _next;
      await drainBody(req);
      this.fail(res, err, (res.locals.log as Logger | undefined) ?? this.log);
    });
    return app;
  }

  private fail(res: Response, e: unknown, log: Logger): void {
    respondError(res, e, (code, err) => {
      if (code >= 500) {
        log.warn('Error', {
          status: code,
          error: (err as Error)?.message,
          stack: (err as Error)?.stack,
        });
      }
    });
  }

  /**
   * The middleware of protected routes: with authentication on, a request
   * without a valid bearer token is answered 401 (its body read and
   * dropped first), counted and logged; otherwise its identity is kept in
   * res.locals.identity for the handlers.
   */
  private guard() {
    const auth = this.auth;
    if (!auth) return (_req: Request, _res: Response, next: NextFunction) => next();
    const log = this.log.with({}, 'auth');
    return (req: Request, res: Response, next: NextFunction) => {
      try {
        res.locals.identity = auth.authenticate(req.headers.authorization);
      } catch (e) {
        this.metrics.unauthorized.inc();
        log.info('Unauthorized request', {
          request_id: res.locals.requestId as string,
          error: goErrorText(e as Error),
        });
        void drainBody(req).then(() => this.fail(res, e, res.locals.log as Logger));
        return;
      }
      next();
    };
  }

  /** Request IDs, one access log line per request, and HTTP metrics. */
  private accessLog() {
    const access = this.log.with({}, 'http.access');
    return (req: Request, res: Response, next: NextFunction) => {
      const hdr = req.headers['x-request-id'];
      const id = (Array.isArray(hdr) ? hdr[0] : hdr) || Ksuid.generate().toString();
      res.setHeader('X-Request-Id', id);
      res.locals.requestId = id;
      res.locals.log = this.log.with({ request_id: id });
      const start = process.hrtime.bigint();
      // Body bytes sent, counted as they go (streams have no length header).
      let sent = 0;
      const write = res.write.bind(res) as (...a: unknown[]) => boolean;
      const end = res.end.bind(res) as (...a: unknown[]) => Response;
      const size = (chunk: unknown) =>
        typeof chunk === 'string'
          ? Buffer.byteLength(chunk)
          : chunk instanceof Uint8Array
            ? chunk.length
            : 0;
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        sent += size(chunk);
        return write(chunk, ...rest);
      }) as Response['write'];
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        if (typeof chunk !== 'function') sent += size(chunk);
        return end(chunk, ...rest);
      }) as Response['end'];
      this.metrics.httpInFlight.inc();
      let logged = false;
      const done = () => {
        if (logged) return;
        logged = true;
        this.metrics.httpInFlight.dec();
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        const route = routeLabel(req);
        const status = res.writableFinished
          ? res.statusCode
          : res.headersSent
            ? res.statusCode
            : 499;
        this.metrics.httpRequests.inc({ method: req.method, route, status: String(status) });
        this.metrics.httpDuration.observe({ method: req.method, route }, seconds);
        const quiet = req.path === '/metrics' || req.path === '/status';
        const fields = {
          request_id: id,
          method: req.method,
          path: req.path,
          route,
          status,
          elapsed: seconds,
          ...(req.params?.pool ? { pool: req.params.pool } : {}),
          ...(req.params?.branch ? { branch: req.params.branch } : {}),
          remote_addr: req.socket.remoteAddress,
          request_content_length: Number(req.headers['content-length'] ?? -1),
          response_content_length: sent,
          completed: res.writableFinished,
        };
        if (quiet) access.debug('Request completed', fields);
        else access.info('Request completed', fields);
      };
      res.on('finish', done);
      res.on('close', done);
      next();
    };
  }

  /** Why this replica should not get traffic, or null when it is ready. */
  private async unready(): Promise<string | null> {
    if (this.draining) return 'shutting down';
    const within = <T>(what: string, p: Promise<T>) =>
      Promise.race([
        p.then(() => null),
        new Promise<string>((r) =>
          setTimeout(
            () => r(`${what}: no answer in ${READY_TIMEOUT_MS} ms`),
            READY_TIMEOUT_MS,
          ).unref(),
        ),
      ]).catch((e) => `${what}: ${(e as Error).message}`);
    const [s, c] = await Promise.all([
      within(`object store ${this.lake.storage.location}`, this.lake.storage.ping()),
      within(`coordinator ${this.lake.coord.location}`, this.lake.coord.ping()),
    ]);
    return s ?? c;
  }

  /**
   * Refuses new work while shutting down (503), refuses bodies over the
   * limit (413, at once when Content-Length says so, else as they
   * arrive), and keeps track of the requests in progress so shutdown can
   * wait for them.
   */
  private admission(limits: ServiceLimits) {
    const bodyLimit = limits.bodyBytes ?? 0;
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.path === '/events') return next();
      if (this.draining) {
        res.setHeader('Connection', 'close');
        void drainBody(req).then(() =>
          this.fail(
            res,
            new HttpError('invalid', 'server is shutting down', 503),
            res.locals.log as Logger,
          ),
        );
        return;
      }
      if (bodyLimit > 0) {
        const declared = Number(req.headers['content-length'] ?? -1);
        if (declared > bodyLimit) {
          res.setHeader('Connection', 'close');
          void drainBody(req).then(() =>
            this.fail(res, bodyTooLarge(bodyLimit), res.locals.log as Logger),
          );
          return;
        }
        limitBody(req, bodyLimit);
      }
      const served = new Promise<void>((resolve) => {
        res.on('finish', resolve);
        res.on('close', resolve);
      });
      this.working.add(served);
      void served.then(() => this.working.delete(served));
      next();
    };
  }

  /** Listens on addr ("host:port", ":port" or "port"; port 0 picks one). */
  listen(addr = 'localhost:9867'): Promise<AddressInfo> {
    const { host, port } = parseListenAddr(addr);
    return new Promise((resolve, reject) => {
      const server = http.createServer(this.app);
      // Long loads and queries: no request timeout. Idle keep-alives close
      // after longer than a proxy keeps them (nginx's upstream keepalive
      // and cloud load balancers idle out at 60 s): a proxy that sends on
      // a connection the server is closing fails the request (a 502 for a
      // load, which it does not retry). Node's 5 s default did that.
      server.requestTimeout = 0;
      server.keepAliveTimeout = KEEP_ALIVE_MS;
      server.headersTimeout = KEEP_ALIVE_MS + 1000;
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        this.server = server;
        const a = server.address() as AddressInfo;
        this.log.info('Listening', { addr: `${a.address}:${a.port}` });
        resolve(a);
      });
    });
  }

  /** True once shutdown has begun (readiness answers 503). */
  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Shuts down gracefully: readiness fails and new requests are refused at
   * once, the listener closes, requests in progress (loads, queries) get
   * up to graceMs to finish, then event streams end and any connection
   * left is cut. Resolves true when everything in progress finished.
   */
  async close(graceMs = 2000): Promise<boolean> {
    this.draining = true;
    const server = this.server;
    this.server = null;
    const closed = server
      ? new Promise<void>((resolve) => server.close(() => resolve()))
      : Promise.resolve();
    server?.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.all([...this.working]).then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), graceMs))),
    ]);
    clearTimeout(timer);
    await this.hub.close();
    server?.closeAllConnections();
    await closed;
    return finished;
  }
}

/** The reference's text of a NoCredentials error: its kind, then its reason if it has one. */
function goErrorText(e: Error): string {
  return e.message === NO_CREDENTIALS ? e.message : `${NO_CREDENTIALS}: ${e.message}`;
}

const tracer = trace.getTracer('zlake');

/**
 * A server span per request, the child of the caller's span when the
 * request carries a W3C traceparent; the handlers' spans are its children.
 */
function serverSpans(req: Request, res: Response, next: NextFunction): void {
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer.startSpan(
    req.method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method, 'url.path': req.path },
    },
    parent,
  );
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    const route = routeLabel(req);
    span.updateName(`${req.method} ${route}`);
    span.setAttribute('http.route', route);
    span.setAttribute('http.response.status_code', res.statusCode);
    const pool = req.params?.pool;
    if (pool) span.setAttribute('zlake.pool', pool);
    if (req.params?.branch) span.setAttribute('zlake.branch', req.params.branch);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  res.on('finish', end);
  res.on('close', end);
  context.with(trace.setSpan(parent, span), next);
}

const KNOWN_PATHS = [
  /^\/auth\/(identity|method)$/,
  /^\/events$/,
  /^\/pool$/,
  /^\/pool\/[^/]+$/,
  /^\/pool\/[^/]+\/branch\/[^/]+$/,
  /^\/pool\/[^/]+\/branch\/[^/]+\/(delete|index|index\/update)$/,
  /^\/pool\/[^/]+\/branch\/[^/]+\/(merge|revert)\/[^/]+$/,
  /^\/pool\/[^/]+\/revision\/[^/]+\/vacuum$/,
  /^\/pool\/[^/]+\/stats$/,
  /^\/query$/,
  /^\/query\/status\/[^/]+$/,
  /^\/index$/,
];

function routeLabel(req: Request): string {
  const r = (req as Request & { route?: { path?: string } }).route;
  return r?.path ?? 'unmatched';
}

/** Collapses repeated slashes and drops a trailing one (the reference's clients send both). */
function normalizeSlashes(req: Request, _res: Response, next: NextFunction): void {
  const q = req.url.indexOf('?');
  const p = q < 0 ? req.url : req.url.slice(0, q);
  let n = p.replace(/\/{2,}/g, '/');
  if (n.length > 1 && n.endsWith('/')) n = n.slice(0, -1);
  if (n !== p) req.url = n + (q < 0 ? '' : req.url.slice(q));
  next();
}

export function parseListenAddr(addr: string): { host: string | undefined; port: number } {
  let host: string | undefined;
  let portText = addr;
  const i = addr.lastIndexOf(':');
  if (i >= 0) {
    host = addr.slice(0, i).replace(/^\[(.*)\]$/, '$1') || undefined;
    portText = addr.slice(i + 1);
  }
  if (!/^\d+$/.test(portText)) throw new Error(`invalid listen address: ${addr}`);
  const port = Number(portText);
  if (port > 65535) throw new Error(`invalid listen address: ${addr}`);
  return { host, port };
}
