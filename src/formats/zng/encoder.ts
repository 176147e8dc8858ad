// The writer's typedef encoder: maps each type it is given to a type of a
// private per-stream context, emitting ZNG typedefs for every type not yet
// defined in the stream, children first (depth-first on first use), which
// is the order and numbering the reference writes.

import { TypeContext } from '../../zed/context';
import {
  Field,
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';
import { putUvarint } from '../../zed/zcode';
import { TextBuffer } from '../textbuffer';
import { TypeDef } from './frame';

/** A growable byte buffer for frame payloads: a TextBuffer that also writes uvarints and counted names. */
export class ByteBuf extends TextBuffer {
  constructor(initial = 1024) {
    super(initial);
  }

  uvarint(v: number): void {
    this.ensure(10);
    this.len = putUvarint(this.buf, this.len, v);
  }

  /** A counted UTF-8 string. */
  name(s: string): void {
    this.uvarint(Buffer.byteLength(s, 'utf8'));
    this.utf8(s);
  }
}

export class TypeEncoder {
  /** Typedefs not yet flushed to a types frame. */
  readonly out = new ByteBuf();
  private local = new TypeContext();
  private encoded = new Map<Type, Type>();

  /** Forgets every typedef (end of stream). */
  reset(): void {
    this.out.len = 0;
    this.encoded.clear();
    this.local.reset();
  }

  /** The stream type ID of t, defining it (and its parts) if needed. */
  id(t: Type): number {
    if (t instanceof TypePrimitive) return t.id;
    const known = this.encoded.get(t);
    if (known) return known.id;
    return this.encode(t).id;
  }

  private encode(ext: Type): Type {
    if (ext instanceof TypePrimitive) return ext;
    const known = this.encoded.get(ext);
    if (known) return known;
    const t = this.define(ext);
    this.encoded.set(ext, t);
    return t;
  }

  private define(ext: Type): Type {
    const out = this.out;
    const local = this.local;
    if (ext instanceof TypeRecord) {
      const fields: Field[] = ext.fields.map((f) => ({ name: f.name, type: this.encode(f.type) }));
      const t = local.lookupTypeRecord(fields);
      out.byte(TypeDef.Record);
      out.uvarint(fields.length);
      for (const f of fields) {
        out.name(f.name);
        out.uvarint(f.type.id);
      }
      return t;
    }
    if (ext instanceof TypeArray) {
      return this.defineWrapper(TypeDef.Array, ext.type, (t) => local.lookupTypeArray(t));
    }
    if (ext instanceof TypeSet) {
      return this.defineWrapper(TypeDef.Set, ext.type, (t) => local.lookupTypeSet(t));
    }
    if (ext instanceof TypeMap) {
      const k = this.encode(ext.keyType);
      const v = this.encode(ext.valType);
      const t = local.lookupTypeMap(k, v);
      out.byte(TypeDef.Map);
      out.uvarint(k.id);
      out.uvarint(v.id);
      return t;
    }
    if (ext instanceof TypeUnion) {
      const types = ext.types.map((u) => this.encode(u));
      const t = local.lookupTypeUnion(types);
      out.byte(TypeDef.Union);
      out.uvarint(types.length);
      for (const u of types) out.uvarint(u.id);
      return t;
    }
    if (ext instanceof TypeEnum) {
      const t = local.lookupTypeEnum(ext.symbols);
      out.byte(TypeDef.Enum);
      out.uvarint(ext.symbols.length);
      for (const s of ext.symbols) out.name(s);
      return t;
    }
    if (ext instanceof TypeErr) {
      return this.defineWrapper(TypeDef.Error, ext.type, (t) => local.lookupTypeError(t));
    }
    if (ext instanceof TypeNamed) {
      const inner = this.encode(ext.type);
      const t = local.lookupTypeNamed(ext.name, inner);
      out.byte(TypeDef.Named);
      out.name(ext.name);
      out.uvarint(inner.id);
      return t;
    }
    throw new Error(`zng: cannot encode type ${ext.constructor.name}`);
  }

  /** An array, set or error typedef: the code and the inner type's ID. */
  private defineWrapper(code: number, inner: Type, lookup: (t: Type) => Type): Type {
    const t = this.encode(inner);
    const out = this.out;
    const typ = lookup(t);
    out.byte(code);
    out.uvarint(t.id);
    return typ;
  }
}
