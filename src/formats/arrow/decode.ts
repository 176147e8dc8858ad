// Arrow → Zed: the type mapping of the reference's Arrow reader, and
// per-column appenders that write zcode straight from Arrow's buffers.
//
// A Plan is built once per schema (the Zed type of every node and the union
// tag mappings); for each record batch the plan is bound to the batch's Data
// tree, giving one closure per column that appends row i's body to a
// Builder. Values are read from the typed arrays directly (64-bit ones as
// two 32-bit words), so the hot loop makes no JS value per cell.

import * as A from 'apache-arrow';
import { TypeContext } from '../../zed/context';
import { compareTypes } from '../../zed/compare';
import {
  Field,
  Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeFloat16,
  TypeFloat32,
  TypeFloat64,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  TypeNull,
  TypeString,
  TypeTime,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeUint8,
} from '../../zed/types';
import { Builder } from '../../zed/zcode';
import { appendInt64Words, appendUint64Words, mulInt64, numberToWords, w } from './int64';
import { normalizeMapBody } from './normalize';

export type Appender = (b: Builder, i: number) => void;

/** Thrown for Arrow types the reference does not read. */
export class UnsupportedArrowType extends Error {}

const unitNames = ['s', 'ms', 'us', 'ns'];
const unitFactor = [1_000_000_000, 1_000_000, 1_000, 1];

export const dayTimeIntervalFields = (): Field[] => [
  { name: 'days', type: TypeInt32 },
  { name: 'milliseconds', type: TypeUint32 },
];
export const decimal128Fields = (): Field[] => [
  { name: 'high', type: TypeInt64 },
  { name: 'low', type: TypeUint64 },
];
export const monthDayNanoIntervalFields = (): Field[] => [
  { name: 'month', type: TypeInt32 },
  { name: 'day', type: TypeInt32 },
  { name: 'nanoseconds', type: TypeInt64 },
];

/** A node of the decoding plan: an Arrow type and its Zed type. */
export class Plan {
  children: Plan[] = [];
  /** For unions: Arrow child index → Zed union tag. */
  tagMap: number[] = [];

  constructor(
    readonly arrow: A.DataType,
    readonly zed: Type,
  ) {}

  /** An appender for row i of data (which must have this plan's type). */
  bind(data: A.Data): Appender {
    const app = this.bindValue(data);
    const t = data.type;
    // Unions carry validity in their children; the rest in the bitmap.
    if (
      t.typeId === A.Type.Union ||
      t.typeId === A.Type.Null ||
      data.nullCount === 0 ||
      !data.nullBitmap
    ) {
      return app;
    }
    const bitmap = data.nullBitmap;
    const off = data.offset;
    return (b, i) => {
      const p = off + i;
      if ((bitmap[p >> 3] & (1 << (p & 7))) === 0) b.appendNull();
      else app(b, i);
    };
  }

  /** True when row i of data is null (for union members). */
  static isNull(data: A.Data, i: number): boolean {
    if (data.typeId === A.Type.Null) return true;
    if (data.typeId === A.Type.Union) return !data.getValid(i);
    if (data.nullCount === 0 || !data.nullBitmap) return false;
    const p = data.offset + i;
    return (data.nullBitmap[p >> 3] & (1 << (p & 7))) === 0;
  }

  private bindValue(data: A.Data): Appender {
    const t = data.type as A.DataType;
    switch (t.typeId) {
      case A.Type.Null:
        return (b) => b.appendNull();
      case A.Type.Bool: {
        const vals = data.values as Uint8Array;
        const off = data.offset;
        return (b, i) => {
          const p = off + i;
          b.grow(2);
          b.buf[b.len++] = 2;
          b.buf[b.len++] = (vals[p >> 3] >> (p & 7)) & 1;
        };
      }
      case A.Type.Int: {
        const it = t as A.Int;
        if (it.bitWidth === 64) {
          const v32 = words(data.values);
          if (it.isSigned) return (b, i) => appendInt64Words(b, v32[2 * i], v32[2 * i + 1]);
          return (b, i) => appendUint64Words(b, v32[2 * i], v32[2 * i + 1]);
        }
        const vals = data.values as Int32Array;
        if (it.isSigned) return (b, i) => b.appendInt(vals[i]);
        return (b, i) => b.appendUint(vals[i]);
      }
      case A.Type.Float: {
        const ft = t as A.Float;
        const width =
          ft.precision === A.Precision.HALF ? 2 : ft.precision === A.Precision.SINGLE ? 4 : 8;
        return fixedBytes(data, width);
      }
      case A.Type.Utf8:
      case A.Type.Binary:
        return varBytes(data, false);
      case A.Type.LargeUtf8:
      case A.Type.LargeBinary:
        return varBytes(data, true);
      case A.Type.FixedSizeBinary:
        return fixedBytes(data, (t as A.FixedSizeBinary).byteWidth);
      case A.Type.Date: {
        if ((t as A.Date_).unit === A.DateUnit.DAY) {
          const vals = data.values as Int32Array;
          return (b, i) => {
            numberToWords(vals[i] * 86400);
            mulInt64(w.lo, w.hi, 1_000_000_000);
            appendInt64Words(b, w.lo, w.hi);
          };
        }
        return scaled64(data, 1_000_000);
      }
      case A.Type.Timestamp:
        return scaled64(data, unitFactor[(t as A.Timestamp).unit]);
      case A.Type.Time: {
        const tt = t as A.Time;
        const k = unitFactor[tt.unit];
        if (tt.bitWidth === 32) {
          const vals = data.values as Int32Array;
          return (b, i) => {
            numberToWords(vals[i]);
            mulInt64(w.lo, w.hi, k);
            appendInt64Words(b, w.lo, w.hi);
          };
        }
        return scaled64(data, k);
      }
      case A.Type.Duration:
        return scaled64(data, unitFactor[(t as A.Duration).unit]);
      case A.Type.Interval: {
        const unit = (t as A.Interval).unit;
        const v32 = data.values as Int32Array;
        if (unit === A.IntervalUnit.YEAR_MONTH) return (b, i) => b.appendInt(v32[i]);
        if (unit === A.IntervalUnit.DAY_TIME) {
          return (b, i) => {
            b.beginContainer();
            b.appendInt(v32[2 * i]);
            b.appendUint(v32[2 * i + 1] >>> 0);
            b.endContainer();
          };
        }
        return (b, i) => {
          b.beginContainer();
          b.appendInt(v32[4 * i]);
          b.appendInt(v32[4 * i + 1]);
          appendInt64Words(b, v32[4 * i + 2], v32[4 * i + 3]);
          b.endContainer();
        };
      }
      case A.Type.Decimal: {
        const dt = t as A.Decimal;
        const v32 = data.values as Uint32Array;
        if (dt.bitWidth === 128) {
          return (b, i) => {
            b.beginContainer();
            appendInt64Words(b, v32[4 * i + 2], v32[4 * i + 3] | 0);
            appendUint64Words(b, v32[4 * i], v32[4 * i + 1]);
            b.endContainer();
          };
        }
        return (b, i) => {
          b.beginContainer();
          for (let k = 0; k < 4; k++)
            appendUint64Words(b, v32[8 * i + 2 * k], v32[8 * i + 2 * k + 1]);
          b.endContainer();
        };
      }
      case A.Type.List:
      case A.Type.LargeList:
      case A.Type.Map: {
        const offs = data.valueOffsets as Int32Array | BigInt64Array;
        const large = offs instanceof BigInt64Array;
        const o32 = large ? words(offs) : (offs as Int32Array);
        if (t.typeId === A.Type.Map) {
          const entries = data.children[0];
          const key = this.children[0].bind(entries.children[0]);
          const val = this.children[1].bind(entries.children[1]);
          return (b, i) => {
            b.beginContainer();
            const start = b.len;
            for (let j = o32[i], end = o32[i + 1]; j < end; j++) {
              key(b, j);
              val(b, j);
            }
            normalizeMapBody(b, start);
            b.endContainer();
          };
        }
        const elem = this.children[0].bind(data.children[0]);
        if (large) {
          return (b, i) => {
            b.beginContainer();
            for (let j = o32[2 * i], end = o32[2 * i + 2]; j < end; j++) elem(b, j);
            b.endContainer();
          };
        }
        return (b, i) => {
          b.beginContainer();
          for (let j = o32[i], end = o32[i + 1]; j < end; j++) elem(b, j);
          b.endContainer();
        };
      }
      case A.Type.FixedSizeList: {
        const size = (t as A.FixedSizeList).listSize;
        const elem = this.children[0].bind(data.children[0]);
        return (b, i) => {
          b.beginContainer();
          for (let j = i * size, end = j + size; j < end; j++) elem(b, j);
          b.endContainer();
        };
      }
      case A.Type.Struct: {
        const fields = this.children.map((c, k) => c.bind(data.children[k]));
        const n = fields.length;
        return (b, i) => {
          b.beginContainer();
          for (let k = 0; k < n; k++) fields[k](b, i);
          b.endContainer();
        };
      }
      case A.Type.Union: {
        const ut = t as A.Union;
        const dense = ut.mode === A.UnionMode.Dense;
        const typeIds = data.typeIds as Int8Array;
        const offs = data.valueOffsets as Int32Array;
        const childOf = ut.typeIdToChildIndex;
        const kids = data.children;
        const apps = this.children.map((c, k) => c.bind(kids[k]));
        const tags = this.tagMap;
        return (b, i) => {
          const c = childOf[typeIds[i]];
          const j = dense ? offs[i] : i;
          if (Plan.isNull(kids[c], j)) {
            b.appendNull();
            return;
          }
          b.beginContainer();
          b.appendInt(tags[c]);
          apps[c](b, j);
          b.endContainer();
        };
      }
      case A.Type.Dictionary: {
        const vals = data.values as Int32Array | BigInt64Array;
        const idx =
          vals instanceof BigInt64Array || vals instanceof BigUint64Array ? words(vals) : vals;
        const stride = idx === vals ? 1 : 2;
        const chunks = data.dictionary?.data ?? [];
        const apps = chunks.map((d) => this.children[0].bind(d));
        const starts: number[] = [];
        let n = 0;
        for (const d of chunks) {
          starts.push(n);
          n += d.length;
        }
        return (b, i) => {
          let k = idx[stride * i];
          let c = 0;
          while (c + 1 < starts.length && k >= starts[c + 1]) c++;
          k -= starts[c] ?? 0;
          if (c >= apps.length || k < 0 || k >= chunks[c].length)
            throw new RangeError('dictionary index out of range');
          if (Plan.isNull(chunks[c], k)) b.appendNull();
          else apps[c](b, k);
        };
      }
      default:
        throw new UnsupportedArrowType(`unimplemented Arrow type: ${arrowTypeName(t)}`);
    }
  }
}

function words(arr: ArrayLike<unknown> & ArrayBufferView): Int32Array {
  if (arr.byteOffset % 4 === 0)
    return new Int32Array(arr.buffer, arr.byteOffset, arr.byteLength >> 2);
  const copy = new Uint8Array(arr.byteLength);
  copy.set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength));
  return new Int32Array(copy.buffer);
}

function bytesOf(arr: ArrayBufferView): Uint8Array {
  return arr instanceof Uint8Array
    ? arr
    : new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
}

/** Fixed-width values whose zcode body is their little-endian bytes. */
function fixedBytes(data: A.Data, width: number): Appender {
  const bytes = bytesOf(data.values as ArrayBufferView);
  return (b, i) => {
    b.grow(width + 1);
    const buf = b.buf;
    let p = b.len;
    buf[p++] = width + 1;
    const s = i * width;
    for (let k = 0; k < width; k++) buf[p++] = bytes[s + k];
    b.len = p;
  };
}

function varBytes(data: A.Data, large: boolean): Appender {
  const bytes = data.values as Uint8Array;
  if (large) {
    const o32 = words(data.valueOffsets as BigInt64Array);
    return (b, i) => {
      const s = o32[2 * i];
      b.append(bytes, s, o32[2 * i + 2] - s);
    };
  }
  const offs = data.valueOffsets as Int32Array;
  return (b, i) => {
    const s = offs[i];
    b.append(bytes, s, offs[i + 1] - s);
  };
}

/** 64-bit counts of a unit, converted to nanoseconds. */
function scaled64(data: A.Data, k: number): Appender {
  const v32 = words(data.values as BigInt64Array);
  if (k === 1) return (b, i) => appendInt64Words(b, v32[2 * i], v32[2 * i + 1]);
  return (b, i) => {
    mulInt64(v32[2 * i], v32[2 * i + 1], k);
    appendInt64Words(b, w.lo, w.hi);
  };
}

/** Arrow's name for a type, as Go's DataType.Name() spells it. */
export function arrowTypeName(t: A.DataType): string {
  switch (t.typeId) {
    case A.Type.Utf8View:
      return 'utf8_view';
    case A.Type.BinaryView:
      return 'binary_view';
    default:
      return String(t);
  }
}

/**
 * The reference's Zed type for an Arrow type, as a plan node. Unions map
 * to a union of the distinct Zed member types in the reference's type order.
 */
export function planFor(ctx: TypeContext, t: A.DataType): Plan {
  const named = (name: string, inner: Type) => new Plan(t, ctx.lookupTypeNamed(name, inner));
  switch (t.typeId) {
    case A.Type.Null:
      return new Plan(t, TypeNull);
    case A.Type.Bool:
      return new Plan(t, TypeBool);
    case A.Type.Int: {
      const it = t as A.Int;
      const types: Record<number, Type> = it.isSigned
        ? { 8: TypeInt8, 16: TypeInt16, 32: TypeInt32, 64: TypeInt64 }
        : { 8: TypeUint8, 16: TypeUint16, 32: TypeUint32, 64: TypeUint64 };
      return new Plan(t, types[it.bitWidth]);
    }
    case A.Type.Float: {
      const p = (t as A.Float).precision;
      return new Plan(
        t,
        p === A.Precision.HALF ? TypeFloat16 : p === A.Precision.SINGLE ? TypeFloat32 : TypeFloat64,
      );
    }
    case A.Type.Utf8:
      return new Plan(t, TypeString);
    case A.Type.Binary:
      return new Plan(t, TypeBytes);
    case A.Type.FixedSizeBinary:
      return named(`arrow_fixed_size_binary_${(t as A.FixedSizeBinary).byteWidth}`, TypeBytes);
    case A.Type.Date:
      return named(
        (t as A.Date_).unit === A.DateUnit.DAY ? 'arrow_date32' : 'arrow_date64',
        TypeTime,
      );
    case A.Type.Timestamp: {
      const unit = (t as A.Timestamp).unit;
      if (unit === A.TimeUnit.NANOSECOND) return new Plan(t, TypeTime);
      return named(`arrow_timestamp_${unitNames[unit]}`, TypeTime);
    }
    case A.Type.Time: {
      const tt = t as A.Time;
      return named(`arrow_time${tt.bitWidth}_${unitNames[tt.unit]}`, TypeTime);
    }
    case A.Type.Interval: {
      const unit = (t as A.Interval).unit;
      if (unit === A.IntervalUnit.YEAR_MONTH) return named('arrow_month_interval', TypeInt32);
      if (unit === A.IntervalUnit.DAY_TIME) {
        return named('arrow_day_time_interval', ctx.lookupTypeRecord(dayTimeIntervalFields()));
      }
      return named(
        'arrow_month_day_nano_interval',
        ctx.lookupTypeRecord(monthDayNanoIntervalFields()),
      );
    }
    case A.Type.Decimal: {
      if ((t as A.Decimal).bitWidth === 128) {
        return named('arrow_decimal128', ctx.lookupTypeRecord(decimal128Fields()));
      }
      if ((t as A.Decimal).bitWidth === 256)
        return named('arrow_decimal256', ctx.lookupTypeArray(TypeUint64));
      throw new UnsupportedArrowType(
        `unimplemented Arrow type: decimal${(t as A.Decimal).bitWidth}`,
      );
    }
    case A.Type.List: {
      const elem = planFor(ctx, (t as A.List).children[0].type);
      const p = new Plan(t, ctx.lookupTypeArray(elem.zed));
      p.children = [elem];
      return p;
    }
    case A.Type.LargeList: {
      const elem = planFor(ctx, (t as A.LargeList).children[0].type);
      const p = named('arrow_large_list', ctx.lookupTypeArray(elem.zed));
      p.children = [elem];
      return p;
    }
    case A.Type.FixedSizeList: {
      const ft = t as A.FixedSizeList;
      const elem = planFor(ctx, ft.children[0].type);
      const p = named(`arrow_fixed_size_list_${ft.listSize}`, ctx.lookupTypeArray(elem.zed));
      p.children = [elem];
      return p;
    }
    case A.Type.Struct: {
      const kids = (t as A.Struct).children.map((f) => planFor(ctx, f.type));
      // apache-arrow reads an empty field name as null.
      const fields = (t as A.Struct).children.map((f, i) => ({
        name: f.name ?? '',
        type: kids[i].zed,
      }));
      const p = new Plan(t, ctx.lookupTypeRecord(fields));
      p.children = kids;
      return p;
    }
    case A.Type.Union: {
      const kids = (t as A.Union).children.map((f) => planFor(ctx, f.type));
      const types = kids.map((k) => k.zed);
      const unique = uniqueTypes(types);
      const p = new Plan(t, ctx.lookupTypeUnion(unique));
      p.children = kids;
      p.tagMap = types.map((x) => unique.indexOf(x));
      return p;
    }
    case A.Type.Dictionary: {
      const inner = planFor(ctx, (t as A.Dictionary).dictionary);
      const p = new Plan(t, inner.zed);
      p.children = [inner];
      return p;
    }
    case A.Type.Map: {
      const entry = (t as A.Map_).children[0].type as A.Struct;
      const key = planFor(ctx, entry.children[0].type);
      const val = planFor(ctx, entry.children[1].type);
      const p = new Plan(t, ctx.lookupTypeMap(key.zed, val.zed));
      p.children = [key, val];
      return p;
    }
    case A.Type.Duration: {
      const unit = (t as A.Duration).unit;
      if (unit === A.TimeUnit.NANOSECOND) return new Plan(t, TypeDuration);
      return named(`arrow_duration_${unitNames[unit]}`, TypeDuration);
    }
    case A.Type.LargeUtf8:
      return named('arrow_large_string', TypeString);
    case A.Type.LargeBinary:
      return named('arrow_large_binary', TypeBytes);
    default:
      throw new UnsupportedArrowType(`unimplemented Arrow type: ${arrowTypeName(t)}`);
  }
}

/** Distinct types in the reference's order (zed.UniqueTypes: stable sort, then dedup). */
export function uniqueTypes(types: readonly Type[]): Type[] {
  const sorted = types.slice().sort(compareTypes);
  const out: Type[] = [];
  for (const t of sorted) if (out[out.length - 1] !== t) out.push(t);
  return out;
}

/**
 * The plan for a schema's top-level record, with duplicate top-level field
 * names made unique by appending a count, as the reference does.
 */
export function planForSchema(ctx: TypeContext, schema: A.Schema): Plan {
  const seen = new Map<string, number>();
  const fields = schema.fields.map((f) => {
    const name = f.name ?? '';
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    return n > 0 ? new A.Field(name + n, f.type, f.nullable, f.metadata) : f;
  });
  return planFor(ctx, new A.Struct(fields));
}

/** Thrown when a batch's buffers cannot hold what its lengths claim. */
export class CorruptArrowData extends Error {}

function bad(what: string): never {
  throw new CorruptArrowData(`corrupt record batch: ${what}`);
}

function checkOffsets(
  offs: ArrayLike<number | bigint> | undefined,
  n: number,
  limit: number,
  what: string,
): void {
  if (!offs || offs.length < n + 1) bad(`${what} offsets too short`);
  let prev = Number(offs[0]);
  if (!(prev >= 0)) bad(`${what} offsets out of range`);
  for (let i = 1; i <= n; i++) {
    const o = Number(offs[i]);
    if (!(o >= prev)) bad(`${what} offsets decrease`);
    prev = o;
  }
  if (prev > limit) bad(`${what} offsets past the data`);
}

/**
 * Checks that data's buffers hold `data.length` values (Arrow readers take
 * lengths on trust), so a corrupt stream fails cleanly instead of yielding
 * garbage or looping over phantom rows.
 */
export function validateData(data: A.Data, depth = 0): void {
  if (depth > 64) bad('nesting too deep');
  const n = data.length;
  const t = data.type as A.DataType;
  if (!(n >= 0) || data.offset < 0) bad('negative length');
  if (t.typeId === A.Type.Null) return;
  if (t.typeId !== A.Type.Union && data.nullCount > 0) {
    if (!data.nullBitmap || data.nullBitmap.length * 8 < data.offset + n)
      bad('validity bitmap too short');
  }
  const values = data.values as ArrayLike<unknown> | undefined;
  const need = (count: number, what: string) => {
    if (count > 0 && (!values || values.length < count)) bad(`${what} buffer too short`);
  };
  switch (t.typeId) {
    case A.Type.Bool:
      if (n > 0 && (!values || values.length * 8 < data.offset + n)) bad('bool buffer too short');
      return;
    case A.Type.Int:
    case A.Type.Float:
    case A.Type.Date:
    case A.Type.Timestamp:
    case A.Type.Time:
    case A.Type.Duration:
    case A.Type.Interval:
    case A.Type.Decimal:
    case A.Type.FixedSizeBinary:
      need(n * data.stride, 'value');
      return;
    case A.Type.Utf8:
    case A.Type.Binary:
    case A.Type.LargeUtf8:
    case A.Type.LargeBinary:
      checkOffsets(data.valueOffsets as ArrayLike<number>, n, values ? values.length : 0, 'string');
      return;
    case A.Type.List:
    case A.Type.LargeList:
    case A.Type.Map: {
      const child = data.children[0];
      if (!child) bad('list without child');
      checkOffsets(data.valueOffsets as ArrayLike<number>, n, child.length, 'list');
      if (t.typeId === A.Type.Map && child.children.length < 2)
        bad('map entries without key and value');
      validateData(child, depth + 1);
      return;
    }
    case A.Type.FixedSizeList: {
      const child = data.children[0];
      if (!child || child.length < n * (t as A.FixedSizeList).listSize)
        bad('fixed-size list child too short');
      validateData(child, depth + 1);
      return;
    }
    case A.Type.Struct:
      if (data.children.length !== (t as A.Struct).children.length) bad('struct children missing');
      for (const c of data.children) {
        if (c.length < n) bad('struct child too short');
        validateData(c, depth + 1);
      }
      return;
    case A.Type.Union: {
      const ut = t as A.Union;
      const ids = data.typeIds as Int8Array | undefined;
      if (n > 0 && (!ids || ids.length < n)) bad('union type ids too short');
      if (data.children.length !== ut.children.length) bad('union children missing');
      const dense = ut.mode === A.UnionMode.Dense;
      const offs = data.valueOffsets as Int32Array | undefined;
      if (dense && n > 0 && (!offs || offs.length < n)) bad('union offsets too short');
      for (let i = 0; i < n; i++) {
        const c = ut.typeIdToChildIndex[ids![i]];
        if (c === undefined || c < 0 || c >= data.children.length)
          bad('union type id out of range');
        const j = dense ? offs![i] : i;
        if (!(j >= 0 && j < data.children[c].length)) bad('union offset out of range');
      }
      for (const c of data.children) validateData(c, depth + 1);
      return;
    }
    case A.Type.Dictionary: {
      need(n * data.stride, 'dictionary index');
      for (const d of data.dictionary?.data ?? []) validateData(d, depth + 1);
      return;
    }
    default:
      return;
  }
}
