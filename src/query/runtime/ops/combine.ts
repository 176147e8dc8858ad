// Fan-in: Combine merges the batches of several inputs into one output in
// the order they become available (the reference leaves the order
// undefined; values of one input keep their relative order). Every input
// has at most one pull in flight, so inputs run concurrently (e.g. the
// scans of a `from (...)` with several pools) and legs of a fork are all
// drained as the consumer pulls. The output ends when every input has.

import { Value } from '../../../zed/value';
import { QueryContext } from '../context';
import { Operator } from '../operator';

interface Result {
  i: number;
  batch: Value[] | null;
  error?: unknown;
}

export class Combine implements Operator {
  private readonly inflight: (Promise<Result> | null)[];
  private readonly done: boolean[];
  private closed = false;
  private next = 0;

  constructor(
    private readonly ctx: QueryContext,
    private readonly parents: Operator[],
  ) {
    this.inflight = parents.map(() => null);
    this.done = parents.map(() => false);
  }

  async pull(): Promise<Value[] | null> {
    for (;;) {
      if (this.closed) return null;
      this.ctx.checkCancelled();
      // Start a pull on every input that has none in flight, beginning
      // after the input served last so no input waits on the others.
      const n = this.parents.length;
      const active: Promise<Result>[] = [];
      for (let k = 0; k < n; k++) {
        const i = (this.next + k) % n;
        if (this.done[i]) continue;
        let p = this.inflight[i];
        if (p === null) {
          p = this.parents[i].pull().then(
            (batch) => ({ i, batch }),
            (error) => ({ i, batch: null, error }),
          );
          this.inflight[i] = p;
        }
        active.push(p);
      }
      if (active.length === 0) return null;
      const r = await Promise.race(active);
      this.inflight[r.i] = null;
      if (r.error !== undefined) {
        await this.close();
        throw r.error;
      }
      if (r.batch === null) {
        this.done[r.i] = true;
        continue;
      }
      this.next = (r.i + 1) % n;
      return r.batch;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.parents.map((p, i) => (this.done[i] ? undefined : p.close())));
  }
}
