// min(number): the smallest numeric value, in the kind the math reducer
// settles on (see math.ts). As in the reference, a kind change carries the
// state over, starting from the identity of the first kind (so a null
// uint64 followed by int64 values starts the int64 state from MaxUint64
// as an int64, i.e. -1).

import { AggDef } from './agg';
import { Int, MathColumn } from './math';

const minOp = {
  initInt: 2n ** 63n - 1n,
  initUint: 2n ** 64n - 1n,
  initFloat: Number.MAX_VALUE,
  int: (a: Int, b: Int) => (a < b ? a : b),
  uint: (a: Int, b: Int) => (a < b ? a : b),
  float: (a: number, b: number) => (a < b ? a : b),
  keeps: -1 as const,
};

export const min: AggDef = {
  name: 'min',
  needsArg: true,
  column: () => new MathColumn(minOp),
};
