// Zed values to ZSON text, byte for byte as the reference's formatter
// writes them (zq -z with pretty 0, zq -Z with pretty 4).
//
// Decoration rules, in brief: a value is followed by a type decorator only
// where its type is not implied by its text and not already known from an
// enclosing decorator; a named type is defined where first used in each
// top-level value (`(=name)` for self-describing types, `(name=type)`
// otherwise) and referred to by name after that; union values always carry
// their member type's decorator, and arrays, sets and maps of unions carry
// their own type when the elements do not show every member.
//
// Text is written as bytes into a growing buffer; values are walked in
// zcode form without building JS objects.

import { encodeTypeValue } from '../../zed/context';
import { formatFloatG } from '../../zed/floatfmt';
import { formatIP, formatNet } from '../../zed/ipnet';
import { quotedName, quotedTypeName } from '../../zed/names';
import { formatDuration, formatTime } from '../../zed/nano';
import {
  decodeFloat,
  decodeInt,
  decodeIntBig,
  decodeUint,
  decodeUintBig,
  isMinInt64,
} from '../../zed/primitive';
import { formatType as canonicalType } from '../../zed/typestring';
import {
  ID,
  Kind,
  primitiveById,
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypeNull,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';
import { readUvarint, uv } from '../../zed/zcode';
import { TextBuffer, writeQuoted, ZSON_ESCAPES } from '../textbuffer';
import { decodeUTF8Go } from './gotext';

const hexDigits = '0123456789abcdef';

/** Go's `%d.`-or-shortest-'g' text of a float, as ZSON writes floats. */
export function floatText(v: number, bits: 32 | 64): string {
  if (Number.isInteger(v) && v >= -9223372036854775808 && v < 9223372036854775808) {
    if (v >= -9007199254740992 && v <= 9007199254740992) return String(v === 0 ? 0 : v) + '.';
    return BigInt(v).toString() + '.';
  }
  if (bits === 64 && Number.isFinite(v)) {
    const a = v < 0 ? -v : v;
    // Where JS and Go both use plain decimal notation their digits agree.
    if (a >= 1e-4 && a < 1e6) return String(v);
  }
  return formatFloatG(v, bits);
}

// ---- time text without bigints ----

// The date part ("YYYY-MM-DDT") of the last day written: times in a
// stream mostly share it.
let cachedDay = NaN;
const cachedDate = Buffer.alloc(32);
let cachedDateLen = 0;

/**
 * Writes the RFC 3339 text of an int64 time body (UTC, trailing
 * fractional zeros trimmed, as Go's RFC3339Nano), without bigints.
 */
export function writeTime(out: TextBuffer, buf: Uint8Array, off: number, len: number): void {
  if (len > 8) {
    out.ascii(formatTime(decodeIntBig(buf, off, len)));
    return;
  }
  // u = hi*2^32 + lo, the encoding (sign in bit 0).
  let lo = 0;
  let hi = 0;
  let scale = 1;
  for (let i = 0; i < len; i++) {
    if (i === 4) scale = 1;
    if (i < 4) lo += buf[off + i] * scale;
    else hi += buf[off + i] * scale;
    scale *= 256;
  }
  const neg = lo % 2 === 1;
  // m = |v| = u>>1, as hi/lo words (a zero magnitude when negative is -2^63).
  let mh = Math.floor(hi / 2);
  const ml = (hi % 2) * 2147483648 + Math.floor(lo / 2);
  if (neg && mh === 0 && ml === 0) mh = 2147483648;
  // m / 1e9 by long division in 16-bit words (every step exact).
  let cur = Math.floor(mh / 65536);
  let q = Math.floor(cur / 1e9);
  let rem = cur - q * 1e9;
  cur = rem * 65536 + (mh % 65536);
  let d = Math.floor(cur / 1e9);
  rem = cur - d * 1e9;
  q = q * 65536 + d;
  cur = rem * 65536 + Math.floor(ml / 65536);
  d = Math.floor(cur / 1e9);
  rem = cur - d * 1e9;
  q = q * 65536 + d;
  cur = rem * 65536 + (ml % 65536);
  d = Math.floor(cur / 1e9);
  rem = cur - d * 1e9;
  q = q * 65536 + d;
  let secs = q;
  let nsec = rem;
  if (neg) {
    secs = -q;
    if (rem > 0) {
      secs -= 1;
      nsec = 1e9 - rem;
    }
  }
  const day = Math.floor(secs / 86400);
  const sod = secs - day * 86400;
  if (day !== cachedDay) {
    const date = formatTime(BigInt(day) * 86_400_000_000_000n);
    cachedDateLen = cachedDate.write(date.slice(0, date.length - 9), 0, 'latin1');
    cachedDay = day;
  }
  out.ensure(cachedDateLen + 20);
  const ob = out.buf;
  let p = out.len;
  for (let i = 0; i < cachedDateLen; i++) ob[p++] = cachedDate[i];
  const hh = Math.floor(sod / 3600);
  const mm = Math.floor(sod / 60) % 60;
  const ss = sod % 60;
  ob[p++] = 48 + Math.floor(hh / 10);
  ob[p++] = 48 + (hh % 10);
  ob[p++] = 58;
  ob[p++] = 48 + Math.floor(mm / 10);
  ob[p++] = 48 + (mm % 10);
  ob[p++] = 58;
  ob[p++] = 48 + Math.floor(ss / 10);
  ob[p++] = 48 + (ss % 10);
  if (nsec !== 0) {
    ob[p++] = 46;
    let digits = 9;
    while (nsec % 10 === 0) {
      nsec /= 10;
      digits--;
    }
    for (let i = digits - 1; i >= 0; i--) {
      ob[p + i] = 48 + (nsec % 10);
      nsec = Math.floor(nsec / 10);
    }
    p += digits;
  }
  ob[p++] = 90;
  out.len = p;
}

const timeScratch = new TextBuffer(64);

/** The RFC 3339 text of an int64 time body, as ZSON writes times. */
export function timeText(buf: Uint8Array, off: number, len: number): string {
  timeScratch.len = 0;
  writeTime(timeScratch, buf, off, len);
  return timeScratch.toString();
}

// ---- per-type facts, cached ----

/** Implied: the type of a value of this type follows from its text (zson.Implied). */
function computeImplied(t: Type): boolean {
  if (t instanceof TypePrimitive) {
    switch (t.id) {
      case ID.Int64:
      case ID.Duration:
      case ID.Time:
      case ID.Float64:
      case ID.Bool:
      case ID.Bytes:
      case ID.String:
      case ID.IP:
      case ID.Net:
      case ID.Type:
      case ID.Null:
        return true;
    }
    return false;
  }
  if (t instanceof TypeRecord) return t.fields.every((f) => computeImplied(f.type));
  if (t instanceof TypeArray || t instanceof TypeSet || t instanceof TypeErr)
    return computeImplied(t.type);
  if (t instanceof TypeMap) return computeImplied(t.keyType) && computeImplied(t.valType);
  return false;
}

const impliedPrimitive: boolean[] = [];
for (let id = 0; id < ID.FirstComplex; id++) {
  const p = primitiveById(id);
  impliedPrimitive[id] = p !== undefined && computeImplied(p);
}

/** True when a named type occurs anywhere in t. */
function hasNames(t: Type): boolean {
  if (t instanceof TypeNamed) return true;
  if (t instanceof TypeRecord) return t.fields.some((f) => hasNames(f.type));
  if (t instanceof TypeArray || t instanceof TypeSet) return hasNames(t.type);
  if (t instanceof TypeMap) return hasNames(t.keyType) || hasNames(t.valType);
  if (t instanceof TypeUnion) return t.types.some(hasNames);
  if (t instanceof TypeErr) return hasNames(t.type);
  return false;
}

interface RecordPlan {
  /** Separator, indentation and `name:` before each field. */
  prefixes: Buffer[];
  /** Line break, indentation and `}` after the last field. */
  close: Buffer;
  /** Each field's primitive type ID, or -1 when it is not an unnamed primitive. */
  prims: Int8Array;
}

export interface FormatterOptions {
  /** Indent width; 0 for one value per line. */
  pretty?: number;
  /** Named types whose names match persist across values (zq -persist). */
  persist?: RegExp;
}

/** Formats values as ZSON, one top-level value at a time. */
export class Formatter {
  readonly out: TextBuffer;
  private readonly tab: number;
  private readonly pretty: boolean;
  private typedefs = new Map<string, TypeNamed>();
  private permanent: Map<string, TypeNamed> | null;
  private persist: RegExp | null;
  private implied = new Map<Type, boolean>();
  private plans = new Map<TypeRecord, RecordPlan[]>();
  // Decorator texts: `(name)`, `(=name)`, and `(type)` for types without names.
  private nameRefs = new Map<string, Buffer>();
  private nameDefs = new Map<string, Buffer>();
  private nameBytes = new Map<string, Buffer>();
  private plainTypes = new Map<Type, Buffer | null>();

  constructor(opts: FormatterOptions = {}, out = new TextBuffer()) {
    this.out = out;
    this.tab = opts.pretty ?? 0;
    this.pretty = this.tab > 0;
    this.persist = opts.persist ?? null;
    this.permanent = this.persist ? new Map() : null;
  }

  /**
   * Appends one top-level value (no newline). Named types are defined
   * afresh in each top-level value, as the reference's writer does.
   */
  format(type: Type, buf: Uint8Array, off: number, len: number): void {
    if (this.typedefs.size > 0) this.typedefs.clear();
    // Types from many contexts may pass through one formatter: bound the caches.
    if (this.implied.size + this.plainTypes.size > 10000) {
      this.implied.clear();
      this.plans.clear();
      this.plainTypes.clear();
      this.nameRefs.clear();
      this.nameDefs.clear();
      this.nameBytes.clear();
    }
    const known = this.hasName(type);
    this.formatValue(0, type, buf, off, len, known, this.isImplied(type), false);
    this.decorate(type, false, len < 0);
  }

  private isImplied(t: Type): boolean {
    let v = this.implied.get(t);
    if (v === undefined) {
      v = computeImplied(t);
      this.implied.set(t, v);
    }
    return v;
  }

  /** Writes a type name as it is (as the reference does inside decorators). */
  private rawName(name: string): void {
    let b = this.nameBytes.get(name);
    if (!b) {
      b = Buffer.from(name, 'utf8');
      this.nameBytes.set(name, b);
    }
    this.out.raw(b, 0, b.length);
  }

  /** Self-describing: a `(=name)` definition can take the type from the value (zson.SelfDescribing). */
  private selfDescribing(t: Type): boolean {
    for (;;) {
      if (this.isImplied(t)) return true;
      if (
        t instanceof TypeRecord ||
        t instanceof TypeArray ||
        t instanceof TypeSet ||
        t instanceof TypeMap
      )
        return true;
      if (!(t instanceof TypeNamed)) return false;
      t = t.type;
    }
  }

  private hasName(t: Type): boolean {
    if (!(t instanceof TypeNamed)) return false;
    return this.typedefs.has(t.name) || (this.permanent !== null && this.permanent.has(t.name));
  }

  private nameOf(t: Type): string | undefined {
    if (!(t instanceof TypeNamed)) return undefined;
    if (this.typedefs.get(t.name) === t) return t.name;
    if (this.permanent !== null && this.permanent.get(t.name) === t) return t.name;
    return undefined;
  }

  /**
   * A type value's definition of `name` (its encoding is buf[start, end))
   * rebinds the name for the reader. Where the name's decorator meant
   * another type, it is defined again at its next use: the reference
   * keeps referring to it, and cannot read back what it wrote.
   */
  private redefined(name: string, buf: Uint8Array, start: number, end: number): void {
    for (const defs of [this.typedefs, this.permanent]) {
      const t = defs?.get(name);
      if (t !== undefined && !encodeTypeValue(t).equals(buf.subarray(start, end)))
        defs!.delete(name);
    }
  }

  private saveType(t: TypeNamed): void {
    this.typedefs.set(t.name, t);
    if (this.permanent !== null && this.persist!.test(t.name)) this.permanent.set(t.name, t);
  }

  private formatValue(
    indent: number,
    typ: Type,
    buf: Uint8Array,
    off: number,
    len: number,
    parentKnown: boolean,
    parentImplied: boolean,
    decorate: boolean,
  ): void {
    const out = this.out;
    if (len < 0) {
      out.ascii('null');
      if (decorate) this.decorate(typ, parentImplied ? false : parentKnown, true);
      return;
    }
    const known = parentKnown || (typ instanceof TypeNamed && this.hasName(typ));
    let empty = false;
    switch (typ.kind) {
      case Kind.Primitive:
        if (typ instanceof TypeNamed)
          this.formatValue(indent, typ.type, buf, off, len, known, parentImplied, false);
        else this.formatPrimitive(indent, typ as TypePrimitive, buf, off, len);
        break;
      case Kind.Record:
        if (typ instanceof TypeNamed)
          this.formatValue(indent, typ.type, buf, off, len, known, parentImplied, false);
        else this.formatRecord(indent, typ as TypeRecord, buf, off, len, known, parentImplied);
        break;
      default:
        if (typ instanceof TypeNamed) {
          this.formatValue(indent, typ.type, buf, off, len, known, parentImplied, false);
        } else if (typ instanceof TypeArray || typ instanceof TypeSet) {
          const set = typ instanceof TypeSet;
          empty = this.formatVector(indent, set, typ, buf, off, len, known, parentImplied);
        } else if (typ instanceof TypeUnion) {
          const [mt, moff, mlen] = untag(typ, buf, off, len);
          this.formatValue(indent, mt, buf, moff, mlen, false, true, true);
        } else if (typ instanceof TypeMap) {
          empty = this.formatMap(indent, typ, buf, off, len, known, parentImplied);
        } else if (typ instanceof TypeEnum) {
          const id = decodeUint(buf, off, len);
          if (len > 6 || id >= typ.symbols.length) throw new Error('enum index out of range');
          out.byte(0x25);
          out.utf8(typ.symbols[id]);
        } else if (typ instanceof TypeErr) {
          out.ascii('error(');
          this.formatValue(indent, typ.type, buf, off, len, known, parentImplied, false);
          out.byte(0x29);
        }
    }
    if (decorate) this.decorate(typ, parentKnown, empty);
  }

  private decorate(typ: Type, known: boolean, isNull: boolean): void {
    if (known) return;
    if (!(isNull && typ !== TypeNull)) {
      if (typ.under === typ && typ.kind === Kind.Primitive) {
        if (impliedPrimitive[typ.id]) return;
      } else if (this.isImplied(typ)) {
        return;
      }
    }
    const out = this.out;
    const name = this.nameOf(typ);
    if (name !== undefined) {
      let d = this.nameRefs.get(name);
      if (!d) {
        d = Buffer.from((this.pretty ? ' (' : '(') + quotedTypeName(name) + ')', 'utf8');
        this.nameRefs.set(name, d);
      }
      out.raw(d, 0, d.length);
    } else if (!isNull && this.selfDescribing(typ)) {
      if (typ instanceof TypeNamed) {
        this.saveType(typ);
        let d = this.nameDefs.get(typ.name);
        if (!d) {
          d = Buffer.from((this.pretty ? ' (=' : '(=') + quotedTypeName(typ.name) + ')', 'utf8');
          this.nameDefs.set(typ.name, d);
        }
        out.raw(d, 0, d.length);
      }
    } else {
      // A type without names always reads the same: cache its text.
      let d = this.plainTypes.get(typ);
      if (d === undefined) {
        d = hasNames(typ)
          ? null
          : Buffer.from((this.pretty ? ' (' : '(') + canonicalType(typ) + ')', 'utf8');
        this.plainTypes.set(typ, d);
      }
      if (d !== null) {
        out.raw(d, 0, d.length);
        return;
      }
      if (this.pretty) out.byte(0x20);
      out.byte(0x28);
      this.formatType(typ);
      out.byte(0x29);
    }
  }

  /** The fixed text around a record type's fields at one indent. */
  private recordPlan(t: TypeRecord, indent: number): RecordPlan {
    let byDepth = this.plans.get(t);
    if (!byDepth) {
      byDepth = [];
      this.plans.set(t, byDepth);
    }
    const depth = this.tab > 0 ? indent / this.tab : 0;
    let plan = byDepth[depth];
    if (!plan) {
      const nl = this.pretty ? '\n' : '';
      const pad = ' '.repeat(indent);
      const colon = this.pretty ? ': ' : ':';
      plan = {
        prefixes: t.fields.map((f, i) =>
          Buffer.from((i > 0 ? ',' : '') + nl + pad + quotedName(f.name) + colon, 'utf8'),
        ),
        close: Buffer.from(nl + ' '.repeat(Math.max(0, indent - this.tab)) + '}'),
        prims: Int8Array.from(t.fields, (f) => (f.type instanceof TypePrimitive ? f.type.id : -1)),
      };
      byDepth[depth] = plan;
    }
    return plan;
  }

  private formatRecord(
    indent: number,
    typ: TypeRecord,
    buf: Uint8Array,
    off: number,
    len: number,
    known: boolean,
    parentImplied: boolean,
  ): void {
    const out = this.out;
    const fields = typ.fields;
    out.byte(0x7b);
    if (fields.length === 0) {
      out.byte(0x7d);
      return;
    }
    indent += this.tab;
    const plan = this.recordPlan(typ, indent);
    const { prefixes, prims } = plan;
    const end = off + len;
    let p = off;
    for (let i = 0; i < fields.length; i++) {
      if (p >= end) throw new Error('record missing a field');
      const prefix = prefixes[i];
      out.raw(prefix, 0, prefix.length);
      p = nextChild(buf, p, end);
      const body = child.off;
      const flen = child.len;
      const ft = fields[i].type;
      const pid = prims[i];
      if (pid >= 0 && flen >= 0) {
        // An unnamed primitive: formatValue's work without its generality.
        this.formatPrimitive(indent, ft as TypePrimitive, buf, body, flen);
        if (!known && !impliedPrimitive[pid]) this.decorate(ft, false, false);
      } else {
        this.formatValue(indent, ft, buf, body, flen, known, parentImplied, true);
      }
    }
    out.raw(plan.close, 0, plan.close.length);
  }

  /** Writes an array or set; returns true when it is empty. */
  private formatVector(
    indent: number,
    set: boolean,
    typ: TypeArray | TypeSet,
    buf: Uint8Array,
    off: number,
    len: number,
    known: boolean,
    parentImplied: boolean,
  ): boolean {
    const out = this.out;
    if (set) out.byte(0x7c);
    out.byte(0x5b);
    const end = off + len;
    if (len === 0) {
      out.byte(0x5d);
      if (set) out.byte(0x7c);
      return true;
    }
    indent += this.tab;
    const elems = new Elems(typ.type);
    for (let p = off; p < end;) {
      if (p > off) out.byte(0x2c);
      if (this.pretty) {
        out.byte(0x0a);
        out.spaces(indent);
      }
      p = nextChild(buf, p, end);
      elems.add(buf, child.off, child.len);
      this.formatValue(indent, elems.type, buf, elems.off, elems.len, known, parentImplied, true);
    }
    if (this.pretty) {
      out.byte(0x0a);
      out.spaces(indent - this.tab);
    }
    out.byte(0x5d);
    if (set) out.byte(0x7c);
    if (elems.needsDecoration()) this.decorate(typ, false, true);
    return false;
  }

  /** Writes a map; returns true when it is empty. */
  private formatMap(
    indent: number,
    typ: TypeMap,
    buf: Uint8Array,
    off: number,
    len: number,
    known: boolean,
    parentImplied: boolean,
  ): boolean {
    const out = this.out;
    const pretty = this.pretty;
    out.ascii('|{');
    indent += this.tab;
    const end = off + len;
    const keys = new Elems(typ.keyType);
    const vals = new Elems(typ.valType);
    for (let p = off; p < end;) {
      if (p > off) out.byte(0x2c);
      if (pretty) {
        out.byte(0x0a);
        out.spaces(indent);
      }
      p = nextChild(buf, p, end);
      if (p >= end) throw new Error('truncated map value');
      keys.add(buf, child.off, child.len);
      this.formatValue(indent, keys.type, buf, keys.off, keys.len, known, parentImplied, true);
      if (keys.type.under.id === ID.IP && keys.len === 16) {
        // Space keeps an IPv6 key's last group from running into the colon.
        out.byte(0x20);
      }
      out.byte(0x3a);
      if (pretty) out.byte(0x20);
      p = nextChild(buf, p, end);
      vals.add(buf, child.off, child.len);
      this.formatValue(indent, vals.type, buf, vals.off, vals.len, known, parentImplied, true);
    }
    if (pretty) {
      out.byte(0x0a);
      out.spaces(indent - this.tab);
    }
    out.ascii('}|');
    if (keys.needsDecoration() || vals.needsDecoration()) this.decorate(typ, false, true);
    return len === 0;
  }

  private formatPrimitive(
    indent: number,
    t: TypePrimitive,
    buf: Uint8Array,
    off: number,
    len: number,
  ): void {
    const out = this.out;
    switch (t.id) {
      case ID.String:
        writeQuoted(out, buf, off, len, ZSON_ESCAPES);
        return;
      case ID.Int8:
      case ID.Int16:
      case ID.Int32:
      case ID.Int64:
        out.ascii(
          len <= 6 && !isMinInt64(buf, off, len)
            ? String(decodeInt(buf, off, len))
            : decodeIntBig(buf, off, len).toString(),
        );
        return;
      case ID.Uint8:
      case ID.Uint16:
      case ID.Uint32:
      case ID.Uint64:
        out.ascii(
          len <= 6 ? String(decodeUint(buf, off, len)) : decodeUintBig(buf, off, len).toString(),
        );
        return;
      case ID.Time:
        writeTime(out, buf, off, len);
        return;
      case ID.Duration:
        out.ascii(
          formatDuration(
            len <= 6 && !isMinInt64(buf, off, len)
              ? decodeInt(buf, off, len)
              : decodeIntBig(buf, off, len),
          ),
        );
        return;
      case ID.Float64:
        out.ascii(floatText(decodeFloat(buf, off, len), 64));
        return;
      case ID.Float32:
      case ID.Float16:
        out.ascii(floatText(decodeFloat(buf, off, len), 32));
        return;
      case ID.Bool:
        out.ascii(len > 0 && buf[off] !== 0 ? 'true' : 'false');
        return;
      case ID.IP:
        if (len === 4) {
          out.digits(buf[off]);
          out.byte(0x2e);
          out.digits(buf[off + 1]);
          out.byte(0x2e);
          out.digits(buf[off + 2]);
          out.byte(0x2e);
          out.digits(buf[off + 3]);
        } else {
          out.ascii(formatIP(buf, off, len));
        }
        return;
      case ID.Net:
        out.ascii(formatNet(buf, off, len));
        return;
      case ID.Bytes: {
        out.ensure(2 + len * 2);
        const ob = out.buf;
        let p = out.len;
        ob[p++] = 0x30;
        ob[p++] = 0x78;
        for (let i = 0; i < len; i++) {
          const c = buf[off + i];
          ob[p++] = hexDigits.charCodeAt(c >> 4);
          ob[p++] = hexDigits.charCodeAt(c & 15);
        }
        out.len = p;
        return;
      }
      case ID.Type:
        out.byte(0x3c);
        this.formatTypeValue(indent, buf, off, off + len);
        out.byte(0x3e);
        return;
      default:
        out.ascii('null');
    }
  }

  /** A type in a decorator: names defined where first seen, as written by the reference. */
  private formatType(t: Type): void {
    const out = this.out;
    const name = this.nameOf(t);
    if (name !== undefined) {
      this.rawName(name);
      return;
    }
    if (t instanceof TypeNamed) {
      this.saveType(t);
      this.rawName(t.name);
      out.byte(0x3d);
      this.formatType(t.type);
      return;
    }
    if (t instanceof TypePrimitive) {
      out.ascii(t.name);
    } else if (t instanceof TypeRecord) {
      out.byte(0x7b);
      t.fields.forEach((f, i) => {
        if (i > 0) out.byte(0x2c);
        out.utf8(quotedName(f.name));
        out.byte(0x3a);
        this.formatType(f.type);
      });
      out.byte(0x7d);
    } else if (t instanceof TypeArray) {
      out.byte(0x5b);
      this.formatType(t.type);
      out.byte(0x5d);
    } else if (t instanceof TypeSet) {
      out.ascii('|[');
      this.formatType(t.type);
      out.ascii(']|');
    } else if (t instanceof TypeMap) {
      out.ascii('|{');
      this.formatType(t.keyType);
      out.byte(0x3a);
      this.formatType(t.valType);
      out.ascii('}|');
    } else if (t instanceof TypeUnion) {
      out.byte(0x28);
      t.types.forEach((u, i) => {
        if (i > 0) out.byte(0x2c);
        this.formatType(u);
      });
      out.byte(0x29);
    } else if (t instanceof TypeEnum) {
      out.utf8('enum(' + t.symbols.map(quotedName).join(',') + ')');
    } else if (t instanceof TypeErr) {
      // The reference writes an error's inner type on its own, apart from
      // the value's definitions.
      out.utf8('error(' + canonicalType(t.type) + ')');
    }
  }

  /**
   * Writes a type value's encoding buf[off, end) as the reference does:
   * spread over indented lines when pretty, names of definitions and
   * references written as they are. Returns the offset after the type.
   */
  private formatTypeValue(indent: number, buf: Uint8Array, off: number, end: number): number {
    const out = this.out;
    const tab = this.tab;
    const nl = this.pretty;
    if (off >= end) {
      out.ascii('<ERR truncated type value>');
      return end;
    }
    const code = buf[off++];
    const name = (): string | undefined => {
      const n = readUvarint(buf, off, end);
      if (n < 0 || uv.end + n > end) return undefined;
      const s = decodeUTF8Go(buf, uv.end, uv.end + n);
      off = uv.end + n;
      return s;
    };
    const count = (): number => {
      const n = readUvarint(buf, off, end);
      if (n >= 0) off = uv.end;
      return n;
    };
    const trunc = (): number => {
      out.ascii('<ERR truncated type value>');
      return end;
    };
    switch (code) {
      case 30: {
        out.byte(0x7b);
        const n = count();
        if (n < 0) return trunc();
        if (n === 0) {
          out.byte(0x7d);
          return off;
        }
        indent += tab;
        for (let k = 0; k < n; k++) {
          if (k > 0) out.byte(0x2c);
          if (nl) out.byte(0x0a);
          const f = name();
          if (f === undefined) return trunc();
          out.spaces(indent);
          out.utf8(quotedName(f));
          out.byte(0x3a);
          if (nl) out.byte(0x20);
          off = this.formatTypeValue(indent, buf, off, end);
        }
        if (nl) out.byte(0x0a);
        out.spaces(indent - tab);
        out.byte(0x7d);
        return off;
      }
      case 31:
      case 32: {
        const set = code === 32;
        out.ascii(set ? '|[' : '[');
        if (off < end && buf[off] < 30) {
          off = this.formatTypeValue(indent, buf, off, end);
        } else {
          indent += tab;
          if (nl) out.byte(0x0a);
          out.spaces(indent);
          off = this.formatTypeValue(indent, buf, off, end);
          if (nl) out.byte(0x0a);
          out.spaces(indent - tab);
        }
        out.ascii(set ? ']|' : ']');
        return off;
      }
      case 33: {
        out.ascii('|{');
        let newline = nl;
        indent += tab;
        if (off < end && buf[off] < 30 && (off + 1 >= end || buf[off + 1] < 30)) {
          // Primitive key and value types stay on one line.
          indent -= tab;
          newline = false;
        }
        if (newline) out.byte(0x0a);
        out.spaces(indent);
        off = this.formatTypeValue(indent, buf, off, end);
        out.byte(0x3a);
        if (nl) out.byte(0x20);
        off = this.formatTypeValue(indent, buf, off, end);
        if (newline) {
          out.byte(0x0a);
          out.spaces(indent - tab);
        }
        out.ascii('}|');
        return off;
      }
      case 34: {
        out.byte(0x28);
        const n = count();
        if (n < 0) return trunc();
        indent += tab;
        for (let k = 0; k < n; k++) {
          if (k > 0) out.byte(0x2c);
          if (nl) out.byte(0x0a);
          out.spaces(indent);
          off = this.formatTypeValue(indent, buf, off, end);
        }
        if (nl) out.byte(0x0a);
        out.spaces(indent - tab);
        out.byte(0x29);
        return off;
      }
      case 35: {
        out.ascii('enum(');
        const n = count();
        if (n < 0) return trunc();
        for (let k = 0; k < n; k++) {
          if (k > 0) out.byte(0x2c);
          const s = name();
          if (s === undefined) return trunc();
          out.utf8(quotedName(s));
        }
        out.byte(0x29);
        return off;
      }
      case 36:
        out.ascii('error(');
        off = this.formatTypeValue(indent, buf, off, end);
        out.byte(0x29);
        return off;
      case 37:
      case 38: {
        const start = off - 1;
        const s = name();
        if (s === undefined) return trunc();
        out.utf8(s);
        if (code === 38) return off;
        out.byte(0x3d);
        off = this.formatTypeValue(indent, buf, off, end);
        this.redefined(s, buf, start, off);
        return off;
      }
      default: {
        const p = primitiveById(code);
        if (!p) {
          out.ascii(`<ERR bad type ID in type value: unknown type id: ${code}>`);
          return end;
        }
        out.ascii(p.name);
        return off;
      }
    }
  }
}

// The body of the child nextChild read last.
const child = { off: 0, len: 0 };

/** Reads the tagged child at buf[p] into `child`; returns the offset after it. */
function nextChild(buf: Uint8Array, p: number, end: number): number {
  const tag = readUvarint(buf, p, end);
  if (tag < 0) throw new Error('truncated container value');
  child.off = uv.end;
  child.len = tag - 1;
  const next = uv.end + (tag > 0 ? tag - 1 : 0);
  if (next > end) throw new Error('truncated container value');
  return next;
}

/**
 * The elements of an array, set or map side: a union element is written as
 * its member (a null one as null), and the members seen are noted, as the
 * reference's formatter does.
 */
class Elems {
  private readonly union: TypeUnion | null;
  private seen: Set<Type> | null = null;
  /** What add() found: the type and body to write. */
  type: Type;
  off = 0;
  len = 0;

  constructor(private readonly elemType: Type) {
    this.union = elemType.under instanceof TypeUnion ? elemType.under : null;
    this.type = elemType;
  }

  add(buf: Uint8Array, off: number, len: number): void {
    if (this.union === null) {
      this.off = off;
      this.len = len;
    } else if (len < 0) {
      this.type = TypeNull;
      this.len = len;
    } else {
      [this.type, this.off, this.len] = untag(this.union, buf, off, len);
      (this.seen ??= new Set()).add(this.type);
    }
  }

  /** True when the container must show its type: its union's name or some members went unseen. */
  needsDecoration(): boolean {
    const u = this.union;
    return (
      u !== null && (this.elemType instanceof TypeNamed || (this.seen?.size ?? 0) < u.types.length)
    );
  }
}

/** The member type and body of a non-null union value. */
function untag(u: TypeUnion, buf: Uint8Array, off: number, len: number): [Type, number, number] {
  if (len < 0) return [u, off, len];
  const end = off + len;
  const ttag = readUvarint(buf, off, end);
  if (ttag <= 0) throw new Error('bad union value');
  const tlen = ttag - 1;
  const tag = decodeInt(buf, uv.end, tlen);
  let p = uv.end + tlen;
  if (tag < 0 || tag >= u.types.length || p > end)
    throw new Error(`union tag out of range: ${tag}`);
  const vtag = readUvarint(buf, p, end);
  if (vtag < 0) throw new Error('bad union value');
  p = uv.end;
  const vlen = vtag - 1;
  if (p + (vlen > 0 ? vlen : 0) > end) throw new Error('bad union value');
  return [u.types[tag], p, vlen];
}
