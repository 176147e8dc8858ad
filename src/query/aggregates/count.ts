// count([expr]): the number of values (of non-missing expr values), as a
// uint64. Its partial is that uint64.

import { TypeContext } from '../../zed/context';
import { decodeUint } from '../../zed/primitive';
import { TypeUint64 } from '../../zed/types';
import { Value } from '../../zed/value';
import { Scratch } from '../expr/scratch';
import { AggDef, AggFunction } from './agg';

const out = new Scratch();

class Count implements AggFunction {
  n = 0;

  consume(): void {
    this.n++;
  }

  consumePartial(v: Value): void {
    if (v.type !== TypeUint64) throw new Error('count: partial not uint64');
    this.n += decodeUint(v.buf, v.off, v.len);
  }

  result(_zctx: TypeContext): Value {
    return out.uint(TypeUint64, this.n);
  }

  resultPartial(zctx: TypeContext): Value {
    return this.result(zctx);
  }
}

export const count: AggDef = {
  name: 'count',
  needsArg: false,
  create: () => new Count(),
};
