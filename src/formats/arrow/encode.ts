// Zed → Arrow: the reference's Arrow writer type mapping (names such as
// arrow_timestamp_us select Arrow types the Zed type system lacks) and
// column builders that fill Arrow buffers straight from zcode bodies.

import * as A from 'apache-arrow';
import { compareTypes as sameArrowType } from 'apache-arrow/visitor/typecomparator';
import { formatIP, formatNet } from '../../zed/ipnet';
import { decodeInt, decodeUint } from '../../zed/primitive';
import { formatType } from '../../zed/typestring';
import {
  Field,
  ID,
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
  TypeUint64,
} from '../../zed/types';
import { TypeContext } from '../../zed/context';
import { Value } from '../../zed/value';
import { readUvarint, uv, ZcodeError } from '../../zed/zcode';
import { decimal128Fields, dayTimeIntervalFields, monthDayNanoIntervalFields } from './decode';
import { divInt64, readInt64Words, readUint64Words, w } from './int64';

/** Formats a value as ZSON (for error values written as strings). */
export type ValueFormatter = (v: Value) => string;

export class UnsupportedZedType extends Error {}

const utf8 = new TextEncoder();

/** A growable byte buffer. */
class Bytes {
  buf = new Uint8Array(1024);
  len = 0;

  reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const nb = new Uint8Array(size);
    nb.set(this.buf.subarray(0, this.len));
    this.buf = nb;
  }

  take(): Uint8Array {
    const out = this.buf.slice(0, this.len);
    this.len = 0;
    return out;
  }
}

/** A growable array of 32-bit words. */
class Words {
  buf = new Int32Array(256);
  len = 0;

  push(v: number): void {
    if (this.len === this.buf.length) {
      const nb = new Int32Array(this.buf.length * 2);
      nb.set(this.buf);
      this.buf = nb;
    }
    this.buf[this.len++] = v;
  }

  take(): Int32Array {
    const out = this.buf.slice(0, this.len);
    this.len = 0;
    return out;
  }
}

/** A column under construction. */
export abstract class Col {
  length = 0;
  nullCount = 0;
  private valid = new Bytes();

  constructor(readonly type: A.DataType) {}

  /** Appends a body (len -1 for null). */
  append(buf: Uint8Array, off: number, len: number): void {
    const i = this.length++;
    if ((i & 7) === 0) {
      this.valid.reserve(1);
      this.valid.buf[this.valid.len++] = 0;
    }
    if (len < 0) {
      this.nullCount++;
      this.pushNull();
    } else {
      this.valid.buf[i >> 3] |= 1 << (i & 7);
      this.pushValue(buf, off, len);
    }
  }

  protected abstract pushValue(buf: Uint8Array, off: number, len: number): void;
  protected abstract pushNull(): void;
  protected abstract build(
    length: number,
    nullCount: number,
    nullBitmap: Uint8Array | undefined,
  ): A.Data;

  /** The column so far as Arrow data; the column starts over empty. */
  finish(): A.Data {
    const n = this.length;
    const nulls = this.nullCount;
    const bitmap = this.valid.take();
    this.length = 0;
    this.nullCount = 0;
    return this.build(n, nulls, nulls > 0 ? bitmap : undefined);
  }
}

class NullCol extends Col {
  constructor() {
    super(new A.Null());
  }
  protected pushValue(): void {}
  protected pushNull(): void {}
  protected build(length: number): A.Data {
    // An all-zero validity bitmap (never written: Null columns have no
    // buffers) keeps the null count right when apache-arrow slices this
    // data inside a list, where it would otherwise write -1.
    const validity = new Uint8Array((length + 7) >> 3);
    return new A.Data(this.type as A.Null, 0, length, length, {
      [A.BufferType.VALIDITY]: validity,
    });
  }
}

/** Fixed-width columns stored as 32-bit words (stride words per value). */
class WordCol extends Col {
  protected words = new Words();

  constructor(
    type: A.DataType,
    private stride: number,
    private put: (words: Words, buf: Uint8Array, off: number, len: number) => void,
  ) {
    super(type);
  }

  protected pushValue(buf: Uint8Array, off: number, len: number): void {
    this.put(this.words, buf, off, len);
  }

  protected pushNull(): void {
    for (let k = 0; k < this.stride; k++) this.words.push(0);
  }

  protected build(length: number, nullCount: number, nullBitmap?: Uint8Array): A.Data {
    const raw = this.words.take();
    const T = (
      this.type as { ArrayType: new (b: ArrayBufferLike, o: number, n: number) => ArrayBufferView }
    ).ArrayType;
    const bytesPer = (T as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
    const data = new T(raw.buffer, 0, raw.byteLength / bytesPer);
    return A.makeData({ type: this.type, length, nullCount, nullBitmap, data } as never);
  }
}

/** Columns of 8-, 16- or 32-bit integers (or floats) in their own typed array. */
class SmallCol extends Col {
  private vals:
    | Int32Array
    | Float32Array
    | Float64Array
    | Int8Array
    | Int16Array
    | Uint8Array
    | Uint16Array
    | Uint32Array;
  private n = 0;

  constructor(
    type: A.DataType,
    private make: (n: number) => SmallCol['vals'],
    private get: (buf: Uint8Array, off: number, len: number) => number,
  ) {
    super(type);
    this.vals = make(256);
  }

  protected pushValue(buf: Uint8Array, off: number, len: number): void {
    this.grow();
    this.vals[this.n++] = this.get(buf, off, len);
  }

  protected pushNull(): void {
    this.grow();
    this.vals[this.n++] = 0;
  }

  private grow(): void {
    if (this.n < this.vals.length) return;
    const nv = this.make(this.vals.length * 2);
    nv.set(this.vals as never);
    this.vals = nv;
  }

  protected build(length: number, nullCount: number, nullBitmap?: Uint8Array): A.Data {
    const data = this.vals.slice(0, this.n);
    this.n = 0;
    return A.makeData({ type: this.type, length, nullCount, nullBitmap, data } as never);
  }
}

class BoolCol extends Col {
  private bits = new Bytes();

  constructor() {
    super(new A.Bool());
  }

  private push(bit: boolean): void {
    const i = this.length - 1;
    if ((i & 7) === 0) {
      this.bits.reserve(1);
      this.bits.buf[this.bits.len++] = 0;
    }
    if (bit) this.bits.buf[i >> 3] |= 1 << (i & 7);
  }

  protected pushValue(buf: Uint8Array, off: number, len: number): void {
    this.push(len > 0 && buf[off] !== 0);
  }

  protected pushNull(): void {
    this.push(false);
  }

  protected build(length: number, nullCount: number, nullBitmap?: Uint8Array): A.Data {
    return A.makeData({
      type: this.type as A.Bool,
      length,
      nullCount,
      nullBitmap,
      data: this.bits.take(),
    });
  }
}

/** Utf8/Binary (and Large) columns; `text` turns a body into the bytes to store. */
class VarCol extends Col {
  private data = new Bytes();
  private offs: number[] = [0];

  constructor(
    type: A.DataType,
    private text?: (buf: Uint8Array, off: number, len: number) => Uint8Array,
  ) {
    super(type);
  }

  protected pushValue(buf: Uint8Array, off: number, len: number): void {
    if (this.text) {
      const b = this.text(buf, off, len);
      buf = b;
      off = 0;
      len = b.length;
    }
    const d = this.data;
    d.reserve(len);
    d.buf.set(buf.subarray(off, off + len), d.len);
    d.len += len;
    this.offs.push(d.len);
  }

  protected pushNull(): void {
    this.offs.push(this.data.len);
  }

  protected build(length: number, nullCount: number, nullBitmap?: Uint8Array): A.Data {
    const large = this.type.typeId === A.Type.LargeUtf8 || this.type.typeId === A.Type.LargeBinary;
    const valueOffsets = large
      ? BigInt64Array.from(this.offs, (x) => BigInt(x))
      : Int32Array.from(this.offs);
    this.offs = [0];
    const data = this.data.take();
    return A.makeData({
      type: this.type,
      length,
      nullCount,
      nullBitmap,
      valueOffsets,
      data,
    } as never);
  }
}

class FixedBinaryCol extends Col {
  private data = new Bytes();

  constructor(private width: number) {
    super(new A.FixedSizeBinary(width));
  }

  protected pushValue(buf: Uint8Array, off: number, len: number): void {
    const d = this.data;
    d.reserve(this.width);
    const n = Math.min(len, this.width);
    d.buf.set(buf.subarray(off, off + n), d.len);
    d.buf.fill(0, d.len + n, d.len + this.width);
    d.len += this.width;
  }

  protected pushNull(): void {
    this.data.reserve(this.width);
    this.data.buf.fill(0, this.data.len, this.data.len + this.width);
    this.data.len += this.width;
  }

  protected build(length: number, nullCount: number, nullBitmap?: Uint8Array): A.Data {
    return A.makeData({
      type: this.type as A.FixedSizeBinary,
      length,
      nullCount,
      nullBitmap,
      data: this.data.take(),
    });
  }
}

/** List, LargeList, FixedSizeList (child count per value is the body's), Map. */
class ListCol extends Col {
  private offs: number[] = [0];
  private count = 0;

  constructor(
    type: A.DataType,
    private kids: Col[],
    private zedElem: Type[],
  ) {
    super(type);
  }

  protected pushValue(buf: Uint8Array, off: number, len: number): void {
    const end = off + len;
    const kids = this.kids;
    const nk = kids.length;
    let k = 0;
    for (let p = off; p < end;) {
      const tag = readUvarint(buf, p, end);
      if (tag < 0) throw new ZcodeError('truncated tag');
      const s = uv.end;
      const n = tag - 1;
      kids[k].append(buf, s, n);
      p = s + (n < 0 ? 0 : n);
      if (++k === nk) {
        k = 0;
        this.count++;
      }
    }
    if (k !== 0) throw new ZcodeError('truncated map body');
    this.offs.push(this.count);
  }

  protected pushNull(): void {
    if (this.type.typeId === A.Type.FixedSizeList) {
      const size = (this.type as A.FixedSizeList).listSize;
      for (let i = 0; i < size; i++) this.kids[0].append(EMPTY, 0, -1);
      this.count += size;
    }
    this.offs.push(this.count);
  }

  protected build(length: number, nullCount: number, nullBitmap?: Uint8Array): A.Data {
    const t = this.type;
    const kidData = this.kids.map((k) => k.finish());
    const offs = this.offs;
    this.offs = [0];
    this.count = 0;
    if (t.typeId === A.Type.FixedSizeList) {
      const size = (t as A.FixedSizeList).listSize;
      for (let i = 1; i < offs.length; i++) {
        if (offs[i] - offs[i - 1] !== size) {
          throw new UnsupportedZedType(
            `array of ${offs[i] - offs[i - 1]} elements for ${formatType(this.zedElem[0])} list of size ${size}`,
          );
        }
      }
      return A.makeData({
        type: t as A.FixedSizeList,
        length,
        nullCount,
        nullBitmap,
        child: kidData[0],
      });
    }
    if (t.typeId === A.Type.Map) {
      const entryType = (t as A.Map_).children[0].type;
      const child = A.makeData({
        type: entryType,
        length: kidData[0].length,
        nullCount: 0,
        children: kidData,
      });
      return A.makeData({
        type: t as A.Map_,
        length,
        nullCount,
        nullBitmap,
        valueOffsets: Int32Array.from(offs),
        child,
      });
    }
    if (t.typeId === A.Type.LargeList) {
      const valueOffsets = BigInt64Array.from(offs, (x) => BigInt(x));
      return A.makeData({
        type: t as A.LargeList,
        length,
        nullCount,
        nullBitmap,
        valueOffsets,
        child: kidData[0],
      } as never);
    }
    return A.makeData({
      type: t as A.List,
      length,
      nullCount,
      nullBitmap,
      valueOffsets: Int32Array.from(offs),
      child: kidData[0],
    });
  }
}

const EMPTY = new Uint8Array(0);

class StructCol extends Col {
  constructor(
    type: A.DataType,
    readonly kids: Col[],
  ) {
    super(type);
  }

  protected pushValue(buf: Uint8Array, off: number, len: number): void {
    appendFields(this.kids, buf, off, off + len);
  }

  protected pushNull(): void {
    for (const k of this.kids) k.append(EMPTY, 0, -1);
  }

  protected build(length: number, nullCount: number, nullBitmap?: Uint8Array): A.Data {
    const children = this.kids.map((k) => k.finish());
    return A.makeData({ type: this.type as A.Struct, length, nullCount, nullBitmap, children });
  }
}

/** Appends the fields of a record body to the columns, missing fields as nulls. */
export function appendFields(kids: Col[], buf: Uint8Array, off: number, end: number): void {
  let p = off;
  for (let k = 0; k < kids.length; k++) {
    if (p >= end) {
      kids[k].append(EMPTY, 0, -1);
      continue;
    }
    const tag = readUvarint(buf, p, end);
    if (tag < 0) throw new ZcodeError('truncated tag');
    const s = uv.end;
    const n = tag - 1;
    kids[k].append(buf, s, n);
    p = s + (n < 0 ? 0 : n);
  }
}

class UnionCol extends Col {
  private typeIds: number[] = [];
  private offs: number[] = [];

  constructor(
    type: A.DataType,
    private kids: Col[],
    private codes: number[],
  ) {
    super(type);
  }

  // Arrow unions have no validity bitmap: a null goes to the first member.
  override append(buf: Uint8Array, off: number, len: number): void {
    this.length++;
    if (len < 0) {
      this.typeIds.push(0);
      this.offs.push(this.kids[0].length);
      this.kids[0].append(EMPTY, 0, -1);
      return;
    }
    const end = off + len;
    let tag = readUvarint(buf, off, end);
    if (tag < 0) throw new ZcodeError('truncated union');
    const tlen = tag - 1;
    const tagVal = decodeInt(buf, uv.end, tlen);
    let p = uv.end + tlen;
    tag = readUvarint(buf, p, end);
    if (tag < 0 || tagVal < 0 || tagVal >= this.codes.length)
      throw new ZcodeError('bad union body');
    p = uv.end;
    const code = this.codes[tagVal];
    this.typeIds.push(code);
    this.offs.push(this.kids[code].length);
    this.kids[code].append(buf, p, tag - 1);
  }

  protected pushValue(): void {}
  protected pushNull(): void {}

  protected build(length: number): A.Data {
    const children = this.kids.map((k) => k.finish());
    const typeIds = Int8Array.from(this.typeIds);
    const valueOffsets = Int32Array.from(this.offs);
    this.typeIds = [];
    this.offs = [];
    return A.makeData({
      type: this.type as A.DenseUnion,
      length,
      nullCount: 0,
      typeIds,
      valueOffsets,
      children,
    });
  }
}

function int64Col(type: A.DataType, signed: boolean, div = 1): Col {
  return new WordCol(type, 2, (ws, buf, off, len) => {
    if (signed) readInt64Words(buf, off, len);
    else readUint64Words(buf, off, len);
    if (div !== 1) divInt64(w.lo, w.hi, div);
    ws.push(w.lo);
    ws.push(w.hi);
  });
}

function floorDiv(buf: Uint8Array, off: number, len: number, k: number): void {
  readInt64Words(buf, off, len);
  const lo = w.lo;
  const hi = w.hi;
  divInt64(lo, hi, k);
  // Truncation rounds negatives up; step back to the floor when inexact.
  if (hi < 0) {
    const qlo = w.lo;
    const qhi = w.hi;
    // q*k == v ?  compare via multiplication-free check: (v - q*k) != 0
    const back = BigInt.asIntN(64, ((BigInt(qhi) << 32n) | BigInt(qlo >>> 0)) * BigInt(k));
    const v = (BigInt(hi) << 32n) | BigInt(lo >>> 0);
    if (back !== v) {
      const q = ((BigInt(qhi) << 32n) | BigInt(qlo >>> 0)) - 1n;
      w.lo = Number(BigInt.asUintN(32, q)) | 0;
      w.hi = Number(BigInt.asIntN(32, q >> 32n));
    }
  }
}

const timeUnitOfName: Record<string, [A.TimeUnit, number]> = {
  s: [A.TimeUnit.SECOND, 1_000_000_000],
  ms: [A.TimeUnit.MILLISECOND, 1_000_000],
  us: [A.TimeUnit.MICROSECOND, 1_000],
};

function fieldsEqual(a: readonly Field[], b: Field[]): boolean {
  return a.length === b.length && a.every((f, i) => f.name === b[i].name && f.type === b[i].type);
}

/**
 * Builds columns for Zed types. `formatValue` renders error values, which
 * the reference writes as their ZSON text.
 */
export class ColumnFactory {
  /** Where type values are decoded to be written as text. */
  private ctx = new TypeContext();

  constructor(private formatValue: ValueFormatter) {}

  /** A column for values of Zed type t (the reference's newArrowDataType). */
  make(t: Type): Col {
    let name = '';
    if (t instanceof TypeNamed) {
      name = t.name;
      t = t.under;
    }
    if (t instanceof TypePrimitive) return this.primitive(t, name);
    if (t instanceof TypeRecord) {
      if (t.fields.length === 0) throw new UnsupportedZedType('empty record');
      const special = this.specialRecord(t, name);
      if (special) return special;
      const kids = t.fields.map((f) => this.make(f.type));
      const st = new A.Struct(t.fields.map((f, i) => new A.Field(f.name, kids[i].type, true)));
      return new StructCol(st, kids);
    }
    if (t instanceof TypeArray || t instanceof TypeSet) {
      const elem = this.make(t.type);
      const prefix = 'arrow_fixed_size_list_';
      if (name.startsWith(prefix)) {
        const n = goAtoi(name.slice(prefix.length));
        if (n !== undefined && n >= 0) {
          return new ListCol(
            new A.FixedSizeList(n, new A.Field('item', elem.type, true)),
            [elem],
            [t.type],
          );
        }
      } else if (name === 'arrow_decimal256' && t.type === TypeUint64) {
        return new WordCol(new A.Decimal(0, 76, 256), 8, (ws, buf, off, len) => {
          const end = off + len;
          let p = off;
          for (let k = 0; k < 4; k++) {
            let lo = 0;
            let hi = 0;
            if (p < end) {
              const tag = readUvarint(buf, p, end);
              if (tag < 0) throw new ZcodeError('truncated tag');
              p = uv.end;
              if (tag > 0) {
                readUint64Words(buf, p, tag - 1);
                lo = w.lo;
                hi = w.hi;
                p += tag - 1;
              }
            }
            ws.push(lo);
            ws.push(hi);
          }
        });
      } else if (name === 'arrow_large_list') {
        return new ListCol(new A.LargeList(new A.Field('item', elem.type, true)), [elem], [t.type]);
      }
      return new ListCol(new A.List(new A.Field('item', elem.type, true)), [elem], [t.type]);
    }
    if (t instanceof TypeMap) {
      const key = this.make(t.keyType);
      const val = this.make(t.valType);
      const entries = new A.Struct([
        new A.Field('key', key.type, false),
        new A.Field('value', val.type, true),
      ]);
      return new ListCol(
        new A.Map_(new A.Field('entries', entries, false)),
        [key, val],
        [t.keyType, t.valType],
      );
    }
    if (t instanceof TypeUnion) {
      if (t.types.length > 255) throw new UnsupportedZedType('union with more than 255 fields');
      const kids: Col[] = [];
      const codes: number[] = [];
      for (const u of t.types) {
        const c = this.make(u);
        const j = kids.findIndex((k) => sameArrowType(k.type, c.type));
        if (j >= 0) {
          codes.push(j);
          continue;
        }
        codes.push(kids.length);
        kids.push(c);
      }
      const ut = new A.DenseUnion(
        kids.map((_, i) => i),
        kids.map((k) => new A.Field('', k.type, true)),
      );
      return new UnionCol(ut, kids, codes);
    }
    if (t instanceof TypeEnum) {
      const symbols = t.symbols;
      return new VarCol(new A.Utf8(), (buf, off, len) => {
        const i = decodeUint(buf, off, len);
        if (i >= symbols.length) throw new ZcodeError(`enum index ${i} out of range`);
        return utf8.encode(symbols[i]);
      });
    }
    if (t instanceof TypeErr) {
      const et = t;
      return new VarCol(new A.Utf8(), (buf, off, len) =>
        utf8.encode(
          this.formatValue(
            new Value(et, Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength), off, len),
          ),
        ),
      );
    }
    throw new UnsupportedZedType(formatType(t));
  }

  private specialRecord(t: TypeRecord, name: string): Col | undefined {
    if (name === 'arrow_day_time_interval' && fieldsEqual(t.fields, dayTimeIntervalFields())) {
      return new WordCol(new A.IntervalDayTime(), 2, (ws, buf, off, len) => {
        const f = fieldInts(buf, off, len, 2);
        ws.push(decodeInt(buf, f[0], f[1]));
        ws.push(decodeUint(buf, f[2], f[3]));
      });
    }
    if (name === 'arrow_decimal128' && fieldsEqual(t.fields, decimal128Fields())) {
      return new WordCol(new A.Decimal(0, 38, 128), 4, (ws, buf, off, len) => {
        const f = fieldInts(buf, off, len, 2);
        readUint64Words(buf, f[2], f[3]);
        ws.push(w.lo);
        ws.push(w.hi);
        readInt64Words(buf, f[0], f[1]);
        ws.push(w.lo);
        ws.push(w.hi);
      });
    }
    if (
      name === 'arrow_month_day_nano_interval' &&
      fieldsEqual(t.fields, monthDayNanoIntervalFields())
    ) {
      return new WordCol(new A.IntervalMonthDayNano(), 4, (ws, buf, off, len) => {
        const f = fieldInts(buf, off, len, 3);
        ws.push(decodeInt(buf, f[0], f[1]));
        ws.push(decodeInt(buf, f[2], f[3]));
        readInt64Words(buf, f[4], f[5]);
        ws.push(w.lo);
        ws.push(w.hi);
      });
    }
    return undefined;
  }

  private primitive(t: TypePrimitive, name: string): Col {
    switch (t.id) {
      case ID.Uint8:
        return new SmallCol(new A.Uint8(), (n) => new Uint8Array(n), decodeUint);
      case ID.Uint16:
        return new SmallCol(new A.Uint16(), (n) => new Uint16Array(n), decodeUint);
      case ID.Uint32:
        return new SmallCol(new A.Uint32(), (n) => new Uint32Array(n), decodeUint);
      case ID.Uint64:
        return int64Col(new A.Uint64(), false);
      case ID.Int8:
        return new SmallCol(new A.Int8(), (n) => new Int8Array(n), decodeInt);
      case ID.Int16:
        return new SmallCol(new A.Int16(), (n) => new Int16Array(n), decodeInt);
      case ID.Int32:
        if (name === 'arrow_month_interval') {
          return new SmallCol(new A.IntervalYearMonth(), (n) => new Int32Array(n), decodeInt);
        }
        return new SmallCol(new A.Int32(), (n) => new Int32Array(n), decodeInt);
      case ID.Int64:
        return int64Col(new A.Int64(), true);
      case ID.Duration: {
        const m = /^arrow_duration_(s|ms|us)$/.exec(name);
        if (m) {
          const [unit, k] = timeUnitOfName[m[1]];
          return int64Col(new A.Duration(unit), true, k);
        }
        return int64Col(new A.Duration(A.TimeUnit.NANOSECOND), true);
      }
      case ID.Time:
        return this.time(name);
      case ID.Float16:
        return new SmallCol(
          new A.Float16(),
          (n) => new Uint16Array(n),
          (buf, off, len) => (len === 2 ? buf[off] | (buf[off + 1] << 8) : 0),
        );
      case ID.Float32:
        return new SmallCol(new A.Float32(), (n) => new Float32Array(n), readFloat);
      case ID.Float64:
        return new SmallCol(new A.Float64(), (n) => new Float64Array(n), readFloat);
      case ID.Bool:
        return new BoolCol();
      case ID.Bytes: {
        const prefix = 'arrow_fixed_size_binary_';
        if (name.startsWith(prefix)) {
          const n = goAtoi(name.slice(prefix.length));
          if (n !== undefined && n >= 0) return new FixedBinaryCol(n);
        } else if (name === 'arrow_large_binary') {
          return new VarCol(new A.LargeBinary());
        }
        return new VarCol(new A.Binary());
      }
      case ID.String:
        return new VarCol(name === 'arrow_large_string' ? new A.LargeUtf8() : new A.Utf8());
      case ID.IP:
        return new VarCol(new A.Utf8(), (buf, off, len) => utf8.encode(formatIP(buf, off, len)));
      case ID.Net:
        return new VarCol(new A.Utf8(), (buf, off, len) => utf8.encode(formatNet(buf, off, len)));
      case ID.Type:
        return new VarCol(new A.Utf8(), (buf, off, len) =>
          utf8.encode(formatType(this.ctx.lookupByValue(buf, off, len))),
        );
      case ID.Null:
        return new NullCol();
      default:
        throw new UnsupportedZedType(t.name);
    }
  }

  private time(name: string): Col {
    switch (name) {
      case 'arrow_date32':
        return new SmallCol(
          new A.DateDay(),
          (n) => new Int32Array(n),
          (buf, off, len) => {
            floorDiv(buf, off, len, 1_000_000_000);
            return Math.floor(((w.hi | 0) * 4294967296 + (w.lo >>> 0)) / 86400);
          },
        );
      case 'arrow_date64':
        return new WordCol(new A.DateMillisecond(), 2, (ws, buf, off, len) => {
          floorDiv(buf, off, len, 1_000_000_000);
          const days = Math.floor(((w.hi | 0) * 4294967296 + (w.lo >>> 0)) / 86400);
          const ms = BigInt(days) * 86_400_000n;
          ws.push(Number(BigInt.asUintN(32, ms)) | 0);
          ws.push(Number(BigInt.asIntN(32, ms >> 32n)));
        });
      case 'arrow_time32_s':
      case 'arrow_time32_ms': {
        const [unit, k] = timeUnitOfName[name.slice('arrow_time32_'.length)];
        return new SmallCol(
          new A.Time(unit, 32),
          (n) => new Int32Array(n),
          (buf, off, len) => {
            readInt64Words(buf, off, len);
            divInt64(w.lo, w.hi, k);
            return w.lo;
          },
        );
      }
      case 'arrow_time64_us':
        return int64Col(new A.Time(A.TimeUnit.MICROSECOND, 64), true, 1_000);
      case 'arrow_time64_ns':
        return int64Col(new A.Time(A.TimeUnit.NANOSECOND, 64), true);
    }
    const m = /^arrow_timestamp_(s|ms|us)$/.exec(name);
    if (m) {
      const [unit, k] = timeUnitOfName[m[1]];
      return int64Col(new A.Timestamp(unit, 'UTC'), true, k);
    }
    return int64Col(new A.Timestamp(A.TimeUnit.NANOSECOND, 'UTC'), true);
  }
}

const f64 = new Float64Array(1);
const f64b = new Uint8Array(f64.buffer);
const f32 = new Float32Array(1);
const f32b = new Uint8Array(f32.buffer);

function readFloat(buf: Uint8Array, off: number, len: number): number {
  if (len === 8) {
    for (let i = 0; i < 8; i++) f64b[i] = buf[off + i];
    return f64[0];
  }
  if (len === 4) {
    for (let i = 0; i < 4; i++) f32b[i] = buf[off + i];
    return f32[0];
  }
  return 0;
}

const fieldScratch: number[] = [];

/** Offsets and lengths of the first n fields of a record body (missing → length 0). */
function fieldInts(buf: Uint8Array, off: number, len: number, n: number): number[] {
  const end = off + len;
  let p = off;
  for (let k = 0; k < n; k++) {
    let s = p;
    let l = 0;
    if (p < end) {
      const tag = readUvarint(buf, p, end);
      if (tag < 0) throw new ZcodeError('truncated tag');
      s = uv.end;
      l = tag > 0 ? tag - 1 : 0;
      p = s + l;
    }
    fieldScratch[2 * k] = s;
    fieldScratch[2 * k + 1] = l;
  }
  return fieldScratch;
}

/** Go's strconv.Atoi for the digits of a type-name suffix. */
function goAtoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}
