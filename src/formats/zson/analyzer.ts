// ZSON syntax trees to Zed values: resolves decorators and named types with
// the reference's semantics and writes each value's zcode into a Builder.
//
// Types flow down from decorators (a cast types the literal under it) and
// back up from implied literals (a record's type is made from its fields'
// types). Named-type bindings follow the reference: left to right, depth
// first within a value, and persisting from value to value for the life of
// the analyzer (one per reader). Numeric names (`(=0)`) are local aliases
// that create no named type.
//
// Deliberate differences from the reference, where its reader refuses what
// its writer prints: an enum value may be decorated with a named enum type,
// and a union value decorated with the union type its context already
// gives is taken as is (inside an error's decorator, say).

import { DuplicateFieldError, TypeContext, TypeValueError } from '../../zed/context';
import { compareTypes } from '../../zed/compare';
import { numberToFloat16, writeFloat, bytesCompare } from '../../zed/primitive';
import { parseIP, parseNet } from '../../zed/ipnet';
import { formatType } from '../../zed/typestring';
import {
  Field,
  isFloat,
  isInteger,
  Kind,
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNull,
  TypeNamed,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeInt64,
  TypeString,
  TypeType,
  TypeUnion,
  ID,
} from '../../zed/types';
import type { TimeParts } from '../../zed/nano';
import { Builder, putUvarint, readUvarint, uv } from '../../zed/zcode';
import { goQuote, goTypeName, latin1, copyRange } from './gotext';
import {
  appendTime,
  MAX_TIME_TEXT,
  parseDurationGo,
  parseGoFloat,
  parseGoInt,
  parseGoUint,
  parseRFC3339,
  timeOverflows,
} from './literal';
import {
  ArrayNode,
  EnumNode,
  ErrorNode,
  MapNode,
  N,
  PrimNode,
  RecordNode,
  T,
  TypeNode,
  ValueNode,
} from './parser';

/** A semantic error in a parsed value (type mismatch, unknown name, ...). */
export class AnalysisError extends Error {}

function fail(msg: string): never {
  throw new AnalysisError(msg);
}

// Record types by their (name, type) steps, so a stream of like records
// finds its type without building the context's string key.
interface RecordTrie {
  next: Map<string, Map<Type, RecordTrie>> | null;
  type: TypeRecord | null;
  // The step taken last from here, tried first.
  lastName: string;
  lastType: Type | null;
  last: RecordTrie | null;
}

function trieNode(): RecordTrie {
  return { next: null, type: null, lastName: '', lastType: null, last: null };
}

const scratch8 = new Uint8Array(8);

export class Analyzer {
  /** Source buffer of the value being converted (plain strings point into it). */
  src: Buffer = Buffer.alloc(0);
  private defs = new Map<string, Type>();
  private trie: RecordTrie = trieNode();
  private unionMade = false;

  constructor(
    readonly ctx: TypeContext,
    public b: Builder,
  ) {}

  /** Appends the value of node to the builder and returns its type. */
  convert(node: ValueNode): Type {
    return this.convertValue(node, null);
  }

  private convertValue(node: ValueNode, parent: Type | null): Type {
    if (node.k === N.Prim && (parent === null || parent.under.kind === Kind.Primitive)) {
      // The common case, without the general dispatch.
      return this.convertPrim(node, parent);
    }
    if (node.k === N.Def) {
      if (node.of === null)
        fail('internal error: unknown ast type in Analyzer.convertAny(): <nil>');
      const t = this.convertAny(node.of, parent);
      if (t instanceof TypeNamed && t.name === node.name) {
        // `v(=T)` where the context already makes v a T, as the writer
        // prints a named value inside an error (whose decorator defines the
        // name again): T stays T. The reference would define T as T here
        // and fail to read its own output.
        this.defs.set(node.name, t);
        return t;
      }
      return this.enterTypeDef(node.name, t) ?? t;
    }
    if (node.k !== N.Cast) return this.convertAny(node, parent);
    const b = this.b;
    const of = node.of;
    if (of.k === N.Def) {
      // Enter the definition first so the cast can refer to it.
      const mark = b.len;
      this.convertValue(of, null);
      b.len = mark;
    } else if (of.k === N.Cast) {
      this.convertType(of.type);
    }
    const cast = this.convertType(node.type);
    if (parent !== null && cast !== parent && !(parent.under instanceof TypeUnion)) {
      fail(
        `decorator conflict enclosing context ${goQuote(formatType(parent))} and decorator cast ${goQuote(formatType(cast))}`,
      );
    }
    const start = b.len;
    let t: Type;
    const cu = cast.under;
    if (cu instanceof TypeUnion) {
      t = this.wrapUnion(start, this.convertValue(of, null), cu, cast);
    } else {
      t = this.convertValue(of, cast);
    }
    const pu = parent?.under;
    // A union value decorated with its own union type inside a context of
    // that type is wrapped once (the reference wraps it twice and fails).
    if (pu instanceof TypeUnion && t !== parent) t = this.wrapUnion(start, t, pu, parent!);
    return t;
  }

  private enterTypeDef(name: string, t: Type): TypeNamed | null {
    if (/^[0-9]*$/.test(name)) {
      this.defs.set(name, t);
      return null;
    }
    let named: TypeNamed;
    try {
      named = this.ctx.lookupTypeNamed(name, t);
    } catch (e) {
      if (e instanceof TypeValueError) fail(e.message);
      throw e;
    }
    this.defs.set(name, named);
    return named;
  }

  private convertAny(node: ValueNode, cast: Type | null): Type {
    if (cast !== null) {
      const cu = cast.under;
      if (cu instanceof TypeUnion) {
        const start = this.b.len;
        return this.wrapUnion(start, this.convertAny(node, null), cu, cast);
      }
    }
    switch (node.k) {
      case N.Prim:
        return this.convertPrim(node, cast);
      case N.Record:
        return this.convertRecord(node, cast);
      case N.Array:
        return this.convertArray(node, cast);
      case N.Set:
        return this.convertSet(node, cast);
      case N.Map:
        return this.convertMap(node, cast);
      case N.TypeValue: {
        if (cast !== null && cast.under !== TypeType) {
          fail(`cannot apply decorator (${goQuote(formatType(cast))}) to a type value`);
        }
        const tv = this.ctx.typeValue(this.convertType(node.type));
        this.b.append(tv, 0, tv.length);
        return cast ?? TypeType;
      }
      case N.Error:
        return this.convertError(node, cast);
      case N.Enum:
        return this.convertEnum(node, cast);
      default:
        return this.convertValue(node, cast);
    }
  }

  /**
   * Turns the value just built at b[start..] (of type vt) into a value of
   * union type `cast` (whose underlying union is u): a container of the
   * member tag and the value, or null for a null-typed value.
   */
  private wrapUnion(start: number, vt: Type, u: TypeUnion, cast: Type): Type {
    if (vt === TypeNull) return cast;
    const tag = u.types.indexOf(vt);
    if (tag < 0)
      fail(`type ${goQuote(formatType(vt))} is not in union type ${goQuote(formatType(u))}`);
    const b = this.b;
    // The tag as a tagged int (2·tag, non-negative): empty for 0, then one or two bytes.
    const tagBytes = tag === 0 ? 1 : tag < 128 ? 2 : 3;
    const body = tagBytes + (b.len - start);
    let hdr = 1;
    for (let v = body + 1; v >= 0x80; v = Math.floor(v / 128)) hdr++;
    const shift = hdr + tagBytes;
    b.grow(shift);
    b.buf.copyWithin(start + shift, start, b.len);
    let p = putUvarint(b.buf, start, body + 1);
    if (tag === 0) {
      b.buf[p++] = 1;
    } else if (tag < 128) {
      b.buf[p++] = 2;
      b.buf[p++] = tag * 2;
    } else {
      b.buf[p++] = 3;
      b.buf[p++] = (tag * 2) & 0xff;
      b.buf[p++] = (tag * 2) >> 8;
    }
    b.len += shift;
    return cast;
  }

  private convertPrim(node: PrimNode, cast: Type | null): Type {
    let typ: Type = node.type;
    if (cast !== null) {
      if (cast instanceof TypeEnum && node.type === TypeString) {
        const name = this.text(node);
        const idx = cast.lookup(name);
        if (idx < 0)
          fail(`symbol ${goQuote(name)} not a member of type ${goQuote(formatType(cast))}`);
        this.b.appendUint(idx);
        return cast;
      }
      typ = castType(node.type, cast);
    }
    if (node.type === TypeNull) {
      this.b.appendNull();
      return typ;
    }
    this.buildPrim(typ.under as TypePrimitive, node);
    return typ;
  }

  /** A literal's text (kept as a range of the source until needed). */
  private text(node: PrimNode): string {
    if (node.text === null) node.text = latin1(this.src, node.off, node.off + node.len);
    return node.text as string;
  }

  private buildPrim(t: TypePrimitive, node: PrimNode): void {
    const b = this.b;
    // The literal's parsed value serves when its type is the one wanted.
    const same = t === node.type;
    switch (t.id) {
      case ID.String:
        if (node.off >= 0) appendRaw(b, this.src, node.off, node.len);
        else appendString(b, node);
        return;
      case ID.Uint8:
      case ID.Uint16:
      case ID.Uint32:
      case ID.Uint64: {
        // An int64 literal written without a sign has the same value unsigned.
        const v =
          same ||
          (node.type === TypeInt64 && this.src[node.off] !== 0x2d && this.src[node.off] !== 0x2b)
            ? (node.value as number | bigint)
            : parseGoUint(this.text(node));
        if (v === undefined) fail(`invalid unsigned integer: ${this.text(node)}`);
        b.appendUint(v);
        return;
      }
      case ID.Int8:
      case ID.Int16:
      case ID.Int32:
      case ID.Int64: {
        const v =
          same || node.type === TypeInt64
            ? (node.value as number | bigint)
            : parseGoInt(this.text(node));
        if (v === undefined) fail(`invalid integer: ${this.text(node)}`);
        b.appendInt(v);
        return;
      }
      case ID.Duration: {
        const v = same ? (node.value as bigint) : parseDurationGo(this.text(node));
        if (v === undefined) fail(`invalid duration: ${this.text(node)}`);
        b.appendInt(v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v);
        return;
      }
      case ID.Time: {
        const v = same ? (node.value as TimeParts) : parseRFC3339(this.text(node));
        if (v === undefined) fail(`invalid ISO time: ${this.text(node)}`);
        if (timeOverflows(v)) fail(`time overflow: ${this.text(node)} (max: ${MAX_TIME_TEXT})`);
        appendTime(b, v);
        return;
      }
      case ID.Float16:
      case ID.Float32:
      case ID.Float64: {
        const wide = t.id === ID.Float64;
        const v = same ? (node.value as number) : parseGoFloat(this.text(node), wide ? 64 : 32);
        if (v === undefined) fail(`invalid floating point: ${this.text(node)}`);
        if (t.id === ID.Float16) {
          const h = numberToFloat16(v);
          scratch8[0] = h & 0xff;
          scratch8[1] = h >> 8;
          b.append(scratch8, 0, 2);
        } else {
          writeFloat(scratch8, 0, v, wide ? 8 : 4);
          b.append(scratch8, 0, wide ? 8 : 4);
        }
        return;
      }
      case ID.Bool:
        if (this.text(node) !== 'true' && this.text(node) !== 'false')
          fail(`invalid bool: ${this.text(node)}`);
        scratch8[0] = this.text(node) === 'true' ? 1 : 0;
        b.append(scratch8, 0, 1);
        return;
      case ID.Bytes: {
        const s = this.text(node);
        let v = same ? (node.value as Buffer) : undefined;
        if (!v) {
          const hex = s.slice(2);
          if (!s.startsWith('0x') || !/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 === 1) {
            fail(`invalid bytes: ${s}`);
          }
          v = Buffer.from(hex, 'hex');
        }
        b.append(v, 0, v.length);
        return;
      }
      case ID.IP: {
        const v = same ? (node.value as Uint8Array) : parseIP(this.text(node));
        if (!v) fail(`ParseAddr(${goQuote(this.text(node))}): unable to parse IP`);
        b.append(v, 0, v.length);
        return;
      }
      case ID.Net: {
        const s = this.text(node);
        const v = same ? (node.value as Uint8Array) : parseNet(s);
        if (!v) {
          const why = s.indexOf('/') < 0 ? ` (netip.ParsePrefix(${goQuote(s)}): no '/')` : '';
          fail(`invalid network: ${s}${why}`);
        }
        b.append(v, 0, v.length);
        return;
      }
      case ID.Type:
        fail(`type values should not be encoded as primitives: ${goQuote(this.text(node))}`);
        break;
      default:
        fail(`unknown primitive: ${goTypeName(t)}`);
    }
  }

  private convertRecord(node: RecordNode, cast: Type | null): Type {
    const b = this.b;
    const vals = node.vals;
    if (cast !== null) {
      const rt = cast.under;
      if (!(rt instanceof TypeRecord))
        fail(`record decorator not of type record: ${goTypeName(cast)}`);
      if (rt.fields.length !== vals.length) {
        fail(
          `record decorator fields (${rt.fields.length}) mismatched with value fields (${vals.length})`,
        );
      }
      b.beginContainer();
      for (let i = 0; i < vals.length; i++) this.convertValue(vals[i], rt.fields[i].type);
      b.endContainer();
      return cast;
    }
    b.beginContainer();
    const types: Type[] = [];
    for (let i = 0; i < vals.length; i++) types.push(this.convertValue(vals[i], null));
    b.endContainer();
    return this.recordType(node.names, types);
  }

  private recordType(names: string[], types: Type[]): TypeRecord {
    let at = this.trie;
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      const t = types[i];
      if (at.last !== null && at.lastType === t && at.lastName === name) {
        at = at.last;
        continue;
      }
      at.next ??= new Map();
      let byType = at.next.get(name);
      if (!byType) {
        byType = new Map();
        at.next.set(name, byType);
      }
      let nextAt = byType.get(t);
      if (!nextAt) {
        nextAt = trieNode();
        byType.set(t, nextAt);
      }
      at.lastName = name;
      at.lastType = t;
      at.last = nextAt;
      at = nextAt;
    }
    if (at.type === null) {
      const fields: Field[] = [];
      for (let i = 0; i < names.length; i++) fields.push({ name: names[i], type: types[i] });
      at.type = this.ctx.lookupTypeRecord(fields);
    }
    return at.type;
  }

  private convertArray(node: ArrayNode, cast: Type | null): Type {
    let elemCast: Type | null = null;
    if (cast !== null) {
      const au = cast.under;
      if (!(au instanceof TypeArray)) fail('array decorator not of type array');
      elemCast = au.type;
    }
    const inner = this.convertElems(node, cast, elemCast);
    return cast ?? this.ctx.lookupTypeArray(inner);
  }

  private convertSet(node: ArrayNode, cast: Type | null): Type {
    let elemCast: Type | null = null;
    if (cast !== null) {
      const su = cast.under;
      if (!(su instanceof TypeSet)) fail(`set decorator not of type set: ${goTypeName(cast)}`);
      elemCast = su.type;
    }
    const inner = this.convertElems(node, cast, elemCast);
    return cast ?? this.ctx.lookupTypeSet(inner);
  }

  /**
   * Builds an array or set body. Without a decorator, elements of several
   * types become values of their union, and (for sets) the elements are
   * sorted and deduplicated. As in the reference, a decorated set is left
   * in the order written.
   */
  private convertElems(node: ArrayNode, cast: Type | null, elemCast: Type | null): Type {
    const b = this.b;
    const elems = node.elems;
    b.beginContainer();
    if (cast !== null || elems.length === 0) {
      for (const e of elems) this.convertValue(e, elemCast);
      b.endContainer();
      return TypeNull;
    }
    const start = b.len;
    const types: Type[] = [];
    for (const e of elems) types.push(this.convertValue(e, null));
    const union = this.elemUnion(types);
    if (this.unionMade) this.rewrapChildren(start, types, union as TypeUnion, union as TypeUnion);
    if (node.k === N.Set) this.normalize(start, 1);
    b.endContainer();
    return union;
  }

  /**
   * The element type of values of these types: one type, null, or their
   * union (setting unionMade, as the values must then be rewritten).
   */
  private elemUnion(types: Type[]): Type {
    this.unionMade = false;
    const first = types[0];
    let uniform = true;
    for (let i = 1; i < types.length; i++) {
      if (types[i] !== first) {
        uniform = false;
        break;
      }
    }
    if (uniform) return first;
    const sorted = types.slice().sort(compareTypes);
    const unique: Type[] = [];
    let prev: Type | null = null;
    for (const t of sorted) {
      if (t !== prev && t !== TypeNull) unique.push(t);
      prev = t;
    }
    if (unique.length === 1) return unique[0];
    if (unique.length === 0) return TypeNull;
    this.unionMade = true;
    return this.ctx.lookupTypeUnion(unique);
  }

  /**
   * Rewrites the children at b[start..] as union values: child i (of type
   * types[i]) as a member of evenUnion or oddUnion by its position (the
   * keys and values of a map); a null union leaves those children alone.
   */
  private rewrapChildren(
    start: number,
    types: Type[],
    evenUnion: TypeUnion | null,
    oddUnion: TypeUnion | null,
  ): void {
    const b = this.b;
    const tmp = copyRange(b.buf, start, b.len);
    b.len = start;
    let off = 0;
    for (let i = 0; off < tmp.length; i++) {
      const tag = readUvarint(tmp, off);
      const body = uv.end;
      const len = tag - 1;
      off = body + (len > 0 ? len : 0);
      const union = i % 2 === 0 ? evenUnion : oddUnion;
      const t = types[i];
      if (union === null || t === TypeNull) {
        b.append(tmp, body, len);
        continue;
      }
      b.beginContainer();
      b.appendInt(union.types.indexOf(t));
      b.append(tmp, body, len);
      b.endContainer();
    }
  }

  /**
   * Sorts the children at b[start..] by their tagged bytes and drops
   * repeats: the set normal form (stride 1), or for maps (stride 2) the
   * order of the keys with each key's value after it, the first of equal
   * keys kept.
   */
  private normalize(start: number, stride: 1 | 2): void {
    const b = this.b;
    const tmp = copyRange(b.buf, start, b.len);
    // (start, key end, entry end) of each entry, relative to tmp.
    const spans: number[] = [];
    let off = 0;
    while (off < tmp.length) {
      const s = off;
      for (let k = 0; k < stride; k++) {
        const tag = readUvarint(tmp, off);
        off = uv.end + (tag > 0 ? tag - 1 : 0);
        if (k === 0) spans.push(s, off);
      }
      spans.push(off);
    }
    if (spans.length < 6) return;
    const order: number[] = [];
    for (let i = 0; i < spans.length; i += 3) order.push(i);
    const cmp = (x: number, y: number) =>
      bytesCompare(tmp, spans[x], spans[x + 1] - spans[x], tmp, spans[y], spans[y + 1] - spans[y]);
    order.sort(cmp);
    b.len = start;
    let prev = -1;
    for (const x of order) {
      if (prev >= 0 && cmp(prev, x) === 0) continue;
      prev = x;
      b.appendRaw(tmp, spans[x], spans[x + 2] - spans[x]);
    }
  }

  private convertMap(node: MapNode, cast: Type | null): Type {
    let keyCast: Type | null = null;
    let valCast: Type | null = null;
    if (cast !== null) {
      const mu = cast.under;
      if (!(mu instanceof TypeMap)) fail('map decorator not of type map');
      keyCast = mu.keyType;
      valCast = mu.valType;
    }
    const b = this.b;
    b.beginContainer();
    const start = b.len;
    const keyTypes: Type[] = [];
    const valTypes: Type[] = [];
    const all: Type[] = [];
    for (let i = 0; i < node.keys.length; i++) {
      const kt = this.convertValue(node.keys[i], keyCast);
      const vt = this.convertValue(node.vals[i], valCast);
      keyTypes.push(kt);
      valTypes.push(vt);
      all.push(kt, vt);
    }
    let result = cast;
    if (result === null) {
      let kt: Type = TypeNull;
      let vt: Type = TypeNull;
      if (keyTypes.length > 0) {
        kt = this.elemUnion(keyTypes);
        const ku = this.unionMade ? (kt as TypeUnion) : null;
        vt = this.elemUnion(valTypes);
        const vu = this.unionMade ? (vt as TypeUnion) : null;
        if (ku !== null || vu !== null) this.rewrapChildren(start, all, ku, vu);
      }
      result = this.ctx.lookupTypeMap(kt, vt);
    }
    this.normalize(start, 2);
    b.endContainer();
    return result;
  }

  private convertError(node: ErrorNode, cast: Type | null): Type {
    let inner: Type | null = null;
    if (cast !== null) {
      const eu = cast.under;
      if (!(eu instanceof TypeErr)) fail('error decorator not of type error');
      inner = eu.type;
    }
    if (node.val === null) fail('unknown value ast type: <nil>');
    const t = this.convertValue(node.val, inner);
    return cast ?? this.ctx.lookupTypeError(t);
  }

  private convertEnum(node: EnumNode, cast: Type | null): Type {
    const name = node.name;
    if (cast === null) fail(`identifier ${goQuote(name)} must be enum and requires decorator`);
    const eu = cast.under;
    if (!(eu instanceof TypeEnum)) {
      fail(
        `identifier ${goQuote(name)} is enum and incompatible with type ${goQuote(formatType(cast))}`,
      );
    }
    const idx = eu.lookup(name);
    if (idx < 0) fail(`symbol ${goQuote(name)} not a member of type ${goQuote(formatType(eu))}`);
    this.b.appendUint(idx);
    return cast;
  }

  /** Resolves a type node, entering any definitions it makes. */
  convertType(node: TypeNode): Type {
    const ctx = this.ctx;
    try {
      switch (node.k) {
        case T.Prim:
          return node.type;
        case T.Name: {
          const t = this.defs.get(node.name) ?? ctx.lookupTypeDef(node.name);
          if (!t) fail(`no such type name: ${goQuote(node.name)}`);
          return t;
        }
        case T.Def: {
          const t = this.convertType(node.type);
          return this.enterTypeDef(node.name, t) ?? t;
        }
        case T.Record: {
          const fields: Field[] = [];
          for (let i = 0; i < node.names.length; i++) {
            fields.push({ name: node.names[i], type: this.convertType(node.types[i]) });
          }
          return ctx.lookupTypeRecord(fields);
        }
        case T.Array:
          return ctx.lookupTypeArray(this.convertType(node.type));
        case T.Set:
          return ctx.lookupTypeSet(this.convertType(node.type));
        case T.Map: {
          const k = this.convertType(node.key);
          return ctx.lookupTypeMap(k, this.convertType(node.val));
        }
        case T.Union: {
          // The reference's context keeps union members in type order.
          const types = node.types.map((t) => this.convertType(t));
          types.sort(compareTypes);
          return ctx.lookupTypeUnion(types);
        }
        case T.Enum:
          if (node.symbols.length === 0) fail('enum body is empty');
          return ctx.lookupTypeEnum(node.symbols);
        case T.Error:
          if (node.type === null) fail('unknown type in Analyzer.convertType: <nil>');
          return ctx.lookupTypeError(this.convertType(node.type));
      }
    } catch (e) {
      if (e instanceof DuplicateFieldError || e instanceof TypeValueError) fail(e.message);
      throw e;
    }
  }
}

/** Appends a tagged body copied from src (without making a subarray). */
function appendRaw(b: Builder, src: Buffer, off: number, len: number): void {
  b.grow(len + 10);
  const buf = b.buf;
  let p = putUvarint(buf, b.len, len + 1);
  if (len < 64) {
    for (let i = 0; i < len; i++) buf[p++] = src[off + i];
  } else {
    src.copy(buf, p, off, off + len);
    p += len;
  }
  b.len = p;
}

/** Writes a decoded string literal: NFC-normalised, as the reference stores strings. */
function appendString(b: Builder, node: PrimNode): void {
  let s = node.text!;
  if (node.value === false) fail(`invalid utf8 string: ${goQuote(s)}`);
  if (!/^[\x00-\x7f]*$/.test(s)) s = s.normalize('NFC');
  const n = Buffer.byteLength(s, 'utf8');
  b.grow(n + 10);
  b.len = putUvarint(b.buf, b.len, n + 1);
  b.len += b.buf.write(s, b.len, 'utf8');
}

/** castType: whether a literal of implied type typ can take the decorator cast. */
function castType(typ: TypePrimitive, cast: Type): Type {
  const cu = cast.under;
  const castID = cu.kind === Kind.Primitive ? cu.id : -1;
  if (
    typ.id === castID ||
    typ === TypeNull ||
    (castID >= 0 && isInteger(typ.id) && isInteger(castID)) ||
    (castID >= 0 && isFloat(typ.id) && isFloat(castID))
  ) {
    return cast;
  }
  fail(`type mismatch: ${goQuote(formatType(typ))} cannot be used as ${goQuote(formatType(cast))}`);
}
