// The top operator: `top [N] [-flush] [keys]` keeps the N (default 100)
// largest values by the keys and emits them largest first. Nulls (and
// missing keys) count as smallest. Without keys it guesses one from the
// first value, as sort does. With flush it emits (and forgets) its top N
// after each input batch.
//
// The values are kept in a min-heap run exactly as Go's container/heap
// runs it in the reference, so ties come out in the reference's order.

import { Value } from '../../../zed/value';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { Comparator, guessedKeyExpr } from './sort-keys';

export interface TopOptions {
  /** How many values to keep; 0 or absent: 100. */
  limit?: number;
  /** Keys, most significant first; empty to guess one from the first value. */
  keys: Expr[];
  /** Emit the top values after every input batch. */
  flush?: boolean;
}

export const DEFAULT_TOP_LIMIT = 100;

export class Top implements Operator {
  private readonly limit: number;
  private cmp: Comparator | null = null;
  private heap: Value[] = [];
  private done = false;

  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: Operator,
    private readonly opts: TopOptions,
  ) {
    this.limit = opts.limit && opts.limit > 0 ? opts.limit : DEFAULT_TOP_LIMIT;
  }

  async pull(): Promise<Value[] | null> {
    while (!this.done) {
      this.ctx.checkCancelled();
      const batch = await this.parent.pull();
      if (batch === null) {
        this.done = true;
        break;
      }
      for (let i = 0; i < batch.length; i++) this.consume(batch[i]);
      if (this.opts.flush) return this.sorted();
    }
    const out = this.sorted();
    return out.length > 0 ? out : null;
  }

  private less(i: number, j: number): boolean {
    return this.cmp!.compare(this.heap[i], this.heap[j]) < 0;
  }

  private consume(v: Value): void {
    if (this.cmp === null) {
      const keys = this.opts.keys.length > 0 ? this.opts.keys : [guessedKeyExpr(this.ctx.zctx, v)];
      this.cmp = new Comparator(keys, false, false);
    }
    const heap = this.heap;
    if (heap.length < this.limit || this.cmp.compare(heap[0], v) < 0) {
      heap.push(v.copy());
      this.up(heap.length - 1);
    }
    if (heap.length > this.limit) this.pop();
  }

  /** Emits the heap, largest first, and empties it. */
  private sorted(): Value[] {
    const n = this.heap.length;
    const out = new Array<Value>(n);
    for (let i = n - 1; i >= 0; i--) out[i] = this.pop();
    return out;
  }

  // Go's container/heap: Push is append then up; Pop swaps the root with
  // the last element, sifts down over the rest, and removes the last.

  private pop(): Value {
    const heap = this.heap;
    const n = heap.length - 1;
    this.swap(0, n);
    this.down(0, n);
    return heap.pop()!;
  }

  private up(j: number): void {
    for (;;) {
      const i = Math.trunc((j - 1) / 2);
      if (i === j || !this.less(j, i)) break;
      this.swap(i, j);
      j = i;
    }
  }

  private down(i: number, n: number): void {
    for (;;) {
      const j1 = 2 * i + 1;
      if (j1 >= n) break;
      let j = j1;
      const j2 = j1 + 1;
      if (j2 < n && this.less(j2, j1)) j = j2;
      if (!this.less(j, i)) break;
      this.swap(i, j);
      i = j;
    }
  }

  private swap(i: number, j: number): void {
    const h = this.heap;
    const t = h[i];
    h[i] = h[j];
    h[j] = t;
  }

  async close(): Promise<void> {
    this.done = true;
    this.heap = [];
    await this.parent.close();
  }
}
