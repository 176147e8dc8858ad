// VNG reassembly metadata and its ZNG encoding.
//
// The reference writes each metadata node as a Zed record whose named type
// is the Go struct's name (Record, Field, Array, Set, Map, Union, Primitive,
// Named, Nulls, Segment) with the struct's field names, as its ZNG
// marshaler does with simple type decoration. Arrays whose elements have
// different types become arrays of a union of the distinct types in the
// reference's type order. This module builds those values and reads them
// back by type name, so files round-trip with the reference.

import { compareTypes } from '../../zed/compare';
import { TypeContext } from '../../zed/context';
import { decodeInt, decodeString, decodeUint } from '../../zed/primitive';
import {
  isSigned,
  Type,
  TypeArray,
  TypeInt32,
  TypeInt64,
  TypeNamed,
  TypeNull,
  TypePrimitive,
  TypeRecord,
  TypeString,
  TypeType,
  TypeUint8,
  TypeUnion,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder, readUvarint, uv } from '../../zed/zcode';

/** A byte range of the data section holding one run of a column's values. */
export interface Segment {
  offset: number;
  length: number;
  memLength: number;
  compression: number;
}

export const CompressionNone = 0;
export const CompressionLZ4 = 1;

export type Meta =
  | { kind: 'Record'; fields: { name: string; values: Meta }[] }
  | { kind: 'Array' | 'Set'; lengths: Segment[]; values: Meta }
  | { kind: 'Map'; lengths: Segment[]; keys: Meta; values: Meta }
  | { kind: 'Union'; tags: Segment[]; values: Meta[] }
  | { kind: 'Primitive'; type: Type; segmap: Segment[] }
  | { kind: 'Named'; name: string; values: Meta }
  | { kind: 'Nulls'; runs: Segment[]; values: Meta };

/** An error in VNG metadata (reading) or an unencodable type (writing). */
export class MetaError extends Error {}

// ---- Writing ----

/** Builds metadata values in the type context of the reassembly stream. */
export class MetaEncoder {
  private segType: TypeNamed;
  readonly segmapType: TypeArray;

  constructor(private ctx: TypeContext) {
    this.segType = ctx.lookupTypeNamed(
      'Segment',
      ctx.lookupTypeRecord([
        { name: 'Offset', type: TypeInt64 },
        { name: 'Length', type: TypeInt32 },
        { name: 'MemLength', type: TypeInt32 },
        { name: 'CompressionFormat', type: TypeUint8 },
      ]),
    );
    this.segmapType = ctx.lookupTypeArray(this.segType);
  }

  /** The value of a segmap (null when empty, as a nil Go slice marshals). */
  segmapValue(segs: Segment[]): Value {
    const b = new Builder();
    this.segmap(b, segs);
    return topValue(this.segmapType, b);
  }

  /** The value of a metadata tree. */
  metaValue(m: Meta): Value {
    const b = new Builder();
    const t = this.meta(b, m);
    return topValue(t, b);
  }

  private segmap(b: Builder, segs: Segment[]): Type {
    if (segs.length === 0) {
      b.appendNull();
      return this.segmapType;
    }
    b.beginContainer();
    for (const s of segs) {
      b.beginContainer();
      b.appendInt(s.offset);
      b.appendInt(s.length);
      b.appendInt(s.memLength);
      b.appendUint(s.compression);
      b.endContainer();
    }
    b.endContainer();
    return this.segmapType;
  }

  private named(name: string, fields: { name: string; type: Type }[]): Type {
    return this.ctx.lookupTypeNamed(name, this.ctx.lookupTypeRecord(fields));
  }

  /** Appends m as a tagged child of b and returns its type. */
  private meta(b: Builder, m: Meta): Type {
    const segmapType = this.segmapType;
    b.beginContainer();
    let t: Type;
    switch (m.kind) {
      case 'Primitive': {
        b.appendBytes(this.ctx.typeValue(m.type));
        this.segmap(b, m.segmap);
        t = this.named('Primitive', [
          { name: 'Type', type: TypeType },
          { name: 'Segmap', type: segmapType },
        ]);
        break;
      }
      case 'Record': {
        if (m.fields.length === 0) {
          // The reference's marshaler cannot type an empty []Field.
          throw new MetaError('unsupported type: interface');
        }
        const elems = m.fields.map((f) => {
          const eb = new Builder();
          eb.beginContainer();
          eb.appendBytes(Buffer.from(f.name, 'utf8'));
          const vt = this.meta(eb, f.values);
          eb.endContainer();
          const et = this.named('Field', [
            { name: 'Name', type: TypeString },
            { name: 'Values', type: vt },
          ]);
          return { type: et as Type, bytes: eb.copy() };
        });
        const at = this.array(b, elems);
        t = this.named('Record', [{ name: 'Fields', type: at }]);
        break;
      }
      case 'Array':
      case 'Set': {
        this.segmap(b, m.lengths);
        const vt = this.meta(b, m.values);
        t = this.named(m.kind, [
          { name: 'Lengths', type: segmapType },
          { name: 'Values', type: vt },
        ]);
        break;
      }
      case 'Map': {
        this.segmap(b, m.lengths);
        const kt = this.meta(b, m.keys);
        const vt = this.meta(b, m.values);
        t = this.named('Map', [
          { name: 'Lengths', type: segmapType },
          { name: 'Keys', type: kt },
          { name: 'Values', type: vt },
        ]);
        break;
      }
      case 'Union': {
        this.segmap(b, m.tags);
        const elems = m.values.map((v) => {
          const eb = new Builder();
          const et = this.meta(eb, v);
          return { type: et, bytes: eb.copy() };
        });
        const at = this.array(b, elems);
        t = this.named('Union', [
          { name: 'Tags', type: segmapType },
          { name: 'Values', type: at },
        ]);
        break;
      }
      case 'Named': {
        b.appendBytes(Buffer.from(m.name, 'utf8'));
        const vt = this.meta(b, m.values);
        t = this.named('Named', [
          { name: 'Name', type: TypeString },
          { name: 'Values', type: vt },
        ]);
        break;
      }
      case 'Nulls': {
        this.segmap(b, m.runs);
        const vt = this.meta(b, m.values);
        t = this.named('Nulls', [
          { name: 'Runs', type: segmapType },
          { name: 'Values', type: vt },
        ]);
        break;
      }
    }
    b.endContainer();
    return t;
  }

  /**
   * Appends an array of tagged elements; mixed element types become a
   * union of the distinct types (sorted as zed.UniqueTypes sorts them).
   */
  private array(b: Builder, elems: { type: Type; bytes: Buffer }[]): Type {
    const types = elems.map((e) => e.type);
    const unique = types.slice().sort(compareTypes);
    const distinct: Type[] = [];
    for (const u of unique) if (distinct[distinct.length - 1] !== u) distinct.push(u);
    b.beginContainer();
    if (distinct.length === 1) {
      for (const e of elems) b.appendRaw(e.bytes, 0, e.bytes.length);
      b.endContainer();
      return this.ctx.lookupTypeArray(distinct[0]);
    }
    const ut = this.ctx.lookupTypeUnion(distinct);
    for (const e of elems) {
      b.beginContainer();
      b.appendInt(distinct.indexOf(e.type));
      b.appendRaw(e.bytes, 0, e.bytes.length);
      b.endContainer();
    }
    b.endContainer();
    return this.ctx.lookupTypeArray(ut);
  }
}

function topValue(t: Type, b: Builder): Value {
  const buf = b.copy();
  const tag = readUvarint(buf, 0, buf.length);
  return new Value(t, buf, uv.end, tag - 1);
}

// ---- Reading ----

/** Field of a record value by name (undefined when absent). */
export function field(v: Value, name: string): Value | undefined {
  const rt = v.type.under;
  if (!(rt instanceof TypeRecord) || v.len < 0) return undefined;
  const i = rt.indexOf(name);
  if (i < 0) return undefined;
  let off = v.off;
  const end = v.off + v.len;
  for (let k = 0; ; k++) {
    const tag = readUvarint(v.buf, off, end);
    if (tag < 0) throw new MetaError('malformed VNG metadata');
    const len = tag - 1;
    if (uv.end + Math.max(len, 0) > end) throw new MetaError('malformed VNG metadata');
    if (k === i) return new Value(rt.fields[i].type, v.buf, uv.end, len);
    off = uv.end + Math.max(len, 0);
  }
}

function need(v: Value, name: string): Value {
  const f = field(v, name);
  if (!f) throw new MetaError(`malformed VNG metadata: missing field ${name}`);
  return f;
}

/** Strips a union wrapper (as an array of mixed metadata has). */
function untag(v: Value): Value {
  const u = v.type.under;
  if (!(u instanceof TypeUnion) || v.len < 0) return v;
  const end = v.off + v.len;
  const tag = readUvarint(v.buf, v.off, end);
  if (tag < 1) throw new MetaError('malformed VNG metadata');
  const sel = decodeInt(v.buf, uv.end, tag - 1);
  const p = uv.end + tag - 1;
  const vt = readUvarint(v.buf, p, end);
  if (vt < 0 || sel < 0 || sel >= u.types.length || uv.end + Math.max(vt - 1, 0) > end) {
    throw new MetaError('malformed VNG metadata');
  }
  return new Value(u.types[sel], v.buf, uv.end, vt - 1);
}

function elements(v: Value): Value[] {
  if (v.len < 0) return [];
  const at = v.type.under;
  if (!(at instanceof TypeArray)) throw new MetaError('malformed VNG metadata: expected an array');
  const out: Value[] = [];
  const end = v.off + v.len;
  for (let off = v.off; off < end;) {
    const tag = readUvarint(v.buf, off, end);
    if (tag < 0) throw new MetaError('malformed VNG metadata');
    const len = tag - 1;
    if (uv.end + Math.max(len, 0) > end) throw new MetaError('malformed VNG metadata');
    out.push(new Value(at.type, v.buf, uv.end, len));
    off = uv.end + Math.max(len, 0);
  }
  return out;
}

function int(v: Value | undefined): number {
  if (!v || v.len < 0) return 0;
  const id = v.type.under.id;
  if (!(v.type.under instanceof TypePrimitive) || v.len > 8)
    throw new MetaError('malformed VNG metadata');
  return isSigned(id) ? decodeInt(v.buf, v.off, v.len) : decodeUint(v.buf, v.off, v.len);
}

/** Reads a segmap value. */
export function readSegmap(v: Value): Segment[] {
  return elements(v).map((e) => {
    e = untag(e);
    return {
      offset: int(field(e, 'Offset')),
      length: int(field(e, 'Length')),
      memLength: int(field(e, 'MemLength')),
      compression: int(field(e, 'CompressionFormat')),
    };
  });
}

/** Reads a metadata value; ctx decodes the primitive type values. */
export function readMeta(ctx: TypeContext, v: Value, depth = 0): Meta {
  if (depth > 200) throw new MetaError('VNG metadata nested too deeply');
  v = untag(v);
  const t = v.type;
  if (!(t instanceof TypeNamed) || v.len < 0) {
    if (t === TypeNull || v.len < 0) throw new MetaError('VNG metadata has a null column');
    throw new MetaError('unknown VNG metadata type');
  }
  const sub = (name: string) => readMeta(ctx, need(v, name), depth + 1);
  switch (t.name) {
    case 'Record':
      return {
        kind: 'Record',
        fields: elements(need(v, 'Fields')).map((f) => {
          f = untag(f);
          const name = need(f, 'Name');
          return {
            name: name.len < 0 ? '' : decodeString(name.buf, name.off, name.len),
            values: readMeta(ctx, need(f, 'Values'), depth + 1),
          };
        }),
      };
    case 'Array':
    case 'Set':
      return { kind: t.name, lengths: readSegmap(need(v, 'Lengths')), values: sub('Values') };
    case 'Map':
      return {
        kind: 'Map',
        lengths: readSegmap(need(v, 'Lengths')),
        keys: sub('Keys'),
        values: sub('Values'),
      };
    case 'Union':
      return {
        kind: 'Union',
        tags: readSegmap(need(v, 'Tags')),
        values: elements(need(v, 'Values')).map((e) => readMeta(ctx, e, depth + 1)),
      };
    case 'Primitive': {
      const tv = need(v, 'Type');
      if (tv.type !== TypeType || tv.len < 0)
        throw new MetaError('malformed VNG metadata: bad primitive type');
      let pt: Type;
      try {
        pt = ctx.lookupByValue(tv.buf, tv.off, tv.len);
      } catch {
        throw new MetaError('malformed VNG metadata: bad primitive type');
      }
      if (!(pt instanceof TypePrimitive))
        throw new MetaError('malformed VNG metadata: bad primitive type');
      return { kind: 'Primitive', type: pt, segmap: readSegmap(need(v, 'Segmap')) };
    }
    case 'Named': {
      const name = need(v, 'Name');
      return {
        kind: 'Named',
        name: name.len < 0 ? '' : decodeString(name.buf, name.off, name.len),
        values: sub('Values'),
      };
    }
    case 'Nulls':
      return { kind: 'Nulls', runs: readSegmap(need(v, 'Runs')), values: sub('Values') };
    default:
      throw new MetaError(`unknown VNG metadata type: ${t.name}`);
  }
}

/** The Zed type a metadata tree describes. */
export function metaType(ctx: TypeContext, m: Meta): Type {
  try {
    switch (m.kind) {
      case 'Record':
        return ctx.lookupTypeRecord(
          m.fields.map((f) => ({ name: f.name, type: metaType(ctx, f.values) })),
        );
      case 'Array':
        return ctx.lookupTypeArray(metaType(ctx, m.values));
      case 'Set':
        return ctx.lookupTypeSet(metaType(ctx, m.values));
      case 'Map':
        return ctx.lookupTypeMap(metaType(ctx, m.keys), metaType(ctx, m.values));
      case 'Union':
        if (m.values.length === 0) throw new MetaError('malformed VNG metadata: empty union');
        return ctx.lookupTypeUnion(m.values.map((x) => metaType(ctx, x)));
      case 'Primitive':
        return m.type;
      case 'Named':
        return ctx.lookupTypeNamed(m.name, metaType(ctx, m.values));
      case 'Nulls':
        return metaType(ctx, m.values);
    }
  } catch (err) {
    if (err instanceof MetaError) throw err;
    throw new MetaError(
      `malformed VNG metadata: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
