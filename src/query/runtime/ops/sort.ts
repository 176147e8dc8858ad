// The sort operator: reads its whole input, then emits it ordered by the
// sort keys (stable: equal values keep their input order).
//
// `sort [-r] [-nulls first|last] [exprs]`: keys default to the reference's
// guess from the first value (see guessSortKey); nulls, and keys that are
// error("missing"), go last in either direction unless nullsFirst.
//
// Input is held in memory up to QueryContext.memoryLimit bytes of values;
// past that each full buffer is sorted and spilled as a run to a temporary
// ZNG file, and at the end the runs (and what is left in memory) are
// merged: an external merge sort, so inputs larger than memory complete.

import { Value } from '../../../zed/value';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { BATCH_SIZE, ConsumingOperator, Operator } from '../operator';
import { Comparator, guessedKeyExpr, SortSpec, sortValues } from './sort-keys';
import {
  batchBytes,
  BatchSource,
  FAN_IN,
  MemorySource,
  mergeRuns,
  RunMerger,
  SpillDir,
  SpilledRuns,
} from './spill';

export interface SortOptions {
  /** Sort keys, most significant first; empty to guess one from the first value. */
  keys: Expr[];
  /** `-r`: descending order. */
  reverse?: boolean;
  /** `-nulls first`. */
  nullsFirst?: boolean;
}

function flatten(batches: Value[][]): Value[] {
  if (batches.length === 1) return batches[0];
  if (batches.length === 0) return [];
  let n = 0;
  for (const b of batches) n += b.length;
  const out = new Array<Value>(n);
  let k = 0;
  for (const b of batches) for (let i = 0; i < b.length; i++) out[k++] = b[i];
  return out;
}

export class Sort extends ConsumingOperator {
  private spec: SortSpec | null = null;
  private readonly keys: Expr[];
  private out: Value[] = [];
  private outPos = 0;
  private spill: SpillDir | null = null;
  private readonly runs = new SpilledRuns((runs) =>
    mergeRuns(this.ctx, this.spill!, runs, Comparator.forSort(this.spec!), (m) =>
      m.next(BATCH_SIZE),
    ),
  );
  private merger: RunMerger | null = null;
  /** Bytes written to spill files (for stats and tests). */
  spilledBytes = 0;
  /** Runs spilled. */
  spilledRuns = 0;

  /** Merges of spilled runs into one (for stats and tests). */
  get compactions(): number {
    return this.runs.merges;
  }

  constructor(
    ctx: QueryContext,
    private readonly parent: Operator,
    private readonly opts: SortOptions,
  ) {
    super(ctx);
    this.keys = opts.keys;
  }

  private specFor(first: Value): SortSpec {
    const exprs = this.keys.length > 0 ? this.keys : [guessedKeyExpr(this.ctx.zctx, first)];
    return { exprs, reverse: !!this.opts.reverse, nullsFirst: !!this.opts.nullsFirst };
  }

  protected async next(): Promise<Value[] | null> {
    if (this.merger) {
      const b = await this.merger.next(BATCH_SIZE);
      if (b.length > 0) return b;
      await this.finish();
      return null;
    }
    if (this.outPos >= this.out.length) {
      this.out = [];
      return null;
    }
    const b = this.out.slice(this.outPos, this.outPos + BATCH_SIZE);
    this.outPos += b.length;
    return b;
  }

  protected async consume(): Promise<void> {
    const limit = this.ctx.memoryLimit;
    let batches: Value[][] = [];
    let bytes = 0;
    for (;;) {
      this.ctx.checkCancelled();
      const batch = await this.parent.pull();
      if (batch === null) break;
      if (this.closed) return;
      if (this.spec === null) this.spec = this.specFor(batch[0]);
      batches.push(batch);
      bytes += batchBytes(batch);
      if (bytes >= limit) {
        await this.spillRun(flatten(batches));
        batches = [];
        bytes = 0;
      }
    }
    if (this.spec === null) return;
    if (this.spill === null) {
      this.out = sortValues(flatten(batches), this.spec);
      return;
    }
    // At most FAN_IN sources, the run in memory among them.
    const sources: BatchSource[] = await this.runs.take(FAN_IN - 1);
    sources.push(new MemorySource(sortValues(flatten(batches), { ...this.spec, strict: true })));
    this.merger = new RunMerger(sources, Comparator.forSort(this.spec));
  }

  private async spillRun(vals: Value[]): Promise<void> {
    const sorted = sortValues(vals, { ...this.spec!, strict: true });
    this.spill ??= await SpillDir.create(this.ctx);
    const f = await this.spill.writeRun(this.ctx, sorted);
    this.spilledBytes += f.size;
    this.spilledRuns++;
    await this.runs.push(f);
  }

  private async finish(): Promise<void> {
    if (this.merger) {
      await this.merger.close();
      this.merger = null;
    }
    await this.runs.close();
    if (this.spill) {
      await this.spill.remove();
      this.spill = null;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.out = [];
    await this.finish();
    await this.parent.close();
  }
}
