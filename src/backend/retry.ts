// Retries for calls to remote backends (S3, Redis): exponential backoff
// with full jitter, only for failures that a later attempt can cure
// (throttling, 5xx, timeouts, dropped connections). A failure that
// outlives the attempts becomes an UnavailableError, which the service
// answers with 503: the backend is down, not the client wrong.

export class UnavailableError extends Error {
  constructor(
    readonly backend: string,
    readonly op: string,
    readonly reason: unknown,
  ) {
    super(`${backend} unavailable (${op}): ${reason instanceof Error ? reason.message : reason}`);
    this.name = 'UnavailableError';
  }
}

export function isUnavailable(e: unknown): e is UnavailableError {
  return e instanceof UnavailableError;
}

export interface RetryPolicy {
  /** Attempts in all (1: no retry). */
  attempts: number;
  /** First backoff ceiling, ms; doubles each retry. */
  baseMs: number;
  /** Largest backoff ceiling, ms. */
  capMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseMs: 25, capMs: 2000 };

/**
 * Runs op until it succeeds, fails for good (`transient(e)` false: thrown
 * as is), or runs out of attempts (thrown as UnavailableError).
 */
export async function withRetry<T>(
  backend: string,
  opName: string,
  policy: RetryPolicy,
  transient: (e: unknown) => boolean,
  op: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!transient(e)) throw e;
      if (attempt >= policy.attempts) throw new UnavailableError(backend, opName, e);
      const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1));
      await new Promise((r) => setTimeout(r, Math.random() * ceiling));
    }
  }
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
]);

const NETWORK_TEXT = new RegExp(
  `socket hang up|premature close|\\bTimeoutError\\b|\\b(?:${[...NETWORK_CODES].join('|')})\\b`,
  'i',
);

/** A dropped or refused connection, or a timeout, anywhere in the cause chain. */
export function isNetworkError(e: unknown): boolean {
  for (let x = e as { code?: string; name?: string; message?: string; cause?: unknown }; x;) {
    if (x.code && NETWORK_CODES.has(x.code)) return true;
    if (x.name === 'TimeoutError' || x.name === 'AbortError') return true;
    // By text too: the AWS SDK rewraps an error it does not recognise as
    // one (from another realm, say) into a plain Error naming it.
    if (typeof x.message === 'string' && NETWORK_TEXT.test(x.message)) return true;
    x = x.cause as typeof x;
  }
  return false;
}
