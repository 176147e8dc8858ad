// pass: the input, unchanged.

import { Value } from '../../../zed/value';
import { Operator } from '../operator';

export class Pass implements Operator {
  constructor(private readonly parent: Operator) {}

  pull(): Promise<Value[] | null> {
    return this.parent.pull();
  }

  close(): Promise<void> {
    return this.parent.close();
  }
}
