// Fuzzing the readers with truncated, corrupted and random input: each run
// must give values or a FormatError, never another exception or a hang.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { BufferSink, FormatError, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { decodeZng, newReader, newWriter } from '../../../src/formats/zng';
import { TypeContext } from '../../../src/zed/context';

const samples = join(__dirname, '../../../../shared/sample-data');
// Prefixes keep each run fast; they cut the big logs mid-frame, itself a case.
const inputs: Buffer[] = [];
for (const dir of ['zng', 'zng-uncompressed']) {
  for (const f of readdirSync(join(samples, dir)).sort()) {
    inputs.push(gunzipSync(readFileSync(join(samples, dir, f))).subarray(0, 48 * 1024));
  }
}

const mutated: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.nat(inputs.length - 1),
    fc.array(
      fc.oneof(
        // Overwrite a byte, mostly near the start where the headers and
        // typedefs are.
        fc.record({
          kind: fc.constant('set' as const),
          at: fc.oneof(fc.nat(64), fc.nat(48 * 1024)),
          byte: fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0, 0x7f, 0x80, 0xff)),
        }),
        fc.record({ kind: fc.constant('cut' as const), at: fc.nat(48 * 1024) }),
        fc.record({
          kind: fc.constant('splice' as const),
          at: fc.nat(48 * 1024),
          bytes: fc.uint8Array({ maxLength: 8 }),
        }),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([which, edits]) => {
    let b = Buffer.from(inputs[which]);
    for (const e of edits) {
      const at = b.length === 0 ? 0 : e.at % b.length;
      if (e.kind === 'set') {
        if (b.length > 0) b[at] = e.byte;
      } else if (e.kind === 'cut') {
        b = b.subarray(0, at);
      } else {
        b = Buffer.concat([b.subarray(0, at), e.bytes, b.subarray(at)]);
      }
    }
    return b;
  });

/** Random frames: plausible codes and lengths around random payloads. */
const randomFrames: fc.Arbitrary<Buffer> = fc
  .array(
    fc.oneof(
      fc.constant(Buffer.from([0xff])),
      fc
        .tuple(fc.integer({ min: 0, max: 0x7f }), fc.uint8Array({ maxLength: 40 }))
        .map(([code, payload]) => {
          const len = payload.length;
          const head = [(code & 0xf0) | (len & 0xf), len >> 4];
          return Buffer.concat([Buffer.from(head), payload]);
        }),
      fc.uint8Array({ maxLength: 20 }).map((a) => Buffer.from(a)),
    ),
    { maxLength: 8 },
  )
  .map((parts) => Buffer.concat(parts));

/** Runs a read: true when it gave values, false for a FormatError. */
function check(run: () => unknown): boolean {
  try {
    run();
    return true;
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    expect(e.format).toBe('zng');
    expect(typeof e.offset).toBe('number');
    return false;
  }
}

test('mutated sample files: values or a FormatError (in-memory reader)', () => {
  const ctx = new TypeContext();
  let failed = 0;
  let passed = 0;
  fc.assert(
    fc.property(mutated, (b) => {
      if (check(() => decodeZng(b, { ctx, validate: b.length % 2 === 0 }))) passed++;
      else failed++;
    }),
    { numRuns: 3000 },
  );
  // The mutations exercise both outcomes.
  expect(failed).toBeGreaterThan(100);
  expect(passed).toBeGreaterThan(100);
});

test('random frames and random bytes: values or a FormatError', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        randomFrames,
        fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      ),
      (b) => {
        check(() => decodeZng(b, { ctx: new TypeContext() }));
      },
    ),
    { numRuns: 5000 },
  );
});

test('mutated input through the streaming reader in small chunks', async () => {
  const ctx = new TypeContext();
  await fc.assert(
    fc.asyncProperty(mutated, fc.integer({ min: 1, max: 4096 }), async (b, chunk) => {
      let sync: unknown;
      try {
        sync = decodeZng(b, { ctx }).length;
      } catch (e) {
        sync = (e as Error).message;
      }
      let streamed: unknown;
      try {
        streamed = (await readAll(newReader(sourceFromBuffer(b, chunk), { ctx }))).length;
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        streamed = e.message;
      }
      // Both readers agree on the outcome.
      expect(streamed).toEqual(sync);
      if (typeof sync === 'number') {
        // Whatever was read can be written and read back.
        const vals = decodeZng(b, { ctx });
        const sink = new BufferSink();
        const w = newWriter(sink, { compress: chunk % 2 === 0 });
        await w.write(vals);
        await w.close();
        const back = decodeZng(sink.bytes(), { ctx });
        expect(back.length).toBe(vals.length);
        expect(back.every((v, i) => v.type === vals[i].type && v.equals(vals[i]))).toBe(true);
      }
    }),
    { numRuns: 1000 },
  );
});
