// Sorting values as the reference does where its comparator is not a
// total order: Go's stable sort itself (the one algorithm that then gives
// the reference's answer), and the tests for the keys that need it. Used
// by the sort operator (query/runtime/ops/sort-keys.ts) and the lake
// writer's pool-key sort.

import { ID, Type } from './types';

/**
 * True when a column of keys (their types, their body lengths with -1 for
 * null, floatAt(i) decoding key i when it is a float) mixes numbers with
 * other types, holds a float NaN, holds a float beside an integer, time or
 * duration of more than 6 bytes, or holds two types of one underlying
 * type that is not a number (a named type and its underlying one, say):
 * then the total order is not transitive (numbers compare by value but
 * with other types by type name; NaN equals everything; an integer past
 * 2^53 compares with floats as the nearest float, so 2^53+1 equals 2^53.
 * which equals 2^53, yet 2^53+1 is greater than 2^53; values of one
 * underlying type compare by their bodies, but each with a third type by
 * its own type name).
 */
export function inconsistentKeys(
  types: readonly Type[],
  len: ArrayLike<number>,
  floatAt: (i: number) => number,
): boolean {
  const keys = new KeyConsistency();
  for (let i = 0; i < types.length; i++)
    if (len[i] >= 0 && keys.add(types[i], len[i], floatAt, i)) return true;
  return false;
}

/**
 * inconsistentKeys one key at a time, for keys that arrive as a stream
 * (the sort's top-N). Each condition is a property of the set of keys
 * added, so once the keys are inconsistent every larger set is too.
 */
export class KeyConsistency {
  private num = false;
  private other = false;
  private float = false;
  private wide = false;
  // The first type seen of each underlying type (looked up only where the
  // type changes from the key before).
  private readonly byUnder = new Map<number, Type>();
  private last: Type | null = null;

  /**
   * Adds a non-null key of type t with a body of len bytes (floatAt(i)
   * decodes it, asked only when it is a float); true when the keys added
   * so far are inconsistent (the caller stops there).
   */
  add(t: Type, len: number, floatAt: (i: number) => number, i: number): boolean {
    const id = t.under.id;
    // (Numbers of twin types compare by value with every number, as the
    // reference does, natively or not: only other types' twins count.)
    if (t !== this.last && id > ID.Decimal256) {
      this.last = t;
      const seen = this.byUnder.get(id);
      if (seen === undefined) this.byUnder.set(id, t);
      else if (seen !== t) return true;
    }
    if (id <= ID.Decimal256) {
      this.num = true;
      if (id >= ID.Float16 && id <= ID.Float64) {
        this.float = true;
        const x = floatAt(i);
        if (x !== x) return true;
      } else if (id <= ID.Time && len > EXACT_IN_FLOAT) this.wide = true;
      if (this.float && this.wide) return true;
    } else this.other = true;
    return this.num && this.other;
  }
}

/**
 * The longest body of an integer, time or duration that a float64 holds
 * exactly (48 bits: magnitudes below 2^47 signed, 2^48 unsigned).
 */
export const EXACT_IN_FLOAT = 6;

/**
 * Whether int8 first keys compare by their bytes, as the reference's
 * comparator orders them, rather than by value: some key is a non-null
 * int8 and not every key (nulls included) is an integer, time or
 * duration (the reference's native path), or the order is strict.
 */
export function int8ByBytes(
  types: readonly Type[],
  len: ArrayLike<number>,
  strict: boolean,
): boolean {
  let int8 = false;
  let native = true;
  for (let i = 0; i < types.length; i++) {
    const id = types[i].under.id;
    if (id > ID.Time) native = false;
    else if (id === ID.Int8 && len[i] >= 0) int8 = true;
  }
  return int8 && (!native || strict);
}

/**
 * Whether a column of keys holds non-null int8s beside numbers of another
 * type: the reference compares int8s by their bytes but with other
 * numbers by value, so the order of such a key after the first (where no
 * native path applies) is not transitive.
 */
export function int8BesideNumbers(types: readonly Type[], len: ArrayLike<number>): boolean {
  let int8 = false;
  let other = false;
  for (let i = 0; i < types.length; i++) {
    if (len[i] < 0) continue;
    const id = types[i].under.id;
    if (id === ID.Int8) int8 = true;
    else if (id <= ID.Decimal256) other = true;
    if (int8 && other) return true;
  }
  return false;
}

/**
 * Go's sort.SliceStable (insertion sort of blocks of 20, then in-place
 * symmetric merges): for inconsistent comparators, only the same
 * algorithm gives the same order.
 */
export function goStableSort(data: number[], less: (a: number, b: number) => boolean): void {
  const n = data.length;
  const swap = (i: number, j: number) => {
    const t = data[i];
    data[i] = data[j];
    data[j] = t;
  };
  const lessAt = (i: number, j: number) => less(data[i], data[j]);
  const insertion = (a: number, b: number) => {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && lessAt(j, j - 1); j--) swap(j, j - 1);
    }
  };
  const swapRange = (a: number, b: number, k: number) => {
    for (let i = 0; i < k; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number) => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lessAt(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lessAt(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const nn = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = nn - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = nn - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lessAt(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = nn - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertion(a, b);
    a = b;
    b += blockSize;
  }
  insertion(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}
