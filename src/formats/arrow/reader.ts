// Reading Arrow record batches as Zed records (the reference's arrowio
// reader): each row of a batch becomes one record whose fields are the
// batch's columns, typed by the mapping in decode.ts.

import * as A from 'apache-arrow';
import { TypeContext } from '../../zed/context';
import { Value } from '../../zed/value';
import { Builder } from '../../zed/zcode';
import { ByteSource, FormatError, readWhole, ValueReader } from '../io';
import { checkIpcStream } from './ipccheck';
import { Appender, CorruptArrowData, Plan, planForSchema, validateData } from './decode';

/** Rows per batch handed to the caller. */
const OUT_BATCH = 4096;
/** Most rows a batch without columns may claim. */
const MAX_EMPTY_ROWS = 1 << 20;

/** Turns record batches of one schema into Zed values. */
export class BatchDecoder {
  readonly plan: Plan;

  constructor(ctx: TypeContext, schema: A.Schema) {
    this.plan = planForSchema(ctx, schema);
  }

  /** The values of rows [from, to) of the batch. */
  decode(batch: A.RecordBatch, from: number, to: number): Value[] {
    if (from === 0) {
      validateData(batch.data);
      // With no columns nothing bounds the row count: refuse absurd ones.
      if (batch.data.children.length === 0 && batch.numRows > MAX_EMPTY_ROWS) {
        throw new CorruptArrowData(`corrupt record batch: ${batch.numRows} rows without columns`);
      }
    }
    const cols: Appender[] = this.plan.children.map((p, k) => p.bind(batch.data.children[k]));
    const ncols = cols.length;
    const b = new Builder(Math.max(256, (to - from) * 16 * Math.max(1, ncols)));
    const offs = new Array<number>(to - from + 1);
    for (let i = from; i < to; i++) {
      offs[i - from] = b.len;
      for (let k = 0; k < ncols; k++) cols[k](b, i);
    }
    offs[to - from] = b.len;
    const type = this.plan.zed;
    const buf = b.buf;
    const out = new Array<Value>(to - from);
    for (let r = 0; r < out.length; r++)
      out[r] = new Value(type, buf, offs[r], offs[r + 1] - offs[r]);
    return out;
  }
}

/**
 * A ValueReader over a sequence of Arrow record batches; `fail` turns any
 * error into the format's FormatError.
 */
export class RecordBatchValueReader implements ValueReader {
  private decoder?: BatchDecoder;
  private batch?: A.RecordBatch;
  private row = 0;

  constructor(
    private ctx: TypeContext,
    private open: () => Promise<A.Schema | null>,
    private next: () => Promise<A.RecordBatch | null>,
    private fail: (err: unknown) => FormatError,
  ) {}

  async read(): Promise<Value[] | null> {
    try {
      if (!this.decoder) {
        const schema = await this.open();
        if (!schema) return null;
        this.decoder = new BatchDecoder(this.ctx, schema);
      }
      while (!this.batch || this.row >= this.batch.numRows) {
        const batch = await this.next();
        if (!batch) return null;
        this.batch = batch;
        this.row = 0;
      }
      const from = this.row;
      const to = Math.min(this.batch.numRows, from + OUT_BATCH);
      this.row = to;
      return this.decoder.decode(this.batch, from, to);
    } catch (err) {
      if (err instanceof FormatError) throw err;
      throw this.fail(err);
    }
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * A reader of the Arrow IPC stream format. The input is buffered whole and
 * parsed with apache-arrow's synchronous reader: its incremental reader can
 * wait forever on some corrupt streams, and the synchronous one cannot.
 */
export function newArrowReader(src: ByteSource, ctx: TypeContext): ValueReader {
  let reader: A.RecordBatchStreamReader | undefined;
  const fail = (err: unknown) => new FormatError('arrows', `arrowio: ${errorText(err)}`);
  return new RecordBatchValueReader(
    ctx,
    async () => {
      const buf = await readWhole(src);
      if (buf.length === 0) throw new FormatError('arrows', 'arrowio: could not read schema: EOF');
      checkIpcStream(buf);
      const r = A.RecordBatchReader.from(buf);
      if (!r.isStream()) throw new FormatError('arrows', 'arrowio: not an Arrow IPC stream');
      reader = r.open() as A.RecordBatchStreamReader;
      if (!reader.schema) throw new FormatError('arrows', 'arrowio: could not read schema: EOF');
      return reader.schema;
    },
    async () => {
      const r = reader!.next();
      return r.done ? null : (r.value as A.RecordBatch);
    },
    fail,
  );
}
