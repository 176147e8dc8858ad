// Validation of value bodies against their types (the reference's
// zng.validate, used for lake loads and format detection).

import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BufferSink, FormatError } from '../../../src/formats/io';
import { decodeZng, newWriter } from '../../../src/formats/zng';
import { checkBody } from '../../../src/formats/zng/validate';
import { Builder, encodeInt, encodeUint } from '../../../src/zed';
import { TypeContext } from '../../../src/zed/context';
import { Type, TypeInt64, TypeString } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { arbValue } from '../../helpers/arbitrary';

const ctx = new TypeContext();

function body(...children: (Uint8Array | string | null)[]): Buffer {
  const b = new Builder();
  for (const c of children) b.appendBytes(typeof c === 'string' ? Buffer.from(c) : c);
  return b.copy();
}

function check(t: Type, b: Buffer | null): string | null {
  return checkBody(t, b ?? Buffer.alloc(0), 0, b === null ? -1 : b.length);
}

async function zngOf(vals: Value[]): Promise<Buffer> {
  const sink = new BufferSink();
  const w = newWriter(sink, { compress: false });
  await w.write(vals);
  await w.close();
  return sink.bytes();
}

test('sound bodies pass', () => {
  const rec = ctx.lookupTypeRecord([
    { name: 'a', type: TypeInt64 },
    { name: 's', type: ctx.lookupTypeSet(TypeString) },
  ]);
  expect(check(rec, body(encodeInt(1), body('a', 'b')))).toBeNull();
  expect(check(rec, null)).toBeNull();
  expect(check(rec, body(null, null))).toBeNull();
  const u = ctx.lookupTypeUnion([TypeInt64, TypeString]);
  expect(check(u, body(encodeInt(1), 'x'))).toBeNull();
  const e = ctx.lookupTypeEnum(['a', 'b']);
  expect(check(e, encodeUint(1))).toBeNull();
  const m = ctx.lookupTypeMap(TypeString, TypeInt64);
  expect(check(m, body('k', encodeInt(2)))).toBeNull();
});

test.each([
  [
    'record missing a field',
    () =>
      ctx.lookupTypeRecord([
        { name: 'a', type: TypeInt64 },
        { name: 'b', type: TypeInt64 },
      ]),
    body(encodeInt(1)),
  ],
  ['invalid ZNG: duplicate set element', () => ctx.lookupTypeSet(TypeString), body('a', 'a')],
  ['invalid ZNG: set elements not sorted', () => ctx.lookupTypeSet(TypeString), body('b', 'a')],
  ['enum selector out of range', () => ctx.lookupTypeEnum(['x']), encodeUint(1)],
  [
    'invalid union tag',
    () => ctx.lookupTypeUnion([TypeInt64, TypeString]),
    body(encodeInt(2), 'x'),
  ],
  ['union has empty body', () => ctx.lookupTypeUnion([TypeInt64, TypeString]), Buffer.alloc(0)],
  [
    'union value container has more than two items',
    () => ctx.lookupTypeUnion([TypeInt64, TypeString]),
    body(encodeInt(1), 'x', 'y'),
  ],
  ['malformed zng record', () => ctx.lookupTypeArray(TypeString), Buffer.from([5, 1])],
  ['malformed zng record', () => ctx.lookupTypeMap(TypeString, TypeString), body('k')],
  [
    'record missing a field',
    () => ctx.lookupTypeArray(ctx.lookupTypeRecord([{ name: 'a', type: TypeInt64 }])),
    body(body()),
  ],
])('%s', async (message, type, bad) => {
  const t = type();
  expect(check(t, bad)).toBe(message);
  // The reader reports it only when asked to validate.
  const zng = await zngOf([Value.fromBytes(t, bad)]);
  expect(decodeZng(zng, { ctx }).length).toBe(1);
  let err: unknown;
  try {
    decodeZng(zng, { ctx, validate: true });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(FormatError);
  expect((err as FormatError).message).toBe(message);
});

test('the sample logs validate', () => {
  const dir = join(__dirname, '../../../../shared/sample-data/zng');
  let n = 0;
  for (const f of readdirSync(dir)) {
    n += decodeZng(gunzipSync(readFileSync(join(dir, f))), { ctx, validate: true }).length;
  }
  expect(n).toBeGreaterThan(20000);
});

test('random well-formed values validate', () => {
  fc.assert(
    fc.property(arbValue(ctx), (v) => {
      expect(check(v.type, v.bytes())).toBeNull();
    }),
    { numRuns: 500 },
  );
});
