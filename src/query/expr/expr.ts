// Expressions evaluate to values.
//
// eval(self) returns a Value that is valid until the next eval() of the
// same node: it may point into `self` (a field) or into the node's own
// scratch memory (a computed result), so evaluating allocates nothing in the
// common case. A caller that keeps a result beyond that copies it. Never
// mutate a Value returned by another node.

import { Value } from '../../zed/value';
import { Buffer } from 'node:buffer';
import { TypeBool, TypeNull } from '../../zed/types';

export interface Expr {
  eval(self: Value): Value;
}

const ONE = Buffer.from([1]);
const ZERO = Buffer.from([0]);

/** Shared immutable results. */
export const TRUE = new Value(TypeBool, ONE, 0, 1);
export const FALSE = new Value(TypeBool, ZERO, 0, 1);
export const NULL = Value.null(TypeNull);

export function boolValue(b: boolean): Value {
  return b ? TRUE : FALSE;
}

/** True when v is a non-null bool true. */
export function isTrue(v: Value): boolean {
  return v.type === TypeBool && v.len > 0 && v.buf[v.off] !== 0;
}
