// Input format auto-detection, as the reference's anyio does it: record the
// start of the input, let each candidate reader try to read a few values
// from the recording, and take the first that succeeds. The order matters:
// Arrow, Zeek, ZJSON (a subset of JSON and ZSON), JSON (faster than ZSON),
// ZSON, ZNG (validated, to avoid false positives), then CSV. When nothing
// fits, the error lists every format's reason.

import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { TypeContext } from '../zed/context';
import { ByteSource, Format, ReaderOptions, sourceFromReadable, ValueReader } from './io';
import { formatByName } from './registry';
import { readTrailer } from './vng';

/** Most bytes recorded while trying candidates (the reference's limit). */
export const MAX_DETECT_BUFFER = 10 * 1024 * 1024;

/** VNG's trailer lies within this many bytes of the end. */
const VNG_TRAILER_MAX = 4096;

export class DetectionError extends Error {}

/**
 * Records the chunks read from a source so they can be replayed: by each
 * candidate during detection, and then by the chosen reader, followed by
 * the rest of the source.
 */
class Recorder {
  private chunks: Buffer[] = [];
  private size = 0;
  private eof = false;

  constructor(private src: ByteSource) {}

  /** Chunk i of the input, reading more if needed; null at end of input. */
  async chunk(i: number, limit: number): Promise<Buffer | null> {
    while (i >= this.chunks.length) {
      if (this.eof) return null;
      if (this.size >= limit) {
        throw new DetectionError('buffer exceeded max size trying to infer input format');
      }
      const c = await this.src.read();
      if (c === null) {
        this.eof = true;
        return null;
      }
      this.chunks.push(c);
      this.size += c.length;
    }
    return this.chunks[i];
  }

  /** A source replaying the recording from the start (capped for detection). */
  track(limit = MAX_DETECT_BUFFER): ByteSource {
    let i = 0;
    return { read: () => this.chunk(i++, limit) };
  }

  /** A source replaying the recording and then the rest of the input, then forgetting it. */
  replay(): ByteSource {
    let i = 0;
    return {
      read: async () => {
        if (i < this.chunks.length) {
          const c = this.chunks[i];
          this.chunks[i++] = EMPTY;
          return c;
        }
        if (this.eof) return null;
        return this.src.read();
      },
    };
  }

  /** The first n recorded bytes (fewer if the input is shorter). */
  async head(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let have = 0;
    for (let i = 0; have < n; i++) {
      const c = await this.chunk(i, Infinity);
      if (!c) break;
      parts.push(c);
      have += c.length;
    }
    return Buffer.concat(parts).subarray(0, n);
  }
}

const EMPTY = Buffer.alloc(0);

async function tryRead(
  format: Format,
  src: ByteSource,
  want: number,
  opts: ReaderOptions,
): Promise<void> {
  const r = format.newReader!(src, { ...opts, ctx: new TypeContext() });
  let n = 0;
  try {
    while (n < want) {
      const batch = await r.read();
      if (!batch) return;
      n += batch.length;
    }
  } finally {
    await r.close?.();
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function stripPrefix(name: string, msg: string): string {
  // Readers name themselves in some messages; the list adds the name once.
  return msg.startsWith(name + ': ') ? msg.slice(name.length + 2) : msg;
}

export interface DetectOptions extends ReaderOptions {
  /**
   * Reads the last n bytes of the input, for inputs that allow it (files).
   * VNG keeps its trailer at the end, so without this Parquet and VNG are
   * reported as needing seekable input, as the reference does.
   */
  tail?: (n: number) => Promise<Buffer>;
}

/** A tail reader for a local file (see DetectOptions.tail). */
export function fileTail(path: string): (n: number) => Promise<Buffer> {
  return async (n) => {
    const fh = await open(path, 'r');
    try {
      const { size } = await fh.stat();
      const len = Math.min(n, size);
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, size - len);
      return buf;
    } finally {
      await fh.close();
    }
  };
}

/** Detects the format of src and returns a reader of it. */
export async function detectReader(
  src: ByteSource,
  opts: DetectOptions,
): Promise<{ format: Format; reader: ValueReader }> {
  const rec = new Recorder(src);
  const errs: Record<string, string> = {};
  const pick = (name: string) => {
    const format = formatByName(name)!;
    return { format, reader: format.newReader!(rec.replay(), opts) };
  };

  // Parquet and VNG need random access: check their magic and trailer.
  if (opts.tail) {
    const head = await rec.head(4);
    if (head.toString('latin1') === 'PAR1') return pick('parquet');
    errs.parquet = 'parquet: not a Parquet file (missing PAR1 magic)';
    try {
      readTrailer(await opts.tail(VNG_TRAILER_MAX));
      return pick('vng');
    } catch (err) {
      errs.vng = 'vng: ' + message(err);
    }
  } else {
    errs.parquet = 'parquet: auto-detection requires seekable input';
    errs.vng = 'vng: auto-detection requires seekable input';
  }

  const candidates: [string, number][] = [
    ['arrows', 1],
    ['zeek', 1],
    ['zjson', 1],
    ['json', 10],
    ['zson', 1],
    ['zng', 1],
  ];
  for (const [name, want] of candidates) {
    try {
      if (name === 'arrows') await checkArrowPrefix(rec);
      const extra = name === 'zng' ? { validate: true } : {};
      await tryRead(formatByName(name)!, rec.track(), want, { ...opts, ...extra });
      return pick(name);
    } catch (err) {
      if (err instanceof DetectionError) throw err;
      errs[name] = `${name}: ${stripPrefix(name, message(err))}`;
    }
  }

  // CSV: the first line must hold a comma.
  try {
    const head = await rec.head(64 * 1024);
    const nl = head.indexOf(10);
    if (nl < 0 && head.length === 64 * 1024) throw new Error('line 1: line too long');
    const line = head.subarray(0, nl < 0 ? head.length : nl).toString('utf8');
    // As the reference, which reads a whole first line: input that ends
    // before a newline is EOF.
    if (nl < 0 && head.length < 64 * 1024) throw new Error('line 1: EOF');
    if (!line.includes(',')) throw new Error('line 1: no comma found');
    await tryRead(formatByName('csv')!, rec.track(), 1, opts);
    return pick('csv');
  } catch (err) {
    if (err instanceof DetectionError) throw err;
    errs.csv = `csv: ${stripPrefix('csv', message(err))}`;
  }
  errs.line = 'line: auto-detection not supported';
  const order = ['arrows', 'csv', 'json', 'line', 'parquet', 'vng', 'zeek', 'zjson', 'zng', 'zson'];
  throw new DetectionError('format detection error' + order.map((n) => '\n\t' + errs[n]).join(''));
}

/** The Arrow stream prefix check (continuation marker, sane schema length). */
async function checkArrowPrefix(rec: Recorder): Promise<void> {
  let head = await rec.head(8);
  if (head.length < 4) throw new Error('unexpected EOF');
  if (head.readUInt32LE(0) === 0xffffffff) {
    if (head.length < 8) throw new Error('unexpected EOF');
    head = head.subarray(4);
  }
  if (head.readUInt32LE(0) > 1048576) throw new Error('schema message length exceeds 1 MiB');
}

/**
 * Wraps a source so gzip-compressed input (detected by its magic bytes) is
 * decompressed on the fly; other input passes through untouched.
 */
export async function gunzipIfCompressed(src: ByteSource): Promise<ByteSource> {
  const first = await src.read();
  if (first === null) return { read: async () => null };
  let pending: Buffer | null = first;
  const rest: ByteSource = {
    read: async () => {
      if (pending) {
        const c = pending;
        pending = null;
        return c;
      }
      return src.read();
    },
  };
  if (first.length < 2 || first[0] !== 0x1f || first[1] !== 0x8b) return rest;
  const input = Readable.from(
    (async function* () {
      for (;;) {
        const c = await rest.read();
        if (!c) return;
        yield c;
      }
    })(),
  );
  const gunzip = createGunzip();
  input.on('error', (err) => gunzip.destroy(err));
  // Errors reach the reader through the iterator; this keeps one that
  // comes after the reader has stopped reading from going unhandled.
  gunzip.on('error', () => undefined);
  return sourceFromReadable(input.pipe(gunzip));
}

/** A reader for src in the named format, or detected when name is absent or "auto". */
export async function openReader(
  src: ByteSource,
  opts: DetectOptions & { format?: string },
): Promise<ValueReader> {
  const plain = await gunzipIfCompressed(src);
  if (opts.format && opts.format !== 'auto') {
    const f = formatByName(opts.format);
    if (!f || !f.newReader) throw new DetectionError(`unknown input format: ${opts.format}`);
    return f.newReader(plain, opts);
  }
  return (await detectReader(plain, opts)).reader;
}
