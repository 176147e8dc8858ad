// sort on columns. The keys are read from the batches' columns (no key
// expression evaluated on a record) and ordered by the row engine's sorter
// (sortOrderOfKeys in runtime/ops/sort-keys.ts), so the order is exactly
// the row sort's. Rows are built from the columns only as they are output,
// the first chunk in sorted order, so `sort x | head 5` builds one chunk;
// past it, all of them in input order, picked in sorted order.
// Past the query's memory limit everything goes to the row engine's sort,
// which spills.

import { Column, VecBatch } from '../../zed/vector';
import { EMPTY, Value } from '../../zed/value';
import { Kind, TypeNull } from '../../zed/types';
import { QueryContext } from '../runtime/context';
import { ConsumingOperator, Operator } from '../runtime/operator';
import { KeySink, sortOrderOfKeys } from '../runtime/ops/sort-keys';
import { materialize, ROW_BATCH, selectedBytes, withSel } from './batch';
import { Materialize, VecOperator } from './operator';

export interface VecSortOptions {
  /** The batch column of each key, most significant first. */
  keys: number[];
  reverse: boolean;
  nullsFirst: boolean;
}

/** Replays held batches, then the rest of its parent's. */
class Replay implements VecOperator {
  constructor(
    private held: VecBatch[],
    private readonly parent: VecOperator,
  ) {}

  async pull(): Promise<VecBatch | null> {
    return this.held.shift() ?? (await this.parent.pull());
  }

  async close(): Promise<void> {
    this.held = [];
    await this.parent.close();
  }

  rowsAtMost(): number {
    return this.parent.rowsAtMost();
  }
}

export class VecSort extends ConsumingOperator {
  private held: VecBatch[] = [];
  /** The sorted order, as indices into the held rows (in input order). */
  private order: Int32Array | null = null;
  /** For each held row (in input order): its batch, and its row there. */
  private batchOf: Int32Array | null = null;
  private rowOf: Int32Array | null = null;
  private pos = 0;
  /** Every held row in input order, once more than one chunk is wanted. */
  private all: Value[] | null = null;
  private rowSort: Operator | null = null;

  constructor(
    ctx: QueryContext,
    private readonly parent: VecOperator,
    private readonly opts: VecSortOptions,
    /** The row engine's sort of rows (the fallback past the memory limit). */
    private readonly rowSortOf: (rows: Operator) => Operator,
  ) {
    super(ctx);
  }

  protected next(): Promise<Value[] | null> | Value[] | null {
    if (this.rowSort !== null) return this.rowSort.pull();
    return this.nextChunk();
  }

  protected async consume(): Promise<void> {
    const limit = this.ctx.memoryLimit;
    let bytes = 0;
    let n = 0;
    for (;;) {
      this.ctx.checkCancelled();
      const b = await this.parent.pull();
      if (b === null) break;
      const m = b.sel === null ? b.n : b.sel.length;
      if (m === 0) continue;
      this.held.push(b);
      n += m;
      bytes += selectedBytes(b);
      if (bytes >= limit) {
        const rows = new Materialize(new Replay(this.held, this.parent), this.ctx);
        this.held = [];
        this.rowSort = this.rowSortOf(rows);
        return;
      }
    }
    const batchOf = (this.batchOf = new Int32Array(n));
    const rowOf = (this.rowOf = new Int32Array(n));
    let g = 0;
    this.held.forEach((b, bi) => {
      const sel = b.sel;
      const m = sel === null ? b.n : sel.length;
      for (let j = 0; j < m; j++, g++) {
        batchOf[g] = bi;
        rowOf[g] = sel === null ? j : sel[j];
      }
    });
    const { keys, reverse, nullsFirst } = this.opts;
    this.order = sortOrderOfKeys(
      n,
      keys.length,
      (k, into) => {
        for (let i = 0; i < n;) {
          // The run of rows from one batch.
          const bi = batchOf[i];
          let end = i + 1;
          while (end < n && batchOf[end] === bi) end++;
          keysOf(this.held[bi].cols[keys[k]], rowOf, i, end, into);
          i = end;
        }
      },
      { reverse, nullsFirst },
    );
  }

  /**
   * The next ROW_BATCH rows in order: a batch's own rows picked, rows of
   * columns built from them for each batch the chunk reaches (one
   * materialize per batch, of its rows in output order).
   */
  private nextChunk(): Value[] | null {
    const order = this.order;
    if (order === null || this.pos >= order.length) {
      this.release();
      return null;
    }
    const from = this.pos;
    const to = Math.min(order.length, from + ROW_BATCH);
    this.pos = to;
    if (from > 0) {
      // Past the first chunk the rows are wanted, probably all of them:
      // built in input order (sequential reads of the columns) and picked
      // in sorted order, which is faster than building them in sorted
      // order (a random read per field per row).
      const all = (this.all ??= this.buildAll());
      const out = new Array<Value>(to - from);
      for (let k = from; k < to; k++) out[k - from] = all[order[k]];
      return out;
    }
    const batchOf = this.batchOf!;
    const rowOf = this.rowOf!;
    const held = this.held;
    const out = new Array<Value>(to - from);
    // Bucket the chunk's column rows by batch (a counting sort keeps each
    // batch's rows in output order).
    const start = new Int32Array(held.length + 1);
    for (let k = from; k < to; k++) {
      const g = order[k];
      const b = held[batchOf[g]];
      if (b.rows !== null) out[k - from] = b.rows[rowOf[g]];
      else start[batchOf[g] + 1]++;
    }
    for (let bi = 0; bi < held.length; bi++) start[bi + 1] += start[bi];
    const total = start[held.length];
    if (total === 0) return out;
    const sel = new Int32Array(total);
    const at = new Int32Array(total);
    const fill = start.slice(0, held.length);
    for (let k = from; k < to; k++) {
      const g = order[k];
      const bi = batchOf[g];
      if (held[bi].rows !== null) continue;
      const p = fill[bi]++;
      sel[p] = rowOf[g];
      at[p] = k - from;
    }
    for (let bi = 0; bi < held.length; bi++) {
      const a = start[bi];
      const m = start[bi + 1] - a;
      if (m === 0) continue;
      const vals = materialize(withSel(held[bi], sel.subarray(a, a + m)), 0, m);
      for (let x = 0; x < m; x++) out[at[a + x]] = vals[x];
    }
    return out;
  }

  /** Every held row, in input order. */
  private buildAll(): Value[] {
    const all = new Array<Value>(this.order!.length);
    let g = 0;
    for (const b of this.held) {
      const m = b.sel === null ? b.n : b.sel.length;
      const vals = materialize(b, 0, m);
      for (let j = 0; j < m; j++) all[g++] = vals[j];
    }
    this.held = [];
    return all;
  }

  private release(): void {
    this.held = [];
    this.all = null;
    this.order = this.batchOf = this.rowOf = null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.release();
    if (this.rowSort !== null) await this.rowSort.close();
    else await this.parent.close();
  }
}

const scratch = new Value(TypeNull, EMPTY, 0, -1);

/**
 * Puts the keys of col's rows rows[from, to) into `into`: a one-type
 * column's short values straight from its bytes (no Value), the rest as
 * values (errors among them, since error("missing") is a null key).
 */
function keysOf(col: Column, rows: Int32Array, from: number, to: number, into: KeySink): void {
  const t = col.type;
  if (t === null || t.kind === Kind.Error) {
    for (let i = from; i < to; i++) into.add(col.at(rows[i], scratch));
    return;
  }
  const { buf, off } = col.data;
  for (let i = from; i < to; i++) {
    const r = rows[i];
    const p = off[r];
    const tag = buf[p];
    if (tag === 0) into.addBody(t, buf, 0, -1);
    else if (tag < 0x80) into.addBody(t, buf, p + 1, tag - 1);
    else into.add(col.at(r, scratch));
  }
}
