// The over operator: `over exprs [with x=e, ...] [=> ( lateral )]`.
//
// For each input value, each expr is evaluated and traversed: an array or
// set yields its elements, a map yields {key,value} records, a record
// yields {key:[<field name>],value:<field value>} records, anything else
// yields itself (names and union wrappers are removed from what is
// yielded; a null container and error("missing") yield nothing, other
// errors yield themselves).
//
// Without a lateral body the traversed values are the output. With one,
// the body runs over the traversed values of each input value in turn, to
// completion, and its results are the output; input values that traverse
// to nothing do not run it. A body of the operators lateral.ts runs as
// steps is a function called for each input value, its results gathered
// into batches; any other is a subquery the compiler builds afresh for
// each input value. The `with` locals are evaluated on the input
// value, in order (each sees the ones before), and stored in the scope's
// frame for the body's variable references.

import { Value } from '../../../zed/value';
import { Expr } from '../../expr/expr';
import { Traversal } from '../../expr/traverse';
import { Frame } from '../../expr/vars';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { ArraySource, BATCH_SIZE, Operator, ValueCursor } from '../operator';

export type OverScope = {
  /** Where the body's variables are read from. */
  frame: Frame;
  /** `with name=expr`: the frame slot of each local and its expression. */
  locals: { slot: number; expr: Expr }[];
} & (
  | {
      /** A new instance of the lateral subquery, reading the traversed values from source. */
      body: (source: Operator) => Operator;
    }
  | {
      /** The lateral subquery as steps: its results for the traversed values of one input value. */
      steps: (vals: Value[]) => Value[];
    }
);

export interface OverOptions {
  exprs: Expr[];
  /** The lateral scope; absent for a plain `over exprs`. */
  scope?: OverScope;
}

export class Over implements Operator {
  private readonly arena = new ValueArena();
  private readonly trav: Traversal;
  private readonly input: ValueCursor;
  private closed = false;
  private sub: Operator | null = null;

  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: Operator,
    private readonly opts: OverOptions,
  ) {
    this.trav = new Traversal(ctx.zctx);
    this.input = new ValueCursor(parent);
  }

  async pull(): Promise<Value[] | null> {
    if (this.closed) return null;
    try {
      const scope = this.opts.scope;
      if (scope === undefined) return await this.pullPlain();
      return 'steps' in scope
        ? await this.pullSteps(scope, scope.steps)
        : await this.pullLateral(scope, scope.body);
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  /** The next input value, or null at the end of input. */
  private nextInput(): Promise<Value | null> {
    this.ctx.checkCancelled();
    return this.input.next();
  }

  private async pullPlain(): Promise<Value[] | null> {
    const out: Value[] = [];
    const input = this.input;
    while (out.length < BATCH_SIZE) {
      // Stop at a batch boundary rather than wait for more input.
      if (out.length > 0 && input.drained) break;
      // The values of a batch pulled already are taken without an await each.
      const self = input.drained ? await this.nextInput() : input.take();
      if (self === null) break;
      this.traverse(self, out);
    }
    this.arena.seal();
    return out.length > 0 ? out : null;
  }

  /**
   * A lateral body of steps, run for each input value in turn, its results
   * gathered into batches as pullPlain gathers traversed values.
   */
  private async pullSteps(
    scope: OverScope,
    steps: (vals: Value[]) => Value[],
  ): Promise<Value[] | null> {
    const out: Value[] = [];
    const input = this.input;
    while (out.length < BATCH_SIZE) {
      if (out.length > 0 && input.drained) break;
      const self = input.drained ? await this.nextInput() : input.take();
      if (self === null) break;
      const vals = this.traversed(scope, self);
      if (vals.length === 0) continue;
      for (const v of steps(vals)) out.push(v);
    }
    return out.length > 0 ? out : null;
  }

  /** The locals of self set in the scope's frame, and the values self traverses to. */
  private traversed(scope: OverScope, self: Value): Value[] {
    for (const { slot, expr } of scope.locals) scope.frame.vals[slot] = expr.eval(self).copy();
    const vals: Value[] = [];
    this.traverse(self, vals);
    this.arena.seal();
    return vals;
  }

  private async pullLateral(
    scope: OverScope,
    body: (source: Operator) => Operator,
  ): Promise<Value[] | null> {
    for (;;) {
      if (this.sub) {
        const b = await this.sub.pull();
        if (b !== null) return b;
        const sub = this.sub;
        this.sub = null;
        await sub.close();
      }
      const self = await this.nextInput();
      if (self === null) return null;
      const vals = this.traversed(scope, self);
      if (vals.length === 0) continue;
      this.sub = body(new ArraySource(vals));
    }
  }

  /** Appends the values self traverses to: an input value's buffer lasts, so elements of it are views. */
  private traverse(self: Value, out: Value[]): void {
    for (const e of this.opts.exprs) this.trav.traverse(e.eval(self), this.arena, out, self.buf);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const sub = this.sub;
    this.sub = null;
    if (sub) await sub.close();
    await this.parent.close();
  }
}
