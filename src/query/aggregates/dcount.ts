// dcount(any): the estimated number of distinct values, as a uint64, by
// the reference's HyperLogLog sketch (hyperloglog.ts: same hash, sketch
// parameters and estimator, so the same estimates; about 0.8% standard
// error past a few thousand distinct values, and exact in practice below
// that). A value is hashed as its type ID (zcode int) followed by its
// body, so equal bytes of different types count apart, as do nulls of
// different types. Its partial is the marshaled sketch (bytes).
//
// The summarize column keeps up to INLINE distinct sparse codes per group
// in a flat array, so that the many small groups of a high-cardinality
// group-by cost no sketch object; a group's fifth distinct code moves its
// codes to a block of a flat pool, which holds the codes a sparse sketch
// would keep pending. A Sketch is made only when the block fills (the
// sketch would merge them then) or its state is needed in full; until
// then the codes in the block are distinct, so their estimate is the
// sparse one of their count. Estimates are the same either way.

import { formatValue } from '../../formats/zson';
import { TypeContext } from '../../zed/context';
import { TypeBytes, TypeUint64 } from '../../zed/types';
import { Value } from '../../zed/value';
import { Scratch } from '../expr/scratch';
import { AggColumn, AggDef, AggFunction } from './agg';
import { growUint32, growUint8 } from './grow';
import { PENDING_LIMIT, Sketch, SketchError, sparseCode, sparseEstimate } from './hyperloglog';

const out = new Scratch();
let scratch = Buffer.allocUnsafe(256);

/** The sparse code of a value: the hash of its type ID and body. */
export function codeOf(v: Value): number {
  const len = v.len < 0 ? 0 : v.len;
  if (len + 10 > scratch.length)
    scratch = Buffer.allocUnsafe(Math.max(len + 10, scratch.length * 2));
  const buf = scratch;
  // zed.AppendInt(id): 2*id in minimal little-endian bytes (none for 0).
  let n = 0;
  let u = v.type.under.id * 2;
  while (u > 0) {
    buf[n++] = u & 0xff;
    u >>>= 8;
  }
  const src = v.buf;
  for (let i = v.off, e = v.off + len; i < e; i++) buf[n++] = src[i];
  return sparseCode(buf, 0, n);
}

/** The sketch of a partial (an error if it is not one). */
function partialSketch(v: Value): Sketch {
  if (v.type !== TypeBytes) throw new Error(`dcount: partial has bad type: ${formatValue(v)}`);
  try {
    return Sketch.unmarshal(v.buf, v.off, Math.max(v.len, 0));
  } catch (e) {
    if (e instanceof SketchError) throw new Error(`dcount: unmarshaling partial: ${e.message}`);
    throw e;
  }
}

function bytesValue(b: Buffer): Value {
  return out.copy(TypeBytes, b, 0, b.length);
}

class DCount implements AggFunction {
  private readonly sketch = new Sketch();

  consume(v: Value): void {
    this.sketch.insertCode(codeOf(v));
  }

  consumePartial(v: Value): void {
    this.sketch.merge(partialSketch(v));
  }

  result(_zctx: TypeContext): Value {
    return out.uint(TypeUint64, this.sketch.estimate());
  }

  resultPartial(_zctx: TypeContext): Value {
    return bytesValue(this.sketch.marshal());
  }
}

const INLINE = 4;
/** n[g] of a group past INLINE codes: its state is a pending block, a Sketch, or both. */
const PROMOTED = 255;
/**
 * A sketch's estimate merges its pending codes. The column estimates a
 * group whose codes are inline or in a block alone from their count,
 * without that merge, and marks the group (inline: n[g] | ESTIMATED; a
 * block: BLOCK_ESTIMATED); a marked group's next use first gives it the
 * sketch the estimate would have left (settle), so it goes on as a lone
 * sketch would.
 */
const ESTIMATED = 0x80;
const BLOCK_ESTIMATED = 254;
/**
 * Uint32s per pending block: a count, then up to PENDING_LIMIT codes, and
 * from FILTER on a 256-bit filter of the codes (bit (k >>> 1) & 255 set
 * for each code k): most codes a large group gets are new, and a clear
 * bit tells so without reading the block's codes.
 */
const BLOCK = 96;
const FILTER = 88;
if (1 + PENDING_LIMIT > FILTER) throw new Error('dcount: pending codes overrun the filter');

/** Clears block base's filter. */
function clearFilter(pool: Uint32Array, base: number): void {
  pool.fill(0, base + FILTER, base + BLOCK);
}

/** Sets code k's bit in block base's filter; true if it was set already. */
function markFilter(pool: Uint32Array, base: number, k: number): boolean {
  const bit = (k >>> 1) & 255;
  const w = base + FILTER + (bit >>> 5);
  const m = 1 << (bit & 31);
  const was = (pool[w] & m) !== 0;
  pool[w] |= m;
  return was;
}

export class DCountColumn implements AggColumn {
  /** Up to INLINE distinct codes per group (n[g] of them), then PROMOTED; or marked ESTIMATED. */
  private codes = new Uint32Array(16 * INLINE);
  private n = new Uint8Array(16);
  /**
   * The promoted groups' sketches, in order of making; sketchOf[g] is
   * group g's place in it, -1 while it has none (a per-group JS array
   * cost more to grow than the rest of a high-cardinality group-by's
   * dcount: 313k groups, 40 ms).
   */
  private sketches: Sketch[] = [];
  private sketchOf = new Int32Array(16);
  /**
   * A promoted group's pending codes (the sparse sketch's not yet merged
   * ones) live in a block of pool, numbered blockOf[g], rather than in a
   * Sketch, while it is sparse: an insert then reads two flat arrays, not
   * a chain of objects. The sketch (made then if need be) gets them,
   * merging as it would have, when the block fills and before any use of
   * its state but an estimate (flush). -1: none.
   */
  private blockOf = new Int32Array(16);
  private pool = new Uint32Array(BLOCK * 16);
  private blocks = 0;
  size = 0;

  add(): void {
    const g = this.size++;
    if (g === this.n.length) {
      this.n = growUint8(this.n);
      this.codes = growUint32(this.codes);
      const b = new Int32Array(g * 2);
      b.set(this.blockOf);
      this.blockOf = b;
      const s = new Int32Array(g * 2);
      s.set(this.sketchOf);
      this.sketchOf = s;
    }
    this.n[g] = 0;
    this.blockOf[g] = -1;
    this.sketchOf[g] = -1;
  }

  touch(groups: Int32Array, len: number): number {
    const n = this.n;
    const codes = this.codes;
    const blockOf = this.blockOf;
    const pool = this.pool;
    let x = 0;
    for (let j = 0; j < len; j++) {
      const g = groups[j];
      if (g < 0) continue;
      const c = n[g];
      if (c < ESTIMATED) x += c + codes[g * INLINE];
      else {
        const b = blockOf[g];
        if (b >= 0) x += pool[b * BLOCK];
      }
    }
    return x | 0;
  }

  consume(g: number, v: Value): void {
    this.consumeCode(g, codeOf(v));
  }

  /** Consumes a value given by its sparse code (codeOf). */
  consumeCode(g: number, k: number): void {
    const n = this.live(g);
    if (n === PROMOTED) {
      const b = this.blockOf[g];
      if (b < 0) this.sketches[this.sketchOf[g]].insertCode(k);
      else this.addPending(g, b, k);
      return;
    }
    const codes = this.codes;
    const base = g * INLINE;
    for (let i = 0; i < n; i++) if (codes[base + i] === k) return;
    if (n < INLINE) {
      codes[base + n] = k;
      this.n[g] = n + 1;
      return;
    }
    this.promote(g);
    this.addPending(g, this.blockOf[g], k);
  }

  /** Consumes codes[k - from] for each row k of from..to whose group grp[k] is not below 0. */
  consumeCodes(grp: Int32Array, from: number, to: number, codes: Uint32Array): void {
    for (let k = from; k < to; k++) {
      const g = grp[k];
      if (g >= 0) this.consumeCode(g, codes[k - from]);
    }
  }

  /** Adds k to group g's pending block b unless there, as the sparse sketch's insert does. */
  private addPending(g: number, b: number, k: number): void {
    const pool = this.pool;
    const base = b * BLOCK;
    const c = pool[base];
    if (markFilter(pool, base, k))
      for (let i = base + 1, e = base + 1 + c; i < e; i++) if (pool[i] === k) return;
    pool[base + 1 + c] = k;
    if (c + 1 < PENDING_LIMIT) {
      pool[base] = c + 1;
      return;
    }
    // Full: the sketch merges them now, as it would have on this insert.
    const sk = this.sketchFor(g);
    sk.insertPending(pool, base + 1, c + 1);
    pool[base] = 0;
    clearFilter(pool, base);
    if (!sk.sparse) this.blockOf[g] = -1;
  }

  /** Hands group g's pending block (if any) to its sketch, which keeps them from then on. */
  private flush(g: number): void {
    if (this.live(g) !== PROMOTED) return;
    const b = this.blockOf[g];
    if (b < 0) return;
    const base = b * BLOCK;
    this.sketchFor(g).insertPending(this.pool, base + 1, this.pool[base]);
    this.pool[base] = 0;
    this.blockOf[g] = -1;
  }

  /** n[g], once a mark (ESTIMATED) is settled: an inline count or PROMOTED. */
  private live(g: number): number {
    const n = this.n[g];
    if (n < ESTIMATED || n === PROMOTED) return n;
    this.settle(g);
    return PROMOTED;
  }

  /**
   * Gives group g (marked ESTIMATED) the state its estimate would have
   * left in a sketch: its codes (inline or in its block) merged.
   */
  private settle(g: number): void {
    const n = this.n[g];
    const sk = this.sketchFor(g);
    if (n === BLOCK_ESTIMATED) {
      const base = this.blockOf[g] * BLOCK;
      sk.insertPending(this.pool, base + 1, this.pool[base]);
      this.pool[base] = 0;
      this.blockOf[g] = -1;
    } else sk.insertPending(this.codes, g * INLINE, n & ~ESTIMATED);
    sk.estimate();
    this.n[g] = PROMOTED;
  }

  /** Group g's sketch, made (empty and sparse) if it has none. */
  private sketchFor(g: number): Sketch {
    if (this.sketchOf[g] >= 0) return this.sketches[this.sketchOf[g]];
    const sk = new Sketch();
    this.sketchOf[g] = this.sketches.length;
    this.sketches.push(sk);
    return sk;
  }

  /** Moves group g's inline codes to a pending block (the same state). */
  private promote(g: number): void {
    const n = this.live(g);
    if (n === PROMOTED) return;
    this.sketchOf[g] = -1;
    const b = this.blocks++;
    if ((b + 1) * BLOCK > this.pool.length) this.pool = growUint32(this.pool);
    const pool = this.pool;
    const base = b * BLOCK;
    pool[base] = n;
    clearFilter(pool, base);
    for (let i = 0; i < n; i++) {
      const k = this.codes[g * INLINE + i];
      pool[base + 1 + i] = k;
      markFilter(pool, base, k);
    }
    this.blockOf[g] = b;
    this.n[g] = PROMOTED;
  }

  consumePartial(g: number, v: Value): void {
    this.promote(g);
    this.flush(g);
    this.sketches[this.sketchOf[g]].merge(partialSketch(v));
  }

  result(g: number, _zctx: TypeContext): Value {
    return out.uint(TypeUint64, this.estimate(g));
  }

  /** Group g's estimate (result's number). */
  estimate(g: number): number {
    const n = this.n[g];
    // Inline codes, or a block alone, are distinct: no sketch need merge
    // them unless the group is used again (settle).
    if ((n & ~ESTIMATED) <= INLINE) {
      this.n[g] = n | ESTIMATED;
      return sparseEstimate(n & ~ESTIMATED);
    }
    if (this.sketchOf[g] < 0) {
      this.n[g] = BLOCK_ESTIMATED;
      return sparseEstimate(this.pool[this.blockOf[g] * BLOCK]);
    }
    this.flush(g);
    return this.sketches[this.sketchOf[g]].estimate();
  }

  resultPartial(g: number, _zctx: TypeContext): Value {
    return bytesValue(this.partialBytes(g));
  }

  /** Group g's marshaled sketch (resultPartial's bytes). */
  partialBytes(g: number): Buffer {
    const n = this.n[g];
    if (n >= ESTIMATED) {
      this.flush(g);
      return this.sketches[this.sketchOf[g]].marshal();
    }
    return Sketch.marshalCodes(this.codes.subarray(g * INLINE, g * INLINE + n), n);
  }

  /** Bytes of the column's arrays (what clear() keeps for the groups to come). */
  capacity(): number {
    return (
      this.codes.byteLength +
      this.n.byteLength +
      this.blockOf.byteLength +
      this.sketchOf.byteLength +
      this.pool.byteLength
    );
  }

  clear(): void {
    this.size = 0;
    this.sketches = [];
    this.blocks = 0;
  }

  keep(groups: readonly number[]): void {
    for (let g = 0; g < this.size; g++) this.flush(g);
    this.blocks = 0;
    const kept: Sketch[] = [];
    groups.forEach((g, i) => {
      // i <= g, and later groups are past i: nothing read is yet overwritten.
      this.n[i] = this.n[g];
      if (this.n[g] === PROMOTED) {
        kept.push(this.sketches[this.sketchOf[g]]);
        this.sketchOf[i] = kept.length - 1;
      } else this.sketchOf[i] = -1;
      this.blockOf[i] = -1;
      this.codes.copyWithin(i * INLINE, g * INLINE, g * INLINE + INLINE);
    });
    this.sketches = kept;
    this.size = groups.length;
  }
}

export const dcount: AggDef = {
  name: 'dcount',
  needsArg: true,
  create: () => new DCount(),
  column: () => new DCountColumn(),
};
