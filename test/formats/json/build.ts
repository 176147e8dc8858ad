// Constructors of Zed values for tests that need typed inputs (the
// reference's ztests give them as ZSON).

import {
  Builder,
  encodeInt,
  encodeUint,
  Type,
  TypeContext,
  TypeUnion,
  Value,
} from '../../../src/zed';

function tagged(vals: (Value | null)[]): Buffer {
  const b = new Builder();
  for (const v of vals) b.appendBytes(v === null ? null : v.bytes());
  return b.copy();
}

export function rec(ctx: TypeContext, fields: [string, Value][]): Value {
  const t = ctx.lookupTypeRecord(fields.map(([name, v]) => ({ name, type: v.type })));
  return Value.fromBytes(t, tagged(fields.map(([, v]) => v)));
}

export function arr(ctx: TypeContext, elem: Type, vals: Value[]): Value {
  return Value.fromBytes(ctx.lookupTypeArray(elem), tagged(vals));
}

export function set(ctx: TypeContext, elem: Type, vals: Value[]): Value {
  return Value.fromBytes(ctx.lookupTypeSet(elem), tagged(vals));
}

/** A map value from key/value pairs given in the map's normal (sorted) order. */
export function map(ctx: TypeContext, kt: Type, vt: Type, pairs: [Value, Value][]): Value {
  return Value.fromBytes(ctx.lookupTypeMap(kt, vt), tagged(pairs.flat()));
}

export function union(ctx: TypeContext, types: Type[], v: Value): Value {
  const u: TypeUnion = ctx.lookupTypeUnion(types);
  const tag = u.tagOf(v.type);
  if (tag < 0) throw new Error('value type not in union');
  return Value.fromBytes(u, v.isNull ? null : tagged([Value.fromBytes(v.type, encodeInt(tag)), v]));
}

export function named(ctx: TypeContext, name: string, v: Value): Value {
  return Value.fromBytes(ctx.lookupTypeNamed(name, v.type), v.bytes());
}

export function enumOf(ctx: TypeContext, symbols: string[], i: number): Value {
  return Value.fromBytes(ctx.lookupTypeEnum(symbols), encodeUint(i));
}

export function errorOfValue(ctx: TypeContext, v: Value): Value {
  return Value.fromBytes(ctx.lookupTypeError(v.type), v.bytes());
}

export function nullOf(t: Type): Value {
  return Value.null(t);
}
