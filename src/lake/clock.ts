// Eviction by a clock (second chance), for the lake's byte-bounded caches:
// entries in insertion order, a hit only marks its entry used, and the hand
// moves a used entry to the back (clearing the mark) instead of evicting
// it. It approximates least-recently-used order without reordering
// anything on a hit.

/** What the clock needs of an entry. */
export interface ClockEntry {
  /** Read since the hand last passed it. */
  used: boolean;
  /** Bytes the entry counts for. */
  bytes: number;
}

export class Clock<E extends ClockEntry> {
  private order = new Set<E>();
  total = 0;
  evictions = 0;

  constructor(readonly budget: number) {}

  get size(): number {
    return this.order.size;
  }

  /** Adds an entry, evicting others (through drop) until the total fits the budget. */
  add(e: E, drop: (e: E) => void): void {
    e.used = false;
    this.order.add(e);
    this.total += e.bytes;
    this.fit(drop);
  }

  /** Evicts (through drop) until the total fits the budget. */
  fit(drop: (e: E) => void): void {
    while (this.total > this.budget && this.order.size > 0) {
      const e = this.order.values().next().value as E;
      this.order.delete(e);
      if (e.used) {
        e.used = false;
        this.order.add(e);
        continue;
      }
      this.total -= e.bytes;
      drop(e);
      this.evictions++;
    }
  }

  /** Takes an entry out (not an eviction). */
  remove(e: E): void {
    if (this.order.delete(e)) this.total -= e.bytes;
  }

  /** Changes an entry's size. */
  resize(e: E, bytes: number): void {
    if (this.order.has(e)) this.total += bytes - e.bytes;
    e.bytes = bytes;
  }

  /** The entries, least recently inserted first. */
  entries(): IterableIterator<E> {
    return this.order.values();
  }

  clear(): void {
    this.order.clear();
    this.total = 0;
  }
}

/** An entry of an ObjectCache: where it is kept. */
export interface ObjectCacheEntry<K> extends ClockEntry {
  /** The object (pool/id) and key it is kept under (set by put). */
  object: string;
  key: K;
}

export interface CacheStats {
  /** Lookups that found their entry. */
  hits: number;
  /** Lookups that did not, while the cache was on. */
  misses: number;
  /** Entries evicted to stay within the budget. */
  evictions: number;
  /** Bytes held. */
  bytes: number;
  /** Entries held. */
  entries: number;
}

/**
 * A byte-bounded cache of things about data objects, by object (pool/id)
 * and a key within it, evicted by a clock; entries go with their object
 * or pool (objects never change, so nothing goes stale).
 */
export class ObjectCache<K, E extends ObjectCacheEntry<K>> {
  /**
   * The entries by object, then key: a lookup hashes the caller's object
   * string (its hash is kept in the string) and a small key, and builds no
   * key of its own.
   */
  private index = new Map<string, Map<K, E>>();
  private clock: Clock<E>;
  private hits = 0;
  private misses = 0;

  /** budget: bytes the cache may hold; 0 turns it off. */
  constructor(readonly budget: number) {
    this.clock = new Clock(budget);
  }

  get enabled(): boolean {
    return this.budget > 0;
  }

  /** The entry of object at key, counting a hit or miss. */
  get(object: string, key: K): E | undefined {
    const e = this.index.get(object)?.get(key);
    if (e !== undefined) {
      e.used = true;
      this.hits++;
    } else if (this.enabled) {
      this.misses++;
    }
    return e;
  }

  /** Whether object has an entry at key (no hit or miss is counted). */
  has(object: string, key: K): boolean {
    return this.index.get(object)?.has(key) === true;
  }

  /** Keeps e (in place of any entry at the key), unless the cache is off or e exceeds the budget. */
  put(object: string, key: K, e: E): void {
    if (!this.enabled) return;
    const m = this.index.get(object);
    const old = m?.get(key);
    if (old !== undefined) {
      this.clock.remove(old);
      this.unindex(old);
    }
    if (e.bytes > this.budget) return;
    e.object = object;
    e.key = key;
    let entries = this.index.get(object);
    if (entries === undefined) {
      entries = new Map();
      this.index.set(object, entries);
    }
    entries.set(key, e);
    this.clock.add(e, (x) => this.unindex(x));
  }

  /** The entries of an object (no hits are counted). */
  of(object: string): IterableIterator<E> | undefined {
    return this.index.get(object)?.values();
  }

  /** Recounts an object's entries' sizes (size(e): bytes now) and evicts to fit. */
  resize(object: string, size: (e: E) => number): void {
    const m = this.index.get(object);
    if (m === undefined) return;
    for (const e of m.values()) this.clock.resize(e, size(e));
    this.clock.fit((x) => this.unindex(x));
  }

  /** Drops the entries of one object (pool/id). */
  dropObject(object: string): void {
    const m = this.index.get(object);
    if (m === undefined) return;
    for (const e of m.values()) this.clock.remove(e);
    this.index.delete(object);
  }

  /** Drops the entries of every object of a pool. */
  dropPool(poolId: string): void {
    for (const object of [...this.index.keys()])
      if (object.startsWith(`${poolId}/`)) this.dropObject(object);
  }

  /** The objects with entries. */
  objects(): IterableIterator<string> {
    return this.index.keys();
  }

  /** The entries held, least recently inserted first (no hits are counted). */
  entries(): IterableIterator<E> {
    return this.clock.entries();
  }

  clear(): void {
    this.clock.clear();
    this.index.clear();
  }

  stats(): CacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      evictions: this.clock.evictions,
      bytes: this.clock.total,
      entries: this.clock.size,
    };
  }

  private unindex(e: E): void {
    const m = this.index.get(e.object);
    if (m === undefined || m.get(e.key) !== e) return;
    m.delete(e.key);
    if (m.size === 0) this.index.delete(e.object);
  }
}
