// tail N: the last N values, emitted at the end of the input.

import { Value } from '../../../zed/value';
import { QueryContext } from '../context';
import { BATCH_SIZE, Operator } from '../operator';

export class Tail implements Operator {
  private readonly ring: Value[] = [];
  private next = 0;
  private out: Value[] | null = null;
  private pos = 0;
  private closed = false;

  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: Operator,
    private readonly limit: number,
  ) {}

  async pull(): Promise<Value[] | null> {
    if (this.closed) return null;
    if (this.out === null) {
      for (;;) {
        this.ctx.checkCancelled();
        const batch = await this.parent.pull();
        if (batch === null) break;
        for (const v of batch) {
          // Batches stay valid, so the values held need no copy.
          if (this.ring.length < this.limit) this.ring.push(v);
          else this.ring[this.next] = v;
          this.next = (this.next + 1) % this.limit;
        }
      }
      const n = this.ring.length;
      this.out =
        n < this.limit
          ? this.ring
          : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    }
    if (this.pos >= this.out.length) return null;
    const batch = this.out.slice(this.pos, this.pos + BATCH_SIZE);
    this.pos += batch.length;
    return batch;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.parent.close();
  }
}
