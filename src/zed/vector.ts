// Column vectors: the values of one field (or field path) for a run of
// rows, as the vector engine reads them. A column keeps its values' tagged
// zcode bytes end to end (the layout of a VNG primitive column's segments,
// and of a record body's fields, so reading one from VNG copies nothing and
// writing one into records is a copy of byte runs) plus where each starts.
// A tag of 0 is a null. Every value has one type, or the column lists its
// types and says which each row has (mixed types, and error("missing") for
// rows without the field).
//
// What operators need beyond the bytes is derived on first use and kept
// with the column's data, which a cache may share between queries: a
// dictionary (each distinct value once, and each row's code: group-by and
// filters then work once per distinct value) and, for numbers, a
// Float64Array of the values when they are all exact in a float64.

import { hashBytes } from './hash';
import { decodeFloat, decodeInt, decodeUint } from './primitive';
import { ID, isFloat, Type } from './types';
import { Value } from './value';
import { Builder } from './zcode';

/** The bytes of a column and what has been derived from them (shared by views). */
export class ColumnData {
  /** Built on first use (dict()). */
  dict: Dict | null = null;
  /** Built on first use (numbers()); undefined: not tried yet. */
  nums: Numbers | null | undefined = undefined;
  /** Anything else a consumer derives and keeps with the data (e.g. dcount codes). */
  extra: Map<string, unknown> | null = null;
  /**
   * Times filter leaves and summarizes have used the data: past the
   * first, a cache is likely sharing it between queries, so deriving a
   * dictionary pays.
   */
  uses = 0;

  constructor(
    /** Tagged values end to end. */
    readonly buf: Buffer,
    /** off[i] is where row i's tag starts; off[n] is the end. */
    readonly off: Int32Array,
  ) {}

  get n(): number {
    return this.off.length - 1;
  }

  private dv: DataView | null = null;

  /** A view of buf (for reading it a word at a time). */
  get view(): DataView {
    return (this.dv ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length));
  }

  /** Bytes held, derived data included. */
  get bytes(): number {
    let b = this.buf.length + this.off.byteLength;
    if (this.dict) b += this.dict.bytes;
    if (this.nums) b += this.nums.vals.byteLength + (this.nums.nulls?.byteLength ?? 0);
    return b;
  }
}

/** Distinct values of a column and each row's code (index of its value). */
export class Dict {
  constructor(
    /** Code of each row. */
    readonly codes: Int32Array,
    /** For each code, a row holding its value (its first). */
    readonly rows: Int32Array,
    /** Open-addressed hash index of the codes by their tagged bytes (-1: empty). */
    readonly slots: Int32Array,
    private readonly data: ColumnData,
    private readonly typeIndex: Uint8Array | Uint16Array | Int32Array | null,
  ) {}

  get count(): number {
    return this.rows.length;
  }

  get bytes(): number {
    return this.codes.byteLength + this.rows.byteLength + this.slots.byteLength;
  }

  /**
   * The code of the value of type index ti whose tagged bytes are
   * lit[0, lit.length), or -1 when no row has it.
   */
  find(lit: Uint8Array, ti: number): number {
    const { buf, off } = this.data;
    const len = lit.length;
    const mask = this.slots.length - 1;
    const tix = this.typeIndex;
    for (let s = (hashBytes(lit, 0, len, ti) | 0) & mask; ; s = (s + 1) & mask) {
      const c = this.slots[s];
      if (c < 0) return -1;
      const r = this.rows[c];
      const a = off[r];
      if (off[r + 1] - a !== len || (tix !== null && tix[r] !== ti)) continue;
      let k = 0;
      while (k < len && buf[a + k] === lit[k]) k++;
      if (k === len) return c;
    }
  }
}

/**
 * Copies the 32 bytes at sv's from to dv at o: runs of up to 32 bytes
 * in a fixed number of steps, as a loop over the run's length
 * mispredicts its end from row to row. Up to 31 bytes past the run are
 * written, which the records written after it overwrite.
 */
export function copy32(dv: DataView, o: number, sv: DataView, from: number): void {
  dv.setInt32(o, sv.getInt32(from, true), true);
  dv.setInt32(o + 4, sv.getInt32(from + 4, true), true);
  dv.setInt32(o + 8, sv.getInt32(from + 8, true), true);
  dv.setInt32(o + 12, sv.getInt32(from + 12, true), true);
  dv.setInt32(o + 16, sv.getInt32(from + 16, true), true);
  dv.setInt32(o + 20, sv.getInt32(from + 20, true), true);
  dv.setInt32(o + 24, sv.getInt32(from + 24, true), true);
  dv.setInt32(o + 28, sv.getInt32(from + 28, true), true);
}

/** A numeric column's values as float64s, all exact. */
export interface Numbers {
  vals: Float64Array;
  /** 1 for a null row (its val is 0), or null when there are none. */
  nulls: Uint8Array | null;
}

/**
 * Whether a column's values are worth taking by distinct value: it has a
 * dictionary already, or holds bytes, strings, IPs, nets or types, whose
 * values repeat and compare slowly.
 */
export function repeats(c: Column): boolean {
  const t = c.type;
  return c.data.dict !== null || (t !== null && t.under.id >= ID.Bytes && t.under.id <= ID.Type);
}

/** The values of one field for a run of rows, in a query's (or cache's) type context. */
export class Column {
  constructor(
    readonly data: ColumnData,
    /** The type of every row, or null when typeIndex gives each row's. */
    readonly type: Type | null,
    /** The distinct types (one when type is set). */
    readonly types: readonly Type[],
    /** Index into types of each row (null when type is set). */
    readonly typeIndex: Uint8Array | Uint16Array | Int32Array | null,
  ) {}

  static uniform(data: ColumnData, type: Type): Column {
    return new Column(data, type, [type], null);
  }

  get n(): number {
    return this.data.n;
  }

  /** The same column with its types mapped (into another type context). */
  mapTypes(f: (t: Type) => Type): Column {
    const types = this.types.map(f);
    return new Column(this.data, this.type === null ? null : types[0], types, this.typeIndex);
  }

  /** The type of row i. */
  typeOf(i: number): Type {
    return this.type ?? this.types[this.typeIndex![i]];
  }

  /** Points out at row i's value; returns out. */
  at(i: number, out: Value): Value {
    const buf = this.data.buf;
    let p = this.data.off[i];
    const t = this.type ?? this.types[this.typeIndex![i]];
    let tag = buf[p++];
    if (tag >= 0x80) {
      tag &= 0x7f;
      let shift = 7;
      for (;;) {
        const b = buf[p++];
        tag += (b & 0x7f) * 2 ** shift;
        if (b < 0x80) break;
        shift += 7;
      }
    }
    return out.set(t, buf, p, tag - 1);
  }

  /** Whether row i is null. */
  isNull(i: number): boolean {
    return this.data.buf[this.data.off[i]] === 0;
  }

  /** Bytes of row i's tagged value. */
  taggedLen(i: number): number {
    const off = this.data.off;
    return off[i + 1] - off[i];
  }

  /** The dictionary of the column's values (built once per column data). */
  dict(): Dict {
    return (this.data.dict ??= buildDict(this.data, this.typeIndex));
  }

  /** The column's dictionary where one is built or its values are few (buildDictIfFew), else null. */
  dictIfFew(): Dict | null {
    return this.data.dict ?? (this.data.dict = buildDictIfFew(this.data, this.typeIndex));
  }

  /**
   * The values as float64s when the column has one numeric type and every
   * value is exact as a float64 (integers within ±2^53), else null.
   */
  numbers(): Numbers | null {
    const d = this.data;
    if (d.nums === undefined) d.nums = this.type === null ? null : buildNumbers(d, this.type);
    return d.nums;
  }
}

/**
 * Numbers the distinct types of n values in order of first use: the
 * per-value index array appears with a second type.
 */
export class TypeNumbering {
  readonly types: Type[] = [];
  typeIndex: Int32Array | null = null;
  private last: Type | null = null;
  private lastIdx = 0;

  constructor(private readonly n: number) {}

  /** Records that value i has type t. */
  set(i: number, t: Type): void {
    if (t !== this.last) {
      this.last = t;
      let idx = this.types.indexOf(t);
      if (idx < 0) {
        idx = this.types.length;
        this.types.push(t);
        if (idx === 1) this.typeIndex = new Int32Array(this.n);
      }
      this.lastIdx = idx;
    }
    if (this.typeIndex !== null) this.typeIndex[i] = this.lastIdx;
  }
}

/** Builds a column of n rows: tagged values appended one per row. */
export class ColumnBuilder {
  private readonly b: Builder;
  private readonly off: Int32Array;
  private readonly types: TypeNumbering;
  private n = 0;

  constructor(
    private readonly rows: number,
    bytes = 256,
  ) {
    this.b = new Builder(Math.max(16, bytes));
    this.off = new Int32Array(rows + 1);
    this.types = new TypeNumbering(rows);
  }

  /** Appends a value of type t whose body is src[off, off+len) (len -1: null). */
  append(t: Type, src: Uint8Array, off: number, len: number): void {
    this.types.set(this.n, t);
    this.off[this.n++] = this.b.len;
    this.b.append(src, off, len);
  }

  appendValue(v: Value): void {
    this.append(v.type, v.buf, v.off, v.len);
  }

  /** The column (every row must have been appended). */
  finish(): Column {
    if (this.n !== this.rows) throw new Error(`vector: column has ${this.n} of ${this.rows} rows`);
    this.off[this.n] = this.b.len;
    const data = new ColumnData(this.b.buf.subarray(0, this.b.len), this.off);
    const { types, typeIndex } = this.types;
    if (types.length === 0) return new Column(data, null, [], new Int32Array(0));
    if (typeIndex === null) return Column.uniform(data, types[0]);
    return new Column(data, null, types, typeIndex);
  }
}

/** Offsets of the n tagged values that fill buf (from VNG segments); throws when they do not. */
export function tagOffsets(buf: Uint8Array, n: number): Int32Array {
  const off = new Int32Array(n + 1);
  let p = 0;
  const end = buf.length;
  for (let i = 0; i < n; i++) {
    if (p >= end) throw new RangeError('vector: column ended early');
    off[i] = p;
    let tag = buf[p++];
    if (tag >= 0x80) {
      tag &= 0x7f;
      let shift = 7;
      for (;;) {
        if (p >= end) throw new RangeError('vector: truncated tag');
        const b = buf[p++];
        tag += (b & 0x7f) * 2 ** shift;
        if (b < 0x80) break;
        shift += 7;
        if (shift > 49) throw new RangeError('vector: bad tag');
      }
    }
    if (tag > 0) p += tag - 1;
  }
  if (p !== end) throw new RangeError('vector: column length does not match its values');
  off[n] = p;
  return off;
}

/**
 * Groups equal values: equal tagged bytes of the same type. The table
 * starts small and doubles (a column of few distinct values stays in the
 * cache), and a slot holds its code, hash and the first row's bytes'
 * offset and length, so a probe reads one slot and then the bytes it
 * compares (a slot per code and a separate hash array, sized for every
 * row, cost 5x as much on 1M rows of 20k distinct values).
 */
export function buildDict(d: ColumnData, tix: Uint8Array | Uint16Array | Int32Array | null): Dict {
  return dictBuild(d, tix, false)!;
}

/**
 * buildDict where the values are few: null (given up early) once past
 * the first 1024 rows more than a quarter of the rows seen have a value
 * of their own, where a dictionary costs more than it saves.
 */
export function buildDictIfFew(
  d: ColumnData,
  tix: Uint8Array | Uint16Array | Int32Array | null,
): Dict | null {
  return dictBuild(d, tix, true);
}

function dictBuild(
  d: ColumnData,
  tix: Uint8Array | Uint16Array | Int32Array | null,
  few: boolean,
): Dict | null {
  const n = d.n;
  const buf = d.buf;
  const off = d.off;
  const codes = new Int32Array(n);
  let cap = 1024;
  // Per slot: code + 1 (0: empty), hash, offset, length.
  let slots = new Int32Array(cap * 4);
  let mask = cap - 1;
  let rows = new Int32Array(1024);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const a = off[i];
    const len = off[i + 1] - a;
    const ti = tix === null ? 0 : tix[i];
    if (i > 0 && a - off[i - 1] === len && (tix === null || tix[i - 1] === ti)) {
      // The previous row's value again (runs: sorted keys, time buckets) needs no probe.
      const b = a - len;
      let k = 0;
      while (k < len && buf[a + k] === buf[b + k]) k++;
      if (k === len) {
        codes[i] = codes[i - 1];
        continue;
      }
    }
    const h = hashBytes(buf, a, len, ti) | 0;
    let s = h & mask;
    let code = -1;
    for (;;) {
      const p = s << 2;
      const c = slots[p];
      if (c === 0) break;
      if (slots[p + 1] === h && slots[p + 3] === len && (tix === null || tix[rows[c - 1]] === ti)) {
        const b = slots[p + 2];
        let k = 0;
        while (k < len && buf[a + k] === buf[b + k]) k++;
        if (k === len) {
          code = c - 1;
          break;
        }
      }
      s = (s + 1) & mask;
    }
    if (code < 0) {
      if (few && i >= 1024 && count * 4 > i) return null;
      code = count++;
      if (code === rows.length) {
        const r = new Int32Array(rows.length * 2);
        r.set(rows);
        rows = r;
      }
      rows[code] = i;
      const p = s << 2;
      slots[p] = code + 1;
      slots[p + 1] = h;
      slots[p + 2] = a;
      slots[p + 3] = len;
      if (count * 2 > cap) {
        cap *= 2;
        mask = cap - 1;
        slots = reslot(slots, mask);
      }
    }
    codes[i] = code;
  }
  // The index kept with the dictionary: at most half full, by the same hashes.
  let keep = 1024;
  while (keep < count * 2) keep <<= 1;
  const index = new Int32Array(keep).fill(-1);
  for (let j = 0; j < slots.length; j += 4) {
    if (slots[j] === 0) continue;
    let q = slots[j + 1] & (keep - 1);
    while (index[q] >= 0) q = (q + 1) & (keep - 1);
    index[q] = slots[j] - 1;
  }
  return new Dict(codes, rows.slice(0, count), index, d, tix);
}

/** buildDict's slots in a table of mask + 1 slots. */
function reslot(slots: Int32Array, mask: number): Int32Array<ArrayBuffer> {
  const ns = new Int32Array((mask + 1) * 4);
  for (let j = 0; j < slots.length; j += 4) {
    if (slots[j] === 0) continue;
    let q = slots[j + 1] & mask;
    while (ns[q << 2] !== 0) q = (q + 1) & mask;
    const t = q << 2;
    ns[t] = slots[j];
    ns[t + 1] = slots[j + 1];
    ns[t + 2] = slots[j + 2];
    ns[t + 3] = slots[j + 3];
  }
  return ns;
}

/** Integer type IDs whose values may be exact float64s. */
function isIntID(id: number): boolean {
  return id <= ID.Time;
}

function buildNumbers(d: ColumnData, t: Type): Numbers | null {
  const id = t.under.id;
  const float = isFloat(id);
  if (!float && !isIntID(id)) return null;
  const signed = id >= ID.Int8;
  const n = d.n;
  const buf = d.buf;
  const off = d.off;
  const vals = new Float64Array(n);
  let nulls: Uint8Array | null = null;
  // A float64 is read in place (decodeFloat copies its bytes out first).
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let i = 0; i < n; i++) {
    const p = off[i];
    const tag = buf[p];
    if (tag === 0) {
      nulls ??= new Uint8Array(n);
      nulls[i] = 1;
      continue;
    }
    // Numbers are at most 8 bytes, so their tags are one byte.
    const len = tag - 1;
    if (float) vals[i] = len === 8 ? view.getFloat64(p + 1, true) : decodeFloat(buf, p + 1, len);
    else {
      // Integers of up to 6 bytes are exact; wider ones may not be.
      if (len > 6) return null;
      vals[i] = signed ? decodeInt(buf, p + 1, len) : decodeUint(buf, p + 1, len);
    }
  }
  return { vals, nulls };
}

/**
 * A batch of rows as columns: the values of each of a scan's paths, the
 * rows (of the batch's n) still selected, and how to rebuild the rows as
 * values for operators that need whole records.
 */
export interface VecBatch {
  /** Rows in the columns. */
  readonly n: number;
  /** One per path the scan was asked for, in its order. */
  readonly cols: Column[];
  /** The selected rows in order (null: all of 0..n-1). */
  readonly sel: Int32Array | null;
  /** The rows themselves, when the batch was made from values. */
  readonly rows: Value[] | null;
  /** How to build the rows from the columns (when rows is null). */
  readonly shape: RecordShape | null;
  /**
   * With rows: 1 for each row that is a filter's error output rather than
   * an input value (a projection lifted into a scan passes those on as
   * they are, as the row engine's scan does).
   */
  readonly errors?: Uint8Array | null;
}

/**
 * The records a batch's rows were, as far as the scan read them: each row
 * is a record of the top-level fields read, in its own type's field order,
 * or a null record.
 */
export interface RecordShape {
  /** The recipe of each row (null: all rows use recipes[0]). */
  readonly recipeOf: Uint8Array | Uint16Array | null;
  readonly recipes: readonly RecordRecipe[];
}

export interface RecordRecipe {
  /** The record type of the rows. */
  readonly type: Type;
  /** For each field of type, the batch column holding it. */
  readonly cols: readonly number[];
  /** 1 for the rows whose record is null (null: none). */
  readonly nulls: Uint8Array | null;
}

/** The number of rows a batch selects. */
export function selected(b: VecBatch): number {
  return b.sel === null ? b.n : b.sel.length;
}
