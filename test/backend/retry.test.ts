// Which failures are worth another attempt, and what outlives the attempts.

import { isNetworkError, isUnavailable, withRetry } from '../../src/backend/retry';

test('network failures are known by code, name, cause or text', () => {
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  expect(isNetworkError(reset)).toBe(true);
  expect(isNetworkError(new Error('outer', { cause: reset }))).toBe(true);
  expect(isNetworkError(Object.assign(new Error('x'), { name: 'TimeoutError' }))).toBe(true);
  // What the AWS SDK makes of an error it does not recognise as one.
  expect(isNetworkError(new Error('AWS SDK error wrapper for TimeoutError: read ECONNRESET'))).toBe(
    true,
  );
  expect(isNetworkError(new Error('socket hang up'))).toBe(true);
  expect(isNetworkError(new Error('The specified key does not exist.'))).toBe(false);
  expect(isNetworkError(new Error('ECONNRESETTLED'))).toBe(false);
  expect(isNetworkError(undefined)).toBe(false);
});

test('a transient failure is retried, and one that outlives the attempts is Unavailable', async () => {
  let calls = 0;
  const policy = { attempts: 3, baseMs: 1, capMs: 2 };
  const ok = await withRetry(
    's3',
    'get',
    policy,
    () => true,
    async () => {
      if (++calls < 3) throw new Error('flaky');
      return 'done';
    },
  );
  expect([ok, calls]).toEqual(['done', 3]);
  calls = 0;
  const e = await withRetry(
    's3',
    'get',
    policy,
    () => true,
    async () => {
      calls++;
      throw new Error('down');
    },
  ).catch((x: unknown) => x);
  expect(isUnavailable(e)).toBe(true);
  expect((e as Error).message).toBe('s3 unavailable (get): down');
  expect(calls).toBe(3);
  calls = 0;
  const hard = await withRetry(
    's3',
    'get',
    policy,
    () => false,
    async () => {
      calls++;
      throw new Error('denied');
    },
  ).catch((x: unknown) => x);
  expect([isUnavailable(hard), (hard as Error).message, calls]).toEqual([false, 'denied', 1]);
});
