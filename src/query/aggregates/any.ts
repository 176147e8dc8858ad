// any(expr): one of the values, favouring a non-null one: the first value,
// replaced by the first non-null value if it was null. No values: null.

import { TypeContext } from '../../zed/context';
import { Value } from '../../zed/value';
import { NULL } from '../expr/expr';
import { AggDef, AggFunction } from './agg';

class Any implements AggFunction {
  private v: Value | null = null;

  consume(v: Value): void {
    if (this.v === null || (this.v.len < 0 && v.len >= 0)) this.v = v.copy();
  }

  consumePartial(v: Value): void {
    this.consume(v);
  }

  result(_zctx: TypeContext): Value {
    return this.v ?? NULL;
  }

  resultPartial(zctx: TypeContext): Value {
    return this.result(zctx);
  }
}

export const any: AggDef = {
  name: 'any',
  needsArg: true,
  create: () => new Any(),
};
