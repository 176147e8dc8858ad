// Object storage: a flat namespace of immutable objects named by
// slash-separated keys. The lake assumes only what S3 gives: an object
// appears whole or not at all, reads may be whole or a byte range, keys list
// by prefix, and delete removes. There are no appends, renames or locks.

/** Thrown by reads of an object that does not exist. */
export class ObjectNotFoundError extends Error {
  readonly code = 'ENOENT';
  constructor(readonly key: string) {
    super(`${key}: object not found`);
    this.name = 'ObjectNotFoundError';
  }
}

export function isNotFound(e: unknown): e is ObjectNotFoundError {
  return e instanceof ObjectNotFoundError;
}

/** An object being written: nothing is visible until commit() resolves. */
export interface ObjectWriter {
  write(chunk: Buffer): Promise<void>;
  /** Makes the object visible, whole. */
  commit(): Promise<void>;
  /** Discards what was written; the object never appears. */
  abort(): Promise<void>;
}

export interface ObjectStore {
  /** A human-readable location (for logs and messages). */
  readonly location: string;
  /** Writes an object whole (replacing any object of the same key). */
  put(key: string, data: Buffer): Promise<void>;
  /**
   * Writes an object whole only if no object has the key (S3's
   * `If-None-Match: *`). Resolves true when this call created it, false
   * when the key already existed; of concurrent calls at most one wins.
   */
  putIfAbsent(key: string, data: Buffer): Promise<boolean>;
  /** Starts writing a large object in pieces. */
  create(key: string): Promise<ObjectWriter>;
  /** The whole object. Throws ObjectNotFoundError. */
  get(key: string): Promise<Buffer>;
  /**
   * Bytes [offset, offset+length) of the object (fewer at its end).
   * Throws ObjectNotFoundError.
   */
  getRange(key: string, offset: number, length: number): Promise<Buffer>;
  /** The object's size in bytes. Throws ObjectNotFoundError. */
  size(key: string): Promise<number>;
  exists(key: string): Promise<boolean>;
  /** Keys beginning with prefix, in lexicographic order. */
  list(prefix: string): Promise<string[]>;
  /** Removes an object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object whose key begins with prefix. */
  deleteByPrefix(prefix: string): Promise<void>;
  /**
   * Ranged reads a scan may keep in flight on one object: 1 for a local
   * disk, more where each read is a network round trip.
   */
  readonly readAhead: number;
  /**
   * Objects a scan by columns fetches ahead of their turn (lake/vectorscan.ts):
   * none for a local disk, some where each read is a network round trip.
   */
  readonly objectsAhead: number;
  /** Bytes a scan asks for in one ranged read. */
  readonly rangeSize: number;
  /** Resolves when the store answers (readiness checks); throws otherwise. */
  ping(): Promise<void>;
  close?(): Promise<void>;
}
