// Reading a data object through its columnar copy: only the columns of
// the top-level fields a query uses (and the pool key's when the object's
// values are merged with another's by key), fetched as ranged reads of `<id>.vng`, materialized as records
// of those fields. A scan picks this per object (scan.ts) when the query
// says which fields it reads and the object has a live copy; anything
// else reads the object's ZNG by rows.

import { FormatError } from '../formats/io';
import {
  Chunk,
  projectionSegments,
  ProjectedReader,
  reassemblyRange,
  readLayout,
  TRAILER_BYTES,
  VngLayout,
} from '../formats/vng/project';
import { VngError } from '../formats/vng/reader';
import { Segment } from '../formats/vng/metadata';
import { isNotFound, ObjectStore } from '../storage/storage';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { PoolConfig } from './config';
import { notFound } from './errors';
import { DataObject } from './object';
import { vectorKey } from './vectors';

/** Ranges closer than this are fetched as one read. */
const COALESCE_GAP = 256 * 1024;

/** What a scan needs to read objects by columns. */
export interface ColumnScan {
  /** Top-level fields to read. */
  fields: ReadonlySet<string>;
  /** The same with the pool key's top-level field, for objects that are merged. */
  withKey: ReadonlySet<string>;
  /** Whether to read this object by columns. */
  use(o: DataObject): boolean;
  /** The object's VNG layout (cached by the lake). */
  layout(o: DataObject): Promise<VngLayout>;
}

/** Reads an object's VNG layout: its trailer, then its reassembly section. */
export async function loadLayout(
  storage: ObjectStore,
  pool: PoolConfig,
  o: DataObject,
  commit: string,
): Promise<VngLayout> {
  const key = vectorKey(pool.id, o.id);
  try {
    const size = await storage.size(key);
    const tailAt = Math.max(0, size - TRAILER_BYTES);
    const tail = await storage.getRange(key, tailAt, size - tailAt);
    const r = reassemblyRange(tail);
    const maps =
      r.offset >= tailAt
        ? tail.subarray(r.offset - tailAt, r.offset - tailAt + r.length)
        : await storage.getRange(key, r.offset, r.length);
    return readLayout(r.offset, maps);
  } catch (e) {
    throw wrap(e, o, commit);
  }
}

function wrap(e: unknown, o: DataObject, commit: string): unknown {
  if (isNotFound(e))
    return notFound(`data object ${o.id} of commit ${commit} not found: it was removed by vacuum`);
  if (e instanceof FormatError) return e;
  if (e instanceof VngError) return new FormatError('vng', `${o.id}.vng: ${e.message}`);
  return e;
}

/** Byte ranges covering the segments, near ones joined, in offset order. */
export function coalesce(segs: Segment[]): { offset: number; length: number }[] {
  const spans = segs
    .map((s) => ({
      offset: s.offset,
      end: s.offset + (s.compression === 0 ? s.memLength : s.length),
    }))
    .filter((s) => s.end > s.offset)
    .sort((a, b) => a.offset - b.offset);
  const out: { offset: number; length: number }[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.offset <= last.offset + last.length + COALESCE_GAP) {
      last.length = Math.max(last.length, s.end - last.offset);
    } else out.push({ offset: s.offset, length: s.end - s.offset });
  }
  return out;
}

/** The values of one object, by columns, in the object's order. */
export class VectorCursor {
  private reader: ProjectedReader | null = null;
  private done = false;

  constructor(
    private storage: ObjectStore,
    private pool: PoolConfig,
    private o: DataObject,
    private columns: ColumnScan,
    /** The object is merged with others, so its values need the pool key. */
    private merged: boolean,
    private ctx: TypeContext,
    private commit: string,
    /** Called with the stored bytes fetched and the values read. */
    private count: (bytes: number, values: number) => void,
  ) {}

  async next(): Promise<Value[] | null> {
    if (this.done) return null;
    if (!this.reader) this.reader = await this.open();
    let batch: Value[] | null;
    try {
      batch = this.reader.read();
    } catch (e) {
      throw wrap(e, this.o, this.commit);
    }
    if (batch === null) {
      this.done = true;
      return null;
    }
    this.count(0, batch.length);
    return batch;
  }

  private async open(): Promise<ProjectedReader> {
    const layout = await this.columns.layout(this.o);
    const fields = this.merged ? this.columns.withKey : this.columns.fields;
    const ranges = coalesce(projectionSegments(layout, fields));
    const key = vectorKey(this.pool.id, this.o.id);
    let chunks: Chunk[];
    try {
      chunks = await fetchAll(this.storage, key, ranges);
    } catch (e) {
      throw wrap(e, this.o, this.commit);
    }
    let bytes = 0;
    for (const c of chunks) bytes += c.buf.length;
    this.count(bytes, 0);
    try {
      return new ProjectedReader(layout, fields, chunks, this.ctx);
    } catch (e) {
      throw wrap(e, this.o, this.commit);
    }
  }
}

/** Fetches the ranges, a few at a time (the store's read-ahead). */
async function fetchAll(
  storage: ObjectStore,
  key: string,
  ranges: { offset: number; length: number }[],
): Promise<Chunk[]> {
  const out: Chunk[] = new Array(ranges.length);
  const width = Math.max(1, storage.readAhead);
  let next = 0;
  const worker = async () => {
    while (next < ranges.length) {
      const i = next++;
      const r = ranges[i];
      out[i] = { offset: r.offset, buf: await storage.getRange(key, r.offset, r.length) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, ranges.length) }, worker));
  return out;
}
