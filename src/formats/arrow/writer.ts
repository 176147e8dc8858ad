// Writing Zed records as Arrow record batches (the reference's arrowio
// writer). Every value must be a record of one type, since an Arrow stream
// has one schema; the first record fixes it.

import * as A from 'apache-arrow';
import { formatType } from '../../zed/typestring';
import { TypeRecord } from '../../zed/types';
import { Value } from '../../zed/value';
import { ByteSink, FormatError, ValueWriter } from '../io';
import { appendFields, Col, ColumnFactory, UnsupportedZedType, ValueFormatter } from './encode';

/** Rows per record batch, as the reference writes them. */
export const RECORD_BATCH_SIZE = 1024;

/** Accumulates records of one type into Arrow record batches. */
export class BatchEncoder {
  private type?: TypeRecord;
  private cols: Col[] = [];
  schema?: A.Schema;
  private rows = 0;
  private factory: ColumnFactory;

  /**
   * `prefix` starts every error message ("arrowio" or "parquetio"), and
   * `check` may reject a schema the target cannot hold (its message follows
   * "unsupported type: ").
   */
  constructor(
    private format: string,
    private prefix: string,
    private formatValue: ValueFormatter,
    private batchSize = RECORD_BATCH_SIZE,
    private check?: (schema: A.Schema) => string | undefined,
  ) {
    this.factory = new ColumnFactory(formatValue);
  }

  private fail(msg: string): FormatError {
    return new FormatError(this.format, `${this.prefix}: ${msg}`);
  }

  /** Adds a record; returns a full batch when one is ready. */
  add(v: Value): A.RecordBatch | undefined {
    const rt = v.type.under;
    if (!(rt instanceof TypeRecord)) throw this.fail(`not a record: ${this.formatValue(v)}`);
    if (!this.type) {
      this.begin(rt);
    } else if (this.type !== rt) {
      throw this.fail(
        `encountered multiple types (consider 'fuse'): ${formatType(this.type)} and ${formatType(rt)}`,
      );
    }
    try {
      if (v.len < 0) {
        // A null record contributes a row of nulls.
        appendFields(this.cols, v.buf, 0, 0);
      } else {
        appendFields(this.cols, v.buf, v.off, v.off + v.len);
      }
    } catch (err) {
      throw this.fail(err instanceof Error ? err.message : String(err));
    }
    this.rows++;
    return this.rows >= this.batchSize ? this.flush() : undefined;
  }

  private begin(rt: TypeRecord): void {
    let col: Col;
    try {
      col = this.factory.make(rt);
    } catch (err) {
      if (err instanceof UnsupportedZedType) throw this.fail(`unsupported type: ${err.message}`);
      throw err;
    }
    const st = col.type as A.Struct;
    const schema = new A.Schema(st.children);
    const bad = this.check?.(schema);
    if (bad) throw this.fail(`unsupported type: ${bad}`);
    this.type = rt;
    this.schema = schema;
    this.cols = (col as unknown as { kids: Col[] }).kids;
  }

  /** The rows so far as a record batch (undefined when there are none). */
  flush(): A.RecordBatch | undefined {
    if (this.rows === 0 || !this.schema) return undefined;
    const n = this.rows;
    this.rows = 0;
    let children: A.Data[];
    try {
      children = this.cols.map((c) => c.finish());
    } catch (err) {
      throw this.fail(err instanceof Error ? err.message : String(err));
    }
    const st = new A.Struct(this.schema.fields);
    const data = A.makeData({ type: st, length: n, nullCount: 0, children });
    return new A.RecordBatch(this.schema, data);
  }
}

/** A writer of the Arrow IPC stream format. */
export class ArrowStreamWriter implements ValueWriter {
  private enc: BatchEncoder;
  private writer?: A.RecordBatchStreamWriter;
  private chunks: Uint8Array[] = [];
  private ended?: Promise<void>;

  constructor(
    private sink: ByteSink,
    formatValue: ValueFormatter,
  ) {
    this.enc = new BatchEncoder('arrows', 'arrowio', formatValue);
  }

  async write(vals: Value[]): Promise<void> {
    for (const v of vals) {
      const batch = this.enc.add(v);
      if (batch) await this.emit(batch);
    }
  }

  private async emit(batch: A.RecordBatch): Promise<void> {
    if (!this.writer) {
      this.writer = new A.RecordBatchStreamWriter();
      const out = this.writer.toNodeStream({ objectMode: false });
      out.on('data', (c: Uint8Array) => this.chunks.push(c));
      this.ended = new Promise((resolve, reject) => {
        out.on('end', resolve);
        out.on('error', reject);
      });
    }
    this.writer.write(batch);
    await new Promise((r) => setImmediate(r));
    await this.drain();
  }

  private async drain(): Promise<void> {
    if (this.chunks.length === 0) return;
    const chunk = Buffer.concat(this.chunks);
    this.chunks = [];
    await this.sink.write(chunk);
  }

  async close(): Promise<void> {
    const batch = this.enc.flush();
    if (batch) await this.emit(batch);
    if (this.writer) {
      this.writer.finish();
      this.writer.close();
      await this.ended;
      await this.drain();
    }
    await this.sink.end();
  }
}
