// Round trips of random values of random types: whatever the framing
// (thresholds, compression, stream boundaries, chunking of the input), ZNG
// reads back exactly the values written.

import fc from 'fast-check';
import { BufferSink, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { decodeZng, newReader, newWriter } from '../../../src/formats/zng';
import { TypeContext } from '../../../src/zed/context';
import { formatType } from '../../../src/zed/typestring';
import { Value } from '../../../src/zed/value';
import { arbValue, describe as describeValue } from '../../helpers/arbitrary';

interface Plan {
  compress: boolean;
  frameThreshold: number;
  /** Write batches of these sizes, ending the stream after those marked. */
  cuts: { n: number; end: boolean }[];
  chunk: number;
}

const plan: fc.Arbitrary<Plan> = fc.record({
  compress: fc.boolean(),
  frameThreshold: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 300 }),
    fc.constant(512 * 1024),
  ),
  cuts: fc.array(fc.record({ n: fc.integer({ min: 0, max: 8 }), end: fc.boolean() }), {
    maxLength: 6,
  }),
  chunk: fc.integer({ min: 1, max: 200 }),
});

async function writeAll(vals: Value[], p: Plan): Promise<Buffer> {
  const sink = new BufferSink();
  const w = newWriter(sink, { compress: p.compress, frameThreshold: p.frameThreshold });
  let i = 0;
  for (const cut of p.cuts) {
    await w.write(vals.slice(i, i + cut.n));
    i += cut.n;
    if (cut.end) await w.endStream();
  }
  await w.write(vals.slice(i));
  await w.close();
  return sink.bytes();
}

function expectSame(got: Value[], want: Value[]): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    if (got[i].type !== want[i].type || !got[i].equals(want[i])) {
      throw new Error(`value ${i}: got ${describeValue(got[i])}, want ${describeValue(want[i])}`);
    }
  }
}

test('write then read gives the same values and types', async () => {
  const ctx = new TypeContext();
  await fc.assert(
    fc.asyncProperty(fc.array(arbValue(ctx), { maxLength: 25 }), plan, async (vals, p) => {
      const zng = await writeAll(vals, p);
      // Into the writer's context: the very same type objects.
      expectSame(decodeZng(zng, { ctx }), vals);
      const streamed = await readAll(newReader(sourceFromBuffer(zng, p.chunk), { ctx }));
      expectSame(streamed, vals);
      // Into a fresh context: the same types by structure, the same bytes.
      const other = new TypeContext();
      const back = decodeZng(zng, { ctx: other });
      expect(back.map((v) => formatType(v.type))).toEqual(vals.map((v) => formatType(v.type)));
      expect(
        back.every(
          (v, i) => v.len === vals[i].len && v.equals(Value.fromBytes(v.type, vals[i].bytes())),
        ),
      ).toBe(true);
    }),
    { numRuns: 400 },
  );
});

test('uncompressed output is a fixed point: read and write again gives the same bytes', async () => {
  const ctx = new TypeContext();
  await fc.assert(
    fc.asyncProperty(fc.array(arbValue(ctx), { maxLength: 25 }), plan, async (vals, p) => {
      const first = await writeAll(vals, { ...p, compress: false });
      const again = await writeAll(decodeZng(first, { ctx: new TypeContext() }), {
        ...p,
        compress: false,
      });
      expect(again.equals(first)).toBe(true);
    }),
    { numRuns: 200 },
  );
});
