// A least-recently-used cache over a Map (whose iteration order is
// insertion order: re-inserting on a hit keeps the eldest entry first).

export class LRU<K, V> {
  private map = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const eldest = this.map.keys().next().value as K;
      this.map.delete(eldest);
    }
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  /** Drops every entry whose key passes drop. */
  deleteWhere(drop: (key: K) => boolean): void {
    for (const k of [...this.map.keys()]) if (drop(k)) this.map.delete(k);
  }

  /** Drops every entry whose key starts with prefix (string keys). */
  deletePrefix(prefix: string): void {
    for (const k of [...this.map.keys()]) if (String(k).startsWith(prefix)) this.map.delete(k);
  }

  get size(): number {
    return this.map.size;
  }
}
