// Round trips of random values through Parquet, over the Zed types the
// reference's Parquet writer accepts (no float16, duration or unions).

import { ID } from '../../../src/zed/types';
import { parquetFormat } from '../../../src/formats/parquet';
import { checkRoundTrip, exactPrimitives, hasNullKeys } from '../arrow/carry';

test('random records round-trip through Parquet exactly', async () => {
  const prims = exactPrimitives.filter((id) => id !== ID.Float16 && id !== ID.Duration);
  // Parquet (like Arrow) has no null map keys.
  await checkRoundTrip(
    parquetFormat,
    prims,
    ['record', 'array', 'map'],
    200,
    (t) => !hasNullKeys(t),
  );
});
