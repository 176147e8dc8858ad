// max(number): the largest numeric value, in the kind the math reducer
// settles on (see math.ts); its identities are the lowest values of each
// kind (-MaxFloat64 for floats, as in the reference).

import { AggDef } from './agg';
import { Int, MathColumn } from './math';

const maxOp = {
  initInt: -(2n ** 63n),
  initUint: 0,
  initFloat: -Number.MAX_VALUE,
  int: (a: Int, b: Int) => (a > b ? a : b),
  uint: (a: Int, b: Int) => (a > b ? a : b),
  float: (a: number, b: number) => (a > b ? a : b),
  keeps: 1 as const,
};

export const max: AggDef = {
  name: 'max',
  needsArg: true,
  column: () => new MathColumn(maxOp),
};
