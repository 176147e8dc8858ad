// Zed types (the reference's data model, docs/formats/zed.md).
//
// Types are interned by a TypeContext, so within one context two types are
// equal exactly when they are the same object. Primitive types are shared
// singletons, identical in every context; complex and named types get IDs
// from 30 up in the order their context first saw them, which is the ID
// space ZNG type frames use.

export const Kind = {
  Primitive: 0,
  Record: 1,
  Array: 2,
  Set: 3,
  Map: 4,
  Union: 5,
  Enum: 6,
  Error: 7,
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

export const KindNames = ['primitive', 'record', 'array', 'set', 'map', 'union', 'enum', 'error'];

// Primitive type IDs (ZNG spec §3).
export const ID = {
  Uint8: 0,
  Uint16: 1,
  Uint32: 2,
  Uint64: 3,
  Uint128: 4,
  Uint256: 5,
  Int8: 6,
  Int16: 7,
  Int32: 8,
  Int64: 9,
  Int128: 10,
  Int256: 11,
  Duration: 12,
  Time: 13,
  Float16: 14,
  Float32: 15,
  Float64: 16,
  Float128: 17,
  Float256: 18,
  Decimal32: 19,
  Decimal64: 20,
  Decimal128: 21,
  Decimal256: 22,
  Bool: 23,
  Bytes: 24,
  String: 25,
  IP: 26,
  Net: 27,
  Type: 28,
  Null: 29,
  FirstComplex: 30,
} as const;

export abstract class Type {
  /** Context-local type ID (primitive IDs are global). */
  readonly id: number;
  /** Kind of the underlying type (a named type reports its target's kind). */
  readonly kind: Kind;
  /** The type with all names stripped: `this` for every non-named type. */
  readonly under: Type;

  protected constructor(id: number, kind: Kind, under?: Type) {
    this.id = id;
    this.kind = kind;
    this.under = under ?? this;
  }
}

export class TypePrimitive extends Type {
  constructor(
    id: number,
    readonly name: string,
  ) {
    super(id, Kind.Primitive);
  }
}

export interface Field {
  readonly name: string;
  readonly type: Type;
}

export class TypeRecord extends Type {
  private index?: Map<string, number>;

  constructor(
    id: number,
    readonly fields: readonly Field[],
  ) {
    super(id, Kind.Record);
  }

  /** Position of the named field, or -1. */
  indexOf(name: string): number {
    const fields = this.fields;
    if (fields.length < 8) {
      for (let i = 0; i < fields.length; i++) if (fields[i].name === name) return i;
      return -1;
    }
    let index = this.index;
    if (!index) {
      index = new Map();
      for (let i = 0; i < fields.length; i++) index.set(fields[i].name, i);
      this.index = index;
    }
    return index.get(name) ?? -1;
  }
}

export class TypeArray extends Type {
  constructor(
    id: number,
    readonly type: Type,
  ) {
    super(id, Kind.Array);
  }
}

export class TypeSet extends Type {
  constructor(
    id: number,
    readonly type: Type,
  ) {
    super(id, Kind.Set);
  }
}

export class TypeMap extends Type {
  constructor(
    id: number,
    readonly keyType: Type,
    readonly valType: Type,
  ) {
    super(id, Kind.Map);
  }
}

export class TypeUnion extends Type {
  constructor(
    id: number,
    readonly types: readonly Type[],
  ) {
    super(id, Kind.Union);
  }

  /** Tag of typ within the union, or -1. */
  tagOf(typ: Type): number {
    return this.types.indexOf(typ);
  }
}

export class TypeEnum extends Type {
  constructor(
    id: number,
    readonly symbols: readonly string[],
  ) {
    super(id, Kind.Enum);
  }

  lookup(symbol: string): number {
    return this.symbols.indexOf(symbol);
  }
}

export class TypeErr extends Type {
  constructor(
    id: number,
    readonly type: Type,
  ) {
    super(id, Kind.Error);
  }
}

export class TypeNamed extends Type {
  constructor(
    id: number,
    readonly name: string,
    readonly type: Type,
  ) {
    super(id, type.kind, type.under);
  }
}

function prim(id: number, name: string): TypePrimitive {
  return new TypePrimitive(id, name);
}

export const TypeUint8 = prim(ID.Uint8, 'uint8');
export const TypeUint16 = prim(ID.Uint16, 'uint16');
export const TypeUint32 = prim(ID.Uint32, 'uint32');
export const TypeUint64 = prim(ID.Uint64, 'uint64');
export const TypeInt8 = prim(ID.Int8, 'int8');
export const TypeInt16 = prim(ID.Int16, 'int16');
export const TypeInt32 = prim(ID.Int32, 'int32');
export const TypeInt64 = prim(ID.Int64, 'int64');
export const TypeDuration = prim(ID.Duration, 'duration');
export const TypeTime = prim(ID.Time, 'time');
export const TypeFloat16 = prim(ID.Float16, 'float16');
export const TypeFloat32 = prim(ID.Float32, 'float32');
export const TypeFloat64 = prim(ID.Float64, 'float64');
export const TypeBool = prim(ID.Bool, 'bool');
export const TypeBytes = prim(ID.Bytes, 'bytes');
export const TypeString = prim(ID.String, 'string');
export const TypeIP = prim(ID.IP, 'ip');
export const TypeNet = prim(ID.Net, 'net');
export const TypeType = prim(ID.Type, 'type');
export const TypeNull = prim(ID.Null, 'null');

const primitivesById: (TypePrimitive | undefined)[] = [];
const primitivesByName = new Map<string, TypePrimitive>();
for (const t of [
  TypeUint8,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeInt8,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeDuration,
  TypeTime,
  TypeFloat16,
  TypeFloat32,
  TypeFloat64,
  TypeBool,
  TypeBytes,
  TypeString,
  TypeIP,
  TypeNet,
  TypeType,
  TypeNull,
]) {
  primitivesById[t.id] = t;
  primitivesByName.set(t.name, t);
}

/** The primitive type with this ID, or undefined (IDs the reference does not implement). */
export function primitiveById(id: number): TypePrimitive | undefined {
  return primitivesById[id];
}

/** The primitive type with this name, or undefined. */
export function lookupPrimitive(name: string): TypePrimitive | undefined {
  return primitivesByName.get(name);
}

// Classification by ID of the underlying type. These take `type.under.id`
// so a named int64 classifies as an integer.

export function isInteger(id: number): boolean {
  return id <= ID.Int256;
}
export function isSigned(id: number): boolean {
  return id >= ID.Int8 && id <= ID.Time;
}
export function isUnsigned(id: number): boolean {
  return id <= ID.Uint256;
}
export function isFloat(id: number): boolean {
  return id >= ID.Float16 && id <= ID.Float256;
}
export function isNumber(id: number): boolean {
  return id <= ID.Decimal256;
}
export function isStringy(id: number): boolean {
  return id === ID.String;
}

/** The element type of an array or set (after stripping names), else undefined. */
export function innerType(t: Type): Type | undefined {
  const u = t.under;
  if (u instanceof TypeArray || u instanceof TypeSet) return u.type;
  return undefined;
}

export function recordOf(t: Type): TypeRecord | undefined {
  const u = t.under;
  return u instanceof TypeRecord ? u : undefined;
}

export function isContainer(t: Type): boolean {
  const k = t.kind;
  return (
    k === Kind.Record || k === Kind.Array || k === Kind.Set || k === Kind.Map || k === Kind.Union
  );
}

function sign(x: number): number {
  return x < 0 ? -1 : x > 0 ? 1 : 0;
}

/**
 * The reference's order over types (zed.CompareTypes): by kind, then by
 * primitive ID, field count, field names, field types, and so on. Union
 * member types are kept in this order.
 */
export function compareTypes(a: Type, b: Type): number {
  a = a.under;
  b = b.under;
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  if (a === b) return 0;
  if (a instanceof TypeRecord && b instanceof TypeRecord) {
    const fa = a.fields;
    const fb = b.fields;
    if (fa.length !== fb.length) return fa.length < fb.length ? -1 : 1;
    for (let i = 0; i < fa.length; i++) {
      if (fa[i].name !== fb[i].name) return fa[i].name < fb[i].name ? -1 : 1;
    }
    for (let i = 0; i < fa.length; i++) {
      const c = compareTypes(fa[i].type, fb[i].type);
      if (c !== 0) return c;
    }
    return 0;
  }
  if (
    (a instanceof TypeArray || a instanceof TypeSet) &&
    (b instanceof TypeArray || b instanceof TypeSet)
  ) {
    return compareTypes(a.type, b.type);
  }
  if (a instanceof TypeErr && b instanceof TypeErr) return compareTypes(a.type, b.type);
  if (a instanceof TypeMap && b instanceof TypeMap) {
    const c = compareTypes(a.keyType, b.keyType);
    return c !== 0 ? c : compareTypes(a.valType, b.valType);
  }
  if (a instanceof TypeUnion && b instanceof TypeUnion) {
    if (a.types.length !== b.types.length) return a.types.length < b.types.length ? -1 : 1;
    for (let i = 0; i < a.types.length; i++) {
      const c = compareTypes(a.types[i], b.types[i]);
      if (c !== 0) return c;
    }
    return 0;
  }
  if (a instanceof TypeEnum && b instanceof TypeEnum) {
    if (a.symbols.length !== b.symbols.length) return a.symbols.length < b.symbols.length ? -1 : 1;
    for (let i = 0; i < a.symbols.length; i++) {
      if (a.symbols[i] !== b.symbols[i]) return a.symbols[i] < b.symbols[i] ? -1 : 1;
    }
    return 0;
  }
  return sign(a.id - b.id);
}
