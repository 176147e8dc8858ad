// ZNG readers: a streaming reader over a ByteSource that holds one frame in
// memory at a time, and a reader over a buffer already in memory (the lake
// reads data objects by byte ranges that start at stream boundaries).
//
// Each values frame becomes one batch of Values pointing into the frame's
// bytes: into the source's own chunk when the frame lies within one chunk
// (sources must not reuse a chunk's memory once returned), else into a
// fresh buffer holding the frame, or into the decompressed payload.

import { ByteSource, FormatError, ReaderOptions, ValueReader } from '../io';
import { TypeContext } from '../../zed/context';
import { EMPTY, Value } from '../../zed/value';
import { Frame, FORMAT, ZngDecoder } from './decoder';
import { MALFORMED, MAX_HEADER, ZngControl } from './frame';

export interface ZngReaderOptions extends ReaderOptions {
  /**
   * Called with each control frame, in order with the values around it.
   * When absent, read() skips control frames (readPayload() returns them).
   */
  onControl?: (format: number, body: Buffer) => void | Promise<void>;
  /** Largest frame payload accepted (default 1 GiB, the reference's). */
  maxFrameSize?: number;
  /**
   * Check every value's structure against its type, as the reference does
   * for lake loads and format detection (default false).
   */
  validate?: boolean;
}

/** Options of the in-memory reader. */
export interface ZngBufferOptions extends ZngReaderOptions {
  /** Where to start in the buffer (default 0): a stream boundary. */
  offset?: number;
  /** Where to stop (default the buffer's end). */
  end?: number;
  /** Stream offset of buf[0], for error offsets (default 0). */
  base?: number;
}

const TRUNCATED = 'truncated input';
const UNEXPECTED_EOF = 'unexpected EOF';

/**
 * The error for a frame cut short, as the reference reports it: a
 * compressed payload is a malformed record, an uncompressed one truncated.
 */
function shortFrame(code: number): string {
  return (code & 0x40) !== 0 ? MALFORMED : TRUNCATED;
}

/** Streams values from ZNG bytes. */
export class ZngReader implements ValueReader {
  private dec: ZngDecoder;
  private buf: Buffer = EMPTY;
  private pos = 0;
  /** Stream offset of buf[0]. */
  private bufOffset = 0;
  private eof = false;
  private closed = false;

  constructor(
    private src: ByteSource,
    private opts: ZngReaderOptions,
  ) {
    this.dec = new ZngDecoder(opts.ctx, opts.maxFrameSize, opts.validate);
  }

  /** Stream offset of the next frame to read. */
  get position(): number {
    return this.bufOffset + this.pos;
  }

  async read(): Promise<Value[] | null> {
    for (;;) {
      const p = await this.readPayload();
      if (p === null || Array.isArray(p)) return p;
      if (this.opts.onControl) await this.opts.onControl(p.format, p.body);
    }
  }

  /** The next batch of values or control message, or null at the end. */
  async readPayload(): Promise<Value[] | ZngControl | null> {
    const dec = this.dec;
    while (!this.closed) {
      if (this.pos >= this.buf.length && !(await this.fill(1))) return null;
      const offset = this.bufOffset + this.pos;
      let size = dec.frameSize(this.buf, this.pos, this.buf.length, offset);
      if (size < 0) {
        await this.fill(MAX_HEADER);
        size = dec.frameSize(this.buf, this.pos, this.buf.length, offset);
        if (size < 0) throw new FormatError(FORMAT, UNEXPECTED_EOF, offset);
      }
      if (this.buf.length - this.pos < size && !(await this.fill(size))) {
        throw new FormatError(FORMAT, shortFrame(this.buf[this.pos]), offset);
      }
      const out: Value[] = [];
      const at = this.pos;
      this.pos += size;
      const kind = dec.decodeFrame(this.buf, at, at + size, offset, out);
      if (kind === Frame.Values) {
        if (out.length > 0) return out;
      } else if (kind === Frame.Control) {
        return dec.control!;
      }
    }
    return null;
  }

  /**
   * Makes at least n bytes available from pos, reading and joining chunks;
   * false if the input ends first (what remains is still available).
   */
  private async fill(n: number): Promise<boolean> {
    if (this.buf.length - this.pos >= n) return true;
    if (this.eof) return false;
    const parts: Buffer[] = [];
    let have = this.buf.length - this.pos;
    if (have > 0) parts.push(this.buf.subarray(this.pos));
    const start = this.bufOffset + this.pos;
    while (have < n) {
      const chunk = await this.src.read();
      if (chunk === null) {
        this.eof = true;
        break;
      }
      if (chunk.length === 0) continue;
      parts.push(chunk);
      have += chunk.length;
    }
    this.buf =
      parts.length === 1 ? parts[0] : parts.length === 0 ? EMPTY : Buffer.concat(parts, have);
    this.pos = 0;
    this.bufOffset = start;
    return have >= n;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.buf = EMPTY;
    this.pos = 0;
  }
}

/**
 * Reads ZNG from a buffer in memory, synchronously: a batch per values
 * frame. Start offsets must be stream boundaries (the start, or just after
 * an end-of-stream marker), as a seek index records them.
 */
export class ZngBufferReader implements ValueReader {
  private dec: ZngDecoder;
  private pos: number;
  private end: number;
  private base: number;

  constructor(
    private buf: Buffer,
    private opts: ZngBufferOptions,
  ) {
    this.dec = new ZngDecoder(opts.ctx, opts.maxFrameSize, opts.validate);
    this.pos = opts.offset ?? 0;
    this.end = opts.end ?? buf.length;
    this.base = opts.base ?? 0;
    if (this.pos < 0 || this.end > buf.length || this.pos > this.end) {
      throw new RangeError('ZngBufferReader: bad range');
    }
  }

  /** Buffer offset of the next frame to read. */
  get position(): number {
    return this.pos;
  }

  /** The next batch of values or control message, or null at the end. */
  next(): Value[] | ZngControl | null {
    const { buf, dec, end } = this;
    while (this.pos < end) {
      const at = this.pos;
      const offset = this.base + at;
      const size = dec.frameSize(buf, at, end, offset);
      if (size < 0) throw new FormatError(FORMAT, UNEXPECTED_EOF, offset);
      if (size > end - at) throw new FormatError(FORMAT, shortFrame(buf[at]), offset);
      const out: Value[] = [];
      this.pos = at + size;
      const kind = dec.decodeFrame(buf, at, at + size, offset, out);
      if (kind === Frame.Values) {
        if (out.length > 0) return out;
      } else if (kind === Frame.Control) {
        return dec.control!;
      }
    }
    return null;
  }

  /** The next batch of values (controls go to onControl), or null. */
  nextBatch(): Value[] | null {
    for (;;) {
      const p = this.next();
      if (p === null || Array.isArray(p)) return p;
      // A callback that returns a promise is not awaited here; read() awaits.
      void this.opts.onControl?.(p.format, p.body);
    }
  }

  async read(): Promise<Value[] | null> {
    for (;;) {
      const p = this.next();
      if (p === null || Array.isArray(p)) return p;
      if (this.opts.onControl) await this.opts.onControl(p.format, p.body);
    }
  }
}

/** Every value of the ZNG in buf (from opts.offset), synchronously. */
export function decodeZng(buf: Buffer, opts: ZngBufferOptions): Value[] {
  const r = new ZngBufferReader(buf, opts);
  const out: Value[] = [];
  for (let batch = r.nextBatch(); batch !== null; batch = r.nextBatch()) {
    for (const v of batch) out.push(v);
  }
  return out;
}

export function newReader(src: ByteSource, opts: ZngReaderOptions): ZngReader {
  return new ZngReader(src, opts);
}

/** A fresh context's reader over a whole buffer (tests, small inputs). */
export function newBufferReader(buf: Buffer, ctx: TypeContext): ZngBufferReader {
  return new ZngBufferReader(buf, { ctx });
}
