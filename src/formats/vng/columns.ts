// VNG column writers: one per node of a top-level type, laid out as the
// reference lays them out (docs/formats/vng.md, vng/vector): primitive
// values are buffered as tagged zcode and spilled as a segment when the
// buffer reaches the segment threshold; arrays, sets and maps add an int64
// lengths column, unions an int64 tags column, and every complex column is
// wrapped by a nulls column of alternating value/null run lengths (omitted
// when the column has no nulls).

import { formatType } from '../../zed/typestring';
import {
  Type,
  TypeArray,
  TypeInt64,
  TypeMap,
  TypeNamed,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';
import { decodeInt } from '../../zed/primitive';
import { putUvarint, readUvarint, uv, ZcodeError } from '../../zed/zcode';
import { lz4Compress } from '../zng';
import { CompressionLZ4, CompressionNone, Meta, Segment } from './metadata';

/** Writes segments to the data section, LZ4-compressing those that shrink. */
export class Spiller {
  position = 0;
  private zbuf = Buffer.alloc(0);
  /** Segment bytes waiting to reach the sink, in order. */
  pending: Buffer[] = [];

  constructor(readonly thresh: number) {}

  write(segs: Segment[], b: Uint8Array, len: number): void {
    if (this.zbuf.length < len) this.zbuf = Buffer.allocUnsafe(Math.max(len, 2 * this.zbuf.length));
    // Compression must save at least one byte to be used.
    const zlen = len > 1 ? lz4Compress(b, 0, len, this.zbuf, 0, len - 1) : 0;
    let out: Buffer;
    let format = CompressionNone;
    if (zlen > 0) {
      out = Buffer.from(this.zbuf.subarray(0, zlen));
      format = CompressionLZ4;
    } else {
      out = Buffer.from(b.subarray(0, len));
    }
    this.pending.push(out);
    segs.push({ offset: this.position, length: out.length, memLength: len, compression: format });
    this.position += out.length;
  }
}

export interface ColumnWriter {
  /** Writes one body (len -1 for null). */
  write(buf: Uint8Array, off: number, len: number): void;
  /** Spills buffered data; eof also closes run-length state. */
  flush(eof: boolean): void;
  metadata(): Meta;
}

export class UnsupportedVngType extends Error {}

export function newColumnWriter(t: Type, sp: Spiller): ColumnWriter {
  if (t instanceof TypeNamed) return new NamedWriter(t.name, newColumnWriter(t.type, sp));
  if (t instanceof TypeRecord) return new NullsWriter(new RecordWriter(t, sp), sp);
  if (t instanceof TypeArray) return new NullsWriter(new ArrayWriter(t.type, sp, 'Array'), sp);
  if (t instanceof TypeSet) return new NullsWriter(new ArrayWriter(t.type, sp, 'Set'), sp);
  if (t instanceof TypeMap) return new NullsWriter(new MapWriter(t, sp), sp);
  if (t instanceof TypeUnion) return new NullsWriter(new UnionWriter(t, sp), sp);
  if (t instanceof TypePrimitive) return new PrimitiveWriter(t, sp);
  throw new UnsupportedVngType(`unsupported type in VNG file: ${formatType(t)}`);
}

export class PrimitiveWriter implements ColumnWriter {
  private buf = Buffer.allocUnsafe(1024);
  private len = 0;
  readonly segments: Segment[] = [];

  constructor(
    private type: Type,
    private sp: Spiller,
  ) {}

  write(src: Uint8Array, off: number, len: number): void {
    const need = this.len + (len < 0 ? 1 : len + 10);
    if (need > this.buf.length) {
      const nb = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(nb, 0, 0, this.len);
      this.buf = nb;
    }
    if (len < 0) {
      this.buf[this.len++] = 0;
    } else {
      this.len = putUvarint(this.buf, this.len, len + 1);
      // Short values (most) are copied by hand: a subarray per value costs
      // an object and dominates writing otherwise.
      const dst = this.buf;
      if (len <= 32) {
        let d = this.len;
        for (let i = off, end = off + len; i < end; i++) dst[d++] = src[i];
      } else dst.set(src.subarray(off, off + len), this.len);
      this.len += len;
    }
    if (this.len >= this.sp.thresh) this.flush();
  }

  writeInt(v: number): void {
    // Sign in bit 0, magnitude above, minimal little-endian, as zed.EncodeInt.
    let u = v >= 0 ? v * 2 : -v * 2 + 1;
    const tmp = intScratch;
    let n = 0;
    while (u > 0) {
      tmp[n++] = u % 256;
      u = Math.floor(u / 256);
    }
    this.write(tmp, 0, n);
  }

  flush(): void {
    if (this.len > 0) {
      this.sp.write(this.segments, this.buf, this.len);
      this.len = 0;
    }
  }

  metadata(): Meta {
    return { kind: 'Primitive', type: this.type, segmap: this.segments };
  }
}

const intScratch = new Uint8Array(10);

function int64Writer(sp: Spiller): PrimitiveWriter {
  return new PrimitiveWriter(TypeInt64, sp);
}

class NamedWriter implements ColumnWriter {
  constructor(
    private name: string,
    private inner: ColumnWriter,
  ) {}
  write(buf: Uint8Array, off: number, len: number): void {
    this.inner.write(buf, off, len);
  }
  flush(eof: boolean): void {
    this.inner.flush(eof);
  }
  metadata(): Meta {
    return { kind: 'Named', name: this.name, values: this.inner.metadata() };
  }
}

/** Run lengths of alternating values and nulls, starting with values. */
class NullsWriter implements ColumnWriter {
  private runs: PrimitiveWriter;
  private run = 0;
  private inNull = false;
  private dirty = false;

  constructor(
    private values: ColumnWriter,
    sp: Spiller,
  ) {
    this.runs = int64Writer(sp);
  }

  write(buf: Uint8Array, off: number, len: number): void {
    if (len >= 0) {
      if (!this.inNull) this.run++;
      else {
        this.runs.writeInt(this.run);
        this.run = 1;
        this.inNull = false;
      }
      this.values.write(buf, off, len);
      return;
    }
    this.dirty = true;
    if (this.inNull) this.run++;
    else {
      this.runs.writeInt(this.run);
      this.run = 1;
      this.inNull = true;
    }
  }

  flush(eof: boolean): void {
    if (eof && this.dirty) {
      this.runs.writeInt(this.run);
      this.runs.flush();
    }
    this.values.flush(eof);
  }

  metadata(): Meta {
    const values = this.values.metadata();
    if (this.runs.segments.length === 0) return values;
    return { kind: 'Nulls', runs: this.runs.segments, values };
  }
}

class RecordWriter implements ColumnWriter {
  private fields: { name: string; w: ColumnWriter }[];

  constructor(t: TypeRecord, sp: Spiller) {
    this.fields = t.fields.map((f) => ({ name: f.name, w: newColumnWriter(f.type, sp) }));
  }

  write(buf: Uint8Array, off: number, len: number): void {
    const end = off + len;
    let p = off;
    for (const f of this.fields) {
      if (p >= end) throw new ZcodeError("zng record value doesn't match vector writer");
      const tag = readUvarint(buf, p, end);
      if (tag < 0) throw new ZcodeError('truncated tag');
      const n = tag - 1;
      const at = uv.end;
      f.w.write(buf, at, n);
      p = at + (n < 0 ? 0 : n);
    }
    if (p !== end) throw new ZcodeError("zng record value doesn't match vector writer");
  }

  flush(eof: boolean): void {
    for (const f of this.fields) f.w.flush(eof);
  }

  metadata(): Meta {
    return {
      kind: 'Record',
      fields: this.fields.map((f) => ({ name: f.name, values: f.w.metadata() })),
    };
  }
}

class ArrayWriter implements ColumnWriter {
  private values: ColumnWriter;
  private lengths: PrimitiveWriter;

  constructor(
    inner: Type,
    sp: Spiller,
    private kind: 'Array' | 'Set',
  ) {
    this.values = newColumnWriter(inner, sp);
    this.lengths = int64Writer(sp);
  }

  write(buf: Uint8Array, off: number, len: number): void {
    const end = off + len;
    let n = 0;
    for (let p = off; p < end; n++) {
      const tag = readUvarint(buf, p, end);
      if (tag < 0) throw new ZcodeError('truncated tag');
      const l = tag - 1;
      const at = uv.end;
      this.values.write(buf, at, l);
      p = at + (l < 0 ? 0 : l);
    }
    this.lengths.writeInt(n);
  }

  flush(eof: boolean): void {
    this.lengths.flush();
    this.values.flush(eof);
  }

  metadata(): Meta {
    return { kind: this.kind, lengths: this.lengths.segments, values: this.values.metadata() };
  }
}

class MapWriter implements ColumnWriter {
  private keys: ColumnWriter;
  private values: ColumnWriter;
  private lengths: PrimitiveWriter;

  constructor(t: TypeMap, sp: Spiller) {
    this.keys = newColumnWriter(t.keyType, sp);
    this.values = newColumnWriter(t.valType, sp);
    this.lengths = int64Writer(sp);
  }

  write(buf: Uint8Array, off: number, len: number): void {
    const end = off + len;
    let n = 0;
    for (let p = off; p < end; n++) {
      let tag = readUvarint(buf, p, end);
      if (tag < 0) throw new ZcodeError('truncated tag');
      let l = tag - 1;
      const ks = uv.end;
      p = ks + (l < 0 ? 0 : l);
      if (p >= end) throw new ZcodeError('VNG writer: truncated map value');
      this.keys.write(buf, ks, l);
      tag = readUvarint(buf, p, end);
      if (tag < 0) throw new ZcodeError('truncated tag');
      l = tag - 1;
      const vs = uv.end;
      this.values.write(buf, vs, l);
      p = vs + (l < 0 ? 0 : l);
    }
    this.lengths.writeInt(n);
  }

  flush(eof: boolean): void {
    this.lengths.flush();
    this.keys.flush(eof);
    this.values.flush(eof);
  }

  metadata(): Meta {
    return {
      kind: 'Map',
      lengths: this.lengths.segments,
      keys: this.keys.metadata(),
      values: this.values.metadata(),
    };
  }
}

class UnionWriter implements ColumnWriter {
  private values: ColumnWriter[];
  private tags: PrimitiveWriter;

  constructor(t: TypeUnion, sp: Spiller) {
    this.values = t.types.map((u) => newColumnWriter(u, sp));
    this.tags = int64Writer(sp);
  }

  write(buf: Uint8Array, off: number, len: number): void {
    const end = off + len;
    const tag = readUvarint(buf, off, end);
    if (tag < 1) throw new ZcodeError('bad union value');
    const sel = decodeInt(buf, uv.end, tag - 1);
    const p = uv.end + tag - 1;
    const vt = readUvarint(buf, p, end);
    if (vt < 0 || sel < 0 || sel >= this.values.length) throw new ZcodeError('bad union value');
    this.tags.writeInt(sel);
    this.values[sel].write(buf, uv.end, vt - 1);
  }

  flush(eof: boolean): void {
    this.tags.flush();
    for (const v of this.values) v.flush(eof);
  }

  metadata(): Meta {
    return {
      kind: 'Union',
      tags: this.tags.segments,
      values: this.values.map((v) => v.metadata()),
    };
  }
}
