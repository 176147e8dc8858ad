// Reading Parquet (the reference reads it through Arrow, so the Zed types
// are those of the Arrow reader). parquet-wasm decodes the file into Arrow
// record batches; the Arrow decoder turns them into values.

import * as A from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { TypeContext } from '../../zed/context';
import { ByteSource, FormatError, readWhole, ValueReader } from '../io';
import { errorText, RecordBatchValueReader } from '../arrow/reader';

const MAGIC = Buffer.from('PAR1');
/** Rows per record batch decoded from the file. */
const BATCH_ROWS = 64 * 1024;

function fail(err: unknown): FormatError {
  return new FormatError('parquet', `parquetio: ${errorText(err)}`);
}

/** A reader of Parquet files. */
export function newParquetReader(src: ByteSource, ctx: TypeContext): ValueReader {
  let batches: A.RecordBatch[] = [];
  let pending: { intoIPCStream(): Uint8Array }[] = [];
  return new RecordBatchValueReader(
    ctx,
    async () => {
      const buf = await readWhole(src);
      if (
        buf.length < 12 ||
        !buf.subarray(0, 4).equals(MAGIC) ||
        !buf.subarray(buf.length - 4).equals(MAGIC)
      ) {
        throw new FormatError('parquet', 'parquetio: not a Parquet file (missing PAR1 magic)');
      }
      const table = readParquet(buf, { batchSize: BATCH_ROWS });
      const schema = A.tableFromIPC(table.schema.intoIPCStream()).schema;
      pending = table.recordBatches();
      table.free();
      return schema;
    },
    async () => {
      while (batches.length === 0) {
        const rb = pending.shift();
        if (!rb) return null;
        // One batch at a time crosses from WebAssembly memory to JS.
        batches = A.tableFromIPC(rb.intoIPCStream()).batches;
      }
      return batches.shift()!;
    },
    fail,
  );
}
