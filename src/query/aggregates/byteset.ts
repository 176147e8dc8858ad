// A set of byte strings in insertion order (union's distinct bodies of
// one type): the bytes end to end in one buffer, found by an
// open-addressing table of their hashes. Adding a value already there
// allocates nothing, where a JavaScript Set of strings made a string of
// every value it was asked about.

import { hashBytes } from '../../zed/hash';
import { growInt32, growUint8 } from './grow';

export class ByteSet {
  private data = Buffer.allocUnsafe(256);
  private end = 0;
  /** Per entry, in insertion order: offset in data, length, hash, and whether it is still in the set. */
  private offs = new Int32Array(16);
  private lens = new Int32Array(16);
  private hashes = new Int32Array(16);
  private live = new Uint8Array(16);
  private entries = 0;
  /** The first entry that may be live (the ones before were deleted). */
  private first = 0;
  /** Entry + 1 per slot (0: empty); at most half full (64 bytes to start: see CountColumn). */
  private slots = new Int32Array(16);
  /** Live entries. */
  size = 0;

  /** Adds buf[off, off+len); false when it is in the set already. */
  add(buf: Uint8Array, off: number, len: number): boolean {
    const h = hashBytes(buf, off, len, 0) | 0;
    const mask = this.slots.length - 1;
    let s = h & mask;
    for (let e = this.slots[s]; e !== 0; s = (s + 1) & mask, e = this.slots[s]) {
      const i = e - 1;
      if (this.hashes[i] !== h || this.lens[i] !== len || !this.same(i, buf, off)) continue;
      if (this.live[i] === 1) return false;
      // Deleted and added again: a new entry, last in order.
      this.slots[s] = this.append(buf, off, len, h) + 1;
      return true;
    }
    this.slots[s] = this.append(buf, off, len, h) + 1;
    if (this.entries * 2 > this.slots.length) this.rehash();
    return true;
  }

  /** Deletes the oldest live entry; returns its length (-1: the set is empty). */
  deleteOldest(): number {
    while (this.first < this.entries && this.live[this.first] === 0) this.first++;
    if (this.first === this.entries) return -1;
    this.live[this.first] = 0;
    this.size--;
    return this.lens[this.first++];
  }

  /** Calls f with each live entry's bytes, in insertion order. */
  forEach(f: (buf: Buffer, off: number, len: number) => void): void {
    for (let i = this.first; i < this.entries; i++)
      if (this.live[i] === 1) f(this.data, this.offs[i], this.lens[i]);
  }

  private same(i: number, buf: Uint8Array, off: number): boolean {
    const d = this.data;
    for (let a = this.offs[i], e = a + this.lens[i], b = off; a < e; a++, b++)
      if (d[a] !== buf[b]) return false;
    return true;
  }

  private append(buf: Uint8Array, off: number, len: number, h: number): number {
    if (this.end + len > this.data.length) {
      const d = Buffer.allocUnsafe(Math.max(this.data.length * 2, this.end + len));
      this.data.copy(d, 0, 0, this.end);
      this.data = d;
    }
    if (len > 32) this.data.set(buf.subarray(off, off + len), this.end);
    else for (let k = 0; k < len; k++) this.data[this.end + k] = buf[off + k];
    const i = this.entries++;
    if (i === this.offs.length) this.grow();
    this.offs[i] = this.end;
    this.lens[i] = len;
    this.hashes[i] = h;
    this.live[i] = 1;
    this.end += len;
    this.size++;
    return i;
  }

  private grow(): void {
    this.offs = growInt32(this.offs);
    this.lens = growInt32(this.lens);
    this.hashes = growInt32(this.hashes);
    this.live = growUint8(this.live);
  }

  /** Twice the slots, each entry placed again (an entry added again after a deletion replaces the old one's slot). */
  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (const e of this.slots) {
      if (e === 0) continue;
      let s = this.hashes[e - 1] & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = e;
    }
    this.slots = slots;
  }
}
