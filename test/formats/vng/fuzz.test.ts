// Corrupt VNG files must fail with a FormatError naming the format (or
// read cleanly), never crash, hang or throw anything else.

import { TypeContext } from '../../../src/zed/context';
import { BufferSink, FormatError, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { vngFormat } from '../../../src/formats/vng';
import { VngWriter } from '../../../src/formats/vng/writer';
import { mutations, sampleRecords } from '../arrow/sample';

test('mutated VNG files give FormatError or values', async () => {
  const sink = new BufferSink();
  // Small segments so the file has many of them.
  const w = new VngWriter(sink, { segmentThresh: 100, skewThresh: 1000 });
  await w.write(sampleRecords(new TypeContext(), 60));
  await w.close();
  const good = sink.bytes();
  let errors = 0;
  for (const bad of mutations(good, 3000, 5)) {
    try {
      await readAll(vngFormat.newReader!(sourceFromBuffer(bad), { ctx: new TypeContext() }));
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      expect(err.format).toBe('vng');
      errors++;
    }
  }
  expect(errors).toBeGreaterThan(100);
});

test('an empty file has no trailer', async () => {
  await expect(
    readAll(vngFormat.newReader!(sourceFromBuffer(Buffer.alloc(0)), { ctx: new TypeContext() })),
  ).rejects.toThrow('trailer not found');
});
