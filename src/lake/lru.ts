// A least-recently-used cache over a Map (whose iteration order is
// insertion order: re-inserting on a hit keeps the eldest entry first).
// Entries have a weight (1 each unless a weigher is given) and the cache
// holds at most `capacity` in total: a count of entries, or bytes.

export class LRU<K, V> {
  private map = new Map<K, V>();
  private total = 0;

  constructor(
    readonly capacity: number,
    private readonly weigh: (value: V) => number = () => 1,
    /** Called with each entry evicted to make room (not on delete or replace). */
    private readonly onEvict?: (key: K, value: V) => void,
  ) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  /** True when key is cached (without making it recently used). */
  has(key: K): boolean {
    return this.map.has(key);
  }

  /**
   * Adds or replaces an entry, evicting the least recently used until the
   * total fits. An entry heavier than the whole capacity is not kept
   * (false is returned).
   */
  set(key: K, value: V): boolean {
    this.delete(key);
    const w = this.weigh(value);
    if (w > this.capacity) return false;
    this.map.set(key, value);
    this.total += w;
    while (this.total > this.capacity) {
      const [eldest, ev] = this.map.entries().next().value as [K, V];
      this.map.delete(eldest);
      this.total -= this.weigh(ev);
      this.onEvict?.(eldest, ev);
    }
    return true;
  }

  delete(key: K): void {
    const v = this.map.get(key);
    if (v === undefined) return;
    this.map.delete(key);
    this.total -= this.weigh(v);
  }

  /** Drops every entry whose key starts with prefix (string keys). */
  deletePrefix(prefix: string): void {
    for (const k of [...this.map.keys()]) if (String(k).startsWith(prefix)) this.delete(k);
  }

  /** Drops every entry. */
  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  /** Number of entries. */
  get size(): number {
    return this.map.size;
  }

  /** Total weight of the entries. */
  get weight(): number {
    return this.total;
  }
}
