// Query results as the reference's client reads them: a ZNG stream with
// control messages (`ctrl=T`), whose QueryStats give the progress, whose
// QueryError ends the query with the server's message, and whose channel
// messages are dropped. Also the query text assembled from `-I` files and
// parse errors positioned in them.

import { readFile } from 'node:fs/promises';
import { ByteSource, ValueReader } from '../formats/io';
import { valueToJS } from '../formats/json';
import { ControlFormat, ZngControl, ZngReader } from '../formats/zng';
import { parseValue } from '../formats/zson';
import { TypeContext } from '../zed/context';
import { TypeNamed } from '../zed/types';
import { Value } from '../zed/value';

/** Counts a query reports (the reference's zbuf.Progress). */
export interface QueryProgress {
  bytes_read: number;
  bytes_matched: number;
  records_read: number;
  records_matched: number;
}

/** The ZSON text `zed query -s` prints for the stats. */
export function formatProgress(p: QueryProgress): string {
  return `{bytes_read:${p.bytes_read},bytes_matched:${p.bytes_matched},records_read:${p.records_read},records_matched:${p.records_matched}}`;
}

/** An error the server reported in the middle of a query's results. */
export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryError';
  }
}

/** Reads a query response: values in batches, control messages consumed. */
export class QueryReader implements ValueReader {
  /** The type context of the values read. */
  readonly ctx = new TypeContext();
  /** The latest statistics the server sent, if any. */
  progress: QueryProgress | undefined;
  /** Warnings the server sent, in order. */
  readonly warnings: string[] = [];
  private zng: ZngReader;

  constructor(
    src: ByteSource,
    private onClose: () => void = () => {},
    /** Called with each warning as it arrives. */
    public onWarning?: (msg: string) => void,
  ) {
    this.zng = new ZngReader(src, { ctx: this.ctx });
  }

  async read(): Promise<Value[] | null> {
    for (;;) {
      const p = await this.zng.readPayload();
      if (p === null || Array.isArray(p)) return p;
      this.control(p);
    }
  }

  /** Reads to the end, dropping values (to collect the final stats). */
  async drain(): Promise<void> {
    while ((await this.read()) !== null);
  }

  private control(c: ZngControl): void {
    if (c.format !== ControlFormat.ZSON) {
      throw new QueryError(`unsupported app encoding: ${c.format}`);
    }
    const text = c.body.toString('utf8');
    let v: Value;
    try {
      v = parseValue(new TypeContext(), text);
    } catch (e) {
      throw new QueryError(
        `unable to parse Zed control message: ${(e as Error).message} (${text})`,
      );
    }
    const name = v.type instanceof TypeNamed ? v.type.name.replace(/^.*\./, '') : '';
    const body = valueToJS(v) as Record<string, unknown>;
    switch (name) {
      case 'QueryChannelSet':
      case 'QueryChannelEnd':
        return;
      case 'QueryStats': {
        // The reference's ZNG form nests the counts in an embedded
        // "Progress" record; its JSON form has them at the top.
        const p = (body.Progress ?? body) as Record<string, unknown>;
        this.progress = {
          bytes_read: Number(p.bytes_read ?? 0),
          bytes_matched: Number(p.bytes_matched ?? 0),
          records_read: Number(p.records_read ?? 0),
          records_matched: Number(p.records_matched ?? 0),
        };
        return;
      }
      case 'QueryError':
        throw new QueryError(String(body.error ?? text));
      case 'QueryWarning': {
        const msg = String(body.warning ?? text);
        this.warnings.push(msg);
        this.onWarning?.(msg);
        return;
      }
      default:
        throw new QueryError(`unsupported control message: ${text.trim()}`);
    }
  }

  async close(): Promise<void> {
    await this.zng.close();
    this.onClose();
  }
}

/** Where each piece of a concatenated query came from. */
export interface SourceInfo {
  /** The -I file's name, or '' for the query argument. */
  filename: string;
  /** Byte offsets of the piece in the concatenated text. */
  start: number;
  end: number;
}

/**
 * The query text of `-I` files followed by the query argument, each file
 * followed by a newline, as the reference assembles it. An empty result
 * is the query `*`.
 */
export async function concatSource(
  files: string[],
  src: string,
): Promise<{ text: string; info: SourceInfo[] }> {
  const parts: Buffer[] = [];
  const info: SourceInfo[] = [];
  let len = 0;
  for (const f of files) {
    const b = await readFile(f);
    info.push({ filename: f, start: len, end: len + b.length });
    parts.push(b, NEWLINE);
    len += b.length + 1;
  }
  const q = Buffer.from(src, 'utf8');
  info.push({ filename: '', start: len, end: len + q.length });
  parts.push(q);
  len += q.length;
  if (len === 0) return { text: '*', info: [] };
  return { text: Buffer.concat(parts).toString('utf8'), info };
}

const NEWLINE = Buffer.from('\n');

/**
 * The reference's parse error text for a failure at byte offset `offset`
 * of the concatenated query: the file (if any), line (when it has more
 * than one, or comes from a file) and column, the line itself, and a caret.
 */
export function parseErrorText(text: string, info: SourceInfo[], offset: number): string {
  let src = Buffer.from(text, 'utf8');
  let filename = '';
  for (const si of info) {
    if (offset < si.end) {
      filename = si.filename;
      offset -= si.start;
      src = src.subarray(si.start, si.end);
      break;
    }
  }
  offset = Math.max(0, Math.min(offset, src.length));
  const before = src.subarray(0, offset);
  let lineNum = -1;
  if (filename !== '' || src.includes(10)) {
    lineNum = 0;
    for (const b of before) if (b === 10) lineNum++;
  }
  let column = offset;
  const nl = before.lastIndexOf(10);
  if (nl >= 0) {
    column -= nl + 1;
    src = src.subarray(nl + 1);
  }
  const end = src.indexOf(10);
  const line = (end >= 0 ? src.subarray(0, end) : src).toString('utf8');
  let s = 'error parsing Zed ';
  if (filename !== '') s += `in ${filename} `;
  s += 'at ';
  if (lineNum >= 0) s += `line ${lineNum + 1}, `;
  s += `column ${column + 1}:\n${line}\n`;
  for (let k = 0; k < column; k++) s += k >= column - 4 && k !== column - 1 ? '=' : ' ';
  return s + '^ ===';
}
