// sum(expr): the sum of the numeric values, in the kind the math reducer
// settles on (int64 for signed integers, uint64, float64, duration, time).

import { AggDef } from './agg';
import { addInt64, addUint64, MathColumn } from './math';

const add = {
  initInt: 0,
  initUint: 0,
  initFloat: 0,
  int: addInt64,
  uint: addUint64,
  float: (a: number, b: number) => a + b,
};

export const sum: AggDef = {
  name: 'sum',
  needsArg: true,
  column: () => new MathColumn(add),
};
