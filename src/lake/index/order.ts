// The order of keys in an index object. The total order of compare.ts is
// not one here: it compares numbers of different types by value and other
// values of different types by their types' names, so with 1 (int64),
// "1" (string) and 1 (uint8) in one index the string falls between two
// numbers that are equal. Index keys are ordered first by class (every
// number in one class; any other value by its underlying type), then by
// that total order within the class, which is consistent: a binary search
// for a constant finds every key the constant's equality can hold for
// (those keys are all of its class, and equal to it there).

import { compareValues } from '../../zed/compare';
import { formatType } from '../../zed/typestring';
import { isNumber, Type } from '../../zed/types';
import { Value } from '../../zed/value';

const classes = new WeakMap<Type, string>();

/** A key's class: "" for numbers, else its underlying type's ZSON text. */
function classOf(t: Type): string {
  let c = classes.get(t);
  if (c === undefined) {
    c = isNumber(t.under.id) ? '' : formatType(t.under);
    classes.set(t, c);
  }
  return c;
}

/** Compares two keys (neither null) in index order. */
export function compareKeys(
  at: Type,
  a: Uint8Array,
  ao: number,
  al: number,
  bt: Type,
  b: Uint8Array,
  bo: number,
  bl: number,
): number {
  if (at !== bt) {
    const ca = classOf(at);
    const cb = classOf(bt);
    if (ca !== cb) return ca < cb ? -1 : 1;
  }
  return compareValues(at, a, ao, al, bt, b, bo, bl, true);
}

export function compareKeyValues(a: Value, b: Value): number {
  return compareKeys(a.type, a.buf, a.off, a.len, b.type, b.buf, b.off, b.len);
}
