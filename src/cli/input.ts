// Input flags shared by zq and `zlake load` (-i, -csv.delim, -zng.validate)
// and opening inputs: files, `-` for stdin, and http(s) URLs, gzip-compressed
// or not, in a named or detected format.

import { createReadStream, promises as fs } from 'node:fs';
import { Readable } from 'node:stream';
import { fileTail, openReader } from '../formats/detect';
import { ByteSource, sourceFromReadable, ValueReader } from '../formats/io';
import { TypeContext } from '../zed/context';
import { FlagSet, UsageError } from './flags';

export class InputFlags {
  private format: { value: string };
  private csvDelim: { value: string };
  private validate: { value: boolean };

  constructor(fs: FlagSet) {
    this.format = fs.string(
      'i',
      'auto',
      'format of input data [auto,arrows,csv,json,line,parquet,tsv,vng,zeek,zjson,zng,zson]',
    );
    this.csvDelim = fs.string('csv.delim', ',', 'CSV field delimiter (default ",")');
    this.validate = fs.bool('zng.validate', true, 'validate format when reading ZNG');
  }

  get formatName(): string {
    return this.format.value;
  }

  check(): void {
    if (this.csvDelim.value.length !== 1) {
      throw new UsageError('CSV field delimiter must be exactly one character');
    }
  }

  /**
   * Opens one input (a path, `-`, or a URL) as a value reader in ctx.
   * wrap, if given, sees the raw bytes and the input's size when known
   * (a file's), e.g. to count them for a progress display.
   */
  async open(
    path: string,
    ctx: TypeContext,
    wrap?: (src: ByteSource, size: number | undefined) => ByteSource,
  ): Promise<ValueReader> {
    const { src, seekable, size } = await openSource(path);
    return openReader(wrap ? wrap(src, size) : src, {
      ctx,
      format: this.format.value,
      csvDelim: this.csvDelim.value,
      name: path,
      tail: seekable ? fileTail(path) : undefined,
      ...(this.validate.value ? { validate: true } : {}),
    });
  }
}

/** True when the argument names an input: a URL, `-`, or an existing file. */
export async function isInput(arg: string): Promise<boolean> {
  if (arg === '-' || /^https?:\/\//.test(arg)) return true;
  try {
    await fs.stat(arg);
    return true;
  } catch {
    return false;
  }
}

async function openSource(
  path: string,
): Promise<{ src: ByteSource; seekable: boolean; size?: number }> {
  if (path === '-') return { src: sourceFromReadable(process.stdin), seekable: false };
  if (/^https?:\/\//.test(path)) {
    const res = await fetch(path);
    if (!res.ok || !res.body) throw new Error(`${path}: ${res.status} ${res.statusText}`);
    return {
      src: sourceFromReadable(
        Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
      ),
      seekable: false,
    };
  }
  try {
    const st = await fs.stat(path);
    if (st.isDirectory()) throw new Error(`${path}: is a directory`);
    return {
      src: sourceFromReadable(createReadStream(path, { highWaterMark: 1 << 20 })),
      seekable: st.isFile(),
      size: st.isFile() ? st.size : undefined,
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`${path}: file does not exist`);
    throw err;
  }
}
