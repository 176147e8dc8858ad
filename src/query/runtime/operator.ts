// Operators form a dataflow graph through which batches of values are
// pulled. Pulling gives back-pressure for free (nothing is produced until a
// consumer asks), and a consumer that needs no more calls close() so the
// sources stop reading (head, a disconnected client, a finished subquery).

import { Value } from '../../zed/value';
import type { QueryContext } from './context';

/** Values per batch produced by sources and value-creating operators. */
export const BATCH_SIZE = 1024;

export interface Operator {
  /**
   * The next batch: a non-empty array of values, or null at end of stream.
   * A batch and its values stay valid after later pulls (producers never
   * reuse the memory of a batch they have handed out).
   */
  pull(): Promise<Value[] | null>;
  /** Tells the operator no more output is wanted; it releases its inputs. */
  close(): Promise<void>;
}

/**
 * An operator that reads its whole input before it outputs anything (a
 * sort): consume() runs on the first pull, and an error there closes the
 * operator before it reaches the caller.
 */
export abstract class ConsumingOperator implements Operator {
  private started = false;
  protected closed = false;

  constructor(protected readonly ctx: QueryContext) {}

  async pull(): Promise<Value[] | null> {
    if (this.closed) return null;
    if (!this.started) {
      this.started = true;
      try {
        await this.consume();
      } catch (e) {
        await this.close();
        throw e;
      }
    }
    this.ctx.checkCancelled();
    return this.next();
  }

  /** Reads the input. */
  protected abstract consume(): Promise<void>;
  /** The next batch of output, once the input is read. */
  protected abstract next(): Promise<Value[] | null> | Value[] | null;
  abstract close(): Promise<void>;
}

/** A source over an array of values, in batches. */
export class ArraySource implements Operator {
  private pos = 0;
  constructor(private vals: Value[]) {}

  async pull(): Promise<Value[] | null> {
    if (this.pos >= this.vals.length) return null;
    const batch = this.vals.slice(this.pos, this.pos + BATCH_SIZE);
    this.pos += batch.length;
    return batch;
  }

  async close(): Promise<void> {
    this.pos = this.vals.length;
  }
}

/** A cursor over an operator's values, one at a time. */
export class ValueCursor {
  private batch: Value[] = [];
  private pos = 0;
  private eof = false;

  constructor(readonly op: Operator) {}

  /** The next value without consuming it, or null at the end. */
  async peek(): Promise<Value | null> {
    while (this.pos >= this.batch.length) {
      if (this.eof) return null;
      const b = await this.op.pull();
      if (b === null) {
        this.eof = true;
        this.batch = [];
        return null;
      }
      this.batch = b;
      this.pos = 0;
    }
    return this.batch[this.pos];
  }

  /** Consumes the value peek() returned. */
  advance(): void {
    this.pos++;
  }

  /** The next value, consumed, or null at the end. */
  async next(): Promise<Value | null> {
    const v = await this.peek();
    if (v !== null) this.pos++;
    return v;
  }

  /** The next value of those already pulled, consumed (the cursor must not be drained). */
  take(): Value {
    return this.batch[this.pos++];
  }

  /** True when the values already pulled are all consumed (the next one needs a pull). */
  get drained(): boolean {
    return this.pos >= this.batch.length;
  }
}

/** Pulls everything from an operator (tests, subqueries over small inputs). */
export async function pullAll(op: Operator): Promise<Value[]> {
  const out: Value[] = [];
  for (;;) {
    const b = await op.pull();
    if (!b) return out;
    for (const v of b) out.push(v);
  }
}
