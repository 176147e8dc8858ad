// The group table of summarize: an open-addressing hash table keyed by the
// bytes of a group's key values (a single key's body; several keys each
// tag-encoded, one after another) and the ID of the vector of their types. Looking up an existing group
// allocates nothing; a new group copies its key bytes into one growing
// arena. Groups are numbered 0, 1, ... in order of first appearance.

import { Type } from '../../../zed/types';

/** Int32s per slot of the group table. */
const S = 4;

/** Small integer IDs for vectors of types (a group's key types). */
export class TypeVectors {
  private readonly root = new Map<Type, Node>();
  private readonly vectors: Type[][] = [];
  private last: Type[] = [];
  private lastId = -1;

  /** The ID of types (which the caller may reuse afterwards). */
  id(types: readonly Type[]): number {
    const last = this.last;
    if (this.lastId >= 0 && last.length === types.length) {
      let same = true;
      for (let i = 0; i < types.length; i++) {
        if (last[i] !== types[i]) {
          same = false;
          break;
        }
      }
      if (same) return this.lastId;
    }
    let node: Node | undefined;
    let level = this.root;
    for (const t of types) {
      node = level.get(t);
      if (!node) {
        node = { id: -1, next: new Map() };
        level.set(t, node);
      }
      level = node.next;
    }
    if (!node) {
      // The empty vector (no keys).
      node = this.empty ??= { id: -1, next: new Map() };
    }
    if (node.id < 0) {
      node.id = this.vectors.length;
      this.vectors.push(types.slice());
    }
    this.last = types.slice();
    this.lastId = node.id;
    return node.id;
  }

  private empty?: Node;

  types(id: number): Type[] {
    return this.vectors[id];
  }
}

function viewOf(b: Buffer): DataView {
  return new DataView(b.buffer, b.byteOffset, b.length);
}

interface Node {
  id: number;
  next: Map<Type, Node>;
}

/**
 * A slot holds (group + 1, hash, key offset, key length): 16 bytes, four
 * to a cache line. The arena holds each group's type vector (4 bytes)
 * then its key bytes, so a lookup touches the slot, then one place in the
 * arena. The table grows at 70% load. meta repeats a group's key location
 * for reading groups out.
 */
export class GroupTable {
  private slots: Int32Array;
  private mask: number;
  /** Per group g: meta[3g] key offset in arena, meta[3g+1] length (-1: null), meta[3g+2] type vector. */
  private meta: Int32Array;
  arena: Buffer;
  /** The arena as a DataView, for comparing keys four bytes at a time. */
  private arenaView: DataView;
  arenaLen = 0;
  /** Where the last find() that missed ended: its free slot, in which table, at which size. */
  private missSlots: Int32Array | null = null;
  private missSlot = 0;
  private missHash = 0;
  private missSize = 0;
  /** The last two key buffers a compare was given, and their DataViews. */
  private lastKey: Buffer | null = null;
  private lastKeyView: DataView | null = null;
  private prevKey: Buffer | null = null;
  private prevKeyView: DataView | null = null;
  size = 0;
  private limit: number;
  /** Groups [0, indexed) have slots; the rest were appended (append()) and wait for one. */
  private indexed = 0;
  /** The hashes of the groups waiting for a slot, by group. */
  private waiting = new Int32Array(0);

  constructor(initial = 1024) {
    let cap = 16;
    while (cap * 0.7 < initial) cap <<= 1;
    this.slots = new Int32Array(cap * S);
    this.mask = cap - 1;
    this.limit = Math.floor(cap * 0.7);
    this.meta = new Int32Array(initial * 3);
    this.arena = Buffer.allocUnsafe(64 * 1024);
    this.arenaView = viewOf(this.arena);
  }

  /**
   * key's DataView, made when a compare first needs it: callers pass the
   * same buffer call after call (a batch's column, a scratch, keyBuf),
   * and two are kept for one that alternates between two (a DataView
   * costs more to make than the compare it speeds up).
   */
  private keyView(key: Buffer): DataView {
    if (key === this.lastKey) return this.lastKeyView!;
    if (key !== this.prevKey) {
      this.prevKey = key;
      this.prevKeyView = viewOf(key);
    }
    // The two swap, so that the last used is found first.
    const v = this.prevKeyView!;
    this.prevKey = this.lastKey;
    this.prevKeyView = this.lastKeyView;
    this.lastKey = key;
    this.lastKeyView = v;
    return v;
  }

  keyOff(g: number): number {
    return this.meta[3 * g];
  }

  keyLen(g: number): number {
    return this.meta[3 * g + 1];
  }

  keyTypes(g: number): number {
    return this.meta[3 * g + 2];
  }

  /** Bytes used by the groups' keys and their table entries. */
  get bytes(): number {
    return this.arenaLen + this.size * 52;
  }

  /**
   * The group of key bytes key[off, off+len) (len -1: a null key) with type
   * vector tv and hash h. When absent: a new group (numbered size-1 after
   * the call) if insert, else -1.
   */
  find(key: Buffer, off: number, len: number, tv: number, h: number, insert: boolean): number {
    if (this.indexed < this.size) this.index();
    h |= 0;
    const slots = this.slots;
    const mask = this.mask;
    const arena = this.arena;
    const aview = this.arenaView;
    let i = h & mask;
    for (;;) {
      const p = S * i;
      const s = slots[p];
      if (s === 0) break;
      if (slots[p + 1] === h && slots[p + 3] === len) {
        let o = slots[p + 2];
        if (aview.getInt32(o - 4, true) === tv) {
          // Four bytes at a time, then the rest (lookups of 23-byte keys
          // that hit took a sixth less time: docs/benchmarks.md).
          let k = off;
          const end = off + len;
          if (len >= 4) {
            const kview = this.keyView(key);
            for (const end4 = end - 3; k < end4; k += 4, o += 4)
              if (aview.getInt32(o, true) !== kview.getInt32(k, true)) break;
          }
          while (k < end && arena[o] === key[k]) {
            o++;
            k++;
          }
          if (k >= end) return s - 1;
        }
      }
      i = (i + 1) & mask;
    }
    if (!insert) {
      this.missSlots = slots;
      this.missSlot = i;
      this.missHash = h;
      this.missSize = this.size;
      return -1;
    }
    return this.insertAt(i, key, off, len, tv, h);
  }

  /**
   * Adds the key that the last find() looked up and missed (the caller
   * passes the same arguments and has added nothing since) in the free
   * slot that find's probe ended at, without probing again. A table that
   * changed since finds the slot afresh.
   */
  addMissed(key: Buffer, off: number, len: number, tv: number, h: number): number {
    h |= 0;
    if (
      this.missSlots === this.slots &&
      this.missSize === this.size &&
      this.missHash === h &&
      this.indexed === this.size
    ) {
      this.missSlots = null;
      return this.insertAt(this.missSlot, key, off, len, tv, h);
    }
    return this.find(key, off, len, tv, h, true);
  }

  /** A new group of key in the free slot i. */
  private insertAt(
    i: number,
    key: Buffer,
    off: number,
    len: number,
    tv: number,
    h: number,
  ): number {
    const slots = this.slots;
    const g = this.add(key, off, len, tv);
    const p = S * i;
    slots[p] = g + 1;
    slots[p + 1] = h;
    slots[p + 2] = this.meta[3 * g];
    slots[p + 3] = len;
    this.indexed = this.size;
    if (this.size > this.limit) this.rehash((this.mask + 1) * 2);
    return g;
  }

  /**
   * A new group of a key the caller knows is in no group (as find's
   * arguments), not put in the hash table until a lookup needs it: a
   * summarize of one column's distinct values then never probes the table.
   */
  append(key: Buffer, off: number, len: number, tv: number, h: number): number {
    const g = this.add(key, off, len, tv);
    let w = this.waiting;
    if (g - this.indexed >= w.length) {
      const n = new Int32Array(Math.max(1024, 2 * w.length));
      n.set(w);
      this.waiting = w = n;
    }
    w[g - this.indexed] = h | 0;
    return g;
  }

  /** Gives the appended groups their slots. */
  private index(): void {
    const from = this.indexed;
    let cap = this.mask + 1;
    while (this.size > Math.floor(cap * 0.7)) cap *= 2;
    if (cap !== this.mask + 1) this.rehash(cap);
    const w = this.waiting;
    for (let g = from; g < this.size; g++) this.place(g, w[g - from]);
    this.indexed = this.size;
  }

  /** Puts group g, of hash h, in a free slot (the table has room). */
  private place(g: number, h: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let i = h & mask;
    while (slots[S * i] !== 0) i = (i + 1) & mask;
    const p = S * i;
    slots[p] = g + 1;
    slots[p + 1] = h;
    slots[p + 2] = this.meta[3 * g];
    slots[p + 3] = this.meta[3 * g + 1];
  }

  /**
   * Reads the slots, and the key bytes of the slots whose hash matches,
   * that finding each of hashes[0, n) will read first. The reads do not
   * depend on each other, so the CPU overlaps their cache misses, and
   * find() then hits the cache. Returns a value derived from the reads
   * so that they are not optimized away.
   */
  touch(hashes: Int32Array, n: number): number {
    if (this.indexed < this.size) this.index();
    const slots = this.slots;
    const mask = this.mask;
    const arena = this.arena;
    let x = 0;
    for (let j = 0; j < n; j++) x ^= slots[S * (hashes[j] & mask)];
    for (let j = 0; j < n; j++) {
      const h = hashes[j];
      const p = S * (h & mask);
      if (slots[p + 1] === h) x ^= arena[slots[p + 2]];
    }
    return x;
  }

  /**
   * Makes room for groups more groups whose keys take about keyBytes in
   * all, when the caller knows (a dictionary's values): growing the arena
   * by doubling copied it twice over and touched twice the memory, which
   * took a tenth of `count() by uid` over 1M distinct values.
   */
  reserve(groups: number, keyBytes: number): void {
    this.grow(this.size + groups, this.arenaLen + 4 * groups + keyBytes);
    if (this.indexed === this.size) {
      let cap = this.mask + 1;
      while (this.size + groups > Math.floor(cap * 0.7)) cap *= 2;
      if (cap !== this.mask + 1) this.rehash(cap);
    }
  }

  /** Room for groups groups in meta, and arenaBytes in the arena. */
  private grow(groups: number, arenaBytes: number): void {
    if (3 * groups > this.meta.length) {
      let n = this.meta.length * 2;
      while (n < 3 * groups) n *= 2;
      const m = new Int32Array(n);
      m.set(this.meta.subarray(0, 3 * this.size));
      this.meta = m;
    }
    if (arenaBytes > this.arena.length) {
      let n = this.arena.length * 2;
      while (n < arenaBytes) n *= 2;
      const a = Buffer.allocUnsafe(n);
      this.arena.copy(a, 0, 0, this.arenaLen);
      this.arena = a;
      this.arenaView = viewOf(a);
    }
  }

  private add(key: Buffer, off: number, len: number, tv: number): number {
    const g = this.size++;
    const need = this.arenaLen + 4 + (len > 0 ? len : 0);
    if (3 * g >= this.meta.length || need > this.arena.length) this.grow(g + 1, need);
    const arena = this.arena;
    let o = this.arenaLen;
    arena[o++] = tv & 0xff;
    arena[o++] = (tv >>> 8) & 0xff;
    arena[o++] = (tv >>> 16) & 0xff;
    arena[o++] = tv >>> 24;
    if (len > 64) key.copy(arena, o, off, off + len);
    else for (let k = 0; k < len; k++) arena[o + k] = key[off + k];
    this.arenaLen = o + (len > 0 ? len : 0);
    this.meta[3 * g] = o;
    this.meta[3 * g + 1] = len;
    this.meta[3 * g + 2] = tv;
    return g;
  }

  private rehash(cap: number): void {
    this.missSlots = null;
    const old = this.slots;
    const slots = new Int32Array(cap * S);
    const mask = cap - 1;
    for (let j = 0; j < old.length; j += S) {
      if (old[j] === 0) continue;
      let i = old[j + 1] & mask;
      while (slots[S * i] !== 0) i = (i + 1) & mask;
      const p = S * i;
      slots[p] = old[j];
      slots[p + 1] = old[j + 1];
      slots[p + 2] = old[j + 2];
      slots[p + 3] = old[j + 3];
    }
    this.slots = slots;
    this.mask = mask;
    this.limit = Math.floor(cap * 0.7);
  }

  /**
   * Keeps only the groups for which keep(g) is true, renumbering them in
   * order; returns the old numbers of the kept groups.
   */
  compact(keep: (g: number) => boolean): number[] {
    if (this.indexed < this.size) this.index();
    const hashOf = new Int32Array(this.size);
    const slots = this.slots;
    for (let j = 0; j < slots.length; j += S)
      if (slots[j] !== 0) hashOf[slots[j] - 1] = slots[j + 1];
    const kept: number[] = [];
    for (let g = 0; g < this.size; g++) if (keep(g)) kept.push(g);
    this.missSlots = null;
    const old = this.arena;
    const meta = this.meta;
    this.arena = Buffer.allocUnsafe(Math.max(1024, old.length));
    this.arenaView = viewOf(this.arena);
    this.arenaLen = 0;
    this.size = 0;
    slots.fill(0);
    for (const g of kept) {
      const n = this.add(old, meta[3 * g], meta[3 * g + 1], meta[3 * g + 2]);
      this.place(n, hashOf[g]);
    }
    this.indexed = this.size;
    return kept;
  }

  clear(): void {
    this.missSlots = null;
    this.size = 0;
    this.indexed = 0;
    this.arenaLen = 0;
    const cap = Math.min(this.mask + 1, 1 << 16);
    this.slots = new Int32Array(cap * S);
    this.mask = cap - 1;
    this.limit = Math.floor(cap * 0.7);
  }
}
