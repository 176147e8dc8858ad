// Pool keys: reaching a value's key without materialising the value, and
// the pool's order over keys.
//
// A value lacking the key (not a record, or no such field) has a null key.
// Keys are compared in the total order with nulls above every other value,
// reversed for a descending pool, so nulls come last in an ascending pool
// and first in a descending one, as the reference sorts.

import { compareValues } from '../zed/compare';
import { fieldAt } from '../zed/record';
import { Type, TypeNull, TypeRecord } from '../zed/types';
import { EMPTY, Value } from '../zed/value';
import { Order } from './config';

export class KeyGetter {
  private lastType: Type | null = null;
  private lastIdx = -1;
  private idx = new Map<Type, number>();

  constructor(readonly path: readonly string[]) {}

  /** Points out at v's key (or a null) and returns it. */
  get(v: Value, out: Value): Value {
    const path = this.path;
    if (path.length === 0) return out.assign(v);
    let cur = v;
    for (let i = 0; i < path.length; i++) {
      const rt = cur.type.under;
      if (!(rt instanceof TypeRecord) || cur.len < 0) return out.set(TypeNull, EMPTY, 0, -1);
      let k: number;
      if (i === 0 && cur.type === this.lastType) {
        k = this.lastIdx;
      } else {
        k = this.index(cur.type, rt, path[i], i);
        if (i === 0) {
          this.lastType = cur.type;
          this.lastIdx = k;
        }
      }
      if (k < 0 || !fieldAt(cur, rt, k, out)) return out.set(TypeNull, EMPTY, 0, -1);
      cur = out;
    }
    return out;
  }

  private index(t: Type, rt: TypeRecord, name: string, depth: number): number {
    if (depth > 0) return rt.indexOf(name);
    let k = this.idx.get(t);
    if (k === undefined) {
      k = rt.indexOf(name);
      this.idx.set(t, k);
    }
    return k;
  }
}

/** Compares two keys in pool order. */
export function keyCompare(order: Order): (a: Value, b: Value) => number {
  if (order === 'desc') {
    return (a, b) => compareValues(b.type, b.buf, b.off, b.len, a.type, a.buf, a.off, a.len, true);
  }
  return (a, b) => compareValues(a.type, a.buf, a.off, a.len, b.type, b.buf, b.off, b.len, true);
}
