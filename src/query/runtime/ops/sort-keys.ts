// Ordering values by sort keys, as the reference's sort comparator does:
// keys are compared left to right in the total order of src/zed/compare.ts,
// error("missing") counts as null, `reverse` flips the order (stable ties
// keep input order either way), and nulls go last unless nullsFirst.
//
// Comparator compares two values (for merges and heaps). sortOrder sorts a
// whole array of values: it evaluates each key once per value into a
// column of copied key bytes, then sorts indices. The first key gets fast
// paths by its types: integers, times and durations (and floats) are radix
// sorted on an order-preserving 64-bit image; strings compare by a numeric
// 6-byte prefix before their bytes; anything else uses the generic compare.

import { compareValues, isNaNKey } from '../../../zed/compare';
import { TypeContext } from '../../../zed/context';
import { bytesCompare, decodeFloat, decodeIntBig, decodeUintBig } from '../../../zed/primitive';
import { hashBytes } from '../../../zed/hash';
import { GroupTable } from './summarize-table';
import { latin1 } from '../../../formats/zson/gotext';
import { ID, isSigned, recordOf, Type, TypeNull, TypeRecord } from '../../../zed/types';
import { Value } from '../../../zed/value';
import {
  EXACT_IN_FLOAT,
  goStableSort,
  inconsistentKeys,
  KeyConsistency,
  int8BesideNumbers,
  int8ByBytes,
} from '../../../zed/stable';
import { Builder } from '../../../zed/zcode';
import { isMissing } from '../../expr/errors';
import { Expr } from '../../expr/expr';
import { fieldPath } from '../../expr/path';

/** How to order values. */
export interface SortSpec {
  /** Keys, most significant first. */
  exprs: Expr[];
  /** Descending order. */
  reverse: boolean;
  /** Nulls (and missing keys) before other values instead of after. */
  nullsFirst: boolean;
  /**
   * Order exactly as Comparator does. Otherwise a first key of int8s
   * sorts numerically when all first keys are integers, as the
   * reference's sort does (its comparator orders int8s by their bytes).
   * Spilled runs, which are merged by a Comparator, use strict.
   */
  strict?: boolean;
}

/**
 * The reference's null placement flag for compareValues given the output
 * order: nulls last in both directions by default.
 */
function nullsMaxFor(reverse: boolean, nullsFirst: boolean): boolean {
  return reverse ? nullsFirst : !nullsFirst;
}

/** A copy of one value's key (type and bytes) in reusable memory. */
export class KeyCopy {
  type: Type = TypeNull;
  buf = Buffer.allocUnsafe(32);
  len = -1;

  set(v: Value, missingAsNull: boolean): void {
    if (v.len < 0 || (missingAsNull && isMissing(v))) {
      this.type = missingAsNull && v.len >= 0 ? TypeNull : v.type;
      this.len = -1;
      return;
    }
    this.type = v.type;
    if (this.buf.length < v.len)
      this.buf = Buffer.allocUnsafe(Math.max(v.len, this.buf.length * 2));
    v.buf.copy(this.buf, 0, v.off, v.off + v.len);
    this.len = v.len;
  }
}

/**
 * Compares values by keys: the reference's expr.Comparator. With
 * missingAsNull, a key that evaluates to error("missing") is null.
 */
export class Comparator {
  private readonly nullsMax: boolean;
  private readonly copies: KeyCopy[];

  constructor(
    readonly exprs: Expr[],
    private readonly reverse: boolean,
    nullsMax: boolean,
    private readonly missingAsNull = true,
    /**
     * Order a float NaN after the numbers it compares equal to, so that
     * NaNs have one place in the order (spilled runs that are merged).
     */
    private readonly nanLast = false,
  ) {
    this.nullsMax = nullsMax;
    this.copies = exprs.map(() => new KeyCopy());
  }

  /** The comparator a sort with this spec orders by. */
  static forSort(spec: SortSpec): Comparator {
    return new Comparator(spec.exprs, spec.reverse, nullsMaxFor(spec.reverse, spec.nullsFirst));
  }

  /** Evaluates v's keys into out (copies, for compareKeys). */
  keysOf(v: Value, out: KeyCopy[]): void {
    const exprs = this.exprs;
    for (let k = 0; k < exprs.length; k++) out[k].set(exprs[k].eval(v), this.missingAsNull);
  }

  /** Compares keys captured by keysOf, as compare() compares their values. */
  compareKeys(a: KeyCopy[], b: KeyCopy[]): number {
    if (this.reverse) {
      const t = a;
      a = b;
      b = t;
    }
    for (let k = 0; k < a.length; k++) {
      const x = a[k];
      const y = b[k];
      const c = compareValues(x.type, x.buf, 0, x.len, y.type, y.buf, 0, y.len, this.nullsMax);
      if (c !== 0) return c;
      if (this.nanLast) {
        const xn = isNaNKey(x.type, x.buf, 0, x.len);
        if (xn !== isNaNKey(y.type, y.buf, 0, y.len)) return xn ? 1 : -1;
      }
    }
    return 0;
  }

  compare(a: Value, b: Value): number {
    if (this.reverse) {
      const t = a;
      a = b;
      b = t;
    }
    const exprs = this.exprs;
    for (let k = 0; k < exprs.length; k++) {
      const ak = this.copies[k];
      ak.set(exprs[k].eval(a), this.missingAsNull);
      const bv = exprs[k].eval(b);
      let bt = bv.type;
      let blen = bv.len;
      if (this.missingAsNull && blen >= 0 && isMissing(bv)) {
        bt = TypeNull;
        blen = -1;
      }
      const c = compareValues(ak.type, ak.buf, 0, ak.len, bt, bv.buf, bv.off, blen, this.nullsMax);
      if (c !== 0) return c;
      if (this.nanLast) {
        const an = isNaNKey(ak.type, ak.buf, 0, ak.len);
        if (an !== isNaNKey(bt, bv.buf, bv.off, blen)) return an ? 1 : -1;
      }
    }
    return 0;
  }
}

/**
 * Watches one sort key, value by value, for what makes the sort's order
 * depend on the whole input rather than on each pair of keys: the
 * conditions of inconsistentKeys (numbers beside other types, a float
 * NaN, a float beside a wide integer, twin types of one non-number), and
 * any non-null int8 (ordered by value or by bytes depending on the other
 * keys, and on whether the sort spills). Each is a property of the set of
 * keys seen, so once it holds it holds for every larger set. While none
 * holds, sort() orders any subset of the keys as it orders the whole (one
 * stable total order).
 */
export class KeyOrderWatch {
  /** True once the order may depend on the whole input. */
  broken = false;
  private readonly keys = new KeyConsistency();
  /** The key being added (for floatOf). */
  private key: Value | null = null;
  private readonly floatOf = () => decodeFloat(this.key!.buf, this.key!.off, this.key!.len);

  /** Watches key v (null or error("missing"): a null key, which never breaks it). */
  add(v: Value): void {
    if (v.len < 0 || this.broken || isMissing(v)) return;
    this.key = v;
    this.broken = v.type.under.id === ID.Int8 || this.keys.add(v.type, v.len, this.floatOf, 0);
  }
}

/** Where sortOrderOfKeys' caller puts each row's key, in row order. */
export interface KeySink {
  /** The key v (null or error("missing"): a null key). */
  add(v: Value): void;
  /** A key of type t, not an error, whose body is src[off, off+len) (len -1: null). */
  addBody(t: Type, src: Uint8Array, off: number, len: number): void;
}

/** One key of every value being sorted, copied into one arena. */
class KeyColumn implements KeySink {
  readonly types: Type[];
  readonly off: Int32Array;
  readonly len: Int32Array;
  private readonly arena: Builder;
  private n = 0;

  constructor(n: number) {
    this.types = new Array<Type>(n);
    this.off = new Int32Array(n);
    this.len = new Int32Array(n);
    this.arena = new Builder(Math.max(256, n * 8));
  }

  /** The key of each of vals by e. */
  static of(vals: readonly Value[], e: Expr): KeyColumn {
    const col = new KeyColumn(vals.length);
    for (let i = 0; i < vals.length; i++) col.add(e.eval(vals[i]));
    return col;
  }

  /** Appends the next row's key (null or error("missing"): a null key). */
  add(v: Value): void {
    if (v.len >= 0 && isMissing(v)) this.addBody(TypeNull, v.buf, 0, -1);
    else this.addBody(v.type, v.buf, v.off, v.len);
  }

  /** Appends the next row's key: a value of type t (not an error) whose body is buf[off, off+len) (len -1: null). */
  addBody(t: Type, src: Uint8Array, off: number, len: number): void {
    const i = this.n++;
    this.types[i] = t;
    this.len[i] = len;
    if (len < 0) return;
    const b = this.arena;
    this.off[i] = b.len;
    if (len < 32) {
      b.grow(len);
      const dst = b.buf;
      let o = b.len;
      for (let s = off, e = off + len; s < e; s++) dst[o++] = src[s];
      b.len = o;
    } else {
      b.appendRaw(src, off, len);
    }
  }

  get buf(): Buffer {
    return this.arena.buf;
  }

  /** Rows added. */
  get rows(): number {
    return this.n;
  }

  /** compareValues of entries i and j. */
  compare(i: number, j: number, nullsMax: boolean): number {
    const buf = this.arena.buf;
    return compareValues(
      this.types[i],
      buf,
      this.off[i],
      this.len[i],
      this.types[j],
      buf,
      this.off[j],
      this.len[j],
      nullsMax,
    );
  }
}

/**
 * The stable order of vals under spec, as indices into vals. Equal values
 * keep their input order.
 */
export function sortOrder(vals: readonly Value[], spec: SortSpec): Int32Array {
  const n = vals.length;
  const out = new Int32Array(n);
  if (n === 0) return out;
  if (spec.exprs.length === 0) {
    for (let i = 0; i < n; i++) out[i] = i;
    return out;
  }
  const cols = spec.exprs.map((e) => KeyColumn.of(vals, e));
  new Sorter(cols, spec.reverse, spec.nullsFirst, !!spec.strict).sort(out);
  return out;
}

/**
 * sortOrder of n rows whose keys are given rather than evaluated (the
 * vector engine reads them from columns): visit(k, add) calls add with
 * key k of each row, in row order.
 */
export function sortOrderOfKeys(
  n: number,
  keys: number,
  visit: (k: number, into: KeySink) => void,
  spec: Omit<SortSpec, 'exprs'>,
): Int32Array {
  const out = new Int32Array(n);
  if (n === 0) return out;
  const cols = Array.from({ length: keys }, (_, k) => {
    const col = new KeyColumn(n);
    visit(k, col);
    if (col.rows !== n) throw new Error(`sort: ${col.rows} keys for ${n} rows`);
    return col;
  });
  new Sorter(cols, spec.reverse, spec.nullsFirst, !!spec.strict).sort(out);
  return out;
}

/** vals reordered by sortOrder. */
export function sortValues(vals: readonly Value[], spec: SortSpec): Value[] {
  const order = sortOrder(vals, spec);
  const out = new Array<Value>(order.length);
  for (let i = 0; i < order.length; i++) out[i] = vals[order[i]];
  return out;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

class Sorter {
  private readonly nullsMax: boolean;

  constructor(
    private readonly cols: KeyColumn[],
    private readonly reverse: boolean,
    private readonly nullsFirst: boolean,
    private readonly strict: boolean,
  ) {
    this.nullsMax = nullsMaxFor(reverse, nullsFirst);
  }

  /** Compares i and j on keys from k on, then (if tie) by index, for stability. */
  private cmpFrom(k: number, tie = true): (i: number, j: number) => number {
    const cols = this.cols;
    const nm = this.nullsMax;
    const rev = this.reverse;
    return (i, j) => {
      for (let c = k; c < cols.length; c++) {
        const r = rev ? cols[c].compare(j, i, nm) : cols[c].compare(i, j, nm);
        if (r !== 0) return r;
      }
      return tie ? i - j : 0;
    };
  }

  /**
   * The reference's comparator, for Go's sort: where every first key is an
   * integer, time or duration (and the order is not strict) it compares
   * the first key as int64s (its native path: unsigned values clamped to
   * the int64 maximum, nulls at either end), going on to the next keys on
   * a tie, or to compareValues of the first key first where the tie is at
   * an end of the range (a clamped or null key may hide a difference).
   */
  private goCompare(col: KeyColumn): (i: number, j: number) => number {
    const all = this.cmpFrom(0, false);
    const n = col.types.length;
    for (let i = 0; i < n; i++) if (col.types[i].under.id > ID.Time) return all;
    if (this.strict) return all;
    const rest = this.cmpFrom(1, false);
    const MAX = 2n ** 63n - 1n;
    const MIN = -(2n ** 63n);
    const v = new BigInt64Array(n);
    const buf = col.buf;
    for (let i = 0; i < n; i++) {
      const len = col.len[i];
      if (len < 0) v[i] = this.nullsMax ? MAX : MIN;
      else if (isSigned(col.types[i].under.id)) v[i] = decodeIntBig(buf, col.off[i], len);
      else {
        const u = decodeUintBig(buf, col.off[i], len);
        v[i] = u > MAX ? MAX : u;
      }
    }
    const rev = this.reverse;
    return (i, j) => {
      const x = rev ? v[j] : v[i];
      const y = rev ? v[i] : v[j];
      if (x !== y) return x < y ? -1 : 1;
      return x !== MAX && x !== MIN ? rest(i, j) : all(i, j);
    };
  }

  sort(out: Int32Array): void {
    const col = this.cols[0];
    const n = col.types.length;
    if (
      this.cols.some(
        (c, k) => mayBeInconsistent(c) || (k > 0 && int8BesideNumbers(c.types, c.len)),
      ) ||
      int8ByBytes(col.types, col.len, this.strict)
    ) {
      // Mixed numbers and non-numbers (or NaNs) make the order
      // non-transitive, so the result depends on the algorithm: use the
      // reference's (Go's stable sort) to get its answer. So do int8s by
      // their bytes beside other numbers by value (in the first key unless
      // it takes the native path; in every later key).
      const idx = Array.from({ length: n }, (_, i) => i);
      const cmp = this.goCompare(col);
      goStableSort(idx, (i, j) => cmp(i, j) < 0);
      out.set(idx);
      return;
    }
    // Partition the first key's nulls (kept in input order) from the rest.
    const nonNull: number[] = [];
    const nulls: number[] = [];
    let cls = Class.Unknown;
    // (int8s here compare by value: int8ByBytes was false.)
    for (let i = 0; i < n; i++) {
      if (col.len[i] < 0) {
        nulls.push(i);
        continue;
      }
      nonNull.push(i);
      cls = joinClass(cls, classOf(col.types[i].under.id));
    }
    let sorted: Int32Array;
    if (cls === Class.Signed || cls === Class.Unsigned || cls === Class.MixedInt) {
      sorted = this.sortInts(nonNull, cls);
    } else if (cls === Class.Float || cls === Class.FloatInt) {
      sorted = this.sortFloats(nonNull);
    } else if (cls === Class.String || cls === Class.Bytes) {
      sorted = this.sortStrings(nonNull);
    } else {
      const idx = nonNull.concat(nulls);
      idx.sort(this.cmpFrom(0));
      out.set(idx);
      return;
    }
    if (nulls.length > 1 && this.cols.length > 1) nulls.sort(this.cmpFrom(1));
    if (this.nullsFirst) {
      out.set(nulls, 0);
      out.set(sorted, nulls.length);
    } else {
      out.set(sorted, 0);
      out.set(nulls, sorted.length);
    }
  }

  /**
   * Integers, times and durations: an order-preserving unsigned 64-bit
   * image (hi, lo) of each value, radix sorted. Mixed signedness maps
   * everything into the signed range; a uint64 beyond int64 among signed
   * values falls back to the generic compare.
   */
  private sortInts(idx: number[], cls: Class): Int32Array {
    const m = idx.length;
    const col = this.cols[0];
    const buf = col.buf;
    const hi = new Uint32Array(m);
    const lo = new Uint32Array(m);
    const signedSpace = cls !== Class.Unsigned;
    for (let k = 0; k < m; k++) {
      const i = idx[k];
      const off = col.off[i];
      const len = col.len[i];
      let l = 0;
      let h = 0;
      for (let b = 0; b < len && b < 4; b++) l |= buf[off + b] << (8 * b);
      for (let b = 4; b < len && b < 8; b++) h |= buf[off + b] << (8 * (b - 4));
      l >>>= 0;
      h >>>= 0;
      if (len > 8) return this.fallback(idx);
      if (isSigned(col.types[i].under.id)) {
        // Sign in bit 0, magnitude above it: negate the magnitude in two's
        // complement for negatives (a zero magnitude there is -2^63).
        const odd = l & 1;
        let vl = ((l >>> 1) | ((h & 1) << 31)) >>> 0;
        let vh = h >>> 1;
        if (odd) {
          if (vl === 0 && vh === 0) {
            vh = 0x80000000;
          } else {
            vl = (~vl + 1) >>> 0;
            vh = (~vh + (vl === 0 ? 1 : 0)) >>> 0;
          }
        }
        // Flip the sign bit so negatives order first.
        hi[k] = (vh ^ 0x80000000) >>> 0;
        lo[k] = vl;
      } else if (signedSpace) {
        if (h & 0x80000000) return this.fallback(idx);
        hi[k] = (h ^ 0x80000000) >>> 0;
        lo[k] = l;
      } else {
        hi[k] = h;
        lo[k] = l;
      }
    }
    return this.radix(idx, hi, lo);
  }

  /** Floats (and small integers among them) as IEEE-754 order images. */
  private sortFloats(idx: number[]): Int32Array {
    const m = idx.length;
    const col = this.cols[0];
    const buf = col.buf;
    const hi = new Uint32Array(m);
    const lo = new Uint32Array(m);
    for (let k = 0; k < m; k++) {
      const i = idx[k];
      const id = col.types[i].under.id;
      const off = col.off[i];
      const len = col.len[i];
      let x: number;
      if (id >= ID.Float16 && id <= ID.Float64) {
        x = decodeFloat(buf, off, len);
      } else {
        // Integers compare exactly as floats only up to 6 bytes (wider
        // ones beside floats went to Go's sort: inconsistentKeys).
        if (len > EXACT_IN_FLOAT) return this.fallback(idx);
        let u = 0;
        let s = 1;
        for (let b = 0; b < len; b++, s *= 256) u += buf[off + b] * s;
        x = isSigned(id) ? (u % 2 === 0 ? u / 2 : -(u - 1) / 2) : u;
      }
      if (x === 0) x = 0; // -0 equals 0
      f64[0] = x !== x ? NaN : x;
      let l = u32[0];
      let h = u32[1];
      if (h & 0x80000000) {
        l = ~l >>> 0;
        h = ~h >>> 0;
      } else {
        h = (h | 0x80000000) >>> 0;
      }
      hi[k] = h;
      lo[k] = l;
    }
    return this.radix(idx, hi, lo);
  }

  private fallback(idx: number[]): Int32Array {
    idx.sort(this.cmpFrom(0));
    return Int32Array.from(idx);
  }

  /** Stable LSD radix sort of idx by (hi, lo), then ties by the other keys. */
  private radix(idx: number[], hi: Uint32Array, lo: Uint32Array): Int32Array {
    const m = idx.length;
    if (this.reverse) invert(hi, lo);
    const r = radixSort(hi, lo);
    const out = new Int32Array(m);
    for (let k = 0; k < m; k++) out[k] = idx[r.pos[k]];
    // Runs of equal images are ordered by the remaining keys.
    if (this.cols.length > 1) {
      const rest = this.cmpFrom(1);
      forRuns(r.hi, r.lo, (start, end) => sortRange(out, start, end, rest));
    }
    return out;
  }

  /**
   * Strings (or bytes). With many duplicates, distinct strings are found
   * by hashing, sorted, and values radix sorted by their string's rank.
   * Otherwise an MSD pass per 6 bytes: each pass radix sorts the group on
   * an image of its next 6 bytes and its remaining length (capped at 7),
   * then sorts runs that agree on the image and are longer by the next 6
   * bytes, and so on (small runs by comparing bytes).
   */
  private sortStrings(idx: number[]): Int32Array {
    const ranked = this.rankStrings(idx);
    if (ranked) return ranked;
    const out = Int32Array.from(idx);
    this.stringPass(out, 0, out.length, 0);
    return out;
  }

  /** What rankStrings' touches read, kept so that they are not optimized away. */
  touched = 0;

  private rankStrings(idx: number[]): Int32Array | null {
    const col = this.cols[0];
    const buf = col.buf;
    const off = col.off;
    const len = col.len;
    const m = idx.length;
    if (m < 1024) return null;
    // Mostly distinct strings go to the MSD radix: judged by a sample of
    // about 2048, in which 200k distinct strings among 1M would repeat ~1%
    // (an eighth of a smaller input: the sample would cost as much as
    // the sort, as in TopN's many sorts of 4096 values).
    const sample = new Set<string>();
    const step = Math.max(1, Math.floor(m / Math.min(2048, m >> 3)));
    for (let k = 0; k < m; k += step) {
      const i = idx[k];
      sample.add(latin1(buf, off[i], off[i] + Math.max(len[i], 0)));
    }
    if (sample.size > Math.ceil(m / step) * 0.99) return null;
    // The distinct strings, by the group table summarize keeps (slots
    // holding each key's hash and place). Up to half of them distinct,
    // their sort (MSD radix, as stringPass sorts them) and a radix sort of
    // the ranks cost less than the MSD radix of them all: `sort query`
    // over 1M DNS records, 313k distinct, took 1.25 s this way and 1.40 s
    // when a quarter distinct was the most ranked.
    const maxUniq = m >> 1;
    const table = new GroupTable(1024);
    const reps: number[] = [];
    const uid = new Int32Array(m);
    // A chunk at a time: hashed, the slots the lookups will read touched
    // (their cache misses overlap: 190 against 450 ms for 1M), looked up.
    const hashes = new Int32Array(RANK_CHUNK);
    let touched = 0;
    for (let from = 0; from < m; from += RANK_CHUNK) {
      const to = Math.min(m, from + RANK_CHUNK);
      for (let k = from; k < to; k++) {
        const i = idx[k];
        hashes[k - from] = hashBytes(buf, off[i], len[i] < 0 ? 0 : len[i]);
      }
      if (table.size >= RANK_CHUNK) touched ^= table.touch(hashes, to - from);
      for (let k = from; k < to; k++) {
        const i = idx[k];
        const g = table.find(buf, off[i], len[i], 0, hashes[k - from], true);
        if (g === reps.length) {
          if (g >= maxUniq) return null; // mostly distinct: MSD radix
          reps.push(i);
        }
        uid[k] = g;
      }
    }
    this.touched = touched;
    const u = reps.length;
    // The distinct strings in order: their rows, sorted ascending (the
    // radix of the ranks reverses), then each one's rank.
    const sorted = Int32Array.from(reps);
    this.stringPass(sorted, 0, u, 0, false);
    const uidOfRow = new Int32Array(off.length);
    for (let x = 0; x < u; x++) uidOfRow[reps[x]] = x;
    const rank = new Uint32Array(u);
    for (let r = 0; r < u; r++) rank[uidOfRow[sorted[r]]] = r;
    const hi = new Uint32Array(m);
    const lo = new Uint32Array(m);
    for (let k = 0; k < m; k++) lo[k] = rank[uid[k]];
    return this.radix(idx, hi, lo);
  }

  private stringPass(
    out: Int32Array,
    from: number,
    to: number,
    depth: number,
    rev = this.reverse,
  ): void {
    const col = this.cols[0];
    const buf = col.buf;
    const off = col.off;
    const len = col.len;
    const rest = this.cols.length > 1 ? this.cmpFrom(1) : null;
    const m = to - from;
    if (m < 64) {
      sortRange(out, from, to, (i, j) => {
        const c = bytesCompare(buf, off[i], len[i], buf, off[j], len[j]);
        if (c !== 0) return rev ? -c : c;
        return rest ? rest(i, j) : i - j;
      });
      return;
    }
    const hi = new Uint32Array(m);
    const lo = new Uint32Array(m);
    for (let k = 0; k < m; k++) {
      const i = out[from + k];
      const o = off[i] + depth;
      const n = len[i] - depth;
      hi[k] =
        ((n > 0 ? buf[o] << 24 : 0) |
          (n > 1 ? buf[o + 1] << 16 : 0) |
          (n > 2 ? buf[o + 2] << 8 : 0) |
          (n > 3 ? buf[o + 3] : 0)) >>>
        0;
      lo[k] =
        ((n > 4 ? buf[o + 4] << 24 : 0) | (n > 5 ? buf[o + 5] << 16 : 0) | (n < 7 ? n : 7)) >>> 0;
    }
    if (rev) invert(hi, lo);
    const r = radixSort(hi, lo);
    const ids = out.slice(from, to);
    for (let k = 0; k < m; k++) out[from + k] = ids[r.pos[k]];
    forRuns(r.hi, r.lo, (start, end) => {
      const cls = (rev ? ~r.lo[start] : r.lo[start]) & 0xffff;
      if (cls === 7) this.stringPass(out, from + start, from + end, depth + 6, rev);
      else if (rest) sortRange(out, from + start, from + end, rest);
    });
  }
}

/** Strings rankStrings hashes and looks up at a time. */
const RANK_CHUNK = 1024;

function invert(hi: Uint32Array, lo: Uint32Array): void {
  for (let k = 0; k < hi.length; k++) {
    hi[k] = ~hi[k] >>> 0;
    lo[k] = ~lo[k] >>> 0;
  }
}

/** Sorts out[start, end) by cmp. */
function sortRange(
  out: Int32Array,
  start: number,
  end: number,
  cmp: (i: number, j: number) => number,
): void {
  const run = Array.from(out.subarray(start, end));
  run.sort(cmp);
  out.set(run, start);
}

/** Calls f for each run [start, end) of two or more equal (hi, lo) pairs. */
function forRuns(hi: Uint32Array, lo: Uint32Array, f: (start: number, end: number) => void): void {
  const m = hi.length;
  let start = 0;
  for (let k = 1; k <= m; k++) {
    if (k < m && hi[k] === hi[start] && lo[k] === lo[start]) continue;
    if (k - start > 1) f(start, k);
    start = k;
  }
}

/** Inputs from this size are radix sorted on 16-bit digits, smaller ones on 8-bit digits. */
const WIDE_DIGITS_FROM = 1 << 15;

/**
 * Stable sort of positions 0..m-1 by (hi, lo): the keys come back sorted
 * with their positions. LSD radix (digits that never vary are skipped) on
 * 16-bit digits, or on 8-bit digits below WIDE_DIGITS_FROM keys: each pass
 * walks its whole digit table, and 16-bit tables (a megabyte of counts)
 * made a sort of 1000 keys take 3 ms, where a spilling summarize sorts
 * its table at every spill. Small inputs use a comparison sort.
 */
function radixSort(
  hi: Uint32Array,
  lo: Uint32Array,
): { hi: Uint32Array; lo: Uint32Array; pos: Int32Array } {
  const m = hi.length;
  let pos = new Int32Array(m);
  for (let k = 0; k < m; k++) pos[k] = k;
  if (m < 256) {
    const p = Array.from(pos);
    p.sort((a, b) =>
      hi[a] !== hi[b]
        ? hi[a] < hi[b]
          ? -1
          : 1
        : lo[a] !== lo[b]
          ? lo[a] < lo[b]
            ? -1
            : 1
          : a - b,
    );
    pos = Int32Array.from(p);
    const sh = new Uint32Array(m);
    const sl = new Uint32Array(m);
    for (let k = 0; k < m; k++) {
      sh[k] = hi[pos[k]];
      sl[k] = lo[pos[k]];
    }
    return { hi: sh, lo: sl, pos };
  }
  const bits = m >= WIDE_DIGITS_FROM ? 16 : 8;
  const radix = 1 << bits;
  const mask = radix - 1;
  // Digits per 32-bit word, low digits of lo first.
  const per = 32 / bits;
  // Histograms of all digits in one pass, then one scatter pass per
  // varying digit, moving keys with positions so reads stay sequential.
  const counts = bits === 16 ? histograms16(hi, lo) : histograms8(hi, lo);
  let tHi: Uint32Array = new Uint32Array(m);
  let tLo: Uint32Array = new Uint32Array(m);
  let tPos = new Int32Array(m);
  for (let pass = 0; pass < 2 * per; pass++) {
    const count = counts[pass];
    const onLo = pass < per;
    const key = onLo ? lo : hi;
    const shift = (pass % per) * bits;
    if (count[(key[0] >>> shift) & mask] === m) continue;
    let sum = 0;
    for (let d = 0; d < radix; d++) {
      const c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (let k = 0; k < m; k++) {
      const d = count[((onLo ? lo[k] : hi[k]) >>> shift) & mask]++;
      tHi[d] = hi[k];
      tLo[d] = lo[k];
      tPos[d] = pos[k];
    }
    [hi, tHi] = [tHi, hi];
    [lo, tLo] = [tLo, lo];
    [pos, tPos] = [tPos, pos];
  }
  return { hi, lo, pos };
}

/** The counts of each 16-bit digit of (hi, lo), low digits of lo first. */
function histograms16(hi: Uint32Array, lo: Uint32Array): Int32Array[] {
  const counts = [
    new Int32Array(65536),
    new Int32Array(65536),
    new Int32Array(65536),
    new Int32Array(65536),
  ];
  const [c0, c1, c2, c3] = counts;
  for (let k = 0; k < hi.length; k++) {
    const l = lo[k];
    const h = hi[k];
    c0[l & 0xffff]++;
    c1[l >>> 16]++;
    c2[h & 0xffff]++;
    c3[h >>> 16]++;
  }
  return counts;
}

/** The counts of each 8-bit digit of (hi, lo), low digits of lo first. */
function histograms8(hi: Uint32Array, lo: Uint32Array): Int32Array[] {
  const all = new Int32Array(8 * 256);
  for (let k = 0; k < hi.length; k++) {
    const l = lo[k];
    const h = hi[k];
    all[l & 0xff]++;
    all[256 + ((l >>> 8) & 0xff)]++;
    all[512 + ((l >>> 16) & 0xff)]++;
    all[768 + (l >>> 24)]++;
    all[1024 + (h & 0xff)]++;
    all[1280 + ((h >>> 8) & 0xff)]++;
    all[1536 + ((h >>> 16) & 0xff)]++;
    all[1792 + (h >>> 24)]++;
  }
  const counts: Int32Array[] = [];
  for (let d = 0; d < 8; d++) counts.push(all.subarray(256 * d, 256 * (d + 1)));
  return counts;
}

/** inconsistentKeys of a key column. */
function mayBeInconsistent(col: KeyColumn): boolean {
  const buf = col.buf;
  return inconsistentKeys(col.types, col.len, (i) => decodeFloat(buf, col.off[i], col.len[i]));
}

const enum Class {
  Unknown,
  Signed,
  Unsigned,
  MixedInt,
  Float,
  FloatInt,
  String,
  Bytes,
  Other,
}

function classOf(id: number): Class {
  if (id <= ID.Uint64) return Class.Unsigned;
  if ((id >= ID.Int8 && id <= ID.Int64) || id === ID.Duration || id === ID.Time)
    return Class.Signed;
  if (id >= ID.Float16 && id <= ID.Float64) return Class.Float;
  if (id === ID.String) return Class.String;
  if (id === ID.Bytes) return Class.Bytes;
  return Class.Other;
}

function isIntClass(c: Class): boolean {
  return c === Class.Signed || c === Class.Unsigned || c === Class.MixedInt;
}

function joinClass(a: Class, b: Class): Class {
  if (a === b || a === Class.Unknown) return b;
  if (isIntClass(a) && isIntClass(b)) return Class.MixedInt;
  if ((a === Class.Float || a === Class.FloatInt) && isIntClass(b)) return Class.FloatInt;
  if (isIntClass(a) && (b === Class.Float || b === Class.FloatInt)) return Class.FloatInt;
  if (a === Class.FloatInt && b === Class.Float) return Class.FloatInt;
  return Class.Other;
}

/**
 * The reference's guess of a sort key from the first value: the first
 * integer field (depth first through nested records), else the first
 * float field, else the first field that is not a time, else "ts"; for a
 * non-record, the value itself (an empty path).
 */
export function guessSortKey(v: Value): string[] {
  const rt = recordOf(v.type);
  if (!rt) return [];
  const isInt = (id: number) => id <= ID.Int256;
  const isFloat = (id: number) => id >= ID.Float16 && id <= ID.Float256;
  return (
    firstMatching(rt, isInt) ??
    firstMatching(rt, isFloat) ??
    firstMatching(rt, (id) => id !== ID.Time) ?? ['ts']
  );
}

function firstMatching(rt: TypeRecord, pred: (id: number) => boolean): string[] | null {
  for (const f of rt.fields) {
    if (pred(f.type.under.id)) return [f.name];
    const inner = recordOf(f.type);
    if (inner) {
      const p = firstMatching(inner, pred);
      if (p) return [f.name, ...p];
    }
  }
  return null;
}

/** The key expression sort and top use when none is given. */
export function guessedKeyExpr(zctx: TypeContext, first: Value): Expr {
  return fieldPath(zctx, guessSortKey(first));
}
