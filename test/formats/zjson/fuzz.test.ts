// Fuzz: random and mutated ZJSON must give values or a FormatError, never
// another exception or a hang.

import fc from 'fast-check';
import { BufferSink, FormatError, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { ZJSONReader, ZJSONWriter } from '../../../src/formats/zjson';
import { TypeContext, Value } from '../../../src/zed';
import { arbValue } from '../../helpers/arbitrary';

async function write(vals: Value[]): Promise<Buffer> {
  const sink = new BufferSink();
  const w = new ZJSONWriter(sink);
  await w.write(vals);
  await w.close();
  return sink.bytes();
}

async function mustBeCleanRead(input: Buffer, chunk = 64): Promise<void> {
  const started = Date.now();
  try {
    await readAll(new ZJSONReader(sourceFromBuffer(input, chunk), { ctx: new TypeContext() }));
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    expect(e.format).toBe('zjson');
  }
  expect(Date.now() - started).toBeLessThan(2000);
}

const splice = fc.constantFrom(
  ...'{}[],:"\\ \n0123456789-'.split('').map((c) => c.charCodeAt(0)),
  0x00,
  0xff,
);

test('mutated ZJSON streams of random values', async () => {
  const mutation = fc.tuple(fc.nat(3), fc.nat(100_000), fc.integer({ min: 1, max: 12 }), splice);
  await fc.assert(
    fc.asyncProperty(
      fc.array(arbValue(new TypeContext()), { minLength: 1, maxLength: 3 }),
      fc.array(mutation, { minLength: 1, maxLength: 3 }),
      async (vals, muts) => {
        let b = await write(vals);
        for (const [kind, at0, n, byte] of muts) {
          const at = at0 % (b.length + 1);
          if (kind === 0 && at < b.length) b[at] = byte;
          else if (kind === 1)
            b = Buffer.concat([b.subarray(0, at), Buffer.from([byte]), b.subarray(at)]);
          else if (kind === 2) b = Buffer.concat([b.subarray(0, at), b.subarray(at + n)]);
          else b = b.subarray(0, at);
        }
        await mustBeCleanRead(b);
      },
    ),
    { numRuns: 2000 },
  );
});

test('random JSON objects with type and value members', async () => {
  const kinds = fc.constantFrom(
    'primitive',
    'record',
    'array',
    'set',
    'map',
    'union',
    'enum',
    'error',
    'named',
    'ref',
    'x',
  );
  const typeObj = fc.letrec<{ t: unknown }>((tie) => ({
    t: fc.oneof(
      { depthSize: 'small' },
      fc.record({
        kind: fc.constant('primitive'),
        name: fc.constantFrom('int64', 'string', 'time', 'ip', 'type', 'null', 'bogus'),
      }),
      fc.record(
        {
          kind: kinds,
          id: fc.oneof(fc.integer({ min: 28, max: 40 }), fc.string()),
          type: tie('t'),
          key_type: tie('t'),
          val_type: tie('t'),
          name: fc.string(),
          types: fc.array(tie('t'), { maxLength: 3 }),
          symbols: fc.array(fc.string(), { maxLength: 3 }),
          fields: fc.array(fc.record({ name: fc.string(), type: tie('t') }), { maxLength: 3 }),
        },
        { requiredKeys: ['kind'] },
      ),
      fc.jsonValue(),
    ),
  }));
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ type: typeObj.t, value: fc.jsonValue() }), {
        minLength: 1,
        maxLength: 4,
      }),
      async (objs) => {
        await mustBeCleanRead(Buffer.from(objs.map((o) => JSON.stringify(o)).join('\n')));
      },
    ),
    { numRuns: 2000 },
  );
});

test('deep nesting is an error, not a stack overflow', async () => {
  const deepType =
    '{"kind":"array","id":30,"type":'.repeat(5000) +
    '{"kind":"primitive","name":"int64"}' +
    '}'.repeat(5000);
  await mustBeCleanRead(Buffer.from(`{"type":${deepType},"value":null}\n`));
  const deepValue = '['.repeat(20000) + ']'.repeat(20000);
  await mustBeCleanRead(
    Buffer.from(`{"type":{"kind":"primitive","name":"int64"},"value":${deepValue}}\n`),
  );
  // Unbalanced: JSON.parse fails and the Go-text check must not overflow either.
  await mustBeCleanRead(Buffer.from('['.repeat(50000) + '\n'));
});
