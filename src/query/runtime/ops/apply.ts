// The shape shared by the per-value operators (where, put, cut, drop,
// rename, yield): pull a batch, map each value to zero or more outputs,
// hand back the non-empty result. Values passed through unchanged are not
// copied; values built during the batch are copied into an arena that is
// sealed before the batch goes downstream.

import { Value } from '../../../zed/value';
import { isMissing, isQuiet } from '../../expr/errors';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { Operator } from '../operator';

export abstract class BatchMap implements Operator {
  protected readonly arena = new ValueArena();
  private done = false;

  constructor(
    protected readonly ctx: QueryContext,
    protected readonly parent: Operator,
  ) {}

  /** Maps a batch, pushing outputs onto out. */
  protected abstract map(batch: Value[], out: Value[]): void;

  async pull(): Promise<Value[] | null> {
    for (;;) {
      if (this.done) return null;
      this.ctx.checkCancelled();
      const batch = await this.parent.pull();
      if (batch === null) {
        this.done = true;
        return null;
      }
      const out: Value[] = [];
      this.map(batch, out);
      this.arena.seal();
      if (out.length > 0) return out;
    }
  }

  async close(): Promise<void> {
    this.done = true;
    await this.parent.close();
  }

  /**
   * A lasting Value for an expression result r computed from input v: v
   * itself, a view of v's (stable) buffer, or a copy in the arena.
   */
  protected keep(r: Value, v: Value): Value {
    if (r === v) return v;
    if (r.buf === v.buf && r.len >= 0) return new Value(r.type, r.buf, r.off, r.len);
    return this.arena.copy(r);
  }
}

/**
 * The reference's applier: a function of each value whose errors
 * error("missing") and error("quiet") drop the value, while other errors
 * are passed on as values.
 */
export abstract class Applier extends BatchMap {
  /** A value apply() built in the arena (already lasting: not copied again). */
  protected built: Value | null = null;

  protected abstract apply(v: Value): Value;

  protected map(batch: Value[], out: Value[]): void {
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      const r = this.apply(v);
      if (r === this.built) {
        this.built = null;
        out.push(r);
        continue;
      }
      if (r.type.kind === 7 && (isMissing(r) || isQuiet(r))) continue;
      out.push(this.keep(r, v));
    }
  }
}
