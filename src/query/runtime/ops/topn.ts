// `sort keys | head N` without sorting the whole input: the first N values
// of the sort's order, the same values in the same order as the sort gives.
//
// Values are held in a buffer that is sorted by the sort's own sorter
// (sortOrder) and cut back to its first N each time it fills; once N are
// held, a value whose first key is past the N-th held value's is dropped
// as it arrives. That is exact while the keys have one stable total order,
// which KeyOrderWatch checks on every key of every value. Keys without one
// (a NaN beside numbers, numbers beside strings, integers past 2^53 beside
// floats, int8s) make the sort's
// answer depend on all of its input, which is gone by then, so the
// operator starts over: it closes its input and answers from the full
// sort over a new copy of it (the compiler gives one only for inputs that
// read the same values again, a pool at a commit). So does a buffer of
// more than half the query's memory limit, where the sort would spill.

import { ByteCompare, compareFnFor, SORTED_ALIKE } from '../../../zed/compare';
import { Value } from '../../../zed/value';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { BATCH_SIZE, ConsumingOperator, Operator } from '../operator';
import { KeyCopy, KeyOrderWatch, SortSpec, sortOrder } from './sort-keys';
import { batchBytes } from './spill';

export interface TopNOptions {
  /** Sort keys, most significant first (at least one). */
  keys: Expr[];
  reverse: boolean;
  nullsFirst: boolean;
  /** N: how many values the head takes. */
  count: number;
}

/**
 * Values held before a cut, at least: enough that cuts are rare, few
 * enough to sort quickly. Tests lower it to cut small inputs often.
 */
export const topNBuffer = { min: 4096 };

function bufferFor(count: number): number {
  return Math.max(2 * count, topNBuffer.min);
}

/**
 * The largest N for which a batch may be read from its end (fromEnd): its
 * best N first keys are kept as copies, in a heap. A batch shorter than
 * 8N is read from its start, as is any batch past this N: copying N keys
 * a batch then cost more than sorting the batch with the held values,
 * which the sort does fast on an input in reverse order
 * (docs/benchmarks.md).
 */
const FROM_END_MAX = 128;
const FROM_END_BATCH = 8;

export class TopN extends ConsumingOperator {
  private readonly spec: SortSpec;
  private readonly watches: KeyOrderWatch[];
  private held: Value[] = [];
  private heldBytes = 0;
  /** The held values before this index are copies (kept by a cut). */
  private copied = 0;
  /**
   * The first key of the N-th held value, once N are held after a cut
   * and it is of a SORTED_ALIKE type (null: none to compare with).
   */
  private cutoff: KeyCopy | null = null;
  /** The comparison of the cutoff's type. */
  private cutoffFn: ByteCompare | null = null;
  private out: Value[] | null = null;
  private outPos = 0;
  /** The full sort over a new copy of the input, after a start over. */
  private full: Operator | null = null;
  /** Times the operator started over (for tests). */
  restarts = 0;
  /**
   * Whether most values of the last batch that were compared with the
   * cutoff passed it (every value, unless the batch was read from its
   * end, where values dropped within the batch are not): the input arrives
   * about in the sort's reverse order (`sort -r ts` of a pool in `ts`
   * order), so each value beats the held ones and the buffer fills at
   * once. Then a batch is read from its end, where its best values are.
   */
  private fromEnd = false;
  /** Batches read from their end (for tests). */
  fromEndBatches = 0;
  /** Per row of a batch read from its end: kept. */
  private keepRow = new Uint8Array(0);
  /**
   * The best N first keys of the rows after the current one in its batch
   * (fromEnd): a heap whose root is the worst of them, the N-th best.
   */
  private readonly best: KeyCopy[] = [];
  private bestN = 0;

  constructor(
    ctx: QueryContext,
    private readonly parent: Operator,
    private readonly opts: TopNOptions,
    /** The full sort over a new copy of the input. */
    private readonly startOver: () => Operator,
  ) {
    super(ctx);
    this.spec = { exprs: opts.keys, reverse: opts.reverse, nullsFirst: opts.nullsFirst };
    this.watches = opts.keys.map(() => new KeyOrderWatch());
  }

  protected async next(): Promise<Value[] | null> {
    if (this.closed) return null;
    if (this.full !== null) return this.full.pull();
    const out = this.out;
    if (out === null || this.outPos >= out.length) {
      this.out = null;
      return null;
    }
    const b = out.slice(this.outPos, this.outPos + BATCH_SIZE);
    this.outPos += b.length;
    return b;
  }

  protected async consume(): Promise<void> {
    const { keys, count } = this.opts;
    const nk = keys.length;
    const max = bufferFor(count);
    const memory = this.ctx.memoryLimit / 2;
    for (;;) {
      this.ctx.checkCancelled();
      const batch = await this.parent.pull();
      if (batch === null) break;
      if (this.closed) return;
      const held = this.held;
      const before = held.length;
      let most: boolean;
      if (this.fromEnd && batch.length >= FROM_END_BATCH * count)
        most = this.pushFromEnd(batch, held);
      else {
        for (let i = 0; i < batch.length; i++) {
          const v = batch[i];
          let keep = true;
          for (let k = 0; k < nk; k++) {
            const kv = keys[k].eval(v);
            this.watches[k].add(kv);
            if (k === 0 && this.cutoff !== null && this.past(kv, nk)) keep = false;
          }
          if (keep) held.push(v);
        }
        most = (held.length - before) * 2 > batch.length;
      }
      this.fromEnd = count <= FROM_END_MAX && this.cutoff !== null && most;
      for (let k = 0; k < nk; k++) if (this.watches[k].broken) return this.restart();
      if (held.length > before) this.heldBytes += batchBytes(held.slice(before));
      if (held.length >= max) this.cut();
      if (this.heldBytes > memory) return this.restart();
    }
    this.cut();
    this.out = this.held;
    this.held = [];
  }

  /**
   * Holds the values of batch that may be among the first N, reading it
   * from its end: a value is dropped when N values after it in the batch
   * have first keys strictly before its own (so it comes after them
   * whatever its other keys and their input order), or when it is past
   * the cutoff. Only keys of one type that compareValues orders as the
   * sorter (SORTED_ALIKE) are compared with the batch's; any other value goes to
   * the cutoff. Returns whether most values the cutoff was asked about
   * passed it (so the next batch is read from its end too).
   */
  private pushFromEnd(batch: Value[], held: Value[]): boolean {
    this.fromEndBatches++;
    const { keys, count } = this.opts;
    const nk = keys.length;
    const m = batch.length;
    if (this.keepRow.length < m) this.keepRow = new Uint8Array(m);
    const keep = this.keepRow;
    const best = this.best;
    while (best.length < count) best.push(new KeyCopy());
    this.bestN = 0;
    let local = -1;
    let fn: ByteCompare | null = null;
    let asked = 0;
    let passed = 0;
    for (let i = m - 1; i >= 0; i--) {
      const v = batch[i];
      let ok = true;
      for (let k = 0; k < nk; k++) {
        const kv = keys[k].eval(v);
        this.watches[k].add(kv);
        if (k !== 0) continue;
        const id = kv.len < 0 ? -1 : kv.type.under.id;
        if (local === -1 && SORTED_ALIKE.has(id)) {
          local = id;
          fn = compareFnFor(kv.type.under);
        }
        if (id === local && fn !== null) {
          // Before the N-th best after it (or fewer than N): remembered.
          let d = -1;
          if (this.bestN === count) d = this.order(fn, kv, best[0]);
          if (d > 0) ok = false;
          else if (d < 0) this.remember(fn, kv);
        }
        if (!ok) continue;
        asked++;
        if (this.cutoff !== null && this.past(kv, nk)) ok = false;
        else passed++;
      }
      keep[i] = ok ? 1 : 0;
    }
    for (let i = 0; i < m; i++) if (keep[i] === 1) held.push(batch[i]);
    return passed * 2 > asked;
  }

  /** The order of key kv and copied key c of the same SORTED_ALIKE type (fn compares them), in the sort's direction. */
  private order(fn: ByteCompare, kv: Value, c: KeyCopy): number {
    const d = fn(kv.buf, kv.off, kv.len, c.buf, 0, c.len);
    return this.opts.reverse ? -d : d;
  }

  /**
   * Adds kv, before the N-th best key (or with fewer than N), to the best
   * keys: a heap ordered worst first, so the root is the N-th best (or the
   * worst of fewer) and replacing it is a sift down.
   */
  private remember(fn: ByteCompare, kv: Value): void {
    const best = this.best;
    if (this.bestN < this.opts.count) {
      // A spare copy goes in at the bottom and rises past better keys.
      let i = this.bestN++;
      const c = best[i];
      c.set(kv, true);
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (!this.after(fn, c, best[up])) break;
        best[i] = best[up];
        i = up;
      }
      best[i] = c;
      return;
    }
    // The root (the N-th best) takes kv and sinks below worse keys.
    const n = this.bestN;
    const c = best[0];
    c.set(kv, true);
    let i = 0;
    for (;;) {
      let w = 2 * i + 1;
      if (w >= n) break;
      if (w + 1 < n && this.after(fn, best[w + 1], best[w])) w++;
      if (!this.after(fn, best[w], c)) break;
      best[i] = best[w];
      i = w;
    }
    best[i] = c;
  }

  /** Whether copied key a comes after copied key b in the sort's order (fn compares them). */
  private after(fn: ByteCompare, a: KeyCopy, b: KeyCopy): boolean {
    const d = fn(a.buf, 0, a.len, b.buf, 0, b.len);
    return this.opts.reverse ? d < 0 : d > 0;
  }

  /**
   * Whether a value whose first key is kv comes after the N-th held value
   * in the sort's order (so is not among the first N): its key is past
   * the cutoff's, or equal to it when it is the only key (a later value
   * with an equal key comes after, the sort being stable).
   */
  private past(kv: Value, nk: number): boolean {
    const c = this.cutoff!;
    if (kv.len < 0 || kv.type.under.id !== c.type.under.id) return false;
    const d = this.order(this.cutoffFn!, kv, c);
    return d > 0 || (d === 0 && nk === 1);
  }

  /**
   * Sorts the held values and keeps the first N, as copies: a value is a
   * view of its whole decoded frame, and N values from N frames would
   * hold them all.
   */
  private cut(): void {
    const held = this.held;
    const n = Math.min(held.length, this.opts.count);
    const order = sortOrder(held, this.spec);
    const kept = new Array<Value>(n);
    const copied = this.copied;
    for (let i = 0; i < n; i++) {
      const j = order[i];
      kept[i] = j < copied ? held[j] : held[j].copy();
    }
    this.held = kept;
    this.copied = n;
    this.heldBytes = batchBytes(kept);
    if (n < this.opts.count) return;
    // Values are compared with the cutoff only where both are of one
    // SORTED_ALIKE type, so only such a key is one.
    const last = this.opts.keys[0].eval(kept[n - 1]);
    if (last.len < 0 || !SORTED_ALIKE.has(last.type.under.id)) {
      this.cutoff = this.cutoffFn = null;
      return;
    }
    (this.cutoff ??= new KeyCopy()).set(last, true);
    this.cutoffFn = compareFnFor(last.type.under);
  }

  private async restart(): Promise<void> {
    this.restarts++;
    this.held = [];
    this.copied = 0;
    this.cutoff = this.cutoffFn = null;
    await this.closeParent();
    // A close while the input closed: nothing more is wanted.
    if (!this.closed) this.full = this.startOver();
  }

  private parentClosed = false;

  private async closeParent(): Promise<void> {
    if (this.parentClosed) return;
    this.parentClosed = true;
    await this.parent.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.held = [];
    this.out = null;
    if (this.full !== null) await this.full.close();
    else await this.closeParent();
  }
}
