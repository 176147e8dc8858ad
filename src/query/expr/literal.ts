// A constant.

import { Value } from '../../zed/value';
import { Expr } from './expr';

export class Literal implements Expr {
  constructor(readonly value: Value) {}

  eval(): Value {
    return this.value;
  }
}
