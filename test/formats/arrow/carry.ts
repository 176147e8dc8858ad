// Random round trips through a format over the Zed types it carries
// unchanged (shared by the Arrow and Parquet property tests).

import fc from 'fast-check';
import { compareTypes } from '../../../src/zed/compare';
import { TypeContext } from '../../../src/zed/context';
import { formatType } from '../../../src/zed/typestring';
import { ID, Type, TypeArray, TypeMap, TypeRecord, TypeUnion } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { Format } from '../../../src/formats/io';
import { arbType, arbValueOf, primitiveIds } from '../../helpers/arbitrary';
import { decode, encode } from './zio';

export const exactPrimitives = primitiveIds.filter(
  (id) => id !== ID.IP && id !== ID.Net && id !== ID.Type,
);

/** Types that come back as themselves: no empty records, unions already in the reference's order. */
export function carried(t: Type): boolean {
  if (t instanceof TypeRecord) return t.fields.length > 0 && t.fields.every((f) => carried(f.type));
  if (t instanceof TypeArray) return carried(t.type);
  if (t instanceof TypeMap) return carried(t.keyType) && carried(t.valType);
  if (t instanceof TypeUnion) {
    for (let i = 1; i < t.types.length; i++)
      if (compareTypes(t.types[i - 1], t.types[i]) >= 0) return false;
    return t.types.every(carried);
  }
  return true;
}

export async function checkRoundTrip(
  format: Format,
  primitives: number[],
  kinds: ('record' | 'array' | 'map' | 'union')[],
  runs: number,
  ok: (t: Type) => boolean = () => true,
) {
  const ctx = new TypeContext();
  const arb = arbType(ctx, { primitives, kinds })
    .map((t) =>
      t.under instanceof TypeRecord ? t : ctx.lookupTypeRecord([{ name: 'v', type: t }]),
    )
    .filter((t) => carried(t) && ok(t))
    .chain((t) => fc.array(arbValueOf(t, false), { minLength: 1, maxLength: 30 }));
  await fc.assert(
    fc.asyncProperty(arb, async (vals: Value[]) => {
      let back: Value[];
      try {
        back = await decode(format, await encode(format, vals));
      } catch (err) {
        throw new Error(`${(err as Error).message} for ${formatType(vals[0].type)}`);
      }
      expect(back).toHaveLength(vals.length);
      for (let i = 0; i < vals.length; i++) {
        expect(formatType(back[i].type)).toBe(formatType(vals[i].type));
        expect(back[i].bytes()!.toString('hex')).toBe(vals[i].bytes()!.toString('hex'));
      }
    }),
    { numRuns: runs },
  );
}

/** True when some map in t has keys of type null (Arrow keys must not be null). */
export function hasNullKeys(t: Type): boolean {
  if (t instanceof TypeRecord) return t.fields.some((f) => hasNullKeys(f.type));
  if (t instanceof TypeArray) return hasNullKeys(t.type);
  if (t instanceof TypeMap) return t.keyType.id === ID.Null || hasNullKeys(t.valType);
  return false;
}
