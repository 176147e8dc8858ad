// Sources: values from a reader (a caller's input, a local file, a URL),
// with the filter the optimizer pushed into them applied as they are read,
// and the read/matched counters of the query's stats.

import { createReadStream, promises as fsp } from 'node:fs';
import { Readable } from 'node:stream';
import { fileTail, openReader } from '../../../formats/detect';
import { ByteSource, sourceFromReadable, ValueReader } from '../../../formats/io';
import { Value } from '../../../zed/value';
import { Expr } from '../../expr/expr';
import { beginTestedBatch, endTestedBatch } from '../../expr/termfind';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { Cutter, CutField } from './cut';
import { FilterFn } from './filter';

/**
 * Applies what the optimizer pushed into a source: a filter, then a
 * projection (a cut of plain fields), counting what is read and matched.
 */
export class ScanFilter {
  private readonly fn: FilterFn | null;
  private readonly cutter: Cutter | null;
  private readonly arena = new ValueArena();

  constructor(
    private readonly ctx: QueryContext,
    filter: Expr | null,
    project: CutField[] | null = null,
  ) {
    this.fn = filter === null ? null : new FilterFn(ctx.zctx, filter);
    this.cutter = project === null ? null : new Cutter(ctx.zctx, project);
  }

  /**
   * The values of batch that pass (batch itself when all do and nothing is
   * projected). As in the reference, bytes read and matched are the bytes
   * of the values' bodies.
   */
  apply(batch: Value[]): Value[] {
    const stats = this.ctx.stats;
    const n = batch.length;
    const fn = this.fn;
    const cutter = this.cutter;
    stats.recordsRead += n;
    if (fn === null && cutter === null) {
      const bytes = bodyBytes(batch);
      stats.bytesRead += bytes;
      stats.recordsMatched += n;
      stats.bytesMatched += bytes;
      return batch;
    }
    const out: Value[] = [];
    let read = 0;
    let matched = 0;
    let matchedBytes = 0;
    // The batch's values stay as they are while the loop runs (it does not
    // yield): a search may rule out several with one byte search.
    if (fn !== null) beginTestedBatch(batch);
    try {
      for (let i = 0; i < n; i++) {
        const v = batch[i];
        const len = v.len > 0 ? v.len : 0;
        read += len;
        let r: Value | null = v;
        if (fn !== null) {
          r = fn.test(v);
          if (r === null) continue;
          if (r !== v) {
            out.push(this.arena.copy(r));
            continue;
          }
        }
        matched++;
        matchedBytes += len;
        if (cutter === null) out.push(v);
        else {
          const c = cutter.apply(v, this.arena);
          if (c !== null) out.push(c);
        }
      }
    } finally {
      if (fn !== null) endTestedBatch();
    }
    this.arena.seal();
    stats.bytesRead += read;
    stats.recordsMatched += matched;
    stats.bytesMatched += matchedBytes;
    return out;
  }
}

/** Bytes of the values' bodies (nulls have none). */
function bodyBytes(batch: Value[]): number {
  let bytes = 0;
  for (let i = 0; i < batch.length; i++) {
    const len = batch[i].len;
    if (len > 0) bytes += len;
  }
  return bytes;
}

/** A source over a value reader. */
export class ReaderScan implements Operator {
  private readonly filter: ScanFilter;
  private done = false;

  constructor(
    private readonly ctx: QueryContext,
    private readonly open: () => Promise<ValueReader>,
    filter: Expr | null,
    project: CutField[] | null = null,
  ) {
    this.filter = new ScanFilter(ctx, filter, project);
  }

  private reader: ValueReader | null = null;

  async pull(): Promise<Value[] | null> {
    for (;;) {
      if (this.done) return null;
      this.ctx.checkCancelled();
      this.reader ??= await this.open();
      const batch = await this.reader.read();
      if (batch === null) {
        await this.close();
        return null;
      }
      const out = this.filter.apply(batch);
      if (out.length > 0) return out;
    }
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.reader?.close?.();
  }
}

/** A reader over a caller's array of values (tests, in-memory inputs). */
export function arrayReader(vals: Value[], batchSize = 1024): ValueReader {
  let pos = 0;
  return {
    async read() {
      if (pos >= vals.length) return null;
      const b = vals.slice(pos, pos + batchSize);
      pos += b.length;
      return b;
    },
  };
}

/** Opens a local file (`file` operator): an error "<path>: file does not exist" when absent. */
export async function openFile(
  ctx: QueryContext,
  path: string,
  format: string | null,
): Promise<ValueReader> {
  let seekable = false;
  try {
    const st = await fsp.stat(path);
    if (st.isDirectory()) throw new Error(`${path}: is a directory`);
    seekable = st.isFile();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`${path}: file does not exist`);
    throw e;
  }
  const src = sourceFromReadable(createReadStream(path, { highWaterMark: 1 << 20 }));
  return withName(path, () =>
    openReader(src, {
      ctx: ctx.zctx,
      format: format ?? 'auto',
      name: path,
      tail: seekable ? fileTail(path) : undefined,
    }),
  );
}

/** Opens a URL (`get` operator). */
export async function openURL(
  ctx: QueryContext,
  url: string,
  format: string | null,
): Promise<ValueReader> {
  const res = await fetch(url, { signal: ctx.signal });
  if (res.status === 404) throw new Error(`${url}: file does not exist`);
  if (!res.ok || !res.body) throw new Error(`${url}: ${res.status} ${res.statusText}`);
  const src: ByteSource = sourceFromReadable(
    Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
  );
  return withName(url, () =>
    openReader(src, { ctx: ctx.zctx, format: format ?? 'auto', name: url }),
  );
}

async function withName(name: string, open: () => Promise<ValueReader>): Promise<ValueReader> {
  try {
    return await open();
  } catch (e) {
    const err = e as Error;
    if (err && typeof err.message === 'string' && !err.message.startsWith(name))
      err.message = `${name}: ${err.message}`;
    throw err;
  }
}
