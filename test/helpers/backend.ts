// Which backends the tests' lakes run on. By default the embedded one (a
// temporary directory, in-process coordination); with
// ZLAKE_TEST_BACKEND=s3redis (the jest project `s3redis`), S3 behind the
// fault proxy and a real Redis, started once per test file.

import { OpenOptions } from '../../src/backend/open';
import { startRedis, startS3, TestRedis, TestS3 } from './servers';

export const onS3Redis = process.env.ZLAKE_TEST_BACKEND === 's3redis';

let servers: Promise<{ s3: TestS3; redis: TestRedis }> | null = null;
let lakes = 0;

/** The shared S3 and Redis servers of this test file (started on first use). */
export function testServers(): Promise<{ s3: TestS3; redis: TestRedis }> {
  servers ??= Promise.all([startS3(), startRedis()]).then(([s3, redis]) => ({ s3, redis }));
  return servers;
}

// Registered while the test file is collected (jest takes hooks only then).
if (onS3Redis) {
  afterAll(async () => {
    if (!servers) return;
    const s = await servers;
    await Promise.all([s.s3.stop(), s.redis.stop()]);
  });
}

/** Options opening a new lake on this run's backends (dir: the embedded lake's directory). */
export async function testLakeOptions(dir: string): Promise<OpenOptions> {
  if (!onS3Redis) return { lake: dir };
  const { s3, redis } = await testServers();
  const n = ++lakes;
  return {
    lake: s3.lake(`lake${process.pid}-${n}`),
    s3Endpoint: s3.endpoint,
    redis: redis.url,
    redisPrefix: `lake${process.pid}-${n}`,
  };
}

/** `zlake serve` flags for a new lake on this run's backends. */
export async function serveLakeArgs(dir: string): Promise<string[]> {
  const o = await testLakeOptions(dir);
  if (!onS3Redis) return ['-lake', o.lake];
  return [
    '-lake',
    o.lake,
    '-s3.endpoint',
    o.s3Endpoint!,
    '-redis',
    o.redis!,
    '-redis.prefix',
    o.redisPrefix!,
  ];
}
