// head N: the first N values; then closes its input so sources stop reading.

import { Value } from '../../../zed/value';
import { Operator } from '../operator';

export class Head implements Operator {
  private count = 0;
  private closed = false;

  constructor(
    private readonly parent: Operator,
    private readonly limit: number,
  ) {}

  async pull(): Promise<Value[] | null> {
    if (this.closed || this.count >= this.limit) return null;
    const batch = await this.parent.pull();
    if (batch === null) {
      this.closed = true;
      return null;
    }
    const remaining = this.limit - this.count;
    if (batch.length < remaining) {
      this.count += batch.length;
      return batch;
    }
    this.count = this.limit;
    this.closed = true;
    await this.parent.close();
    return batch.length === remaining ? batch : batch.slice(0, remaining);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.parent.close();
  }
}
