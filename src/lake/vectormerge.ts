// Overlapping objects read by columns: their columns merged into one part
// in pool-key order, as the row scan's merge orders their values (scan.ts,
// Merger: by key, and on equal keys the object listed first, then each
// object's own order). A pool loaded in batches that overlap in key (two
// sources over the same hours, late data) then stays on the column path
// instead of building, merging and taking apart every record.
//
// The merge is exact only where the key order is a total order that the
// objects were sorted by: every record has the key, of one type that
// compareValues orders as the sort does (not int8; floats, but no NaN,
// which equals every number and so has no place), or null (after every
// other key, as the row merge's compareValues puts it; before them in a
// descending pool). Otherwise, and past mergeLimits, the caller reads the
// objects by rows as before, except a query that reads no field, which
// takes the rows as they come (alikeRows).

import { ByteCompare, compareFnFor, isNaNKey, SORTED_ALIKE } from '../zed/compare';
import { ID, isFloat, Type } from '../zed/types';
import { Column, ColumnData, copy32, RecordRecipe, RecordShape } from '../zed/vector';
import { Value } from '../zed/value';
import { Order } from './config';
import { LRU } from './lru';

/** One object's columns (the scan's paths), as readColumns gives them. */
export interface ColumnsPart {
  n: number;
  cols: Column[];
  shape: RecordShape;
}

/**
 * The most one merge takes: bytes, what the columns it reads (the query's
 * and the key's) hold decoded, by the copies' metadata (mergeBytes). The
 * row scan's merge streams, where a run's columns are all in memory at
 * once, twice at the peak (as read, and merged), so larger runs are read
 * by rows; so are runs whose merged column would pass columnBytes (its
 * offsets are int32s).
 */
export const mergeLimits = { bytes: 256 << 20, columnBytes: 0x7fffffff };

/**
 * What a merge holds for an object of rows rows read: its columns'
 * decoded bytes (decoded, for cols columns), their offsets (4 bytes a
 * row each), the merge order (6 bytes a row) and the key bodies' places
 * while it is worked out (8).
 */
export function mergeBytes(decoded: number, rows: number, cols: number): number {
  return decoded + (4 * cols + 14) * rows;
}

/**
 * Runs merged by columns, runs whose columns were read but did not merge,
 * and merge orders worked out (not taken from the kept ones, mergeCache);
 * tests read them.
 */
export const mergeCounts = { merged: 0, refused: 0, orders: 0 };

/**
 * The parts (in the group's object order) gathered in the order perm
 * gives (mergeOrder's), without the column at drop (-1: none, the scan
 * read it only to merge). Null where a merged column would be too large,
 * or two parts build one record type from different columns.
 */
export function mergeParts(
  parts: readonly ColumnsPart[],
  perm: Perm,
  drop: number,
): ColumnsPart | null {
  const width = parts[0].cols.length;
  // Every column is checked before any is gathered.
  for (let c = 0; c < width; c++) if (!fitsColumn(parts.map((p) => p.cols[c]))) return refuse();
  const shape = mergeShape(
    parts.map((p) => p.shape),
    perm,
  );
  if (shape === null) return null;
  mergeCounts.merged++;
  const cols: Column[] = [];
  for (let c = 0; c < width; c++) {
    if (c === drop) continue;
    cols.push(
      gatherColumn(
        parts.map((p) => p.cols[c]),
        perm,
      ),
    );
  }
  return { n: perm.part.length, cols, shape };
}

/**
 * The parts' columns (of one path, in the group's object order) gathered
 * in the order perm gives; null where the merged column would be too
 * large (mergeLimits.columnBytes).
 */
export function mergeColumn(cols: readonly Column[], perm: Perm): Column | null {
  return fitsColumn(cols) ? gatherColumn(cols, perm) : refuse();
}

/** Whether the columns merged fit one column (its offsets are int32s, its buffer one allocation). */
function fitsColumn(cols: readonly Column[]): boolean {
  let bytes = 0;
  for (const c of cols) bytes += c.data.buf.length;
  return bytes <= mergeLimits.columnBytes;
}

/** A run whose columns were read but do not merge (counted for tests). */
export function refuse(): null {
  mergeCounts.refused++;
  return null;
}

/**
 * Parts without columns whose rows are all the same record (of one
 * record type, the empty record when no field is read, and no null
 * records) as one part: any order of such rows is the merged one. Null
 * where their rows differ.
 */
export function alikeRows(parts: readonly ColumnsPart[]): ColumnsPart | null {
  const recipe = parts[0].shape.recipes[0];
  if (recipe === undefined) return null;
  let n = 0;
  for (const p of parts) {
    if (p.cols.length > 0) return null;
    for (const r of p.shape.recipes) if (r.type !== recipe.type || r.nulls !== null) return null;
    n += p.n;
  }
  mergeCounts.merged++;
  return { n, cols: [], shape: { recipeOf: null, recipes: [recipe] } };
}

/**
 * Merge orders kept by run of objects (the pool and the objects' IDs, in
 * the group's order; objects do not change, so neither does their
 * merge), up to 64 MB of them (6 bytes a row, and an entry's key and
 * overhead), the least recently used dropped first. Null: the run's keys
 * have no order to merge by (mergeOrder found a NaN), so its columns are
 * not read again to find that out.
 */
export function mergeCache(): LRU<string, Perm | null> {
  return new LRU<string, Perm | null>(
    64 << 20,
    (p, run) => (p === null ? 0 : 6 * p.part.length) + run.length + 256,
  );
}

/** Where each row of a merge comes from: its part and its row there. */
export interface Perm {
  part: Uint16Array;
  row: Int32Array;
}

/** Whether keys of type t may merge exactly (see the header; floats if they hold no NaN). */
export function mergeableKey(t: Type | null): t is Type {
  return t !== null && SORTED_ALIKE.has(t.under.id);
}

/**
 * The merged order of the parts' rows: by key (descending for a desc
 * pool; nulls last, first in a desc pool), then part, then row. Null
 * where a key column is not of the one mergeable type or holds a NaN.
 */
export function mergeOrder(keys: readonly Column[], order: Order): Perm | null {
  mergeCounts.orders++;
  const t = keys[0].type;
  if (!mergeableKey(t) || keys.length > 0xffff) return null;
  if (keys.some((k) => k.type !== t)) return null;
  const bodies = keys.map((k) => bodiesOf(k, t));
  if (bodies.some((b) => b === null)) return null;
  const bs = bodies as Bodies[];
  const id = t.under.id;
  // Strings and bytes order as their bytes, compared four at a time, from
  // past the prefix every key shares (keys such as timestamps as strings
  // share long ones).
  const cmp =
    id === ID.String || id === ID.Bytes
      ? wordsAt(bs, sharedPrefix(bs))
      : cmpAt(bs, compareFnFor(t.under));
  const sign = order === 'desc' ? -1 : 1;
  return bs.length === 2
    ? twoWay(bs[0].off.length, bs[1].off.length, cmp, sign)
    : kWay(bs, cmp, sign);
}

/** Compares row i of part p with row j of part q. */
type PartCompare = (p: number, i: number, q: number, j: number) => number;

function cmpAt(bs: readonly Bodies[], cmp: ByteCompare): PartCompare {
  return (p, i, q, j) => {
    const a = bs[p];
    const b = bs[q];
    const al = a.len[i];
    const bl = b.len[j];
    if (al < 0 || bl < 0) return nullsLast(al, bl);
    return cmp(a.buf, a.off[i], al, b.buf, b.off[j], bl);
  };
}

/** A key column's bodies (its keys of type t); null where one is a NaN. */
function bodiesOf(k: Column, t: Type): Bodies | null {
  const float = isFloat(t.under.id);
  const { buf, off: tagged } = k.data;
  const n = k.n;
  const off = new Int32Array(n);
  const len = new Int32Array(n);
  const v = Value.null();
  for (let i = 0; i < n; i++) {
    const tag = buf[tagged[i]];
    if (tag < 0x80) {
      // A one-byte tag: the length plus one, 0 for null.
      off[i] = tagged[i] + 1;
      len[i] = tag - 1;
    } else {
      k.at(i, v);
      off[i] = v.off;
      len[i] = v.len;
    }
    if (float && isNaNKey(t, buf, off[i], len[i])) return null;
  }
  return { buf, off, len };
}

/**
 * The length of the prefix every key of the parts shares (nulls aside):
 * each part is sorted by its keys' bytes, so all its keys share the
 * prefix its first and last share.
 */
function sharedPrefix(bs: readonly Bodies[]): number {
  let ref: { buf: Buffer; off: number } | null = null;
  let shared = 0;
  for (const b of bs) {
    // Nulls sort to one end.
    let lo = 0;
    while (lo < b.len.length && b.len[lo] < 0) lo++;
    let hi = b.len.length - 1;
    while (hi > lo && b.len[hi] < 0) hi--;
    if (lo === b.len.length) continue;
    for (const i of [lo, hi]) {
      if (ref === null) {
        ref = { buf: b.buf, off: b.off[i] };
        shared = b.len[i];
        continue;
      }
      const m = Math.min(shared, b.len[i]);
      let k = 0;
      while (k < m && b.buf[b.off[i] + k] === ref.buf[ref.off + k]) k++;
      shared = k;
    }
  }
  return shared;
}

/** Two keys at least one of which is null (length -1) compared, nulls the greatest. */
function nullsLast(al: number, bl: number): number {
  return al < 0 ? (bl < 0 ? 0 : 1) : -1;
}

/**
 * Key bodies in lexical order, as compareValues orders strings and bytes,
 * from byte skip on (the prefix every key shares).
 */
function wordsAt(bs: readonly Bodies[], skip: number): PartCompare {
  const views = bs.map((b) => new DataView(b.buf.buffer, b.buf.byteOffset, b.buf.byteLength));
  return (p, i, q, j) => {
    const a = bs[p];
    const b = bs[q];
    const av = views[p];
    const bv = views[q];
    const ao = a.off[i];
    const bo = b.off[j];
    const al = a.len[i];
    const bl = b.len[j];
    if (al < 0 || bl < 0) return nullsLast(al, bl);
    const n = al < bl ? al : bl;
    let k = skip;
    for (; k + 4 <= n; k += 4) {
      const x = av.getUint32(ao + k);
      const y = bv.getUint32(bo + k);
      if (x !== y) return x < y ? -1 : 1;
    }
    for (; k < n; k++) {
      const x = av.getUint8(ao + k);
      const y = bv.getUint8(bo + k);
      if (x !== y) return x < y ? -1 : 1;
    }
    return al - bl;
  };
}

/** mergeOrder of three parts or more: a binary heap of the parts with rows left, least (key, part) on top. */
function kWay(bs: readonly Bodies[], cmp: PartCompare, sign: number): Perm {
  const k = bs.length;
  const cur = new Int32Array(k);
  const ends = Int32Array.from(bs, (b) => b.off.length);
  const heap = new Int32Array(k);
  let m = 0;
  const less = (p: number, q: number): boolean => {
    const c = sign * cmp(p, cur[p], q, cur[q]);
    return c < 0 || (c === 0 && p < q);
  };
  const down = (at: number): void => {
    for (;;) {
      const l = 2 * at + 1;
      let s = at;
      if (l < m && less(heap[l], heap[s])) s = l;
      if (l + 1 < m && less(heap[l + 1], heap[s])) s = l + 1;
      if (s === at) return;
      const x = heap[at];
      heap[at] = heap[s];
      heap[s] = x;
      at = s;
    }
  };
  let n = 0;
  for (let p = 0; p < k; p++) {
    n += ends[p];
    if (ends[p] > 0) heap[m++] = p;
  }
  for (let i = (m >> 1) - 1; i >= 0; i--) down(i);
  const part = new Uint16Array(n);
  const row = new Int32Array(n);
  for (let o = 0; o < n; o++) {
    const p = heap[0];
    part[o] = p;
    row[o] = cur[p]++;
    if (cur[p] === ends[p]) {
      if (--m === 0) continue;
      heap[0] = heap[m];
    }
    down(0);
  }
  return { part, row };
}

/** A key column's bodies: each row's offset and length in buf (-1: null). */
interface Bodies {
  buf: Buffer;
  off: Int32Array;
  len: Int32Array;
}

/** mergeOrder of two parts (the usual run: two loads over the same keys), without a heap. */
function twoWay(na: number, nb: number, cmp: PartCompare, sign: number): Perm {
  const part = new Uint16Array(na + nb);
  const row = new Int32Array(na + nb);
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < na && j < nb) {
    // On equal keys the first part's row goes first.
    if (sign * cmp(0, i, 1, j) <= 0) row[o++] = i++;
    else {
      part[o] = 1;
      row[o++] = j++;
    }
  }
  while (i < na) row[o++] = i++;
  while (j < nb) {
    part[o] = 1;
    row[o++] = j++;
  }
  return { part, row };
}

/** The column of the merged rows: their tagged bytes in merged order, and their types. */
function gatherColumn(cols: readonly Column[], perm: Perm): Column {
  const { part, row } = perm;
  const n = part.length;
  let size = 0;
  for (const c of cols) size += c.data.off[c.n] - c.data.off[0];
  // 32 bytes of slack for copy32, cut off at the end.
  const buf = Buffer.allocUnsafe(size + 32);
  const off = new Int32Array(n + 1);
  const out = new DataView(buf.buffer, buf.byteOffset, buf.length);
  const views = cols.map((c) => c.data.view);
  let at = 0;
  for (let o = 0; o < n; o++) {
    const p = part[o];
    const d = cols[p].data;
    const r = row[o];
    let a = d.off[r];
    const e = d.off[r + 1];
    off[o] = at;
    if (e - a <= 32 && a + 32 <= d.buf.length) {
      copy32(out, at, views[p], a);
      at += e - a;
    } else if (e - a > 64) {
      d.buf.copy(buf, at, a, e);
      at += e - a;
    } else {
      const v = views[p];
      for (; a + 4 <= e; a += 4, at += 4) out.setUint32(at, v.getUint32(a));
      for (; a < e; a++) buf[at++] = d.buf[a];
    }
  }
  off[n] = at;
  const data = new ColumnData(buf.subarray(0, at), off);
  // The types: one, or each part's mapped into their union.
  const first = cols[0].type;
  if (first !== null && cols.every((c) => c.type === first)) return Column.uniform(data, first);
  const types: Type[] = [];
  const index = new Map<Type, number>();
  const maps = cols.map((c) =>
    c.types.map((t) => {
      let i = index.get(t);
      if (i === undefined) {
        i = types.length;
        types.push(t);
        index.set(t, i);
      }
      return i;
    }),
  );
  const tix =
    types.length <= 0x100
      ? new Uint8Array(n)
      : types.length <= 0x10000
        ? new Uint16Array(n)
        : new Int32Array(n);
  for (let o = 0; o < n; o++) {
    const c = cols[part[o]];
    tix[o] = maps[part[o]][c.typeIndex === null ? 0 : c.typeIndex[row[o]]];
  }
  return new Column(data, null, types, tix);
}

/**
 * The record shape of the merged rows: the parts' recipes, one per record
 * type, and each row's. Null where two parts build one record type from
 * different columns (they read the same paths, so they do not).
 */
export function mergeShape(shapes: readonly RecordShape[], perm: Perm): RecordShape | null {
  const { part, row } = perm;
  const n = part.length;
  const recipes: { type: Type; cols: readonly number[]; nulls: Uint8Array | null }[] = [];
  const byType = new Map<Type, number>();
  const maps: number[][] = [];
  let nulls = false;
  for (const s of shapes) {
    const map: number[] = [];
    for (const r of s.recipes) {
      let i = byType.get(r.type);
      if (i === undefined) {
        i = recipes.length;
        recipes.push({ type: r.type, cols: r.cols, nulls: null });
        byType.set(r.type, i);
      } else if (!sameCols(recipes[i].cols, r.cols)) return refuse();
      map.push(i);
      if (r.nulls !== null) nulls = true;
    }
    maps.push(map);
  }
  // The usual case, one record type and no null records, needs no rows.
  if (recipes.length === 1 && !nulls) return { recipeOf: null, recipes: recipes as RecordRecipe[] };
  const recipeOf =
    recipes.length === 1 ? null : recipes.length <= 0x100 ? new Uint8Array(n) : new Uint16Array(n);
  for (let o = 0; o < n; o++) {
    const s = shapes[part[o]];
    const r = row[o];
    const local = s.recipeOf === null ? 0 : s.recipeOf[r];
    const g = maps[part[o]][local];
    if (recipeOf !== null) recipeOf[o] = g;
    const nulls = s.recipes[local].nulls;
    if (nulls !== null && nulls[r] === 1) (recipes[g].nulls ??= new Uint8Array(n))[o] = 1;
  }
  return { recipeOf, recipes: recipes as RecordRecipe[] };
}

function sameCols(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((c, i) => c === b[i]);
}
