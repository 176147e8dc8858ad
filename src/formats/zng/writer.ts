// The ZNG writer. Values are appended to a values buffer as <type ID><tag>
// <body>, their typedefs to a types buffer; when either reaches the frame
// threshold both are flushed, types frame first. Frames are LZ4-compressed
// when that makes them smaller. With compression off the output is
// byte-identical to the reference's.
//
// Big values frames may be compressed on the compression worker
// (compresspool.ts) while this thread fills the next ones: frames then
// wait in a queue and go to the sink in order, and anything that must
// follow them (typedefs, control messages, end of stream) waits for it.

import { ByteSink, ControlMessage, ValueWriter, WriterOptions } from '../io';
import { quotedName, quotedTypeName, quoteString } from '../../zed/names';
import { Type } from '../../zed/types';
import { Value } from '../../zed/value';
import { putUvarint, uvarintSize } from '../../zed/zcode';
import { ByteBuf, TypeEncoder } from './encoder';
import { CompressPool, compressPool } from './compresspool';
import {
  COMPRESSED,
  COMPRESSION_LZ4,
  ControlFormat,
  DEFAULT_FRAME_THRESHOLD,
  EOS,
  FrameType,
  MAX_HEADER,
} from './frame';
import { lz4Compress } from './lz4';
import { buildValuesFrame, RESERVE } from './valuesframe';

/** Below this many bytes a body is copied byte by byte (no subarray). */
const SHORT_COPY = 64;
/** Frames queued for the sink before the writer waits for them (the sink's back-pressure). */
const MAX_QUEUED = 4;

export interface ZngWriterOptions extends WriterOptions {
  /** The compression worker (default: the process's, compresspool.ts); null: none. */
  pool?: CompressPool | null;
}

export class ZngWriter implements ValueWriter {
  private types = new TypeEncoder();
  /** Values from offset RESERVE on; a frame header fits before them. */
  private values = new ByteBuf(64 * 1024);
  private compress: boolean;
  private threshold: number;
  private pos = 0;
  /** Position after the last end-of-stream marker (or 0). */
  private flushed = 0;
  private lastType: Type | null = null;
  private lastId = 0;
  private zbuf: Buffer = Buffer.alloc(0);
  private readonly pool: CompressPool | null;
  /** Frames waiting for the sink, in order; each link writes one. */
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  /** The first error of a queued frame (its compression or its write). */
  private failure: { error: unknown } | null = null;

  constructor(
    private sink: ByteSink,
    opts: ZngWriterOptions = {},
  ) {
    this.compress = opts.compress ?? true;
    this.threshold = opts.frameThreshold ?? DEFAULT_FRAME_THRESHOLD;
    this.values.len = RESERVE;
    this.pool = this.compress ? (opts.pool !== undefined ? opts.pool : compressPool()) : null;
  }

  /**
   * Bytes written to the sink so far. After endStream() this is the offset
   * at which the next stream starts, for a seek index.
   */
  get position(): number {
    return this.pos;
  }

  async write(vals: Value[]): Promise<void> {
    if (this.failure !== null) throw this.failure.error;
    const types = this.types;
    const values = this.values;
    const limit = this.threshold + RESERVE;
    for (let i = 0; i < vals.length; i++) {
      const v = vals[i];
      let id: number;
      if (v.type === this.lastType) {
        id = this.lastId;
      } else {
        id = types.id(v.type);
        this.lastType = v.type;
        this.lastId = id;
      }
      const len = v.len;
      let o = values.len;
      if (
        id < 0x80 &&
        i + 1 < vals.length &&
        vals[i + 1].buf === v.buf &&
        types.out.len < this.threshold
      ) {
        const n = this.copyRun(vals, i, id, limit - o);
        if (n > 1) {
          i += n - 1;
          if (values.len >= limit || types.out.len >= this.threshold) await this.flush();
          continue;
        }
      }
      if (o + 20 + len > values.buf.length) {
        values.ensure(20 + (len > 0 ? len : 0));
      }
      const out = values.buf;
      if (id < 0x80) out[o++] = id;
      else o = putUvarint(out, o, id);
      if (len < 0) {
        out[o++] = 0;
      } else {
        const tag = len + 1;
        if (tag < 0x80) out[o++] = tag;
        else o = putUvarint(out, o, tag);
        const src = v.buf;
        if (len < SHORT_COPY) {
          for (let s = v.off, e = v.off + len; s < e; s++) out[o++] = src[s];
        } else {
          out.set(src.subarray(v.off, v.off + len), o);
          o += len;
        }
      }
      values.len = o;
      if (o >= limit || types.out.len >= this.threshold) await this.flush();
    }
  }

  /**
   * Writes the values from vals[i] on that lie end to end in one buffer,
   * each as [one byte][its tag][its body] (as ZNG values of one-byte type
   * IDs do, and materialized rows, batch.ts), of vals[i]'s type (whose ID
   * id is one byte), up to about room bytes: they are copied as one
   * piece, and the byte before each tag then set to id. The tags are
   * checked, so any values may be passed. The run ends where writing
   * value by value would flush: after the value that reaches room bytes
   * (the caller tries a run only while the typedefs waiting are below
   * the threshold: the run's type is defined, so they do not grow).
   * Returns how many were written (0 or 1: none, the caller writes
   * vals[i] itself).
   */
  private copyRun(vals: Value[], i: number, id: number, room: number): number {
    const first = vals[i];
    const t = first.type;
    const buf = first.buf;
    let at = this.runAt;
    let start = -1;
    let end = 0;
    let n = 0;
    for (let j = i; j < vals.length; j++) {
      const v = vals[j];
      const len = v.len;
      if (v.type !== t || v.buf !== buf || len < 0) break;
      const off = v.off;
      const tag = len + 1;
      let head: number;
      if (tag < 0x80) {
        if (buf[off - 1] !== tag) break;
        head = off - 2;
      } else if (tag < 0x4000) {
        if (buf[off - 2] !== ((tag & 0x7f) | 0x80) || buf[off - 1] !== tag >>> 7) break;
        head = off - 3;
      } else break;
      if (start < 0) {
        if (head < 0) break;
        start = head;
      } else if (head !== end || head - start >= room) break;
      if (n === at.length) this.runAt = at = growInt32(at, n);
      at[n++] = head - start;
      end = off + len;
    }
    if (n < 2) return 0;
    const values = this.values;
    const size = end - start;
    values.ensure(size);
    const out = values.buf;
    const o = values.len;
    buf.copy(out, o, start, end);
    for (let k = 0; k < n; k++) out[o + at[k]] = id;
    values.len = o + size;
    return n;
  }

  /** Where each value of a run starts, from the run's start (copyRun). */
  private runAt: Int32Array = new Int32Array(1024);

  /**
   * Writes a control frame after flushing buffered values, so controls and
   * values keep their order. A ControlMessage is sent as a line of ZSON
   * (as the reference's service does: e.g. {channel_id:0}(=QueryChannelSet));
   * bytes or a string are sent as they are with the given encoding.
   */
  async writeControl(
    msg: ControlMessage | Uint8Array | string,
    format: number = ControlFormat.ZSON,
  ): Promise<void> {
    let body: Buffer;
    if (typeof msg === 'string') body = Buffer.from(msg, 'utf8');
    else if (msg instanceof Uint8Array) body = Buffer.from(msg.buffer, msg.byteOffset, msg.length);
    else body = Buffer.from(controlZSON(msg), 'utf8');
    await this.flush();
    await this.drain();
    const payload = Buffer.allocUnsafe(body.length + 1);
    payload[0] = format;
    body.copy(payload, 1);
    const out = Buffer.allocUnsafe(MAX_HEADER + payload.length);
    const n = this.putFrame(out, 0, FrameType.Control, payload, 0, payload.length);
    await this.emit(out.subarray(0, n));
  }

  /**
   * Flushes, then ends the stream with an end-of-stream marker (if
   * anything was written since the last one) and forgets the stream's
   * types, so the next stream can be decoded on its own.
   */
  async endStream(): Promise<void> {
    await this.flush();
    await this.drain();
    if (this.flushed !== this.pos) {
      await this.emit(Buffer.from([EOS]));
      this.flushed = this.pos;
    }
    this.types.reset();
    this.lastType = null;
  }

  async close(): Promise<void> {
    await this.endStream();
    await this.sink.end();
  }

  /** Writes the buffered types frame and then the values frame. */
  async flush(): Promise<void> {
    const tb = this.types.out;
    const vb = this.values;
    const vlen = vb.len - RESERVE;
    if (tb.len === 0 && vlen === 0) return;
    if (tb.len > 0) {
      // New types (rare after a stream's first frame): both frames in one
      // chunk, after the frames before them.
      await this.drain();
      const out = Buffer.allocUnsafe(2 * MAX_HEADER + tb.len + vlen);
      let o = this.putFrame(out, 0, FrameType.Types, tb.buf, 0, tb.len);
      if (vlen > 0) o = this.putFrame(out, o, FrameType.Values, vb.buf, RESERVE, vlen);
      tb.len = 0;
      vb.len = RESERVE;
      await this.emit(out.subarray(0, o));
      return;
    }
    vb.len = RESERVE;
    const buf = vb.buf;
    const pool = this.pool;
    if (pool !== null && pool.takes(vlen)) {
      // On the worker, from a copy: this thread goes on filling buf.
      await this.enqueue(pool.compress(buf, vlen));
      return;
    }
    // With no copy of the payload: compressed straight into the chunk
    // sent, or sent from the values buffer itself, which is then replaced
    // since the sink may hold the chunk.
    const { frame, inPlace } = buildValuesFrame(buf, vlen, this.compress);
    if (inPlace) vb.buf = Buffer.allocUnsafe(buf.length);
    if (this.queued === 0) await this.emit(frame);
    else await this.enqueue(Promise.resolve(frame));
  }

  /** Queues a frame for the sink after those queued; waits for them while too many are. */
  private async enqueue(frame: Promise<Buffer>): Promise<void> {
    // Handled here, so a frame left behind by an earlier failure is no
    // unhandled rejection; the link below still sees its error.
    frame.catch(() => undefined);
    this.queued++;
    this.chain = this.chain
      .then(async () => {
        if (this.failure === null) await this.emit(await frame);
      })
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => {
        this.queued--;
      });
    if (this.queued > MAX_QUEUED) await this.drain();
  }

  /** Waits until every queued frame is written; throws the first error among them. */
  private async drain(): Promise<void> {
    if (this.queued > 0) await this.chain;
    if (this.failure !== null) throw this.failure.error;
  }

  private async emit(chunk: Buffer): Promise<void> {
    this.pos += chunk.length;
    await this.sink.write(chunk);
  }

  /**
   * Writes a frame of payload[from, from + len) at out[o], compressed when
   * that is smaller, and returns the offset after it. out has room for
   * MAX_HEADER + len bytes from o.
   */
  private putFrame(
    out: Buffer,
    o: number,
    type: number,
    payload: Buffer,
    from: number,
    len: number,
  ): number {
    if (this.compress && len > 0) {
      if (this.zbuf.length < len) this.zbuf = Buffer.allocUnsafe(Math.max(len, 64 * 1024));
      const zlen = lz4Compress(payload, from, from + len, this.zbuf, 0, len - 1);
      if (zlen > 0) {
        const flen = zlen + 1 + uvarintSize(len);
        out[o++] = (type << 4) | (flen & 0xf) | COMPRESSED;
        o = putUvarint(out, o, Math.floor(flen / 16));
        out[o++] = COMPRESSION_LZ4;
        o = putUvarint(out, o, len);
        this.zbuf.copy(out, o, 0, zlen);
        return o + zlen;
      }
    }
    out[o++] = (type << 4) | (len & 0xf);
    o = putUvarint(out, o, Math.floor(len / 16));
    payload.copy(out, o, from, from + len);
    return o + len;
  }
}

function growInt32(a: Int32Array, n: number): Int32Array {
  const b = new Int32Array(2 * a.length);
  b.set(a.subarray(0, n));
  return b;
}

export function newWriter(sink: ByteSink, opts: WriterOptions = {}): ZngWriter {
  return new ZngWriter(sink, opts);
}

/**
 * A control message as the ZSON text of its value decorated with its type
 * name. Values are rendered from their JSON form (objects as records,
 * integers as int64), which covers the service's simple messages.
 */
export function controlZSON(msg: ControlMessage): string {
  // The reference writes it with its ZSON writer, newline included.
  return `${jsonToZSON(msg.value)}(=${quotedTypeName(msg.type)})\n`;
}

function jsonToZSON(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return quoteString(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (Number.isInteger(v)) return String(v);
      return Number.isFinite(v) ? String(v) : v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN';
    case 'bigint':
      return v.toString();
    case 'object':
      if (Array.isArray(v)) return `[${v.map(jsonToZSON).join(',')}]`;
      return `{${Object.entries(v as Record<string, unknown>)
        .map(([k, x]) => `${quotedName(k)}:${jsonToZSON(x)}`)
        .join(',')}}`;
    default:
      return quoteString(String(v));
  }
}
