import fc from 'fast-check';
import { TypeContext } from '../../../src/zed/context';
import { formatType } from '../../../src/zed/typestring';
import {
  Type,
  TypeArray,
  TypeMap,
  TypeNamed,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { BufferSink, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { vngFormat } from '../../../src/formats/vng';
import { arbType, arbValueOf } from '../../helpers/arbitrary';

/** True when t contains a record with no fields (the reference cannot write those to VNG). */
function hasEmptyRecord(t: Type): boolean {
  if (t instanceof TypeNamed) return hasEmptyRecord(t.type);
  if (t instanceof TypeRecord)
    return t.fields.length === 0 || t.fields.some((f) => hasEmptyRecord(f.type));
  if (t instanceof TypeArray || t instanceof TypeSet) return hasEmptyRecord(t.type);
  if (t instanceof TypeMap) return hasEmptyRecord(t.keyType) || hasEmptyRecord(t.valType);
  if (t instanceof TypeUnion) return t.types.some(hasEmptyRecord);
  return false;
}

export async function vngRoundTrip(vals: Value[], segmentThresh?: number): Promise<Value[]> {
  const sink = new BufferSink();
  const { VngWriter } = await import('../../../src/formats/vng/writer');
  const w = segmentThresh
    ? new VngWriter(sink, { segmentThresh, skewThresh: segmentThresh * 3 })
    : vngFormat.newWriter!(sink, {});
  await w.write(vals);
  await w.close();
  return readAll(vngFormat.newReader!(sourceFromBuffer(sink.bytes()), { ctx: new TypeContext() }));
}

function same(a: Value[], b: Value[]): void {
  expect(b.length).toBe(a.length);
  for (let i = 0; i < a.length; i++) {
    expect(formatType(b[i].type)).toBe(formatType(a[i].type));
    expect(b[i].len).toBe(a[i].len);
    if (a[i].len >= 0) expect(b[i].bytes()!.toString('hex')).toBe(a[i].bytes()!.toString('hex'));
  }
}

describe('VNG round trip', () => {
  test('random values of every type VNG carries', async () => {
    const ctx = new TypeContext();
    const kinds = ['record', 'array', 'set', 'map', 'union', 'named'] as const;
    const arb = fc.array(
      arbType(ctx, { kinds: [...kinds] })
        .filter((t) => !hasEmptyRecord(t))
        .chain((t) => fc.array(arbValueOf(t), { minLength: 1, maxLength: 5 })),
      { minLength: 1, maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(arb, async (groups) => {
        const vals = groups.flat();
        same(vals, await vngRoundTrip(vals));
      }),
      { numRuns: 300 },
    );
  });

  test('many segments: small thresholds spill columns often', async () => {
    const ctx = new TypeContext();
    const t = ctx.lookupTypeRecord([
      { name: 'a', type: ctx.lookupTypeArray(ctx.lookupTypeRecord([])) },
    ]);
    void t;
    const arb = arbType(ctx, { kinds: ['record', 'array', 'union', 'map'] })
      .filter((x) => !hasEmptyRecord(x))
      .chain((x) => fc.array(arbValueOf(x), { minLength: 200, maxLength: 400 }));
    await fc.assert(
      fc.asyncProperty(arb, async (vals) => {
        same(vals, await vngRoundTrip(vals, 64));
      }),
      { numRuns: 30 },
    );
  });
});
