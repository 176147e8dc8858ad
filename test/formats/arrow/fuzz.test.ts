// Corrupt Arrow IPC streams must fail with a FormatError naming the
// format (or read cleanly), never crash, hang or throw anything else.

import { TypeContext } from '../../../src/zed/context';
import { FormatError, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { newArrowReader } from '../../../src/formats/arrow/reader';
import { mutations, sampleRecords, writeArrows } from './sample';

test('mutated Arrow streams give FormatError or values', async () => {
  const good = await writeArrows(sampleRecords(new TypeContext(), 40));
  let errors = 0;
  for (const bad of mutations(good, 3000, 7)) {
    try {
      await readAll(newArrowReader(sourceFromBuffer(bad, 97), new TypeContext()));
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      expect(err.format).toBe('arrows');
      errors++;
    }
  }
  expect(errors).toBeGreaterThan(100);
});
