// Writing VNG: values go to column writers chosen by their top-level type
// (first come, first numbered); the data section is streamed out as
// segments spill; at close the reassembly section (a ZNG stream of the root
// segmap and one metadata record per type) and the trailer (a ZNG stream of
// one zngio.Trailer record) follow.

import { TypeContext } from '../../zed/context';
import { TypeInt64, TypeString, Type } from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder } from '../../zed/zcode';
import { BufferSink, ByteSink, FormatError, ValueWriter } from '../io';
import { zngFormat } from '../zng';
import {
  ColumnWriter,
  newColumnWriter,
  PrimitiveWriter,
  Spiller,
  UnsupportedVngType,
} from './columns';
import { MetaEncoder, MetaError } from './metadata';

export const FILE_TYPE = 'vng';
export const VERSION = 3;
export const TRAILER_MAGIC = 'ZNG Trailer';
export const DEFAULT_SEGMENT_THRESH = 5 * 1024 * 1024;
export const DEFAULT_SKEW_THRESH = 25 * 1024 * 1024;
export const MAX_SEGMENT_THRESH = 20 * 1024 * 1024;
export const MAX_SKEW_THRESH = 512 * 1024 * 1024;

export interface VngWriterOptions {
  segmentThresh?: number;
  skewThresh?: number;
}

function checkThresh(which: string, max: number, thresh: number): void {
  if (thresh === 0) throw new FormatError('vng', `VNG ${which} threshold cannot be zero`);
  if (thresh > max) throw new FormatError('vng', `VNG ${which} threshold too large (${thresh})`);
}

export class VngWriter implements ValueWriter {
  private sp: Spiller;
  private typeNos = new Map<Type, number>();
  private writers: ColumnWriter[] = [];
  private root: PrimitiveWriter;
  private footprint = 0;
  private skewThresh: number;
  private segThresh: number;

  constructor(
    private sink: ByteSink,
    opts: VngWriterOptions = {},
  ) {
    this.skewThresh = opts.skewThresh ?? DEFAULT_SKEW_THRESH;
    this.segThresh = opts.segmentThresh ?? DEFAULT_SEGMENT_THRESH;
    checkThresh('skew', MAX_SKEW_THRESH, this.skewThresh);
    checkThresh('vector', MAX_SEGMENT_THRESH, this.segThresh);
    this.sp = new Spiller(this.segThresh);
    this.root = new PrimitiveWriter(TypeInt64, this.sp);
  }

  async write(vals: Value[]): Promise<void> {
    try {
      for (const v of vals) {
        let no = this.typeNos.get(v.type);
        if (no === undefined) {
          no = this.writers.length;
          this.writers.push(newColumnWriter(v.type, this.sp));
          this.typeNos.set(v.type, no);
        }
        this.root.writeInt(no);
        this.writers[no].write(v.buf, v.off, v.len);
        if (v.len > 0) this.footprint += v.len;
        if (this.footprint >= this.skewThresh) {
          this.footprint = 0;
          this.flush(false);
        }
      }
    } catch (err) {
      if (err instanceof UnsupportedVngType) throw new FormatError('vng', err.message);
      throw new FormatError(
        'vng',
        `VNG writer: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    await this.drain();
  }

  private flush(eof: boolean): void {
    for (const w of this.writers) w.flush(eof);
    this.root.flush();
  }

  private async drain(): Promise<void> {
    const pending = this.sp.pending;
    if (pending.length === 0) return;
    this.sp.pending = [];
    await this.sink.write(pending.length === 1 ? pending[0] : Buffer.concat(pending));
  }

  async close(): Promise<void> {
    this.flush(true);
    await this.drain();
    const dataSize = this.sp.position;
    const mctx = new TypeContext();
    const enc = new MetaEncoder(mctx);
    const vals: Value[] = [enc.segmapValue(this.root.segments)];
    try {
      for (const w of this.writers) vals.push(enc.metaValue(w.metadata()));
    } catch (err) {
      if (err instanceof MetaError) throw new FormatError('vng', err.message);
      throw err;
    }
    const maps = await zngBytes(vals);
    const trailer = await zngBytes([
      trailerValue([dataSize, maps.length], this.skewThresh, this.segThresh),
    ]);
    await this.sink.write(maps);
    await this.sink.write(trailer);
    await this.sink.end();
  }
}

/** A ZNG stream (compressed as the reference writes it) of the values. */
async function zngBytes(vals: Value[]): Promise<Buffer> {
  const sink = new BufferSink();
  const w = zngFormat.newWriter!(sink, {});
  await w.write(vals);
  await w.close();
  return sink.bytes();
}

/** The zngio.Trailer record naming a VNG file's sections and thresholds. */
export function trailerValue(sections: number[], skew: number, seg: number): Value {
  const ctx = new TypeContext();
  const metaType = ctx.lookupTypeNamed(
    'vng.FileMeta',
    ctx.lookupTypeRecord([
      { name: 'skew_thresh', type: TypeInt64 },
      { name: 'segment_thresh', type: TypeInt64 },
    ]),
  );
  const t = ctx.lookupTypeNamed(
    'zngio.Trailer',
    ctx.lookupTypeRecord([
      { name: 'magic', type: TypeString },
      { name: 'type', type: TypeString },
      { name: 'version', type: TypeInt64 },
      { name: 'sections', type: ctx.lookupTypeArray(TypeInt64) },
      { name: 'meta', type: metaType },
    ]),
  );
  const b = new Builder();
  b.beginContainer();
  b.appendBytes(Buffer.from(TRAILER_MAGIC));
  b.appendBytes(Buffer.from(FILE_TYPE));
  b.appendInt(VERSION);
  b.beginContainer();
  for (const s of sections) b.appendInt(s);
  b.endContainer();
  b.beginContainer();
  b.appendInt(skew);
  b.appendInt(seg);
  b.endContainer();
  b.endContainer();
  const { buf, off, len } = b.body();
  return new Value(t, Buffer.from(buf.subarray(off, off + len)), 0, len);
}
