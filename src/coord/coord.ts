// Coordination: the one place where lake replicas agree quickly. It offers
// small registers changed only by compare-and-swap (branch heads, the pool
// catalog), kept in named groups, and an ordered event stream. This is what
// Redis gives (a hash per group, a CAS script, a stream), so the Redis
// implementation drops in without touching the lake.
//
// A coordinator may lose its state (Redis restarted without persistence,
// FLUSHALL, failover): the object store is the source of truth (see
// src/lake/registers.ts). A group therefore exists only once it has been
// loaded from the store, and every operation on a group that is not loaded
// throws GroupNotLoadedError, atomically with the operation, so a
// coordinator that forgot a group can never answer as if it were empty.

/** Thrown by register operations on a group the coordinator does not hold. */
export class GroupNotLoadedError extends Error {
  constructor(readonly group: string) {
    super(`coordination group ${group} is not loaded`);
    this.name = 'GroupNotLoadedError';
  }
}

export function isGroupNotLoaded(e: unknown): e is GroupNotLoadedError {
  return e instanceof GroupNotLoadedError;
}

/** An event delivered to a subscriber: its position in the stream and its text. */
export interface StreamEvent {
  /** Orders events; a subscriber may resume after it (SSE Last-Event-ID). */
  id: string;
  message: string;
}

export interface Coordinator {
  /** A human-readable location (for logs and messages). */
  readonly location: string;
  /** The register's value, or null when the group has no such register. */
  get(group: string, name: string): Promise<string | null>;
  /** Every register of the group. */
  list(group: string): Promise<Map<string, string>>;
  /**
   * Sets the register to `next` if its value is `expected` (null: absent).
   * Resolves true when it swapped. When it swaps, `events` are appended to
   * the event stream in the same atomic step, so the stream's order is the
   * order of the swaps.
   */
  compareAndSwap(
    group: string,
    name: string,
    expected: string | null,
    next: string,
    events?: string[],
  ): Promise<boolean>;
  /**
   * Makes the group hold exactly `registers`, unless the group is already
   * loaded (then nothing changes: whoever loaded it first read the truth
   * no earlier than this caller did, and swaps may have followed).
   */
  load(group: string, registers: Map<string, string>): Promise<void>;
  /** Forgets a group (its pool was dropped). */
  dropGroup(group: string): Promise<void>;
  /** Appends an event to the stream (delivered to every replica's subscribers). */
  publish(message: string): Promise<void>;
  /**
   * Calls handler with each event appended after subscription, in stream
   * order; with `after`, first with the retained events after that ID.
   * Returns the unsubscriber.
   */
  subscribe(handler: (e: StreamEvent) => void, after?: string): () => void;
  /** Resolves when the coordinator answers (readiness checks); throws otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
