// The group table of summarize: an open-addressing hash table keyed by the
// bytes of a group's key values (a single key's body; several keys each
// tag-encoded, one after another) and the ID of the vector of their types. Looking up an existing group
// allocates nothing; a new group copies its key bytes into one growing
// arena. Groups are numbered 0, 1, ... in order of first appearance.

import { bytesEqual } from '../../../zed/primitive';
import { Type } from '../../../zed/types';

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

interface Node {
  id: number;
  next: Map<Type, Node>;
}

export class GroupTable {
  private slots: Int32Array;
  private mask: number;
  private hashes: Int32Array;
  /** Key bytes of group g: arena[keyOff[g], keyOff[g] + keyLen[g]). */
  keyOff: Int32Array;
  keyLen: Int32Array;
  /** Type vector ID of group g's keys. */
  keyTypes: Int32Array;
  arena: Buffer;
  arenaLen = 0;
  size = 0;

  constructor(initial = 1024) {
    let cap = 16;
    while (cap < initial * 2) cap <<= 1;
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
    this.hashes = new Int32Array(initial);
    this.keyOff = new Int32Array(initial);
    this.keyLen = new Int32Array(initial);
    this.keyTypes = new Int32Array(initial);
    this.arena = Buffer.allocUnsafe(64 * 1024);
  }

  /** Bytes used by the groups' keys and their table entries. */
  get bytes(): number {
    return this.arenaLen + this.size * 24;
  }

  /**
   * The group of key bytes key[off, off+len) (len -1: a null key) with type
   * vector tv and hash h. When absent: a new group (numbered size-1 after
   * the call) if insert, else -1.
   */
  find(key: Buffer, off: number, len: number, tv: number, h: number, insert: boolean): number {
    h |= 0;
    const slots = this.slots;
    const mask = this.mask;
    const arena = this.arena;
    let i = h & mask;
    for (;;) {
      const s = slots[i];
      if (s === 0) break;
      const g = s - 1;
      if (
        this.hashes[g] === h &&
        this.keyTypes[g] === tv &&
        bytesEqual(arena, this.keyOff[g], this.keyLen[g], key, off, len)
      ) {
        return g;
      }
      i = (i + 1) & mask;
    }
    if (!insert) return -1;
    const g = this.add(key, off, len, tv, h);
    slots[i] = g + 1;
    if (this.size * 2 > slots.length) this.rehash(slots.length * 2);
    return g;
  }

  private add(key: Buffer, off: number, len: number, tv: number, h: number): number {
    const g = this.size++;
    if (g >= this.keyOff.length) {
      const n = this.keyOff.length * 2;
      this.hashes = grow(this.hashes, n);
      this.keyOff = grow(this.keyOff, n);
      this.keyLen = grow(this.keyLen, n);
      this.keyTypes = grow(this.keyTypes, n);
    }
    if (this.arenaLen + len > this.arena.length) {
      let n = this.arena.length * 2;
      while (n < this.arenaLen + len) n *= 2;
      const a = Buffer.allocUnsafe(n);
      this.arena.copy(a, 0, 0, this.arenaLen);
      this.arena = a;
    }
    const o = this.arenaLen;
    const arena = this.arena;
    for (let k = 0; k < len; k++) arena[o + k] = key[off + k];
    if (len > 0) this.arenaLen = o + len;
    this.hashes[g] = h;
    this.keyOff[g] = o;
    this.keyLen[g] = len;
    this.keyTypes[g] = tv;
    return g;
  }

  private rehash(cap: number): void {
    const slots = new Int32Array(cap);
    const mask = cap - 1;
    for (let g = 0; g < this.size; g++) {
      let i = this.hashes[g] & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = g + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }

  /**
   * Keeps only the groups for which keep(g) is true, renumbering them in
   * order; returns the old numbers of the kept groups.
   */
  compact(keep: (g: number) => boolean): number[] {
    const kept: number[] = [];
    for (let g = 0; g < this.size; g++) if (keep(g)) kept.push(g);
    const arena = Buffer.allocUnsafe(Math.max(1024, this.arena.length));
    let o = 0;
    kept.forEach((old, g) => {
      const len = this.keyLen[old];
      if (len > 0) this.arena.copy(arena, o, this.keyOff[old], this.keyOff[old] + len);
      this.hashes[g] = this.hashes[old];
      this.keyTypes[g] = this.keyTypes[old];
      this.keyOff[g] = o;
      this.keyLen[g] = len;
      if (len > 0) o += len;
    });
    this.arena = arena;
    this.arenaLen = o;
    this.size = kept.length;
    this.slots.fill(0);
    this.rehash(this.slots.length);
    return kept;
  }

  clear(): void {
    this.size = 0;
    this.arenaLen = 0;
    this.slots = new Int32Array(this.slots.length > 1 << 16 ? 1 << 16 : this.slots.length);
    this.mask = this.slots.length - 1;
  }
}

function grow(a: Int32Array, n: number): Int32Array {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}
