// Errors a lake client meets, worded as the reference's Go client words
// them: a non-2xx answer is "status code <n>: <server's message>", and a
// request that never got an answer is Go's url.Error text
// (`Post "http://host/path": dial tcp 127.0.0.1:1: connect: connection refused`).

/** The server's JSON error body. */
export interface ErrorBody {
  type?: string;
  kind?: string;
  error?: string;
  info?: Record<string, unknown>;
}

/** A non-2xx response. */
export class ResponseError extends Error {
  constructor(
    readonly status: number,
    /** The server's message (the body's `error`, or the body text). */
    readonly detail: string,
    /** The body's `kind` ("invalid", "item does not exist", ...), if JSON. */
    readonly kind?: string,
    /** The body's `info` (e.g. parse_error_offset), if any. */
    readonly info?: Record<string, unknown>,
  ) {
    super(`status code ${status}: ${detail}`);
    this.name = 'ResponseError';
  }
}

/** A request that failed before a response arrived (connect, reset, ...). */
export class RequestError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly reason: string,
    readonly code?: string,
  ) {
    super(`${goMethod(method)} "${url}": ${reason}`);
    this.name = 'RequestError';
  }
}

/** Go's url.Error spells the method with only its first letter upper case. */
function goMethod(m: string): string {
  return m.charAt(0).toUpperCase() + m.slice(1).toLowerCase();
}

interface SysError extends Error {
  code?: string;
  address?: string;
  port?: number;
  hostname?: string;
  syscall?: string;
}

function hostPort(address: string | undefined, port: number | undefined): string {
  if (!address) return '';
  const host = address.includes(':') ? `[${address}]` : address;
  return port === undefined ? host : `${host}:${port}`;
}

/** The reason text of a socket error as Go's net package words it. */
export function networkReason(err: unknown): string {
  const e = err as SysError;
  const where = hostPort(e.address, e.port);
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${where}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${e.hostname ?? where}: no such host`;
    case 'ETIMEDOUT':
      return `dial tcp ${where}: i/o timeout`;
    case 'EHOSTUNREACH':
      return `dial tcp ${where}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${where}: connect: network is unreachable`;
    case 'ECONNRESET':
      return 'read: connection reset by peer';
    case 'EPIPE':
      return 'write: broken pipe';
    default:
      return e?.message ?? String(err);
  }
}
