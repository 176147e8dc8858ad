// The streaming ZSON reader: bytes arrive in chunks, values leave in
// batches. The unparsed tail of the input is kept in one buffer; a value
// cut off by the end of the buffer is parsed again from its start once more
// input has arrived (reads grow the tail at least twofold, so re-parsing
// costs at most about as much again as parsing). Memory is bounded by the
// largest single value, not by the input.

import { ByteSource, FormatError, ReaderOptions, ValueReader } from '../io';
import { TypeContext } from '../../zed/context';
import { Type } from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder, readUvarint, uv } from '../../zed/zcode';
import { AnalysisError, Analyzer } from './analyzer';
import { copyRange } from './gotext';
import { NEED_MORE, ParseError, Parser } from './parser';

/** Limits on what one reader holds (adjustable for tests). */
export const readerLimits = {
  /** The largest single value, in bytes of ZSON text. */
  maxValueBytes: 256 * 1024 * 1024,
  /** Values per batch. */
  batchValues: 500,
  /** Approximate zcode bytes per batch. */
  batchBytes: 1 << 20,
};

export class ZsonReader implements ValueReader {
  private readonly parser = new Parser();
  private readonly analyzer: Analyzer;
  private readonly builder = new Builder(1 << 16);
  private buf = Buffer.allocUnsafe(1 << 16);
  /** Start of the unparsed input in buf. */
  private start = 0;
  private end = 0;
  private eof = false;
  private done = false;
  private failure: FormatError | null = null;
  // Input already discarded from buf, for error positions.
  private bytesBefore = 0;
  private linesBefore = 0;

  constructor(
    private readonly src: ByteSource,
    ctx: TypeContext,
  ) {
    this.analyzer = new Analyzer(ctx, this.builder);
  }

  async read(): Promise<Value[] | null> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.done) return null;
      const batch = this.parseBatch();
      if (batch) return batch;
      if (this.done || this.failure) continue;
      await this.fill();
    }
  }

  async close(): Promise<void> {
    this.done = true;
    this.buf = Buffer.alloc(0);
    this.start = this.end = 0;
  }

  /** Values that parse completely from the buffered input, or null if none do. */
  private parseBatch(): Value[] | null {
    const p = this.parser;
    const a = this.analyzer;
    const b = this.builder;
    b.reset();
    p.reset(this.buf, this.start, this.end, this.eof);
    a.src = this.buf;
    const types: Type[] = [];
    const starts: number[] = [];
    while (types.length < readerLimits.batchValues && b.len < readerLimits.batchBytes) {
      const valueStart = p.pos;
      let node;
      try {
        node = p.parseTop();
      } catch (e) {
        if (e === NEED_MORE) {
          if (this.end - this.start > readerLimits.maxValueBytes) {
            this.failure = this.error('ZSON scanner buffer size exceeded', this.start);
          }
          break;
        }
        this.failure = this.error(e, e instanceof ParseError ? e.pos : valueStart);
        break;
      }
      if (node === null) {
        this.done = true;
        this.start = p.pos;
        break;
      }
      const bstart = b.len;
      try {
        types.push(a.convert(node));
      } catch (e) {
        b.len = bstart;
        this.failure = this.error(e, valueStart);
        break;
      }
      starts.push(bstart);
      this.start = p.pos;
    }
    if (types.length === 0) return null;
    const data = copyRange(b.buf, 0, b.len);
    const vals: Value[] = [];
    for (let i = 0; i < types.length; i++) {
      const tag = readUvarint(data, starts[i]);
      vals.push(new Value(types[i], data, uv.end, tag - 1));
    }
    return vals;
  }

  /** A FormatError at byte pos of buf (errors other than syntax and type errors pass through). */
  private error(e: unknown, pos: number): FormatError {
    let msg: string;
    if (e instanceof ParseError || e instanceof AnalysisError) msg = e.message;
    else if (typeof e === 'string') msg = e;
    // The parser bounds nesting; this is a last line of defence.
    else if (e instanceof RangeError) msg = 'parse error: value nested too deeply';
    else throw e;
    let line = this.linesBefore + 1;
    for (let i = this.buf.indexOf(10, 0); i >= 0 && i < pos; i = this.buf.indexOf(10, i + 1))
      line++;
    return new FormatError('zson', msg, this.bytesBefore + pos, line);
  }

  /** Discards parsed input and reads at least as much again as is left over. */
  private async fill(): Promise<void> {
    const buf = this.buf;
    if (this.start > 0) {
      for (let i = buf.indexOf(10, 0); i >= 0 && i < this.start; i = buf.indexOf(10, i + 1))
        this.linesBefore++;
      this.bytesBefore += this.start;
      buf.copyWithin(0, this.start, this.end);
      this.end -= this.start;
      this.start = 0;
    }
    const want = Math.max(this.end, 1);
    let got = 0;
    while (got < want) {
      const chunk = await this.src.read();
      if (!chunk) {
        this.eof = true;
        return;
      }
      if (this.end + chunk.length > this.buf.length) {
        let size = this.buf.length * 2;
        while (size < this.end + chunk.length) size *= 2;
        const nb = Buffer.allocUnsafe(size);
        this.buf.copy(nb, 0, 0, this.end);
        this.buf = nb;
      }
      chunk.copy(this.buf, this.end);
      this.end += chunk.length;
      got += chunk.length;
    }
    // Let go of a buffer grown for one huge value.
    if (this.buf.length > 1 << 24 && this.end * 4 < this.buf.length) {
      const nb = Buffer.allocUnsafe(Math.max(1 << 16, this.end * 2));
      this.buf.copy(nb, 0, 0, this.end);
      this.buf = nb;
    }
  }
}

export function newReader(src: ByteSource, opts: ReaderOptions): ValueReader {
  return new ZsonReader(src, opts.ctx);
}
