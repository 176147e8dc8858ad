// How errors become HTTP responses: a status and the reference's JSON body
// {"type":"Error","kind":...,"error":...,"info"?:...}.
//
// The lake's errors carry a kind (invalid → 400, notfound → 404,
// conflict → 409). Input and query errors (a bad format, a query that does
// not parse or compile, an error the query meets while it runs) are the
// client's: 400. Anything else is a bug or an infrastructure failure: 500,
// with the reference's empty kind.

import { DetectionError } from '../formats/detect';
import { FormatError } from '../formats/io';
import { isUnavailable } from '../backend/retry';
import { isLakeError, kindText, LakeError, LakeErrorKind } from '../lake/errors';
import { ParseError } from '../query/parser/error';
import { QueryCancelled } from '../query/runtime/context';
import { isNotFound } from '../storage/storage';

const statusOf: Record<LakeErrorKind, number> = { invalid: 400, notfound: 404, conflict: 409 };

/** A client error with an explicit HTTP status (e.g. 415) and extra details for the body. */
export class HttpError extends LakeError {
  constructor(
    kind: LakeErrorKind,
    message: string,
    readonly status: number = statusOf[kind],
    readonly info?: Record<string, unknown>,
  ) {
    super(kind, message);
  }
}

/** The reference's kind text of a request without valid credentials. */
export const NO_CREDENTIALS = 'missing authentication credentials';

/**
 * A request without valid credentials (the reference's srverr
 * NoCredentials): 401. The message is the reason ("invalid token"), or
 * the kind's own text when there is none (an empty bearer token).
 */
export class NoCredentialsError extends Error {
  constructor(reason?: string) {
    super(reason ?? NO_CREDENTIALS);
    this.name = 'NoCredentialsError';
  }
}

export interface ErrorBody {
  type: 'Error';
  kind: string;
  error: string;
  info?: Record<string, unknown>;
}

/** Errors the engine reports for a query's own mistakes (set by the query module). */
const clientErrorClasses: (abstract new (...args: never[]) => Error)[] = [
  FormatError,
  DetectionError,
  ParseError,
];

/** Registers another class of error that means "the client's mistake" (400). */
export function registerClientError(cls: abstract new (...args: never[]) => Error): void {
  if (!clientErrorClasses.includes(cls)) clientErrorClasses.push(cls);
}

function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/** The status and body an error is answered with. */
export function errorResponse(e: unknown): { status: number; body: ErrorBody } {
  const err = e instanceof Error ? e : new Error(String(e));
  if (isLakeError(err)) {
    const body: ErrorBody = { type: 'Error', kind: kindText[err.kind], error: err.message };
    if (err instanceof HttpError) {
      if (err.info) body.info = err.info;
      return { status: err.status, body };
    }
    return { status: statusOf[err.kind], body };
  }
  if (err instanceof NoCredentialsError) {
    return { status: 401, body: { type: 'Error', kind: NO_CREDENTIALS, error: err.message } };
  }
  if (err instanceof ParseError) {
    return {
      status: 400,
      body: {
        type: 'Error',
        kind: kindText.invalid,
        error: err.message,
        info: { parse_error_offset: err.offset },
      },
    };
  }
  if (clientErrorClasses.some((c) => err instanceof c)) {
    return { status: 400, body: { type: 'Error', kind: kindText.invalid, error: err.message } };
  }
  if (isStackOverflow(err)) {
    // A query recursing without end (a user function calling itself).
    return {
      status: 400,
      body: { type: 'Error', kind: kindText.invalid, error: 'stack overflow' },
    };
  }
  if (err instanceof QueryCancelled) {
    // Only seen in logs: the client has gone.
    return { status: 499, body: { type: 'Error', kind: '', error: err.message } };
  }
  if (isNotFound(err)) {
    return { status: 404, body: { type: 'Error', kind: kindText.notfound, error: err.message } };
  }
  if (isUnavailable(err)) {
    // S3 or Redis failed past its retries: try again later, nothing changed.
    return { status: 503, body: { type: 'Error', kind: 'unavailable', error: err.message } };
  }
  return { status: 500, body: { type: 'Error', kind: '', error: err.message } };
}

/**
 * JSON text as Go's encoding/json writes it (the reference's error
 * bodies; with indent, its MarshalIndent): <, > and & escaped, and a
 * newline at the end.
 */
export function goJSON(v: unknown, indent?: string): string {
  return (
    JSON.stringify(v, null, indent).replace(/[<>&\u2028\u2029]/g, (c) => {
      return '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
    }) + '\n'
  );
}
