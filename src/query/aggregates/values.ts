// Helpers of the aggregates that build containers from the values they
// saw (collect, union, map): the element type of mixed values, union
// encoding, reading partials back, and the limit on what they keep.

import { TypeContext } from '../../zed/context';
import { compareTypes, Type, TypeUnion } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { Builder, ZIter } from '../../zed/zcode';
import { NULL } from '../expr/expr';
import { untag } from '../expr/path';

/**
 * The reference's limit on the bytes an aggregate keeps (1 GiB): past it,
 * collect and union silently drop their oldest values. Tests lower it.
 */
export const valueLimit = { bytes: 1024 * 1024 * 1024 };

/** The distinct types in the reference's type order (a stable sort by compareTypes). */
export function uniqueTypes(types: Iterable<Type>): Type[] {
  return Array.from(new Set(types)).sort(compareTypes);
}

/**
 * The element type of values of the distinct types uniq: the type, or
 * (union !== null) the union their elements are tagged with.
 */
export interface ElementType {
  type: Type;
  union: TypeUnion | null;
}

/**
 * The element type for values of the distinct types uniq. Mixed types
 * make a union, tagged per element. In a partial (the input of
 * consumePartial, which untags union elements once) values of a single
 * type that is itself a union are wrapped in a union of that one type, so
 * that partials give back exactly the values that were consumed.
 */
export function elementType(zctx: TypeContext, uniq: Type[], partial = false): ElementType {
  if (uniq.length > 1 || (partial && uniq[0].under instanceof TypeUnion)) {
    const union = zctx.lookupTypeUnion(uniq);
    return { type: union, union };
  }
  return { type: uniq[0], union: null };
}

/**
 * Appends a body as an element: tagged with t's position in union when
 * there is one, raw otherwise. A null stays an untagged null.
 */
export function appendElement(
  b: Builder,
  union: TypeUnion | null,
  t: Type,
  buf: Uint8Array,
  off: number,
  len: number,
): void {
  if (union === null || len < 0) {
    b.append(buf, off, len);
    return;
  }
  b.beginContainer();
  b.appendInt(union.tagOf(t));
  b.append(buf, off, len);
  b.endContainer();
}

const it = new ZIter();
const elem = new Value(NULL.type, EMPTY, 0, -1);

/**
 * Calls f with each element of the body of container v whose element type
 * is t, union elements untagged once (the values partials were built from).
 */
export function forEachElement(v: Value, t: Type, f: (e: Value) => void): void {
  it.reset(v.buf, v.off, v.off + v.len);
  while (!it.done()) {
    it.next();
    elem.set(t, v.buf, it.off, it.len);
    if (t instanceof TypeUnion) untag(t, elem, elem);
    f(elem);
  }
}
