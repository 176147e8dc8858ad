// The merge operator: `merge expr` combines inputs that are each sorted by
// expr into one sorted output (ascending or descending, nulls last either
// way, as the reference's comparator for merge). Values with equal keys
// come out in input order (the first input's first). Missing keys count
// as null.

import { Value } from '../../../zed/value';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { BATCH_SIZE, Operator } from '../operator';
import { Comparator } from './sort-keys';
import { RunMerger } from './spill';

export class Merge implements Operator {
  private readonly merger: RunMerger;
  private closed = false;

  constructor(
    private readonly ctx: QueryContext,
    private readonly parents: Operator[],
    keys: Expr[],
    order: 'asc' | 'desc' = 'asc',
  ) {
    const asc = order === 'asc';
    const sources = parents.map((p) => ({ read: () => p.pull(), close: () => p.close() }));
    this.merger = new RunMerger(sources, new Comparator(keys, !asc, asc));
  }

  async pull(): Promise<Value[] | null> {
    if (this.closed) return null;
    this.ctx.checkCancelled();
    const out = await this.merger.next(BATCH_SIZE);
    return out.length > 0 ? out : null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.merger.close();
  }
}
