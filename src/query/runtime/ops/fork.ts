// Fan-out: a Router pulls its one input and hands each batch, or parts of
// it, to several outputs (the legs of a fork or switch). Each output is an
// Operator with its own queue; pulling an output with an empty queue pulls
// the input (one pull at a time, shared by all outputs) and routes that
// batch. An output that is closed stops receiving; when all are closed the
// input is closed. An input error reaches every output that pulls after it.
//
// Queues are not bounded: a leg that is not being pulled (e.g. while a
// sibling leg reads all its input, as sort does) accumulates the batches
// routed to it. Values are shared between legs, not copied.

import { Value } from '../../../zed/value';
import { QueryContext } from '../context';
import { Operator } from '../operator';

/** Splits a batch among n outputs: out[i] receives values for output i. */
export type Route = (batch: Value[], out: Value[][], open: readonly boolean[]) => void;

export class Router {
  readonly outputs: RouterOutput[];
  private pulling: Promise<void> | null = null;
  private eof = false;
  private error: unknown = null;
  private open: number;

  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: Operator,
    n: number,
    private readonly route: Route,
  ) {
    this.outputs = Array.from({ length: n }, (_, i) => new RouterOutput(this, i));
    this.open = n;
  }

  /** Pulls the input once (or joins a pull in progress) and routes the batch. */
  fill(): Promise<void> {
    if (this.error !== null) return Promise.reject(this.error);
    if (this.eof) return Promise.resolve();
    this.pulling ??= this.pullAndRoute().finally(() => {
      this.pulling = null;
    });
    return this.pulling;
  }

  private async pullAndRoute(): Promise<void> {
    try {
      this.ctx.checkCancelled();
      const batch = await this.parent.pull();
      if (batch === null) {
        this.eof = true;
        return;
      }
      const outs = this.outputs;
      const parts: Value[][] = outs.map(() => []);
      this.route(
        batch,
        parts,
        outs.map((o) => !o.closed),
      );
      for (let i = 0; i < outs.length; i++) {
        if (!outs[i].closed && parts[i].length > 0) outs[i].queue.push(parts[i]);
      }
    } catch (e) {
      this.error = e;
      throw e;
    }
  }

  get done(): boolean {
    return this.eof;
  }

  async closed(): Promise<void> {
    if (--this.open === 0) {
      this.eof = true;
      await this.parent.close();
    }
  }
}

/** One output of a Router. */
export class RouterOutput implements Operator {
  queue: Value[][] = [];
  closed = false;

  constructor(
    private readonly router: Router,
    readonly index: number,
  ) {}

  async pull(): Promise<Value[] | null> {
    for (;;) {
      if (this.closed) return null;
      const b = this.queue.shift();
      if (b) return b;
      if (this.router.done) return null;
      await this.router.fill();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    await this.router.closed();
  }
}

/**
 * `fork ( => ... => ... )`: every leg receives every input value. The
 * legs are `outputs`; their results meet again in a Combine (or Merge).
 */
export class Fork {
  private readonly router: Router;

  constructor(ctx: QueryContext, parent: Operator, legs: number) {
    this.router = new Router(ctx, parent, legs, (batch, out, open) => {
      for (let i = 0; i < out.length; i++) if (open[i]) out[i] = batch.slice();
    });
  }

  get outputs(): Operator[] {
    return this.router.outputs;
  }
}
