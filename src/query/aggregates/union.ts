// union(any): the set of the distinct non-null values. Values of mixed
// types make a set of their union (members in the reference's type order);
// elements are in set order (sorted by their encoding). No values: null.
// Its partial is the set (see values.ts for the one case where a partial's
// element type differs from the result's).

import { TypeContext } from '../../zed/context';
import { Type, TypeSet } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { Builder } from '../../zed/zcode';
import { normalizeChildren } from '../expr/containers';
import { NULL } from '../expr/expr';
import { AggDef, AggFunction } from './agg';
import { ByteSet } from './byteset';
import { appendElement, elementType, forEachElement, valueLimit, uniqueTypes } from './values';

const builder = new Builder();
const out = new Value(NULL.type, EMPTY, 0, -1);

class Union implements AggFunction {
  /** The distinct bodies of each type, types in order of arrival. */
  private types = new Map<Type, ByteSet>();
  private lastType: Type | null = null;
  private lastSet: ByteSet | null = null;
  private size = 0;

  consume(v: Value): void {
    if (v.len >= 0) this.add(v.type, v.buf, v.off, v.len);
  }

  private add(t: Type, buf: Buffer, off: number, len: number): void {
    let set = this.lastSet;
    if (t !== this.lastType || set === null) {
      set = this.types.get(t) ?? null;
      if (set === null) {
        set = new ByteSet();
        this.types.set(t, set);
      }
      this.lastType = t;
      this.lastSet = set;
    }
    if (!set.add(buf, off, len)) return;
    this.size += len;
    while (this.size > valueLimit.bytes) this.deleteOne();
  }

  /** Drops the oldest value of the first type (the reference drops an arbitrary one). */
  private deleteOne(): void {
    for (const [t, set] of this.types) {
      const len = set.deleteOldest();
      if (len < 0) continue;
      this.size -= len;
      if (set.size === 0) {
        this.types.delete(t);
        if (this.lastType === t) this.lastSet = null;
      }
      return;
    }
  }

  consumePartial(v: Value): void {
    if (v.len < 0) return;
    if (!(v.type instanceof TypeSet)) throw new Error('union: partial not a set type');
    forEachElement(v, v.type.type, (e) => {
      if (e.len >= 0) this.add(e.type, e.buf, e.off, e.len);
    });
  }

  result(zctx: TypeContext): Value {
    return this.build(zctx, false);
  }

  resultPartial(zctx: TypeContext): Value {
    return this.build(zctx, true);
  }

  private build(zctx: TypeContext, partial: boolean): Value {
    if (this.types.size === 0) return NULL;
    const uniq = uniqueTypes(this.types.keys());
    const { type, union } = elementType(zctx, uniq, partial);
    const b = builder;
    b.reset();
    for (const [t, set] of this.types)
      set.forEach((buf, off, len) => appendElement(b, union, t, buf, off, len));
    normalizeChildren(b, 0, 1);
    return out.set(zctx.lookupTypeSet(type), b.buf, 0, b.len);
  }
}

export const union: AggDef = {
  name: 'union',
  needsArg: true,
  create: () => new Union(),
};
