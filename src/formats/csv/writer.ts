// The CSV writer (and, with a tab delimiter, the TSV writer).
//
// Records only, flattened to dotted columns, with one header line from the
// first record. Later records must have the same column names (types may
// differ), else the writer fails with the reference's ErrNotDataFrame
// text. That is the reference's rule from v1.12 (which added TSV); v1.8
// also failed when only the types changed, which we relax for CSV too: it
// turns errors into output and never changes output. (No version writes a
// second header.) Fields are written as the reference
// does: null as an empty field, strings as their bytes, empty bytes as
// nothing, floats without ZSON's trailing ".", other primitives in their
// ZSON text without decoration, complex values as ZSON; named types and
// unions are looked through. Quoting follows Go's csv.Writer.

import { formatFloatZSON } from '../../zed/floatfmt';
import { formatIP, formatNet } from '../../zed/ipnet';
import { formatDuration } from '../../zed/nano';
import {
  decodeFloat,
  decodeInt,
  decodeIntBig,
  decodeIntExact,
  decodeUintExact,
  float16ToNumber,
} from '../../zed/primitive';
import { DuplicateFieldError } from '../../zed/context';
import { ID, Kind, Type, TypeUnion } from '../../zed/types';
import { Value } from '../../zed/value';
import { ZcodeError, ZIter } from '../../zed/zcode';
import { ByteSink, FormatError, OutputBuffer, ValueWriter, WriterOptions } from '../io';
import { formatValue } from '../zson';
import { writeTime } from '../zson/formatter';
import { decodeRune, isSpace } from '../zeek/strconv';
import { FlatLayout, Flattener } from '../zeek/flatten';
import { TextBuffer } from '../textbuffer';

export const ERR_NOT_DATA_FRAME =
  "CSV output requires uniform records but multiple types encountered (consider 'fuse')";

export interface CsvWriterOptions {
  /** Field delimiter byte (default ','). */
  delim?: number;
  /** Name used in errors ("csv" or "tsv"). */
  format?: string;
  /**
   * Accept a later record whose columns have the first record's names
   * but other types (default true; false gives v1.8's stricter rule).
   */
  sameNamesSuffice?: boolean;
}

const hex = '0123456789abcdef';

export class CsvWriter implements ValueWriter {
  private out: OutputBuffer;
  private flattener = new Flattener();
  private first: FlatLayout | undefined;
  private accepted = new Set<FlatLayout>();
  private readonly delim: number;
  private readonly format: string;
  private readonly sameNames: boolean;
  // A value to hand to the ZSON formatter for complex fields.
  private scratch = Value.null();
  private it = new ZIter();
  // The record being written.
  private line = new TextBuffer(1024);

  constructor(sink: ByteSink, _opts?: WriterOptions, csv: CsvWriterOptions = {}) {
    this.out = new OutputBuffer(sink);
    this.delim = csv.delim ?? 44;
    this.format = csv.format ?? 'csv';
    this.sameNames = csv.sameNamesSuffice ?? true;
  }

  async write(vals: Value[]): Promise<void> {
    for (const v of vals) {
      try {
        this.writeRecord(v);
      } catch (e) {
        if (e instanceof DuplicateFieldError || e instanceof ZcodeError) {
          throw new FormatError(this.format, e.message);
        }
        throw e;
      }
      if (this.out.full) await this.out.flush();
    }
  }

  async close(): Promise<void> {
    await this.out.end();
  }

  private writeRecord(v: Value): void {
    this.line.len = 0;
    if (v.type.kind !== Kind.Record) {
      throw new FormatError(
        this.format,
        `CSV output encountered non-record value: ${formatValue(v)}`,
      );
    }
    const fl = this.flattener;
    const layout = fl.layout(v.type);
    if (!this.first) {
      this.first = layout;
      this.accepted.add(layout);
      layout.names.forEach((name, i) => {
        if (i > 0) this.line.byte(this.delim);
        this.writeText(name);
      });
      this.line.byte(10);
    } else if (!this.accepted.has(layout)) {
      if (!this.sameNames || !sameNames(this.first, layout)) {
        throw new FormatError(this.format, ERR_NOT_DATA_FRAME);
      }
      this.accepted.add(layout);
    }
    const n = fl.locate(v.type, v.buf, v.off, v.len);
    const line = this.line;
    for (let i = 0; i < n; i++) {
      if (i > 0) line.byte(this.delim);
      const len = fl.lens[i];
      if (len >= 0) this.writeValue(layout.types[i], v.buf, fl.offs[i], len);
    }
    line.byte(10);
    // One call per record into the output; fields are assembled here.
    this.out.raw(line.buf, 0, line.len);
    line.len = 0;
  }

  /** Writes a non-null field value. */
  private writeValue(t: Type, buf: Buffer, off: number, len: number): void {
    // Look through names and unions, as the reference's Value.Under does.
    let u = t.under;
    while (u instanceof TypeUnion) {
      if (len < 0) break;
      // A union body is the tagged selector (an int) and the tagged value.
      const it = this.it.reset(buf, off, off + len);
      it.next();
      const sel = it.len < 0 ? -1 : decodeInt(buf, it.off, it.len);
      if (sel < 0 || sel >= u.types.length || it.done()) throw new ZcodeError('bad union value');
      it.next();
      t = u.types[sel];
      u = t.under;
      off = it.off;
      len = it.len;
    }
    if (u.id === ID.String) {
      if (len > 0) this.writeBytes(buf, off, off + len);
      return;
    }
    if (u.id === ID.Bytes && len <= 0) return;
    if (u.id === ID.Time && len >= 0) {
      // RFC 3339 text never needs quotes.
      writeTime(this.line, buf, off, len);
      return;
    }
    this.writeText(this.text(u, buf, off, len));
  }

  /** The reference's text of a non-string value (ZSON without decoration). */
  private text(u: Type, buf: Buffer, off: number, len: number): string {
    if (len < 0) return 'null';
    switch (u.id) {
      case ID.Uint8:
      case ID.Uint16:
      case ID.Uint32:
      case ID.Uint64:
        return String(decodeUintExact(buf, off, len));
      case ID.Int8:
      case ID.Int16:
      case ID.Int32:
      case ID.Int64:
        return String(decodeIntExact(buf, off, len));
      case ID.Duration:
        return formatDuration(decodeIntBig(buf, off, len));
      case ID.Float16:
        return trimDot(
          formatFloatZSON(len === 2 ? float16ToNumber(buf[off] | (buf[off + 1] << 8)) : 0, 16),
        );
      case ID.Float32:
        return trimDot(formatFloatZSON(decodeFloat(buf, off, len), 32));
      case ID.Float64:
        return trimDot(formatFloatZSON(decodeFloat(buf, off, len), 64));
      case ID.Bool:
        return len > 0 && buf[off] !== 0 ? 'true' : 'false';
      case ID.Bytes: {
        let s = '0x';
        for (let i = off; i < off + len; i++) s += hex[buf[i] >> 4] + hex[buf[i] & 0xf];
        return s;
      }
      case ID.IP:
        return formatIP(buf, off, len);
      case ID.Net:
        return formatNet(buf, off, len);
    }
    // Type values and complex values: their ZSON.
    return formatValue(this.scratch.set(u, buf, off, len));
  }

  private writeText(s: string): void {
    // Most texts (numbers, times, addresses) are plain ASCII that needs no
    // quotes: copy their characters, without a Buffer of their own.
    const n = s.length;
    let plain = n > 0 && s.charCodeAt(0) > 32;
    for (let i = 0; plain && i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80 || c === 34 || c === 10 || c === 13 || c === this.delim) plain = false;
    }
    if (plain && s !== '\\.') {
      const line = this.line;
      line.ensure(n);
      const buf = line.buf;
      let at = line.len;
      for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
      line.len = at;
      return;
    }
    const b = Buffer.from(s, 'utf8');
    this.writeBytes(b, 0, b.length);
  }

  /** Writes a field, quoted when Go's csv.Writer would quote it. */
  private writeBytes(buf: Buffer, s: number, e: number): void {
    const line = this.line;
    if (!this.needsQuotes(buf, s, e)) {
      line.raw(buf, s, e - s);
      return;
    }
    line.byte(34);
    let start = s;
    for (let i = s; i < e; i++) {
      if (buf[i] === 34) {
        line.raw(buf, start, i + 1 - start);
        line.byte(34);
        start = i + 1;
      }
    }
    line.raw(buf, start, e - start);
    line.byte(34);
  }

  private needsQuotes(buf: Buffer, s: number, e: number): boolean {
    if (e === s) return false;
    if (e - s === 2 && buf[s] === 0x5c && buf[s + 1] === 0x2e) return true;
    const delim = this.delim;
    for (let i = s; i < e; i++) {
      const c = buf[i];
      if (c === 10 || c === 13 || c === 34 || c === delim) return true;
    }
    const c = buf[s];
    if (c < 0x80) return c === 32 || (c >= 9 && c <= 13);
    return isSpace(decodeRune(buf, s, e));
  }
}

function trimDot(s: string): string {
  return s.endsWith('.') ? s.slice(0, -1) : s;
}

function sameNames(a: FlatLayout, b: FlatLayout): boolean {
  if (a.names.length !== b.names.length) return false;
  for (let i = 0; i < a.names.length; i++) if (a.names[i] !== b.names[i]) return false;
  return true;
}
