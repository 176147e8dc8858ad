// A least-recently-used cache over a Map (whose iteration order is
// insertion order: re-inserting on a hit keeps the eldest entry first).

export class LRU<K, V> {
  private map = new Map<K, { v: V; w: number }>();
  private weight = 0;

  /**
   * capacity: entries at most, or with weigh, their total weight at most
   * (an entry heavier than that is not kept). An entry's weight is taken
   * once, as it is set.
   */
  constructor(
    readonly capacity: number,
    private readonly weigh?: (v: V, k: K) => number,
  ) {}

  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.v;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const w = this.weigh ? this.weigh(value, key) : 1;
    if (w > this.capacity) return;
    this.map.set(key, { v: value, w });
    this.weight += w;
    while (this.weight > this.capacity && this.map.size > 0)
      this.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    const e = this.map.get(key);
    if (e === undefined) return;
    this.map.delete(key);
    this.weight -= e.w;
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
