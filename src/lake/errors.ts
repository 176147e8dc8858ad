// Errors the lake reports to its callers. Each carries a kind that the
// service maps to an HTTP status (invalid → 400, notfound → 404,
// conflict → 409) and the reference's message text, which the service
// passes to clients verbatim. Anything else thrown from the lake is a bug
// or an infrastructure failure (500).

export type LakeErrorKind = 'invalid' | 'notfound' | 'conflict';

export class LakeError extends Error {
  constructor(
    readonly kind: LakeErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'LakeError';
  }
}

/** The reference's wording of each kind (api.Error's `kind` field). */
export const kindText: Record<LakeErrorKind, string> = {
  invalid: 'invalid operation',
  notfound: 'item does not exist',
  conflict: 'conflict with pending operation',
};

export const invalid = (message: string): LakeError => new LakeError('invalid', message);
export const notFound = (message: string): LakeError => new LakeError('notfound', message);
export const conflict = (message: string): LakeError => new LakeError('conflict', message);

/**
 * A count a setting gives as text besides `auto` (threads, objects): a
 * whole number from 0 to 256, else an invalid error naming the setting.
 */
export function parseCount(s: string, what: string): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0 || n > 256)
    throw invalid(`${what} must be auto or a whole number from 0 to 256: ${s}`);
  return n;
}

export function isLakeError(e: unknown, kind?: LakeErrorKind): e is LakeError {
  return e instanceof LakeError && (kind === undefined || e.kind === kind);
}
