// zlake serve: run the lake service over a lake directory, with the
// reference's `zed serve` flags.

import { createReadStream, promises as fs } from 'node:fs';
import {
  isS3Location,
  localPath,
  openLake,
  parseVectorScanMode,
  parseWorkers,
} from '../backend/open';
import { lz4Codec } from '../formats/zng';
import {
  compressPool,
  parseCompressWorkerMode,
  setCompressWorkerMode,
} from '../formats/zng/compresspool';
import { DEFAULT_CACHE_SIZE } from '../lake';
import { fetchAhead, objectsAhead, parseAhead } from '../lake/ahead';
import { Authenticator } from '../service/auth/authenticator';
import { openLogSink, Logger, parseLogLevel } from '../service/log';
import { isKnownFormat } from '../service/mime';
import { Service, version } from '../service/server';
import { instrument } from '../backend/instrument';
import { Metrics } from '../service/metrics';
import { startTracing } from '../telemetry/tracing';
import { parseDuration } from '../zed/nano';
import { asideConfig, parseAsideWorkers } from '../query/aggregates/dcountaside';
import { FlagSet } from './flags';
import { parseBytes } from './lake/units';

/** The lake served when -lake is not given (ZED_LAKE when it is a directory). */
function defaultLake(): string {
  const env = process.env.ZED_LAKE;
  if (env && !/^https?:\/\//.test(env)) return env.replace(/^file:\/\//, '');
  return '.zlake';
}

/** A flag's duration ("30s", "5m"; "0" for none) in milliseconds. */
function durationMs(flag: string, text: string): number {
  if (text === '0') return 0;
  const ns = parseDuration(text);
  if (ns === undefined || ns < 0n)
    throw new Error(`zlake serve: -${flag}: invalid duration ${text}`);
  return Number(ns / 1000000n);
}

export async function serve(args: string[]): Promise<number> {
  const fs_ = new FlagSet('serve');
  const listen = fs_.string('l', 'localhost:9867', '[addr]:port to listen on');
  const lakeDir = fs_.string(
    'lake',
    defaultLake(),
    'lake location: a directory, file://PATH or s3://bucket/prefix (env ZED_LAKE)',
  );
  const s3Endpoint = fs_.string('s3.endpoint', '', 'S3-speaking server URL (MinIO, ...)');
  const s3Region = fs_.string('s3.region', '', 'S3 region (default: AWS_REGION)');
  const redisUrl = fs_.string(
    'redis',
    '',
    'coordinate replicas through Redis at redis://[:password@]host:port/db',
  );
  const redisPrefix = fs_.string('redis.prefix', 'zlake', "prefix of this lake's Redis keys");
  const redisPassword = fs_.string('redis.password', '', 'Redis password (if not in the URL)');
  const portFile = fs_.string('portfile', '', 'write listen port to file');
  const defaultFmt = fs_.string('defaultfmt', 'zson', 'default response format');
  const cors = fs_.strings('cors.origin', 'CORS allowed origin (may be repeated)');
  const logLevel = fs_.string('log.level', 'info', 'logging level (debug, info, warn, error)');
  const logPath = fs_.string('log.path', 'stderr', 'path to send logs (stderr, stdout, or a file)');
  const logMode = fs_.string('log.filemode', 'truncate', 'log file write mode (append, truncate)');
  fs_.bool('log.devmode', false, 'development mode (accepted for compatibility)');
  const rootContent = fs_.string('rootcontentfile', '', 'file to serve for GET /');
  const brimfd = fs_.int('brimfd', -1, 'pipe read fd passed by Zui to signal Zui closure');
  const cacheSize = fs_.int(
    'cache.size',
    DEFAULT_CACHE_SIZE,
    'bytes of decoded data objects kept in memory for queries (0 turns the cache off)',
  );
  const vectorCacheSize = fs_.int(
    'vector.cache.size',
    -1,
    'bytes of decoded columns kept in memory for queries (0 turns it off; default: -cache.size)',
  );
  const authEnabled = fs_.bool('auth.enabled', false, 'enable authentication checks');
  const authAudience = fs_.string(
    'auth.audience',
    '',
    'Auth0 audience for API clients (will be publicly accessible)',
  );
  const authClientId = fs_.string(
    'auth.clientid',
    '',
    'Auth0 client ID for API clients (will be publicly accessible)',
  );
  const authDomain = fs_.string(
    'auth.domain',
    '',
    'Auth0 domain (as a URL) for API clients (will be publicly accessible)',
  );
  const authJwksPath = fs_.string('auth.jwkspath', '', 'path to JSON Web Key Set file');
  const vectorScan = fs_.string(
    'vector.scan',
    'auto',
    'read data objects by their columnar copies: auto, on (wherever a query allows), off',
  );
  const vectorWorkers = fs_.string(
    'vector.workers',
    '0',
    'threads that decode columns for queries: a number, or auto for the cores available (0 or 1: on the query thread)',
  );
  const vectorAhead = fs_.string(
    'vector.ahead',
    'auto',
    "objects a scan fetches ahead of their turn (their columns, or their first range when read by rows), hiding the store's latency: a number, or auto (4 on S3, none on a local disk)",
  );
  const zngWorker = fs_.string(
    'zng.worker',
    'auto',
    'LZ4-compress big ZNG frames on a second thread: auto (with two cores or more), on, off',
  );
  const dcountWorkers = fs_.string(
    'dcount.workers',
    'auto',
    'threads that keep the sketches of a large group-by with dcount: auto (one less than the cores, at most 4), off, or a number',
  );
  const grace = fs_.string(
    'shutdown.grace',
    '30s',
    'on SIGTERM, time in-flight loads and queries get to finish',
  );
  const limitBody = fs_.string('limit.body', '0', 'largest request body, e.g. 10GB (0: none)');
  const limitQueryTime = fs_.string(
    'limit.querytime',
    '0',
    'longest a query may run, e.g. 5m (0: none)',
  );
  const limitQueries = fs_.int(
    'limit.queries',
    0,
    'queries run at once by this replica (0: no limit)',
  );
  let rest: string[];
  try {
    // Each flag may come from the environment (ZLAKE_<NAME>); the command line wins.
    fs_.env('ZLAKE_');
    rest = fs_.parse(args);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${fs_.usage()}`);
    return 2;
  }
  if (rest.length > 0) {
    process.stderr.write(`zlake serve: unexpected arguments: ${rest.join(' ')}\n`);
    return 2;
  }
  if (/^https?:\/\//.test(lakeDir.value)) {
    throw new Error('serve command available for local lakes only');
  }
  if (!isKnownFormat(defaultFmt.value)) {
    throw new Error(`invalid default response format: unknown format type: ${defaultFmt.value}`);
  }
  const mode = logMode.value === 'append' ? 'append' : 'truncate';
  const logOut = openLogSink(logPath.value, mode);
  const log = new Logger(logOut.sink, parseLogLevel(logLevel.value));
  const location = isS3Location(lakeDir.value) ? lakeDir.value : localPath(lakeDir.value);
  if (!(cacheSize.value >= 0)) {
    throw new Error(`zlake serve: -cache.size must be a number of bytes: ${cacheSize.value}`);
  }
  const graceMs = durationMs('shutdown.grace', grace.value);
  try {
    setCompressWorkerMode(parseCompressWorkerMode(zngWorker.value));
  } catch {
    throw new Error(`zlake serve: -zng.worker must be auto, on or off: ${zngWorker.value}`);
  }
  try {
    asideConfig.workers = parseAsideWorkers(dcountWorkers.value);
  } catch (e) {
    throw new Error(`zlake serve: -dcount.workers ${(e as Error).message}`);
  }
  fetchAhead.objects = parseAhead(vectorAhead.value);
  const limits = {
    bodyBytes: limitBody.value === '0' ? 0 : parseBytes(limitBody.value),
    queryMs: durationMs('limit.querytime', limitQueryTime.value),
    queries: limitQueries.value,
  };
  if (!(limits.bodyBytes >= 0) || !(limits.queries >= 0)) {
    throw new Error('zlake serve: limits must not be negative');
  }
  // The key set is read once: replicas need nothing else to agree on tokens.
  const auth = Authenticator.open({
    enabled: authEnabled.value,
    audience: authAudience.value,
    clientId: authClientId.value,
    domain: authDomain.value,
    jwksPath: authJwksPath.value,
  });
  if (auth && auth.keyCount === 0) {
    log.warn('JWKS file holds no usable keys: every token will be refused', {
      path: authJwksPath.value,
    });
  }
  // Tracing (when OTEL_* asks for it) before anything opens a span.
  const tracing = await startTracing();
  // The registry first: it observes the backends and the commit protocol.
  const metrics = new Metrics(true);
  const lake = await openLake({
    wrapStorage: (st, backend) =>
      instrument(st, 'storage', backend, metrics.backendObserver('storage', backend)),
    wrapCoord: (c, backend) =>
      instrument(c, 'coord', backend, metrics.backendObserver('coord', backend)),
    hooks: {
      commitRetry: () => metrics.commitRetries.inc(),
      commitConflict: () => metrics.commitConflicts.inc(),
    },
    lake: location,
    s3Endpoint: s3Endpoint.value || undefined,
    s3Region: s3Region.value || undefined,
    redis: redisUrl.value || undefined,
    redisPrefix: redisPrefix.value,
    redisPassword: redisPassword.value || undefined,
    cacheSize: cacheSize.value,
    vectorCacheSize: vectorCacheSize.value < 0 ? cacheSize.value : vectorCacheSize.value,
    vectorScan: parseVectorScanMode(vectorScan.value),
    vectorWorkers: parseWorkers(vectorWorkers.value),
  });
  const service = new Service({
    lake,
    defaultFormat: defaultFmt.value,
    corsOrigins: cors.value,
    logger: log,
    rootContent: rootContent.value ? await fs.readFile(rootContent.value) : undefined,
    metrics,
    limits,
    auth,
  });
  const addr = await service.listen(listen.value);
  log.info('Started', {
    tracing: tracing !== null,
    lake: location,
    coordination: lake.coord.location,
    version: version(),
    auth: auth ? 'auth0' : 'none',
    port: addr.port,
    lz4: lz4Codec,
    zng_worker: compressPool() !== null,
    dcount_workers: asideConfig.workers,
    vector_ahead: objectsAhead(lake.storage),
    malloc_tuned: mallocTuned(process.env),
  });
  if (portFile.value) {
    // Written whole, then renamed, so a watcher never reads a partial file.
    const tmp = `${portFile.value}.${process.pid}.tmp`;
    await fs.writeFile(tmp, String(addr.port));
    await fs.rename(tmp, portFile.value);
  }

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (why: string) => {
      if (stopping) return;
      stopping = true;
      log.info('Shutdown', { reason: why, grace_seconds: graceMs / 1000 });
      const finished = await service.close(graceMs);
      if (!finished) log.warn('Shutdown grace period over: cut requests still in progress', {});
      await lake.close();
      await tracing?.shutdown().catch(() => undefined);
      await logOut.close();
      resolve(0);
    };
    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
    if (brimfd.value >= 0) {
      // Zui passes a pipe; when it closes, Zui is gone and so are we.
      const pipe = createReadStream('', { fd: brimfd.value });
      pipe.on('data', () => undefined);
      pipe.on('close', () => void stop('brimfd closed'));
      pipe.on('error', () => void stop('brimfd closed'));
    }
  });
}

/**
 * Whether glibc's allocator was told to keep freed memory for reuse
 * (MALLOC_TRIM_THRESHOLD_, or glibc.malloc.trim_threshold in
 * GLIBC_TUNABLES), as `npm start` and the image do: the columns of a cold
 * scan then reuse the last query's memory instead of faulting in fresh
 * pages (docs/operations.md, "Memory allocator").
 */
export function mallocTuned(env: NodeJS.ProcessEnv): boolean {
  return (
    env.MALLOC_TRIM_THRESHOLD_ !== undefined ||
    /glibc\.malloc\.trim_threshold=/.test(env.GLIBC_TUNABLES ?? '')
  );
}
