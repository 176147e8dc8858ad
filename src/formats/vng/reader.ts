// Reading VNG: find the trailer at the end of the file, read the
// reassembly section, and rebuild each value from its type's columns in
// the order the root column gives. The whole input is buffered (VNG needs
// random access), so unlike the reference this also reads from a stream.

import { TypeContext } from '../../zed/context';
import { decodeInt, decodeString } from '../../zed/primitive';
import { Type, TypeArray, TypeInt64, TypeRecord, TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder, readUvarint, uv } from '../../zed/zcode';
import { ByteSource, FormatError, readWhole, ValueReader } from '../io';
import { decodeZng, EOS, lz4Decompress } from '../zng';
import {
  CompressionLZ4,
  CompressionNone,
  field,
  Meta,
  MetaError,
  metaType,
  readMeta,
  readSegmap,
  Segment,
} from './metadata';
import { FILE_TYPE, MAX_SEGMENT_THRESH, MAX_SKEW_THRESH, TRAILER_MAGIC, VERSION } from './writer';

const TRAILER_MAX_SIZE = 4096;
const OUT_BATCH = 4096;

export class VngError extends Error {}

/** The trailer's facts. */
export interface Trailer {
  sections: number[];
  skewThresh: number;
  segmentThresh: number;
}

/** Whether a well-formed run of ZNG frames ending in EOS starts at off. */
function validStream(b: Uint8Array, off: number): boolean {
  while (off < b.length) {
    const code = b[off];
    if (code === EOS) return true;
    if (code & 0x80) return false;
    if (((code >> 4) & 3) === 3) return false;
    if (off + 1 >= b.length) return false;
    const v = readUvarint(b, off + 1, b.length);
    if (v < 0) return false;
    const n = uv.end - (off + 1);
    const len = v * 16 + (code & 0xf) + n + 1;
    if (len < 1) return false;
    off += len;
  }
  return false;
}

function str(v: Value | undefined): string | undefined {
  if (!v || v.type.under !== TypeString || v.len < 0) return undefined;
  return decodeString(v.buf, v.off, v.len);
}

function num(v: Value | undefined): number | undefined {
  if (!v || v.len < 0 || v.len > 8) return undefined;
  return decodeInt(v.buf, v.off, v.len);
}

/** Finds and checks the trailer in the last 4 KiB of the file. */
export function readTrailer(buf: Buffer): Trailer {
  const tail = buf.subarray(Math.max(0, buf.length - TRAILER_MAX_SIZE));
  let err = 'trailer not found';
  for (let off = tail.length - 2; off >= 0; off--) {
    if ((off > 0 && tail[off - 1] !== EOS) || !validStream(tail, off)) continue;
    let val: Value | undefined;
    try {
      val = decodeZng(tail, { ctx: new TypeContext(), offset: off })[0];
    } catch {
      val = undefined;
    }
    let t: ReturnType<typeof unmarshalTrailer>;
    try {
      t = val && unmarshalTrailer(val);
    } catch {
      t = undefined;
    }
    if (typeof t === 'string') {
      if (err === 'trailer not found') err = t;
    } else if (t) {
      if (t.magic !== TRAILER_MAGIC) throw new VngError('bad trailer magic');
      if (t.type !== FILE_TYPE)
        throw new VngError(`not a VNG file: trailer type is ${JSON.stringify(t.type)}`);
      if (t.version !== VERSION) {
        throw new VngError(`VNG version ${t.version} found while expecting version ${VERSION}`);
      }
      if (t.skewThresh > MAX_SKEW_THRESH)
        throw new VngError(`skew threshold too large (${t.skewThresh})`);
      if (t.segmentThresh > MAX_SEGMENT_THRESH) {
        throw new VngError(`vector threshold too large (${t.segmentThresh})`);
      }
      return t;
    }
  }
  throw new VngError(err);
}

function unmarshalTrailer(
  v: Value,
): (Trailer & { magic: string; type: string; version: number }) | string | undefined {
  if (!(v.type.under instanceof TypeRecord)) return undefined;
  const magic = str(field(v, 'magic'));
  const type = str(field(v, 'type'));
  const version = num(field(v, 'version'));
  const secs = field(v, 'sections');
  const meta = field(v, 'meta');
  if (magic === undefined || type === undefined || version === undefined || !secs || !meta) {
    return 'trailer not found';
  }
  if (!(secs.type.under instanceof TypeArray) || secs.type.under.type.under !== TypeInt64)
    return undefined;
  const sections: number[] = [];
  for (let off = secs.off, end = secs.off + Math.max(secs.len, 0); off < end;) {
    const tag = readUvarint(secs.buf, off, end);
    if (tag < 0) return undefined;
    sections.push(tag === 0 ? 0 : decodeInt(secs.buf, uv.end, tag - 1));
    off = uv.end + Math.max(tag - 1, 0);
  }
  return {
    magic,
    type,
    version,
    sections,
    skewThresh: num(field(meta, 'skew_thresh')) ?? 0,
    segmentThresh: num(field(meta, 'segment_thresh')) ?? 0,
  };
}

/** Shared state of one file's column readers. */
export class Source {
  /** Elements arrays and maps may still produce (guards against blow-ups). */
  budget: number;

  constructor(
    readonly buf: Buffer,
    readonly dataEnd: number,
  ) {
    this.budget = 1024 * buf.length + (1 << 24);
  }

  /** A segment's bytes, decompressed. */
  load(s: Segment): Buffer {
    return loadSegment(this.buf, 0, this.dataEnd, s);
  }
}

/**
 * A segment's bytes, decompressed, from buf holding the data section's
 * bytes from base on (dataEnd: where the data section ends).
 */
export function loadSegment(buf: Buffer, base: number, dataEnd: number, s: Segment): Buffer {
  if (s.compression !== CompressionNone && s.compression !== CompressionLZ4) {
    throw new VngError(`vng: unknown compression format 0x${s.compression.toString(16)}`);
  }
  if (s.length > 2 * MAX_SEGMENT_THRESH || s.length < 0 || s.memLength < 0)
    throw new VngError('segment too big');
  const size = s.compression === CompressionNone ? s.memLength : s.length;
  if (s.offset < 0 || s.offset + size > dataEnd) throw new VngError('vng: segment out of range');
  const at = s.offset - base;
  if (at < 0 || at + size > buf.length) throw new VngError('vng: segment not loaded');
  if (s.compression === CompressionNone) return buf.subarray(at, at + size);
  // LZ4 expands at most 255-fold.
  if (s.memLength > 255 * s.length + 64) throw new VngError('segment too big');
  const out = Buffer.allocUnsafe(s.memLength);
  const n = lz4Decompress(buf, at, at + s.length, out, 0, s.memLength);
  if (n !== s.memLength) {
    throw new VngError(`vng: got ${n < 0 ? 0 : n} uncompressed bytes, expected ${s.memLength}`);
  }
  return out;
}

export interface ColumnReader {
  /** Appends the next value as a tagged child of b. */
  read(b: Builder): void;
}

export class PrimitiveReader implements ColumnReader {
  private seg = 0;
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  off = 0;
  len = 0;

  constructor(
    private src: Source,
    private segs: Segment[],
  ) {}

  /** Points off/len at the next value. */
  next(): void {
    while (this.pos >= this.buf.length) {
      if (this.seg >= this.segs.length) throw new VngError('vng: column ended early (EOF)');
      this.buf = this.src.load(this.segs[this.seg++]);
      this.pos = 0;
    }
    const tag = readUvarint(this.buf, this.pos, this.buf.length);
    if (tag < 0) throw new VngError('vng: truncated value in column');
    const len = tag - 1;
    if (uv.end + Math.max(len, 0) > this.buf.length)
      throw new VngError('vng: truncated value in column');
    this.off = uv.end;
    this.len = len;
    this.pos = uv.end + Math.max(len, 0);
  }

  /** True when no value remains. */
  done(): boolean {
    return this.pos >= this.buf.length && this.seg >= this.segs.length;
  }

  read(b: Builder): void {
    this.next();
    b.append(this.buf, this.off, this.len);
  }

  readInt(): number {
    this.next();
    if (this.len < 0) return 0;
    if (this.len > 8) throw new VngError('vng: bad integer in column');
    return decodeInt(this.buf, this.off, this.len);
  }
}

export class NullsReader implements ColumnReader {
  private runs: PrimitiveReader;
  private inNull = true;
  private run = 0;

  constructor(
    src: Source,
    segs: Segment[],
    private values: ColumnReader,
  ) {
    this.runs = new PrimitiveReader(src, segs);
  }

  read(b: Builder): void {
    let run = this.run;
    while (run <= 0) {
      this.inNull = !this.inNull;
      run = this.runs.readInt();
    }
    this.run = run - 1;
    if (this.inNull) b.appendNull();
    else this.values.read(b);
  }
}

export class RecordReader implements ColumnReader {
  constructor(private fields: ColumnReader[]) {}
  read(b: Builder): void {
    b.beginContainer();
    for (const f of this.fields) f.read(b);
    b.endContainer();
  }
}

class ArrayReader implements ColumnReader {
  private lengths: PrimitiveReader;

  constructor(
    private src: Source,
    segs: Segment[],
    private kids: ColumnReader[],
  ) {
    this.lengths = new PrimitiveReader(src, segs);
  }

  read(b: Builder): void {
    const n = this.lengths.readInt();
    if (n > this.src.budget) throw new VngError('vng: container length out of range');
    this.src.budget -= Math.max(n, 0);
    b.beginContainer();
    for (let i = 0; i < n; i++) for (const k of this.kids) k.read(b);
    b.endContainer();
  }
}

class UnionReader implements ColumnReader {
  private tags: PrimitiveReader;

  constructor(
    src: Source,
    segs: Segment[],
    private values: ColumnReader[],
  ) {
    this.tags = new PrimitiveReader(src, segs);
  }

  read(b: Builder): void {
    const tag = this.tags.readInt();
    if (tag < 0 || tag >= this.values.length) throw new VngError('bad tag in VNG union reader');
    b.beginContainer();
    b.appendInt(tag);
    this.values[tag].read(b);
    b.endContainer();
  }
}

export function newColumnReader(src: Source, m: Meta): ColumnReader {
  switch (m.kind) {
    case 'Nulls':
      return new NullsReader(src, m.runs, newColumnReader(src, m.values));
    case 'Named':
      return newColumnReader(src, m.values);
    case 'Record':
      return new RecordReader(m.fields.map((f) => newColumnReader(src, f.values)));
    case 'Array':
    case 'Set':
      return new ArrayReader(src, m.lengths, [newColumnReader(src, m.values)]);
    case 'Map':
      return new ArrayReader(src, m.lengths, [
        newColumnReader(src, m.keys),
        newColumnReader(src, m.values),
      ]);
    case 'Union':
      return new UnionReader(
        src,
        m.tags,
        m.values.map((v) => newColumnReader(src, v)),
      );
    case 'Primitive':
      return new PrimitiveReader(src, m.segmap);
  }
}

/** A super type's reader and the type of the values it makes. */
export interface SuperReader {
  type: Type;
  reader: ColumnReader;
}

/** The next batch of values reassembled from the root column, or null at its end. */
export function readValues(root: PrimitiveReader, readers: SuperReader[]): Value[] | null {
  if (root.done()) return null;
  const b = new Builder(64 * 1024);
  const starts: number[] = [];
  const types: Type[] = [];
  while (!root.done() && types.length < OUT_BATCH && b.len < 1 << 20) {
    const no = root.readInt();
    if (no < 0 || no >= readers.length) {
      throw new VngError('system error: type number out of range in VNG root metadata');
    }
    const tr = readers[no];
    starts.push(b.len);
    tr.reader.read(b);
    types.push(tr.type);
  }
  const buf = b.buf;
  return types.map((t, i) => {
    const tag = readUvarint(buf, starts[i], b.len);
    return new Value(t, buf, uv.end, tag - 1);
  });
}

export class VngReader implements ValueReader {
  private root?: PrimitiveReader;
  private readers: SuperReader[] = [];

  constructor(
    private src: ByteSource,
    private ctx: TypeContext,
  ) {}

  private open(buf: Buffer): void {
    const trailer = readTrailer(buf);
    const [dataSize, mapsSize] = trailer.sections;
    if (
      trailer.sections.length < 2 ||
      dataSize < 0 ||
      mapsSize < 0 ||
      dataSize + mapsSize > buf.length
    ) {
      throw new VngError('vng: bad section sizes in trailer');
    }
    const mctx = new TypeContext();
    let vals: Value[];
    try {
      vals = decodeZng(buf, { ctx: mctx, offset: dataSize, end: dataSize + mapsSize });
    } catch (err) {
      throw new VngError(err instanceof Error ? err.message : String(err));
    }
    if (vals.length === 0) throw new VngError('vng: empty reassembly section');
    const source = new Source(buf, dataSize);
    this.root = new PrimitiveReader(source, readSegmap(vals[0]));
    for (const v of vals.slice(1)) {
      const m = readMeta(this.ctx, v);
      this.readers.push({ type: metaType(this.ctx, m), reader: newColumnReader(source, m) });
    }
  }

  async read(): Promise<Value[] | null> {
    try {
      if (!this.root) this.open(await readWhole(this.src));
      return readValues(this.root!, this.readers);
    } catch (err) {
      if (err instanceof VngError || err instanceof MetaError)
        throw new FormatError('vng', err.message);
      if (err instanceof FormatError) throw new FormatError('vng', err.message, err.offset);
      throw new FormatError('vng', `vng: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
