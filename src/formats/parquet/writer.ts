// Writing Parquet: records are encoded as Arrow record batches exactly as
// for the Arrow writer, then parquet-wasm writes them as one file at close
// (Parquet's footer describes the whole file, so output comes at the end).
// Types the reference's Parquet library cannot store are rejected up front
// with its message.

import * as A from 'apache-arrow';
import {
  Compression,
  Table as WasmTable,
  WriterPropertiesBuilder,
  writeParquet,
} from 'parquet-wasm';
import { Value } from '../../zed/value';
import { ByteSink, FormatError, ValueWriter } from '../io';
import { ValueFormatter } from '../arrow/encode';
import { BatchEncoder } from '../arrow/writer';
import { errorText } from '../arrow/reader';

/** Rows per Arrow batch handed to the Parquet writer. */
const BATCH_ROWS = 64 * 1024;

/** Why the reference's Parquet writer (pqarrow) refuses a type, if it does. */
export function unsupportedForParquet(t: A.DataType): string | undefined {
  switch (t.typeId) {
    case A.Type.Float:
      return (t as A.Float).precision === A.Precision.HALF ? 'not implemented yet' : undefined;
    case A.Type.Duration:
    case A.Type.Interval:
    case A.Type.Union:
    case A.Type.LargeList:
    case A.Type.Dictionary:
      return 'not implemented yet';
    case A.Type.Decimal:
      return (t as A.Decimal).bitWidth !== 128 ? 'not implemented yet' : undefined;
    default:
      for (const c of t.children ?? []) {
        const why = unsupportedForParquet(c.type);
        if (why) return why;
      }
      return undefined;
  }
}

export class ParquetWriter implements ValueWriter {
  private enc: BatchEncoder;
  private batches: A.RecordBatch[] = [];

  constructor(
    private sink: ByteSink,
    formatValue: ValueFormatter,
  ) {
    this.enc = new BatchEncoder('parquet', 'parquetio', formatValue, BATCH_ROWS, (schema) => {
      for (const f of schema.fields) {
        const why = unsupportedForParquet(f.type);
        if (why) return why;
      }
      return undefined;
    });
  }

  async write(vals: Value[]): Promise<void> {
    for (const v of vals) {
      const batch = this.enc.add(v);
      if (batch) this.batches.push(batch);
    }
  }

  async close(): Promise<void> {
    const last = this.enc.flush();
    if (last) this.batches.push(last);
    if (this.batches.length > 0) {
      let out: Uint8Array;
      try {
        const ipc = A.RecordBatchStreamWriter.writeAll(this.batches).toUint8Array(true);
        this.batches = [];
        const table = WasmTable.fromIPCStream(ipc);
        // Snappy halves the file and costs no time (the encoder is cheaper than the I/O).
        out = writeParquet(
          table,
          new WriterPropertiesBuilder().setCompression(Compression.SNAPPY).build(),
        );
      } catch (err) {
        throw new FormatError('parquet', `parquetio: ${errorText(err)}`);
      }
      await this.sink.write(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
    }
    await this.sink.end();
  }
}
