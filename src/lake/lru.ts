// A least-recently-used cache over a Map (whose iteration order is
// insertion order: re-inserting on a hit keeps the eldest entry first).

export class LRU<K, V> {
  private map = new Map<K, V>();
  private weight = 0;

  /**
   * capacity: entries at most, or with weigh, their total weight at most
   * (an entry heavier than that is not kept).
   */
  constructor(
    readonly capacity: number,
    private readonly weigh?: (v: V) => number,
  ) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const w = this.weigh ? this.weigh(value) : 1;
    if (w > this.capacity) return;
    this.map.set(key, value);
    this.weight += w;
    while (this.weight > this.capacity) this.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    const v = this.map.get(key);
    if (v === undefined && !this.map.has(key)) return;
    this.map.delete(key);
    this.weight -= this.weigh ? this.weigh(v as V) : 1;
  }

  /** Drops every entry whose key passes drop. */
  deleteWhere(drop: (key: K) => boolean): void {
    for (const k of [...this.map.keys()]) if (drop(k)) this.delete(k);
  }

  /** Drops every entry whose key starts with prefix (string keys). */
  deletePrefix(prefix: string): void {
    for (const k of [...this.map.keys()]) if (String(k).startsWith(prefix)) this.delete(k);
  }

  get size(): number {
    return this.map.size;
  }
}
