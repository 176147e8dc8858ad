// Fuzz: random and mutated JSON must give values or a FormatError, never
// another exception or a hang.

import fc from 'fast-check';
import { FormatError } from '../../../src/formats/io';
import { TypeContext } from '../../../src/zed';
import { ndjson, readJSON } from './helpers';

const seeds = [
  '{"_path":"dce_rpc","ts":"2018-03-24T17:15:25.396014Z","id.orig_p":36643,"rtt":0.000431060791015625,"ok":true,"n":null}',
  '[1,"a",{"b":[true,false,null]},[],{},-0.5e-3,12345678901234567890]',
  '{"a":{"a":{"a":[["x"],[1],[{"k":1,"k":"v"}]]}}}',
  '"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\\\/"',
  '{"s":"caf\u00e9 \u212b","e":"A\u030a"} 1 2 3 true false null',
];

// Structural and tricky bytes to splice in.
const splice = fc.constantFrom(
  ...'{}[],:"\\ \n\t-+.eE0123456789tfnul'.split('').map((c) => c.charCodeAt(0)),
  0x00,
  0x1f,
  0x80,
  0xc3,
  0xe2,
  0xed,
  0xf0,
  0xff,
);

type Mutation = [kind: number, at: number, n: number, byte: number];

function mutate(src: Buffer, muts: Mutation[]): Buffer {
  let b = Buffer.from(src);
  for (const [kind, at0, n, byte] of muts) {
    const at = b.length === 0 ? 0 : at0 % (b.length + 1);
    switch (kind) {
      case 0: // overwrite
        if (at < b.length) b[at] = byte;
        break;
      case 1: // insert
        b = Buffer.concat([b.subarray(0, at), Buffer.from([byte]), b.subarray(at)]);
        break;
      case 2: // delete a run
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + n)]);
        break;
      case 3: // truncate
        b = b.subarray(0, at);
        break;
      default: // duplicate a run
        b = Buffer.concat([b.subarray(0, at + n), b.subarray(at, at + n), b.subarray(at + n)]);
    }
  }
  return b;
}

async function mustBeCleanRead(input: Buffer, chunk: number): Promise<void> {
  const started = Date.now();
  try {
    const vals = await readJSON(input, new TypeContext(), chunk);
    // Whatever was read can be written back (or refused cleanly).
    await ndjson(vals);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    expect(e.format).toBe('json');
    expect(e.message.length).toBeGreaterThan(0);
  }
  expect(Date.now() - started).toBeLessThan(10000);
}

test('random bytes', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ maxLength: 200 }),
      fc.integer({ min: 1, max: 64 }),
      async (bytes, chunk) => {
        await mustBeCleanRead(Buffer.from(bytes), chunk);
      },
    ),
    { numRuns: 2000 },
  );
});

test('mutated JSON', async () => {
  const mutation = fc.tuple(fc.nat(4), fc.nat(10_000), fc.integer({ min: 1, max: 8 }), splice);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...seeds),
      fc.array(mutation, { minLength: 1, maxLength: 4 }),
      fc.integer({ min: 1, max: 40 }),
      async (seed, muts, chunk) => {
        await mustBeCleanRead(mutate(Buffer.from(seed), muts), chunk);
      },
    ),
    { numRuns: 4000 },
  );
});

test('random JSON text, whole and in pieces', async () => {
  await fc.assert(
    fc.asyncProperty(fc.json(), fc.integer({ min: 1, max: 16 }), async (text, chunk) => {
      const vals = await readJSON(text, new TypeContext(), chunk);
      expect(vals).toHaveLength(1);
    }),
    { numRuns: 1000 },
  );
});
