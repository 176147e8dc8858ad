// The vector engine's operator contract and its simplest operators: the
// scans that make batches, head and tail over selections, and the
// materializer that hands rows to the row engine where a query leaves the
// vector engine (docs/architecture.md, "Two execution paths").

import { RecordRecipe, VecBatch } from '../../zed/vector';
import { Field, Kind } from '../../zed/types';
import { Value } from '../../zed/value';
import { ValueReader } from '../../formats/io';
import { VectorReader } from '../data/source';
import { Expr } from '../expr/expr';
import { QueryContext } from '../runtime/context';
import { ValueArena } from '../runtime/arena';
import { Operator } from '../runtime/operator';
import { Cutter, CutField } from '../runtime/ops/cut';
import { Putter } from '../runtime/ops/put';
import {
  columnsBatch,
  materialize,
  ROW_BATCH,
  RowScratch,
  rowsBatch,
  selectedBytes,
  withSel,
} from './batch';

export interface VecOperator {
  /** The next batch (with at least one selected row), or null at the end. */
  pull(): Promise<VecBatch | null>;
  close(): Promise<void>;
  /**
   * At most how many rows the operator gives in all, as far as its source
   * says (Infinity where it does not); known once pull() was called.
   */
  rowsAtMost(): number;
}

/**
 * Counts what a scan delivers in the query's stats: every row read, and as
 * matched too when no filter follows (the filter counts its matches).
 */
function countRead(ctx: QueryContext, b: VecBatch, matched: boolean): void {
  const bytes = selectedBytes(b);
  const n = b.sel === null ? b.n : b.sel.length;
  ctx.stats.recordsRead += n;
  ctx.stats.bytesRead += bytes;
  if (matched) {
    ctx.stats.recordsMatched += n;
    ctx.stats.bytesMatched += bytes;
  }
}

/** A scan by columns (DataSource.scanVectors), or of rows made columns. */
export class VecSourceScan implements VecOperator {
  private reader: VectorReader | null = null;
  private done = false;

  constructor(
    private readonly ctx: QueryContext,
    private readonly open: () => Promise<VectorReader>,
    /** The scan's paths, evaluated on the rows a source hands over as rows. */
    private readonly paths: readonly Expr[],
    /** Whether the scan counts its rows as matched (no filter was lifted into it). */
    private readonly matched: boolean,
  ) {}

  async pull(): Promise<VecBatch | null> {
    for (;;) {
      if (this.done) return null;
      this.ctx.checkCancelled();
      this.reader ??= await this.open();
      const part = await this.reader.read();
      if (part === null) {
        await this.close();
        return null;
      }
      const b =
        part.kind === 'columns'
          ? columnsBatch(part.n, part.cols, part.shape, part.sel ?? null)
          : rowsBatch(part.rows, this.paths);
      if (b.n === 0 || b.sel?.length === 0) continue;
      countRead(this.ctx, b, this.matched);
      return b;
    }
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.reader?.close();
  }

  rowsAtMost(): number {
    return this.reader?.rows ?? Infinity;
  }
}

/** A vector reader of a value reader's batches, as rows (an input without columns). */
export function rowParts(open: () => Promise<ValueReader>): () => Promise<VectorReader> {
  return async () => {
    const r = await open();
    return {
      read: async () => {
        const rows = await r.read();
        return rows === null ? null : { kind: 'rows', rows };
      },
      close: async () => {
        await r.close?.();
      },
    };
  };
}

/** head N: the first N selected rows; then closes its input. */
export class VecHead implements VecOperator {
  private count = 0;
  private closed = false;

  constructor(
    private readonly parent: VecOperator,
    private readonly limit: number,
  ) {}

  async pull(): Promise<VecBatch | null> {
    if (this.closed || this.count >= this.limit) return null;
    const b = await this.parent.pull();
    if (b === null) {
      this.closed = true;
      return null;
    }
    const n = b.sel === null ? b.n : b.sel.length;
    const remaining = this.limit - this.count;
    if (n < remaining) {
      this.count += n;
      return b;
    }
    this.count = this.limit;
    this.closed = true;
    await this.parent.close();
    if (n === remaining) return b;
    const sel = b.sel === null ? identity(remaining) : b.sel.slice(0, remaining);
    return withSel(b, sel);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.parent.close();
  }

  rowsAtMost(): number {
    return Math.min(this.limit, this.parent.rowsAtMost());
  }
}

/** tail N: the last N selected rows, at the end of the input. */
export class VecTail implements VecOperator {
  private held: VecBatch[] = [];
  private heldRows = 0;
  private out: VecBatch[] | null = null;
  private closed = false;

  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: VecOperator,
    private readonly limit: number,
  ) {}

  async pull(): Promise<VecBatch | null> {
    if (this.closed) return null;
    if (this.out === null) {
      for (;;) {
        this.ctx.checkCancelled();
        const b = await this.parent.pull();
        if (b === null) break;
        this.held.push(b);
        this.heldRows += b.sel === null ? b.n : b.sel.length;
        // Drop the batches the last N rows no longer reach.
        while (this.held.length > 1) {
          const first = this.held[0];
          const n = first.sel === null ? first.n : first.sel.length;
          if (this.heldRows - n < this.limit) break;
          this.held.shift();
          this.heldRows -= n;
        }
      }
      let skip = Math.max(0, this.heldRows - this.limit);
      this.out = [];
      for (const b of this.held) {
        const n = b.sel === null ? b.n : b.sel.length;
        if (skip >= n) {
          skip -= n;
          continue;
        }
        if (skip === 0) this.out.push(b);
        else {
          const sel = b.sel === null ? identity(n).subarray(skip) : b.sel.subarray(skip);
          this.out.push(withSel(b, sel));
          skip = 0;
        }
      }
      this.held = [];
    }
    return this.out.shift() ?? null;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.parent.close();
  }

  rowsAtMost(): number {
    return Math.min(this.limit, this.parent.rowsAtMost());
  }
}

/** The shared 0, 1, 2, ... that identity() returns views of (grown as needed). */
let ids = new Int32Array(0);

/**
 * 0, 1, ..., n-1: a view of one shared array (no allocation per batch), so
 * read only, as every selection is.
 */
export function identity(n: number): Int32Array {
  if (ids.length < n) {
    ids = new Int32Array(Math.max(n, 2 * ids.length));
    for (let i = 0; i < ids.length; i++) ids[i] = i;
  }
  return ids.subarray(0, n);
}

/**
 * The selected rows of a vector operator's batches as values, for the row
 * engine; with a projection lifted into the scan (a cut of fields), its
 * records, as the row engine's scan makes them (a filter's errors pass).
 */
export class Materialize implements Operator {
  private batch: VecBatch | null = null;
  /** The batch's projection built straight from its columns, or null. */
  private recipe: RecordRecipe | null = null;
  private pos = 0;
  private closed = false;
  private readonly cutter: Cutter | null;
  private readonly arena = new ValueArena();
  /** Where the puts build their records (sealed after each put: the next one reads them). */
  private readonly putArena = new ValueArena();
  /** Memory for its rows, reused pull by pull (reuseOutput), or null. */
  private scratch: RowScratch | null = null;

  constructor(
    private readonly parent: VecOperator,
    private readonly ctx: QueryContext | null = null,
    private readonly project: CutField[] | null = null,
    /** The batch column of a top-level field (-1: none), for projections built from columns. */
    private readonly colOf: ((field: string) => number) | null = null,
    /**
     * Where the projection is a cut after puts on columns: the puts, as
     * the row engine runs them on a row made from the scan's columns
     * before it is cut, as the cut operator cuts every row (an error a
     * filter outputs too). Null: the projection is the scan's own.
     */
    private readonly puts: readonly Putter[] | null = null,
    /**
     * Where the projection is a yield of a record of fields (`yield {q:query,
     * rtt}`): its expression, as the yield operator evaluates it on every
     * row a recipe does not make. The projection then names its fields.
     */
    private readonly literal: Expr | null = null,
  ) {
    this.cutter = project === null || literal !== null ? null : new Cutter(ctx!.zctx, project);
  }

  /**
   * Lets each pull's rows reuse the memory of the pull before: only for
   * a query's output operator whose caller has written a batch out before
   * it asks for the next (compileQuery's transientOutput).
   */
  reuseOutput(): void {
    this.scratch = new RowScratch();
  }

  /**
   * The projection as a recipe of b's columns, when every row gets the
   * same record (the cutter's, as the row engine makes it): b's rows are
   * records of one type, not null, and each field cut is a top-level
   * field whose column has one type that is not an error.
   */
  private cutRecipe(b: VecBatch): RecordRecipe | null {
    const project = this.project;
    const colOf = this.colOf;
    if (project === null || colOf === null || b.rows !== null) return null;
    const shape = b.shape!;
    if (shape.recipeOf !== null || shape.recipes[0].nulls !== null) return null;
    const fields: Field[] = [];
    const cols: number[] = [];
    for (const f of project) {
      if (f.lhs.length !== 1 || f.from === undefined) return null;
      const c = colOf(f.from);
      const t = c < 0 ? null : b.cols[c].type;
      if (t === null || t.kind === Kind.Error) return null;
      fields.push({ name: f.lhs[0], type: t });
      cols.push(c);
    }
    return { type: this.ctx!.zctx.lookupTypeRecord(fields), cols, nulls: null };
  }

  /** The rows sel[from, to) of b, projected. */
  private projected(b: VecBatch, from: number, to: number): Value[] {
    if (this.recipe !== null) return materialize(b, from, to, this.recipe, this.scratch);
    const vals = materialize(b, from, to);
    if (this.literal !== null) return this.yielded(vals);
    const cutter = this.cutter!;
    const errors = b.errors ?? null;
    const out: Value[] = [];
    const puts = this.puts;
    let rows = vals;
    if (puts !== null)
      for (const put of puts) {
        rows = rows.map((v) => put.apply(v, this.putArena));
        this.putArena.seal();
      }
    for (let k = from; k < to; k++) {
      const v = rows[k - from];
      if (puts === null && errors !== null && errors[b.sel === null ? k : b.sel[k]] === 1)
        out.push(v);
      else {
        const c = cutter.apply(v, this.arena);
        if (c !== null) out.push(c);
      }
    }
    this.arena.seal();
    return out;
  }

  /**
   * The literal's record of each row, as the yield operator makes it (a
   * record is never error("quiet"), which it would drop).
   */
  private yielded(rows: Value[]): Value[] {
    const literal = this.literal!;
    const arena = this.arena;
    const out = rows.map((v) => arena.copy(literal.eval(v)));
    arena.seal();
    return out;
  }

  async pull(): Promise<Value[] | null> {
    for (;;) {
      if (this.closed) return null;
      const b = this.batch;
      if (b !== null) {
        const n = b.sel === null ? b.n : b.sel.length;
        if (this.pos < n) {
          const to = Math.min(n, this.pos + ROW_BATCH);
          const out =
            this.project === null
              ? materialize(b, this.pos, to, null, this.scratch)
              : this.projected(b, this.pos, to);
          this.pos = to;
          if (out.length > 0) return out;
          continue;
        }
      }
      this.batch = await this.parent.pull();
      this.pos = 0;
      if (this.batch === null) {
        this.closed = true;
        return null;
      }
      this.recipe = this.cutRecipe(this.batch);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.parent.close();
  }
}
