// fast-check generators of random Zed types and values, shared by the
// format round-trip property tests.
//
//   fc.assert(fc.property(arbValue(ctx), (v) => ...))
//
// Values are canonical (sets and maps normalised, minimal integers), so a
// faithful round trip through any format reproduces the same bytes.

import fc from 'fast-check';
import {
  Builder,
  bytesCompare,
  encodeFloat16,
  encodeFloat32,
  encodeFloat64,
  encodeInt,
  encodeUint,
  float16ToNumber,
  ID,
  makeNet,
  Type,
  TypeArray,
  TypeContext,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeUnion,
  Value,
  encodeTypeValue,
  primitiveById,
} from '../../src/zed';

/** Primitive type IDs the reference implements. */
export const primitiveIds = [
  ID.Uint8,
  ID.Uint16,
  ID.Uint32,
  ID.Uint64,
  ID.Int8,
  ID.Int16,
  ID.Int32,
  ID.Int64,
  ID.Duration,
  ID.Time,
  ID.Float16,
  ID.Float32,
  ID.Float64,
  ID.Bool,
  ID.Bytes,
  ID.String,
  ID.IP,
  ID.Net,
  ID.Type,
  ID.Null,
];

export interface TypeOptions {
  /** Nesting depth of complex types (default 3). */
  maxDepth?: number;
  /** Primitive IDs to draw from (default: all). */
  primitives?: number[];
  /** Complex kinds allowed (default: all). */
  kinds?: ('record' | 'array' | 'set' | 'map' | 'union' | 'enum' | 'error' | 'named')[];
}

const fieldNames = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'b', 'c', 'ts', 'id', 'x1', '_y', '$z', 'name') },
  { weight: 1, arbitrary: fc.constantFrom('with space', '1st', 'é', 'a.b', 'quote"', '') },
);

const typeNames = fc.constantFrom('port', 'foo', 'my.type', 'T1', 'conn_id');

/** A random type in ctx. */
export function arbType(ctx: TypeContext, opts: TypeOptions = {}): fc.Arbitrary<Type> {
  const prims = (opts.primitives ?? primitiveIds).map((id) => primitiveById(id)!);
  const kinds = opts.kinds ?? ['record', 'array', 'set', 'map', 'union', 'enum', 'error', 'named'];
  const prim = fc.constantFrom(...prims) as fc.Arbitrary<Type>;
  const build = (depth: number): fc.Arbitrary<Type> => {
    if (depth <= 0) return prim;
    const inner = build(depth - 1);
    const choices: fc.WeightedArbitrary<Type>[] = [{ weight: 4, arbitrary: prim }];
    if (kinds.includes('record')) {
      choices.push({
        weight: 4,
        arbitrary: fc
          .uniqueArray(fc.tuple(fieldNames, inner), { maxLength: 5, selector: (f) => f[0] })
          .map((fs) => ctx.lookupTypeRecord(fs.map(([name, type]) => ({ name, type })))),
      });
    }
    if (kinds.includes('array'))
      choices.push({ weight: 2, arbitrary: inner.map((t) => ctx.lookupTypeArray(t)) });
    if (kinds.includes('set'))
      choices.push({ weight: 1, arbitrary: inner.map((t) => ctx.lookupTypeSet(t)) });
    if (kinds.includes('map')) {
      choices.push({
        weight: 1,
        arbitrary: fc.tuple(prim, inner).map(([k, v]) => ctx.lookupTypeMap(k, v)),
      });
    }
    if (kinds.includes('union')) {
      choices.push({
        weight: 1,
        arbitrary: fc
          .uniqueArray(
            prim.filter((t) => t.id !== ID.Null),
            { minLength: 2, maxLength: 3 },
          )
          .map((ts) => ctx.lookupTypeUnion(ts)),
      });
    }
    if (kinds.includes('enum')) {
      choices.push({
        weight: 1,
        arbitrary: fc
          .uniqueArray(fc.constantFrom('red', 'green', 'blue', 'x', 'with space'), {
            minLength: 1,
            maxLength: 4,
          })
          .map((s) => ctx.lookupTypeEnum(s)),
      });
    }
    if (kinds.includes('error'))
      choices.push({ weight: 1, arbitrary: inner.map((t) => ctx.lookupTypeError(t)) });
    if (kinds.includes('named')) {
      // A name is bound to one type per generated value tree to keep
      // ZSON's rebinding rules out of the picture.
      choices.push({
        weight: 1,
        arbitrary: fc.tuple(typeNames, inner).map(([n, t]) => {
          const prior = ctx.lookupTypeDef(n);
          if (prior && prior.type !== t) return t;
          return ctx.lookupTypeNamed(n, t);
        }),
      });
    }
    return fc.oneof(...choices);
  };
  return build(opts.maxDepth ?? 3);
}

const int = (bits: number, signed: boolean) =>
  signed
    ? fc.bigInt(-(2n ** BigInt(bits - 1)), 2n ** BigInt(bits - 1) - 1n)
    : fc.bigInt(0n, 2n ** BigInt(bits) - 1n);

function primitiveBody(t: TypePrimitive): fc.Arbitrary<Uint8Array | null> {
  switch (t.id) {
    case ID.Uint8:
      return int(8, false).map(encodeUint);
    case ID.Uint16:
      return int(16, false).map(encodeUint);
    case ID.Uint32:
      return int(32, false).map(encodeUint);
    case ID.Uint64:
      return int(64, false).map(encodeUint);
    case ID.Int8:
      return int(8, true).map(encodeInt);
    case ID.Int16:
      return int(16, true).map(encodeInt);
    case ID.Int32:
      return int(32, true).map(encodeInt);
    case ID.Int64:
    case ID.Duration:
    case ID.Time:
      return fc.oneof(int(64, true), fc.bigInt(-(10n ** 12n), 10n ** 12n)).map(encodeInt);
    case ID.Float16:
      // Every finite half-precision value, by its bits.
      return fc
        .integer({ min: 0, max: 0xffff })
        .map(float16ToNumber)
        .filter((f) => Number.isFinite(f))
        .map(encodeFloat16);
    case ID.Float32:
      return fc.float({ noNaN: true }).map(encodeFloat32);
    case ID.Float64:
      return fc
        .oneof(
          fc.double({ noNaN: true }),
          fc.constant(NaN),
          fc.integer().map((i) => i / 4),
        )
        .map(encodeFloat64);
    case ID.Bool:
      return fc.boolean().map((b) => Buffer.from([b ? 1 : 0]));
    case ID.Bytes:
      return fc.uint8Array({ maxLength: 12 });
    case ID.String:
      return fc.string({ unit: 'binary', maxLength: 12 }).map((s) => Buffer.from(s, 'utf8'));
    case ID.IP:
      return fc.oneof(
        fc.uint8Array({ minLength: 4, maxLength: 4 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
      );
    case ID.Net:
      return fc
        .oneof(
          fc.tuple(fc.uint8Array({ minLength: 4, maxLength: 4 }), fc.integer({ min: 0, max: 32 })),
          fc.tuple(
            fc.uint8Array({ minLength: 16, maxLength: 16 }),
            fc.integer({ min: 0, max: 128 }),
          ),
        )
        .map(([ip, bits]) => makeNet(ip, bits));
    case ID.Type: {
      const ctx = new TypeContext();
      return arbType(ctx, { maxDepth: 2 }).map((t) => encodeTypeValue(t));
    }
    case ID.Null:
      return fc.constant(null);
    default:
      throw new Error(`arbitrary: no generator for primitive ${t.name}`);
  }
}

function tagged(bodies: (Uint8Array | null)[]): Buffer {
  const b = new Builder();
  for (const body of bodies) b.appendBytes(body);
  return b.copy();
}

/** Sorts and deduplicates tag-encoded elements (the set normal form). */
function normalise(elems: (Uint8Array | null)[]): (Uint8Array | null)[] {
  const enc = elems.map((e) => ({ e, t: tagged([e]) }));
  enc.sort((x, y) => bytesCompare(x.t, 0, x.t.length, y.t, 0, y.t.length));
  const out: (Uint8Array | null)[] = [];
  let prev: Buffer | undefined;
  for (const { e, t } of enc) {
    if (prev && prev.equals(t)) continue;
    out.push(e);
    prev = t;
  }
  return out;
}

/** A random body (null allowed when nullable) of type t. */
export function arbBody(t: Type, nullable = true): fc.Arbitrary<Uint8Array | null> {
  const body = nonNullBody(t);
  if (!nullable) return body;
  return fc.oneof({ weight: 9, arbitrary: body }, { weight: 1, arbitrary: fc.constant(null) });
}

function nonNullBody(t: Type): fc.Arbitrary<Uint8Array | null> {
  if (t instanceof TypePrimitive) return primitiveBody(t);
  if (t instanceof TypeNamed) return nonNullBody(t.type);
  if (t instanceof TypeRecord) {
    if (t.fields.length === 0) return fc.constant(Buffer.alloc(0));
    return fc.tuple(...t.fields.map((f) => arbBody(f.type))).map(tagged);
  }
  if (t instanceof TypeArray) {
    return fc.array(arbBody(t.type), { maxLength: 4 }).map(tagged);
  }
  if (t instanceof TypeSet) {
    return fc.array(arbBody(t.type, false), { maxLength: 4 }).map((es) => tagged(normalise(es)));
  }
  if (t instanceof TypeMap) {
    return fc
      .array(fc.tuple(arbBody(t.keyType, false), arbBody(t.valType)), { maxLength: 4 })
      .map((pairs) => {
        const keyed = pairs.map(([k, v]) => ({ k, v, t: tagged([k]) }));
        keyed.sort((x, y) => bytesCompare(x.t, 0, x.t.length, y.t, 0, y.t.length));
        const out: (Uint8Array | null)[] = [];
        let prev: Buffer | undefined;
        for (const { k, v, t: kt } of keyed) {
          if (prev && prev.equals(kt)) continue;
          out.push(k, v);
          prev = kt;
        }
        return tagged(out);
      });
  }
  if (t instanceof TypeUnion) {
    return fc
      .integer({ min: 0, max: t.types.length - 1 })
      .chain((tag) => arbBody(t.types[tag], false).map((v) => tagged([encodeInt(tag), v])));
  }
  if (t instanceof TypeEnum) {
    return fc.integer({ min: 0, max: t.symbols.length - 1 }).map((i) => encodeUint(i));
  }
  if (t instanceof TypeErr) return arbBody(t.type, false);
  throw new Error('arbitrary: unknown type');
}

/** A random value of type t. */
export function arbValueOf(t: Type, nullable = true): fc.Arbitrary<Value> {
  return arbBody(t, nullable).map((b) => Value.fromBytes(t, b));
}

/** A random value of a random type in ctx. */
export function arbValue(ctx: TypeContext, opts: TypeOptions = {}): fc.Arbitrary<Value> {
  return arbType(ctx, opts).chain((t) => arbValueOf(t));
}

/** A random record value (top-level records, as most formats need). */
export function arbRecord(ctx: TypeContext, opts: TypeOptions = {}): fc.Arbitrary<Value> {
  return arbType(ctx, opts)
    .map((t) =>
      t.under instanceof TypeRecord ? t : ctx.lookupTypeRecord([{ name: 'v', type: t }]),
    )
    .chain((t) => arbValueOf(t, false));
}

/** A short description of a value for failure messages. */
export function describe(v: Value): string {
  return `${v.type.constructor.name}#${v.type.id} ${v.isNull ? 'null' : v.bytes()!.toString('hex')}`;
}

// Re-exported so tests can build expected values without another import.
export { encodeFloat64, encodeFloat32, encodeFloat16 };
