// Coordination: the one place where lake replicas agree. It offers small
// registers changed only by compare-and-swap (branch heads, the pool
// catalog) and fire-and-forget pub/sub of events. This is exactly what
// Redis gives (a CAS script, SCAN, PUBLISH/SUBSCRIBE), so a Redis
// implementation drops in without touching the lake.

export interface Coordinator {
  /** The register's value, or null when it does not exist. */
  get(key: string): Promise<string | null>;
  /**
   * Sets the register to `next` if its value is `expected` (null: absent;
   * a null `next` deletes it). Resolves true when it swapped; the change is
   * durable before the promise resolves.
   */
  compareAndSwap(key: string, expected: string | null, next: string | null): Promise<boolean>;
  /** Every register whose key begins with prefix. */
  list(prefix: string): Promise<Map<string, string>>;
  /** Sends a message to the channel's current subscribers (never blocks on them). */
  publish(channel: string, message: string): Promise<void>;
  /** Calls handler with each later message on the channel; returns the unsubscriber. */
  subscribe(channel: string, handler: (message: string) => void): () => void;
  close(): Promise<void>;
}
