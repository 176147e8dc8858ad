// The one place that chooses backends from a lake's location:
//
//   a path or file://PATH   the lake directory (LocalStore)
//   s3://bucket/prefix      S3 or an S3-speaking server (S3Store)
//
// and coordination on Redis with a Redis URL, else in this process. Nothing
// else in zlake imports a concrete backend. The S3 and Redis clients are
// loaded only for a location that needs them (the AWS SDK alone took about
// a fifth of every lake command's start).

import * as path from 'node:path';
import { Coordinator } from '../coord/coord';
import { LocalCoordinator } from '../coord/local';
import { Lake, LakeOptions } from '../lake/lake';

export { parseVectorScanMode } from '../lake/lake';
export { parseWorkers } from '../lake/decodepool';
import { LocalStore } from '../storage/local';
import { ObjectStore } from '../storage/storage';
import { isS3Location, localPath } from './location';
import { migrateLegacyRegisters } from './migrate';

export { isS3Location, localPath };

export interface BackendOptions {
  /** Where the lake is: a directory, file://PATH or s3://bucket/prefix. */
  lake: string;
  /** S3-speaking server (MinIO, ...) instead of AWS S3. */
  s3Endpoint?: string;
  s3Region?: string;
  /** redis://[:password@]host:port/db; none: coordination in this process. */
  redis?: string;
  redisPrefix?: string;
  redisPassword?: string;
  /**
   * Open a lake directory without owning it (a short-lived lake command):
   * refused while a server owns it, and not kept from other commands.
   */
  shared?: boolean;
}

export interface OpenOptions extends BackendOptions, LakeOptions {
  /** Wraps the backends (metrics and tracing decorators). */
  wrapStorage?(s: ObjectStore, backend: string): ObjectStore;
  wrapCoord?(c: Coordinator, backend: string): Coordinator;
}

export async function openBackends(
  o: BackendOptions,
): Promise<{ storage: ObjectStore; coord: Coordinator }> {
  let storage: ObjectStore;
  let dir: string | null = null;
  if (isS3Location(o.lake)) {
    const { S3Store } = await import('../storage/s3');
    storage = new S3Store(o.lake, { endpoint: o.s3Endpoint || undefined, region: o.s3Region });
  } else {
    dir = localPath(o.lake);
    storage = new LocalStore(dir);
  }
  let coord: Coordinator;
  if (o.redis) {
    const { RedisCoordinator } = await import('../coord/redis');
    coord = await RedisCoordinator.open(o.redis, {
      prefix: o.redisPrefix,
      password: o.redisPassword,
    });
  } else if (dir !== null) {
    coord = await LocalCoordinator.open(path.join(dir, 'coord'), { shared: o.shared });
    await migrateLegacyRegisters(path.join(dir, 'coord'), storage);
  } else {
    coord = LocalCoordinator.memory();
  }
  return { storage, coord };
}

/** Opens the lake at a location with the backends it names. */
export async function openLake(o: OpenOptions | string): Promise<Lake> {
  const opts: OpenOptions = typeof o === 'string' ? { lake: o } : o;
  const { storage, coord } = await openBackends(opts);
  const s3 = isS3Location(opts.lake);
  const s = opts.wrapStorage ? opts.wrapStorage(storage, s3 ? 's3' : 'local') : storage;
  const c = opts.wrapCoord ? opts.wrapCoord(coord, opts.redis ? 'redis' : 'local') : coord;
  return new Lake(s, c, {
    cacheSize: opts.cacheSize,
    ...(opts.vectorCacheSize !== undefined ? { vectorCacheSize: opts.vectorCacheSize } : {}),
    hooks: opts.hooks,
    ...(opts.vectorScan ? { vectorScan: opts.vectorScan } : {}),
    ...(opts.vectorWorkers !== undefined ? { vectorWorkers: opts.vectorWorkers } : {}),
    ...(opts.vectorWorkerMinBytes !== undefined
      ? { vectorWorkerMinBytes: opts.vectorWorkerMinBytes }
      : {}),
  });
}
