// TypeContext interns types: one object per distinct type, with IDs from 30
// up in first-seen order. It also converts between types and their
// context-independent "type value" encoding (ZNG spec §4), which is how
// types travel between contexts and how first-class type values are stored.

import { putUvarint, readUvarint, uv, uvarintSize } from './zcode';
import {
  compareTypes,
  Field,
  ID,
  lookupPrimitive,
  primitiveById,
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeString,
  TypeType,
  TypeUnion,
} from './types';
import { Value } from './value';

// Type-value codes (ZNG spec §4).
export const TypeValueCode = {
  Record: 30,
  Array: 31,
  Set: 32,
  Map: 33,
  Union: 34,
  Enum: 35,
  Error: 36,
  NameDef: 37,
  NameRef: 38,
} as const;

export class DuplicateFieldError extends Error {
  constructor(readonly field: string) {
    super(`duplicate field: ${JSON.stringify(field)}`);
  }
}

export class TypeValueError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: false });

export class TypeContext {
  private byId: Type[] = [];
  private interned = new Map<string, Type>();
  private typedefs = new Map<string, TypeNamed>();
  private typeValues = new Map<Type, Buffer>();
  private missingValue?: Value;
  private quietValue?: Value;

  /** Forgets every type: for a ZNG end-of-stream, where IDs restart at 30. */
  reset(): void {
    this.byId = [];
    this.interned.clear();
    this.typedefs.clear();
    this.typeValues.clear();
    this.missingValue = undefined;
    this.quietValue = undefined;
  }

  /** Number of complex and named types defined so far. */
  get size(): number {
    return this.byId.length;
  }

  /** The type with this ID, or undefined when no such type exists. */
  lookupType(id: number): Type | undefined {
    if (id < ID.FirstComplex) return primitiveById(id);
    return this.byId[id - ID.FirstComplex];
  }

  private enter<T extends Type>(key: string, make: (id: number) => T): T {
    const existing = this.interned.get(key);
    if (existing) return existing as T;
    const t = make(ID.FirstComplex + this.byId.length);
    this.byId.push(t);
    this.interned.set(key, t);
    return t;
  }

  lookupTypeRecord(fields: readonly Field[]): TypeRecord {
    let key = 'R';
    for (const f of fields) key += f.name.length + ':' + f.name + f.type.id + ',';
    const existing = this.interned.get(key);
    if (existing) return existing as TypeRecord;
    if (fields.length > 1) {
      const seen = new Set<string>();
      for (const f of fields) {
        if (seen.has(f.name)) throw new DuplicateFieldError(f.name);
        seen.add(f.name);
      }
    }
    const copy = fields.map((f) => ({ name: f.name, type: f.type }));
    return this.enter(key, (id) => new TypeRecord(id, copy));
  }

  lookupTypeArray(inner: Type): TypeArray {
    return this.enter('A' + inner.id, (id) => new TypeArray(id, inner));
  }

  lookupTypeSet(inner: Type): TypeSet {
    return this.enter('S' + inner.id, (id) => new TypeSet(id, inner));
  }

  lookupTypeMap(keyType: Type, valType: Type): TypeMap {
    return this.enter(
      'M' + keyType.id + ',' + valType.id,
      (id) => new TypeMap(id, keyType, valType),
    );
  }

  /**
   * The union of types, kept in the reference's type order (a stable sort
   * by compareTypes), which union tags index.
   */
  lookupTypeUnion(types: readonly Type[]): TypeUnion {
    const sorted = types.slice();
    for (let i = 1; i < sorted.length; i++) {
      if (compareTypes(sorted[i - 1], sorted[i]) > 0) {
        sorted.sort(compareTypes);
        break;
      }
    }
    let key = 'U';
    for (const t of sorted) key += t.id + ',';
    return this.enter(key, (id) => new TypeUnion(id, sorted));
  }

  lookupTypeEnum(symbols: readonly string[]): TypeEnum {
    let key = 'E';
    for (const s of symbols) key += s.length + ':' + s;
    return this.enter(key, (id) => new TypeEnum(id, symbols.slice()));
  }

  lookupTypeError(inner: Type): TypeErr {
    return this.enter('X' + inner.id, (id) => new TypeErr(id, inner));
  }

  /**
   * The named type binding name to inner; also makes it the current
   * binding of name (as a ZSON or ZNG definition does).
   */
  lookupTypeNamed(name: string, inner: Type): TypeNamed {
    if (lookupPrimitive(name)) {
      throw new TypeValueError(`bad type name ${JSON.stringify(name)}: primitive type name`);
    }
    const t = this.enter(
      'N' + name.length + ':' + name + inner.id,
      (id) => new TypeNamed(id, name, inner),
    );
    this.typedefs.set(name, t);
    return t;
  }

  /** The named type last bound to name, if any. */
  lookupTypeDef(name: string): TypeNamed | undefined {
    return this.typedefs.get(name);
  }

  /** Error type whose payload is a string: the type of `error("...")`. */
  stringErrorType(): TypeErr {
    return this.lookupTypeError(TypeString);
  }

  /** An error value with a string message. */
  newError(message: string): Value {
    return Value.fromBytes(this.stringErrorType(), Buffer.from(message, 'utf8'));
  }

  /** error("missing"): the value of a reference to an absent field. */
  missing(): Value {
    return (this.missingValue ??= this.newError('missing'));
  }

  /** error("quiet"): a value operators drop silently. */
  quiet(): Value {
    return (this.quietValue ??= this.newError('quiet'));
  }

  /** The type value (ZNG §4 encoding) of t, cached. */
  typeValue(t: Type): Buffer {
    let tv = this.typeValues.get(t);
    if (!tv) {
      tv = encodeTypeValue(t);
      this.typeValues.set(t, tv);
    }
    return tv;
  }

  /** A Value of type `type` holding t. */
  typeValueOf(t: Type): Value {
    const tv = this.typeValue(t);
    return new Value(TypeType, tv, 0, tv.length);
  }

  /**
   * Decodes a type value into a type of this context. Throws
   * TypeValueError on a malformed encoding.
   */
  lookupByValue(buf: Uint8Array, off = 0, len = buf.length - off): Type {
    const d = new TypeValueDecoder(this, buf, off, off + len);
    const t = d.decode();
    if (d.pos !== off + len) throw new TypeValueError('bad type value encoding');
    return t;
  }

  /** The type from another context as a type of this context. */
  translate(t: Type): Type {
    if (t instanceof TypePrimitive) return t;
    const tv = encodeTypeValue(t);
    return this.lookupByValue(tv);
  }
}

class TypeValueDecoder {
  pos: number;
  // Bindings of names local to this type value (DFS order, §4.8).
  private local = new Map<string, Type>();

  constructor(
    private ctx: TypeContext,
    private buf: Uint8Array,
    off: number,
    private end: number,
  ) {
    this.pos = off;
  }

  private uvarint(): number {
    const v = readUvarint(this.buf, this.pos, this.end);
    if (v < 0) throw new TypeValueError('truncated type value');
    this.pos = uv.end;
    return v;
  }

  private name(): string {
    const n = this.uvarint();
    if (this.pos + n > this.end) throw new TypeValueError('truncated type value');
    const s = utf8.decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }

  decode(depth = 0): Type {
    if (depth > 1000) throw new TypeValueError('type value nested too deeply');
    if (this.pos >= this.end) throw new TypeValueError('truncated type value');
    const code = this.buf[this.pos++];
    const ctx = this.ctx;
    if (code < ID.FirstComplex) {
      const p = primitiveById(code);
      if (!p) throw new TypeValueError(`unknown primitive type ID ${code}`);
      return p;
    }
    switch (code) {
      case TypeValueCode.Record: {
        const n = this.uvarint();
        if (n > this.end - this.pos) throw new TypeValueError('bad record type value');
        const fields: Field[] = [];
        for (let i = 0; i < n; i++) {
          const name = this.name();
          fields.push({ name, type: this.decode(depth + 1) });
        }
        return ctx.lookupTypeRecord(fields);
      }
      case TypeValueCode.Array:
        return ctx.lookupTypeArray(this.decode(depth + 1));
      case TypeValueCode.Set:
        return ctx.lookupTypeSet(this.decode(depth + 1));
      case TypeValueCode.Map: {
        const k = this.decode(depth + 1);
        return ctx.lookupTypeMap(k, this.decode(depth + 1));
      }
      case TypeValueCode.Union: {
        const n = this.uvarint();
        if (n === 0 || n > this.end - this.pos) throw new TypeValueError('bad union type value');
        const types: Type[] = [];
        for (let i = 0; i < n; i++) types.push(this.decode(depth + 1));
        return ctx.lookupTypeUnion(types);
      }
      case TypeValueCode.Enum: {
        const n = this.uvarint();
        if (n > this.end - this.pos) throw new TypeValueError('bad enum type value');
        const symbols: string[] = [];
        for (let i = 0; i < n; i++) symbols.push(this.name());
        return ctx.lookupTypeEnum(symbols);
      }
      case TypeValueCode.Error:
        return ctx.lookupTypeError(this.decode(depth + 1));
      case TypeValueCode.NameDef: {
        const name = this.name();
        const inner = this.decode(depth + 1);
        const t = ctx.lookupTypeNamed(name, inner);
        this.local.set(name, t);
        return t;
      }
      case TypeValueCode.NameRef: {
        const name = this.name();
        const t = this.local.get(name) ?? ctx.lookupTypeDef(name);
        if (!t) throw new TypeValueError(`undefined type name in type value: ${name}`);
        return t;
      }
      default:
        throw new TypeValueError(`bad type value code ${code}`);
    }
  }
}

/** The context-independent encoding of a type (ZNG spec §4). */
export function encodeTypeValue(t: Type): Buffer {
  const parts: number[] = [];
  const w = new TypeValueWriter(parts);
  w.write(t);
  return Buffer.from(parts);
}

class TypeValueWriter {
  private defs = new Map<string, Type>();
  constructor(private out: number[]) {}

  private uvarint(v: number): void {
    const tmp = new Uint8Array(uvarintSize(v));
    putUvarint(tmp, 0, v);
    for (const b of tmp) this.out.push(b);
  }

  private name(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.uvarint(b.length);
    for (const x of b) this.out.push(x);
  }

  write(t: Type): void {
    const out = this.out;
    if (t instanceof TypePrimitive) {
      out.push(t.id);
    } else if (t instanceof TypeNamed) {
      const isRef = this.defs.get(t.name) === t.type;
      out.push(isRef ? TypeValueCode.NameRef : TypeValueCode.NameDef);
      this.name(t.name);
      if (isRef) return;
      this.write(t.type);
      // Bind after the children to keep the DFS binding order.
      this.defs.set(t.name, t.type);
    } else if (t instanceof TypeRecord) {
      out.push(TypeValueCode.Record);
      this.uvarint(t.fields.length);
      for (const f of t.fields) {
        this.name(f.name);
        this.write(f.type);
      }
    } else if (t instanceof TypeArray) {
      out.push(TypeValueCode.Array);
      this.write(t.type);
    } else if (t instanceof TypeSet) {
      out.push(TypeValueCode.Set);
      this.write(t.type);
    } else if (t instanceof TypeMap) {
      out.push(TypeValueCode.Map);
      this.write(t.keyType);
      this.write(t.valType);
    } else if (t instanceof TypeUnion) {
      out.push(TypeValueCode.Union);
      this.uvarint(t.types.length);
      for (const u of t.types) this.write(u);
    } else if (t instanceof TypeEnum) {
      out.push(TypeValueCode.Enum);
      this.uvarint(t.symbols.length);
      for (const s of t.symbols) this.name(s);
    } else if (t instanceof TypeErr) {
      out.push(TypeValueCode.Error);
      this.write(t.type);
    } else {
      throw new TypeValueError('encodeTypeValue: unknown type');
    }
  }
}
