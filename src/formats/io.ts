// The interfaces every format implements, and the byte plumbing under them.
//
// Readers turn bytes into batches of values; writers turn values into bytes.
// Both are asynchronous at batch granularity only: the per-value work inside
// a batch is synchronous, so hot loops stay free of promise overhead.

import { Readable, Writable } from 'node:stream';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { TextBuffer } from './textbuffer';

/** A source of values, a batch at a time. */
export interface ValueReader {
  /**
   * The next batch of values (never empty), or null at end of input.
   * Throws a FormatError on malformed input.
   */
  read(): Promise<Value[] | null>;
  /** Releases the underlying source early (optional). */
  close?(): Promise<void>;
}

/** A control message carried in-band by ZNG and ZJSON streams. */
export interface ControlMessage {
  /** The message as a JSON-able object (e.g. {type:'QueryChannelSet', value:{channel_id:0}}). */
  type: string;
  value: unknown;
}

/** A sink of values. */
export interface ValueWriter {
  /** Writes the values, resolving once the sink can take more. */
  write(vals: Value[]): Promise<void>;
  /** Writes a control message, for formats that carry them. */
  writeControl?(msg: ControlMessage): Promise<void>;
  /** Flushes, writes any trailer, and ends the byte sink. */
  close(): Promise<void>;
}

/** A source of bytes as chunks. */
export interface ByteSource {
  /** The next chunk, or null at end. */
  read(): Promise<Buffer | null>;
}

/** A destination for bytes with back-pressure. */
export interface ByteSink {
  write(chunk: Buffer): Promise<void>;
  end(): Promise<void>;
}

export interface ReaderOptions {
  /** Type context that read values' types belong to. */
  ctx: TypeContext;
  /** Field delimiter for CSV (one character). */
  csvDelim?: string;
  /** Where the input came from, for error messages. */
  name?: string;
}

export interface WriterOptions {
  /** ZSON indent width; 0 for one value per line (zq -z). */
  pretty?: number;
  /** ZNG: LZ4-compress frames (default true). */
  compress?: boolean;
  /** ZNG: frame size threshold in bytes. */
  frameThreshold?: number;
  /** JSON: pretty-print with this indent (0 for compact). */
  jsonPretty?: number;
}

/**
 * An input error that names the format and where it went wrong. The
 * message is the reference's text where practical (the service passes it to
 * clients verbatim).
 */
export class FormatError extends Error {
  constructor(
    readonly format: string,
    message: string,
    /** Byte offset of the error in the input, if known. */
    readonly offset?: number,
    /** 1-based line of the error, if known. */
    readonly line?: number,
  ) {
    super(message);
  }
}

/** A ByteSource over a Node readable stream. */
export function sourceFromReadable(stream: Readable): ByteSource {
  const it = stream[Symbol.asyncIterator]();
  return {
    async read() {
      for (;;) {
        const r = await it.next();
        if (r.done) return null;
        const chunk = typeof r.value === 'string' ? Buffer.from(r.value) : (r.value as Buffer);
        if (chunk.length > 0) return chunk;
      }
    },
  };
}

/** A ByteSource over a buffer in memory (optionally cut into chunks, for tests). */
export function sourceFromBuffer(buf: Uint8Array, chunkSize = buf.length || 1): ByteSource {
  let pos = 0;
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  return {
    async read() {
      if (pos >= b.length) return null;
      const chunk = b.subarray(pos, pos + chunkSize);
      pos += chunk.length;
      return chunk;
    },
  };
}

/** A ByteSink over a Node writable stream, honouring back-pressure. */
export function sinkToWritable(stream: Writable, endStream = true): ByteSink {
  let failure: Error | undefined;
  stream.on('error', (err) => {
    failure = err;
  });
  return {
    write(chunk) {
      if (failure) return Promise.reject(failure);
      if (stream.write(chunk)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const onDrain = () => {
          cleanup();
          resolve();
        };
        const onError = (err: Error) => {
          cleanup();
          reject(err);
        };
        const onClose = () => {
          cleanup();
          reject(failure ?? new Error('stream closed'));
        };
        const cleanup = () => {
          stream.off('drain', onDrain);
          stream.off('error', onError);
          stream.off('close', onClose);
        };
        stream.on('drain', onDrain);
        stream.on('error', onError);
        stream.on('close', onClose);
      });
    },
    end() {
      if (!endStream) return Promise.resolve();
      return new Promise((resolve) => stream.end(resolve));
    },
  };
}

/** A ByteSink that collects everything into memory (for tests and small outputs). */
export class BufferSink implements ByteSink {
  private chunks: Buffer[] = [];
  ended = false;

  async write(chunk: Buffer): Promise<void> {
    this.chunks.push(Buffer.from(chunk));
  }

  async end(): Promise<void> {
    this.ended = true;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  text(): string {
    return this.bytes().toString('utf8');
  }
}

/** Reads every value from a reader (tests and small inputs). */
export async function readAll(r: ValueReader): Promise<Value[]> {
  const out: Value[] = [];
  for (;;) {
    const batch = await r.read();
    if (!batch) return out;
    for (const v of batch) out.push(v);
  }
}

/**
 * Accumulates output bytes and hands them to a sink in chunks of about
 * `flushAt` bytes, so writers can append small pieces cheaply.
 */
export class OutputBuffer extends TextBuffer {
  constructor(
    private sink: ByteSink,
    private flushAt = 64 * 1024,
  ) {
    super(flushAt * 2);
  }

  /** True when enough has accumulated that the caller should flush. */
  get full(): boolean {
    return this.len >= this.flushAt;
  }

  async flush(): Promise<void> {
    if (this.len === 0) return;
    await this.sink.write(this.take());
  }

  async end(): Promise<void> {
    await this.flush();
    await this.sink.end();
  }
}

/** A format: its names, media types, and reader/writer constructors. */
export interface Format {
  /** Name used by `-i`/`-f` flags (e.g. "zson"). */
  name: string;
  /** Media types that select this format (first is canonical). */
  mimeTypes: string[];
  /** Absent for write-only formats. */
  newReader?(src: ByteSource, opts: ReaderOptions): ValueReader;
  /** Absent for read-only formats. */
  newWriter?(sink: ByteSink, opts: WriterOptions): ValueWriter;
}

/** Every byte of a source, for formats that need random access (Parquet, VNG). */
export async function readWhole(src: ByteSource): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (;;) {
    const c = await src.read();
    if (!c) return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    chunks.push(c);
  }
}
