// Corrupt Parquet files must fail with a FormatError naming the format (or
// read cleanly), never crash, hang or throw anything else.

import { TypeContext } from '../../../src/zed/context';
import { BufferSink, FormatError, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { newParquetReader } from '../../../src/formats/parquet/reader';
import { ParquetWriter } from '../../../src/formats/parquet/writer';
import { mutations, sampleParquetRecords } from '../arrow/sample';

test('mutated Parquet files give FormatError or values', async () => {
  let errors = 0;
  const good = await parquetSample();
  for (const bad of mutations(good, 2000, 11)) {
    try {
      await readAll(newParquetReader(sourceFromBuffer(bad), new TypeContext()));
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      expect(err.format).toBe('parquet');
      errors++;
    }
  }
  expect(errors).toBeGreaterThan(100);
  // The WebAssembly decoder must still work after all those failures.
  const again = await readAll(newParquetReader(sourceFromBuffer(good), new TypeContext()));
  expect(again).toHaveLength(40);
});

async function parquetSample(): Promise<Buffer> {
  const sink = new BufferSink();
  const w = new ParquetWriter(sink, () => '');
  await w.write(sampleParquetRecords(new TypeContext(), 40));
  await w.close();
  return sink.bytes();
}
