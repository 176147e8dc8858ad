// Reading VNG straight into column vectors (src/zed/vector.ts): the values
// of a few field paths of every row, without building the rows. A path's
// column is the value `this.a.b` has for each row, as the query engine's
// field access gives it: a null where a record on the way is null, and
// error("missing") in rows whose type lacks the field. Rows are records of
// the file's super types (its distinct top-level types); the root column
// says which each row has when there are several.
//
// The common case costs next to nothing per value: a path through records
// to a primitive column of a file with one super type and no nulls on the
// way is its segments end to end, as they are stored (decompressed), plus
// an offset per value. Anything else is assembled value by value by the
// VNG column readers. plan() says first which segments a read needs, so a
// caller fetches only those byte ranges.

import { TypeContext } from '../../zed/context';
import { Type, TypeRecord, TypeType } from '../../zed/types';
import { Column, ColumnData, RecordRecipe, RecordShape, tagOffsets } from '../../zed/vector';
import { Builder } from '../../zed/zcode';
import { lz4Decompress } from '../zng';
import { CompressionLZ4, CompressionNone, Meta, metaType, Segment } from './metadata';
import { Chunk, ChunkSource, recordOf, segmentsOf, VngLayout } from './project';
import { ColumnReader, newColumnReader, NullsReader, PrimitiveReader, VngError } from './reader';

/** How one path is read for the rows of one super type. */
type PathSource =
  /** The rows lack the field: error("missing"). */
  | { kind: 'missing' }
  /**
   * The leaf's values, under Nulls runs of the records on the way (the
   * top-level record's first), each run list making nulls of the leaf.
   */
  | { kind: 'leaf'; runs: Segment[][]; leaf: Meta };

/** A planned read: what to fetch, and how to make the columns. */
export interface VectorPlan {
  layout: VngLayout;
  paths: readonly (readonly string[])[];
  /** For each super type, each path's source. */
  sources: PathSource[][];
  /** For each super type, its record's Nulls runs (null: no nulls) and fields. */
  supers: { runs: Segment[] | null; fields: { name: string; values: Meta }[] }[];
  /** Segments to fetch. */
  segments: Segment[];
}

/** The Meta under Named wrappers. */
function unnamed(m: Meta): Meta {
  while (m.kind === 'Named') m = m.values;
  return m;
}

/**
 * How to read a path in a super type whose record is rec (runs: its own
 * nulls), or null when the engine's field access there is not a plain walk
 * through records (a map, a union, a type value on the way).
 */
function pathSource(
  rec: Meta & { kind: 'Record' },
  topRuns: Segment[] | null,
  path: readonly string[],
): PathSource | null {
  const runs: Segment[][] = topRuns ? [topRuns] : [];
  let fields = rec.fields;
  for (let i = 0; ; i++) {
    const f = fields.find((x) => x.name === path[i]);
    if (f === undefined) return { kind: 'missing' };
    let m = unnamed(f.values);
    if (i === path.length - 1) return { kind: 'leaf', runs, leaf: f.values };
    // Descend: the field must be a record (maybe nullable).
    if (m.kind === 'Nulls') {
      const inner = unnamed(m.values);
      if (inner.kind !== 'Record') return null;
      runs.push(m.runs);
      m = inner;
    }
    if (m.kind === 'Primitive') {
      // A primitive other than a type value has no fields: missing.
      return m.type === TypeType ? null : { kind: 'missing' };
    }
    if (m.kind !== 'Record') return null;
    fields = m.fields;
  }
}

/**
 * Plans reading the paths (each a path of field names from the top-level
 * record), or returns null when some super type is not a record or some
 * path cannot be read by columns: the caller reads rows instead.
 */
export function planVectors(
  layout: VngLayout,
  paths: readonly (readonly string[])[],
): VectorPlan | null {
  const sources: PathSource[][] = [];
  const supers: VectorPlan['supers'] = [];
  const segments: Segment[] = layout.metas.length > 1 ? [...layout.root] : [];
  for (const m of layout.metas) {
    const r = recordOf(m);
    if (r === null) return null;
    supers.push({ runs: r.runs, fields: r.rec.fields });
    if (r.runs) segments.push(...r.runs);
    const row: PathSource[] = [];
    for (const p of paths) {
      const s = pathSource(r.rec, r.runs, p);
      if (s === null) return null;
      if (s.kind === 'leaf') {
        for (const rs of s.runs) segments.push(...rs);
        segmentsOf(s.leaf, segments);
      }
      row.push(s);
    }
    sources.push(row);
  }
  return { layout, paths, sources, supers, segments };
}

/**
 * What the metadata says of path in every value of the file: the one
 * primitive type of the values that have it (null: none has it), and
 * whether some value lacks it; null when the values hold it in more than
 * one type, in a union or a complex type, or under nulls on the way, or
 * a value is not a record. It holds for values the caller never reads.
 */
export function leafTypeOf(
  layout: VngLayout,
  path: readonly string[],
): { type: Type | null; missing: boolean } | null {
  let type: Type | null = null;
  let missing = false;
  for (const m of layout.metas) {
    const r = recordOf(m);
    if (r === null || r.runs !== null) return null;
    const s = pathSource(r.rec, null, path);
    if (s === null) return null;
    if (s.kind === 'missing') {
      missing = true;
      continue;
    }
    const leaf = s.leaf;
    if (s.runs.length > 0 || leaf.kind !== 'Primitive') return null;
    if (type !== null && leaf.type.id !== type.id) return null;
    type = leaf.type;
  }
  return { type, missing };
}

/** A null of the leaf for every row whose record on the way is null. */
function wrap(src: ChunkSource, runs: Segment[][], leaf: ColumnReader): ColumnReader {
  let r = leaf;
  for (let i = runs.length - 1; i >= 0; i--) r = new NullsReader(src, runs[i], r);
  return r;
}

/** The row of n holding 1 for each null of a Nulls run list (alternating value/null runs). */
function nullRows(src: ChunkSource, runs: Segment[], n: number): Uint8Array {
  const out = new Uint8Array(n);
  const rd = new PrimitiveReader(src, runs);
  let inNull = true;
  let i = 0;
  while (i < n) {
    let run = 0;
    while (run <= 0 && !rd.done()) {
      inNull = !inNull;
      run = rd.readInt();
    }
    if (run <= 0) break;
    if (inNull) out.fill(1, i, Math.min(n, i + run));
    i += run;
  }
  return out;
}

/** A primitive column's segments, decompressed, end to end. */
function concatSegments(src: ChunkSource, segs: Segment[]): Buffer {
  let size = 0;
  for (const s of segs) size += s.memLength;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const s of segs) {
    if (s.compression === CompressionLZ4 && s.memLength > 0) {
      const loc = src.locate(s);
      const n = lz4Decompress(loc.buf, loc.at, loc.at + s.length, out, at, at + s.memLength);
      if (n !== s.memLength) throw new VngError('vng: bad LZ4 segment');
    } else if (s.compression === CompressionNone || s.memLength === 0) {
      const b = src.load(s);
      b.copy(out, at);
    } else {
      src.load(s); // throws for an unknown compression
    }
    at += s.memLength;
  }
  return out;
}

/** A source of a file's column segments from fetched chunks (holding at least a plan's segments). */
export function chunkSource(layout: VngLayout, chunks: Chunk[]): ChunkSource {
  return new ChunkSource(chunks, layout.dataSize);
}

/** Which super type each of the n rows has (null when the file has one). */
export function readSuperOf(
  plan: VectorPlan,
  src: ChunkSource,
  n: number,
): Uint8Array | Uint16Array | null {
  const ns = plan.supers.length;
  if (ns <= 1) return null;
  const superOf = ns < 256 ? new Uint8Array(n) : new Uint16Array(n);
  const root = new PrimitiveReader(src, plan.layout.root);
  for (let i = 0; i < n; i++) {
    const s = root.readInt();
    if (s < 0 || s >= ns)
      throw new VngError('system error: type number out of range in VNG root metadata');
    superOf[i] = s;
  }
  if (!root.done()) throw new VngError('vng: root column longer than the object');
  return superOf;
}

/**
 * 1 for each of the n rows whose top-level record is null (null when none
 * can be), by the super types' Nulls runs.
 */
export function readRecordNulls(
  plan: VectorPlan,
  src: ChunkSource,
  n: number,
  superOf: Uint8Array | Uint16Array | null,
): Uint8Array | null {
  let out: Uint8Array | null = null;
  plan.supers.forEach((s, si) => {
    if (!s.runs) return;
    out ??= new Uint8Array(n);
    const mine = nullRows(src, s.runs, n);
    // mine numbers the super type's own rows; spread them over all rows.
    for (let i = 0, j = 0; i < n; i++) {
      if (superOf !== null && superOf[i] !== si) continue;
      if (mine[j++]) out[i] = 1;
    }
  });
  return out;
}

/**
 * The segments of plan.paths[p] when its column is one primitive column
 * stored as is (one super type, a primitive leaf, no nulls on the way: the
 * common case, whose decode is decodePrimitive alone), else null.
 */
export function primitiveSegments(plan: VectorPlan, p: number): Segment[] | null {
  if (plan.sources.length !== 1) return null;
  const s0 = plan.sources[0][p];
  if (s0.kind !== 'leaf' || s0.runs.length !== 0) return null;
  const leaf = unnamed(s0.leaf);
  return leaf.kind === 'Primitive' ? leaf.segmap : null;
}

/** The type of plan.paths[p]'s values when primitiveSegments gives its segments. */
export function primitiveType(plan: VectorPlan, p: number, ctx: TypeContext): Type {
  const s0 = plan.sources[0][p];
  if (s0.kind !== 'leaf') throw new Error('internal error: not a primitive column');
  return metaType(ctx, s0.leaf);
}

/** A primitive column's n values: its segments decompressed end to end, and where each value starts. */
export function decodePrimitive(src: ChunkSource, segs: Segment[], n: number): ColumnData {
  const buf = concatSegments(src, segs);
  let off: Int32Array;
  try {
    off = tagOffsets(buf, n);
  } catch (e) {
    throw new VngError(`vng: ${(e as Error).message}`);
  }
  return new ColumnData(buf, off);
}

/** Decoded bytes of a column's segments. */
export function memLength(segs: readonly Segment[]): number {
  let n = 0;
  for (const s of segs) n += s.memLength;
  return n;
}

/**
 * The stored bytes of segments end to end in a buffer of their own (so it
 * can be handed to another thread), and the segments renumbered to point
 * into it; checked as a read of them checks them.
 */
export function packSegments(src: ChunkSource, segs: Segment[]): { buf: Buffer; segs: Segment[] } {
  // First every segment is located (and checked), then the bytes copied.
  const parts: { from: Buffer; at: number; len: number; lz4: boolean }[] = [];
  let size = 0;
  for (const s of segs) {
    const lz4 = s.compression === CompressionLZ4 && s.memLength > 0;
    if (lz4) {
      const loc = src.locate(s);
      parts.push({ from: loc.buf, at: loc.at, len: s.length, lz4 });
    } else {
      // Stored as is (or empty): its bytes as a read loads them.
      const b = src.load(s);
      parts.push({ from: b, at: 0, len: b.length, lz4 });
    }
    size += parts[parts.length - 1].len;
  }
  // allocUnsafeSlow: not a slice of Node's shared pool, so its ArrayBuffer can be transferred.
  const buf = Buffer.allocUnsafeSlow(size);
  const out: Segment[] = [];
  let at = 0;
  parts.forEach((p, i) => {
    p.from.copy(buf, at, p.at, p.at + p.len);
    const compression = p.lz4 ? CompressionLZ4 : CompressionNone;
    out.push({ offset: at, length: p.len, memLength: segs[i].memLength, compression });
    at += p.len;
  });
  return { buf, segs: out };
}

/** The column of plan.paths[p] for the n rows, its types in ctx. */
export function readColumn(
  plan: VectorPlan,
  p: number,
  src: ChunkSource,
  n: number,
  superOf: Uint8Array | Uint16Array | null,
  ctx: TypeContext,
): Column {
  const missing = ctx.missing();
  const srcs = plan.sources.map((row) => row[p]);
  const types = srcs.map((s) => (s.kind === 'missing' ? missing.type : metaType(ctx, s.leaf)));
  const segs = primitiveSegments(plan, p);
  if (segs !== null) return Column.uniform(decodePrimitive(src, segs, n), types[0]);
  const readers = srcs.map((s) =>
    s.kind === 'missing' ? null : wrap(src, s.runs, newColumnReader(src, s.leaf)),
  );
  const b = new Builder(64 * 1024);
  const off = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    off[i] = b.len;
    const rd = readers[superOf === null ? 0 : superOf[i]];
    if (rd === null) b.append(missing.buf, missing.off, missing.len);
    else rd.read(b);
  }
  off[n] = b.len;
  const data = new ColumnData(b.buf.subarray(0, b.len), off);
  const distinct = [...new Set(types)];
  if (distinct.length === 1) return Column.uniform(data, distinct[0]);
  const tix = distinct.length < 256 ? new Uint8Array(n) : new Uint16Array(n);
  const map = types.map((t) => distinct.indexOf(t));
  for (let i = 0; i < n; i++) tix[i] = map[superOf === null ? 0 : superOf[i]];
  return new Column(data, null, distinct, tix);
}

/**
 * The rows as records of the shape's top-level fields (each read as the
 * one-element path at cols[field]): per super type, the fields it has in
 * its own order, the record null where the row's is.
 */
export function recordShape(
  plan: VectorPlan,
  ctx: TypeContext,
  shapeFields: readonly string[],
  colOf: (field: string) => number,
  superOf: Uint8Array | Uint16Array | null,
  nulls: Uint8Array | null,
): RecordShape {
  const recipes: RecordRecipe[] = plan.supers.map((s) => {
    const kept = s.fields.filter((f) => shapeFields.includes(f.name));
    const type: TypeRecord = ctx.lookupTypeRecord(
      kept.map((f) => ({ name: f.name, type: metaType(ctx, f.values) })),
    );
    return { type, cols: kept.map((f) => colOf(f.name)), nulls: s.runs ? nulls : null };
  });
  return { recipeOf: superOf, recipes };
}
