// Reading a projection of a VNG file: only the columns of the top-level
// record fields a caller names, from the bytes of just the segments those
// columns use (a caller reading a stored object fetches those byte ranges
// and nothing else). Each value comes out as a record of the named fields
// it has, in its own field order; a value that is not a record comes out
// whole. The caller must only look at the named fields.

import { TypeContext } from '../../zed/context';
import { TypeRecord } from '../../zed/types';
import { Value } from '../../zed/value';
import { decodeZng } from '../zng';
import { Meta, MetaError, metaType, readMeta, readSegmap, Segment } from './metadata';
import { MAX_SEGMENT_THRESH } from './writer';
import {
  ColumnReader,
  loadSegment,
  newColumnReader,
  NullsReader,
  PrimitiveReader,
  readTrailer,
  readValues,
  RecordReader,
  Source,
  SuperReader,
  VngError,
} from './reader';

/** Bytes at the end of a file that hold its trailer. */
export const TRAILER_BYTES = 4096;

/** A VNG file's layout: where its sections are and how its columns are made. */
export interface VngLayout {
  dataSize: number;
  /** The root column (the super ID of each value). */
  root: Segment[];
  /** One per super type. */
  metas: Meta[];
}

/** Where the reassembly section is, from the file's last TRAILER_BYTES (or fewer). */
export function reassemblyRange(tail: Buffer): { offset: number; length: number } {
  const t = readTrailer(tail);
  const [dataSize, mapsSize] = t.sections;
  if (t.sections.length < 2 || !(dataSize >= 0) || !(mapsSize >= 0))
    throw new VngError('vng: bad section sizes in trailer');
  return { offset: dataSize, length: mapsSize };
}

/** Parses the reassembly section (the bytes at its range). */
export function readLayout(dataSize: number, maps: Buffer): VngLayout {
  const mctx = new TypeContext();
  const vals = decodeZng(maps, { ctx: mctx });
  if (vals.length === 0) throw new VngError('vng: empty reassembly section');
  return {
    dataSize,
    root: readSegmap(vals[0]),
    metas: vals.slice(1).map((v) => readMeta(mctx, v)),
  };
}

/** The record under a super type's Named and Nulls wrappers, if it is one. */
export function recordOf(
  m: Meta,
): { runs: Segment[] | null; rec: Meta & { kind: 'Record' } } | null {
  let runs: Segment[] | null = null;
  for (;;) {
    if (m.kind === 'Named') m = m.values;
    else if (m.kind === 'Nulls' && runs === null) {
      runs = m.runs;
      m = m.values;
    } else break;
  }
  return m.kind === 'Record' ? { runs, rec: m } : null;
}

/** Every segment a column reader of m reads. */
export function segmentsOf(m: Meta, out: Segment[]): void {
  switch (m.kind) {
    case 'Record':
      for (const f of m.fields) segmentsOf(f.values, out);
      return;
    case 'Array':
    case 'Set':
      out.push(...m.lengths);
      segmentsOf(m.values, out);
      return;
    case 'Map':
      out.push(...m.lengths);
      segmentsOf(m.keys, out);
      segmentsOf(m.values, out);
      return;
    case 'Union':
      out.push(...m.tags);
      for (const v of m.values) segmentsOf(v, out);
      return;
    case 'Primitive':
      out.push(...m.segmap);
      return;
    case 'Named':
      segmentsOf(m.values, out);
      return;
    case 'Nulls':
      out.push(...m.runs);
      segmentsOf(m.values, out);
      return;
  }
}

/** The segments a projection on fields reads (the root column's too). */
export function projectionSegments(layout: VngLayout, fields: ReadonlySet<string>): Segment[] {
  const out: Segment[] = [...layout.root];
  for (const m of layout.metas) {
    const r = recordOf(m);
    if (r === null) {
      segmentsOf(m, out);
      continue;
    }
    if (r.runs) out.push(...r.runs);
    for (const f of r.rec.fields) if (fields.has(f.name)) segmentsOf(f.values, out);
  }
  return out;
}

/** Fetched byte ranges of a data section, in offset order. */
export interface Chunk {
  offset: number;
  buf: Buffer;
}

/** A column source over fetched chunks. */
export class ChunkSource extends Source {
  constructor(
    private chunks: Chunk[],
    dataSize: number,
  ) {
    super(Buffer.alloc(0), dataSize);
    this.budget = 1 << 30;
  }

  override load(s: Segment): Buffer {
    const c = this.chunkOf(s);
    return loadSegment(c.buf, c.offset, this.dataEnd, s);
  }

  /** The last chunk starting at or before the segment. */
  private chunkOf(s: Segment): Chunk {
    const cs = this.chunks;
    let lo = 0;
    let hi = cs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (cs[mid].offset <= s.offset) lo = mid;
      else hi = mid - 1;
    }
    const c = cs[lo];
    if (!c) throw new VngError('vng: segment not loaded');
    return c;
  }

  /** Where a segment's stored bytes are (checked to be loaded and in the data section). */
  locate(s: Segment): { buf: Buffer; at: number } {
    const c = this.chunkOf(s);
    if (s.length < 0 || s.memLength < 0 || s.length > 2 * MAX_SEGMENT_THRESH)
      throw new VngError('segment too big');
    if (s.memLength > 255 * s.length + 64) throw new VngError('segment too big');
    if (s.offset < 0 || s.offset + s.length > this.dataEnd)
      throw new VngError('vng: segment out of range');
    const at = s.offset - c.offset;
    if (at < 0 || at + s.length > c.buf.length) throw new VngError('vng: segment not loaded');
    return { buf: c.buf, at };
  }
}

/** Reads the projected values of a VNG file from fetched chunks. */
export class ProjectedReader {
  private root: PrimitiveReader;
  private readers: SuperReader[] = [];

  constructor(layout: VngLayout, fields: ReadonlySet<string>, chunks: Chunk[], ctx: TypeContext) {
    const src = new ChunkSource(chunks, layout.dataSize);
    this.root = new PrimitiveReader(src, layout.root);
    try {
      for (const m of layout.metas) {
        const r = recordOf(m);
        if (r === null) {
          this.readers.push({ type: metaType(ctx, m), reader: newColumnReader(src, m) });
          continue;
        }
        const kept = r.rec.fields.filter((f) => fields.has(f.name));
        const type: TypeRecord = ctx.lookupTypeRecord(
          kept.map((f) => ({ name: f.name, type: metaType(ctx, f.values) })),
        );
        let reader: ColumnReader = new RecordReader(
          kept.map((f) => newColumnReader(src, f.values)),
        );
        if (r.runs) reader = new NullsReader(src, r.runs, reader);
        this.readers.push({ type, reader });
      }
    } catch (e) {
      if (e instanceof MetaError) throw new VngError(e.message);
      throw e;
    }
  }

  /** The next batch of values, or null at the end. */
  read(): Value[] | null {
    return readValues(this.root, this.readers);
  }
}
