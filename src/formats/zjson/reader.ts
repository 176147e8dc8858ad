// ZJSON reader: one {"type":...,"value":...} object per line, decoded as
// the reference's zjsonio reader decodes them, with its error texts
// ("line N: ..."). Lines whose "type" is a string are control messages
// (QueryChannelSet, QueryStats, ...) as the service writes with ctrl=T; a
// reader given onControl (a client of the service) passes them to it and
// does not return them as values. Without it they are malformed, as in the
// reference's zjsonio reader, so a response saved with ctrl=T reads as JSON
// when the format is detected.

import { TypeContext } from '../../zed/context';
import { bytesCompare } from '../../zed/primitive';
import {
  Kind,
  ID,
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder, putUvarint, readUvarint, uv } from '../../zed/zcode';
import { encodeInt, encodeUint } from '../../zed/make';
import { ByteSource, ControlMessage, FormatError, ReaderOptions, ValueReader } from '../io';
import { goQuoteBytes } from '../json/gotext';
import { goJSONSyntaxError } from '../json/syntax';
import { appendPrimitive, PrimitiveError } from './primitive';
import { TypeDecodeError, TypeDecoder } from './types';

/** Longest line accepted (the reference's limit). */
export const MAX_LINE = 50 * 1024 * 1024;
const BATCH_VALUES = 1000;
const BATCH_BYTES = 512 * 1024;

export interface ZJSONReaderOptions extends ReaderOptions {
  /** Receives the control messages found in the stream. */
  onControl?: (msg: ControlMessage) => void;
}

/** A value that does not fit its type; message as the reference's. */
class ValueError extends Error {}

export class ZJSONReader implements ValueReader {
  private ctx: TypeContext;
  private decoder: TypeDecoder;
  private onControl?: (msg: ControlMessage) => void;

  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private base = 0; // stream offset of buf[0]
  private lineNo = 0;
  private eof = false;
  private scanFrom = 0; // where to resume looking for a newline

  constructor(
    private src: ByteSource,
    opts: ZJSONReaderOptions,
  ) {
    this.ctx = opts.ctx;
    this.decoder = new TypeDecoder(this.ctx);
    this.onControl = opts.onControl;
  }

  async read(): Promise<Value[] | null> {
    const b = new Builder(64 * 1024);
    const batch: Value[] = [];
    for (;;) {
      const line = await this.nextLine();
      if (line === null) return batch.length > 0 ? batch : null;
      const v = this.decodeLine(b, line.start, line.end);
      if (v !== null) batch.push(v);
      if (batch.length >= BATCH_VALUES || b.len >= BATCH_BYTES) return batch;
    }
  }

  /** The next line's range in buf (without its newline), or null at end. */
  private async nextLine(): Promise<{ start: number; end: number } | null> {
    for (;;) {
      const nl = this.buf.indexOf(0x0a, this.scanFrom);
      if (nl >= 0) {
        const start = this.pos;
        this.pos = this.scanFrom = nl + 1;
        this.lineNo++;
        return { start, end: nl };
      }
      if (this.eof) {
        if (this.pos >= this.buf.length) return null;
        const start = this.pos;
        this.pos = this.scanFrom = this.buf.length;
        this.lineNo++;
        return { start, end: this.buf.length };
      }
      if (this.buf.length - this.pos > MAX_LINE) {
        throw new FormatError(
          'zjson',
          `line ${this.lineNo + 1}: line too long`,
          this.base + this.pos,
          this.lineNo + 1,
        );
      }
      const chunk = await this.src.read();
      if (!chunk) {
        this.eof = true;
        continue;
      }
      const rest = this.buf.length - this.pos;
      this.base += this.pos;
      this.buf = rest > 0 ? Buffer.concat([this.buf.subarray(this.pos), chunk]) : chunk;
      this.pos = 0;
      this.scanFrom = rest;
    }
  }

  private fail(message: string, start: number): never {
    throw new FormatError('zjson', message, this.base + start, this.lineNo);
  }

  /** Decodes one line into b; null for a blank line or a control message. */
  private decodeLine(b: Builder, start: number, end: number): Value | null {
    const buf = this.buf;
    let s = start;
    let e = end;
    while (s < e && isSpace(buf[s])) s++;
    while (e > s && isSpace(buf[e - 1])) e--;
    if (s === e) return null;
    let obj: unknown;
    try {
      obj = JSON.parse(buf.toString('utf8', s, e));
    } catch {
      const why = goJSONSyntaxError(buf.subarray(s, e)) ?? 'malformed JSON';
      this.fail(
        `line ${this.lineNo}: malformed ZJSON: bad type object: ${goQuoteBytes(buf, s, e)}: unpacker error parsing JSON: ${why}`,
        start,
      );
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
      this.fail(
        `line ${this.lineNo}: malformed ZJSON: bad type object: ${goQuoteBytes(buf, s, e)}: not a JSON object`,
        start,
      );
    }
    const o = obj as { type?: unknown; value?: unknown };
    if (typeof o.type === 'string') {
      if (!this.onControl)
        this.fail(
          `line ${this.lineNo}: malformed ZJSON: bad type object: ${goQuoteBytes(buf, s, e)}: JSON field "type" in Go struct type "zjsonio.Object": value of type "string" not assignable to type "zjsonio.zType"`,
          start,
        );
      this.onControl({ type: o.type, value: o.value });
      return null;
    }
    let t: Type;
    try {
      t = this.decoder.decode(o.type);
    } catch (err) {
      if (err instanceof TypeDecodeError) this.fail(err.message, start);
      throw err;
    }
    const mark = b.len;
    try {
      this.value(b, t, o.value, 0);
    } catch (err) {
      if (
        err instanceof ValueError ||
        err instanceof PrimitiveError ||
        err instanceof TypeDecodeError
      ) {
        this.fail(`line ${this.lineNo}: ${err.message}`, start);
      }
      throw err;
    }
    const tag = readUvarint(b.buf, mark, b.len);
    if (tag === 0) return Value.null(t);
    return new Value(t, b.buf, uv.end, tag - 1);
  }

  /** Appends the tagged value body of type t decoded from its ZJSON form v. */
  private value(b: Builder, type: Type, v: unknown, depth: number): void {
    if (depth > 1000) throw new ValueError('ZJSON value nested too deeply');
    if (v === null) {
      b.appendNull();
      return;
    }
    const t = type.under;
    switch (t.kind) {
      case Kind.Primitive: {
        if (t.id === ID.Type) {
          const inner = this.decoder.decode(v);
          const tv = this.ctx.typeValue(inner);
          b.append(tv, 0, tv.length);
          return;
        }
        if (typeof v !== 'string')
          throw new ValueError('ZJSON primitive value is not a JSON string');
        if (t.id === ID.String) {
          appendString(b, v);
          return;
        }
        if (t.id === ID.Int64 && v.length < 16 && smallIntRe.test(v)) {
          b.appendInt(Number(v));
          return;
        }
        appendPrimitive(b, t, v);
        return;
      }
      case Kind.Record: {
        const fields = (t as TypeRecord).fields;
        if (!Array.isArray(v)) throw new ValueError('ZJSON record value must be a JSON array');
        if (v.length > fields.length) throw new ValueError('record with extra field');
        if (v.length < fields.length) throw new ValueError('record with missing field');
        b.beginContainer();
        for (let i = 0; i < v.length; i++) this.value(b, fields[i].type, v[i], depth + 1);
        b.endContainer();
        return;
      }
      case Kind.Array:
      case Kind.Set: {
        const which = t.kind === Kind.Array ? 'array' : 'set';
        if (!Array.isArray(v)) throw new ValueError(`bad JSON for ZJSON ${which} value`);
        const elem = (t as TypeArray | TypeSet).type;
        b.beginContainer();
        const bodyStart = b.len;
        for (const e of v) this.value(b, elem, e, depth + 1);
        if (t.kind === Kind.Set) normalizeSet(b, bodyStart);
        b.endContainer();
        return;
      }
      case Kind.Map: {
        if (!Array.isArray(v)) throw new ValueError('bad JSON for ZJSON union value');
        const mt = t as TypeMap;
        b.beginContainer();
        for (const pair of v) {
          if (!Array.isArray(pair) || pair.length !== 2) {
            throw new ValueError('ZJSON map value must be an array of two-element arrays');
          }
          this.value(b, mt.keyType, pair[0], depth + 1);
          this.value(b, mt.valType, pair[1], depth + 1);
        }
        b.endContainer();
        return;
      }
      case Kind.Union: {
        const u = t as TypeUnion;
        if (!Array.isArray(v)) throw new ValueError('bad JSON for ZJSON union value');
        if (v.length !== 2) throw new ValueError('ZJSON union value not an array of two elements');
        if (typeof v[0] !== 'string') throw new ValueError('bad tag for ZJSON union value');
        if (!/^[+-]?\d+$/.test(v[0])) {
          throw new ValueError(
            `bad tag for ZJSON union value: strconv.Atoi: parsing ${JSON.stringify(v[0])}: invalid syntax`,
          );
        }
        const tag = Number(v[0]);
        if (tag < 0 || tag >= u.types.length) {
          throw new ValueError('bad tag for ZJSON union value: union type tag out of range');
        }
        b.beginContainer();
        b.appendBytes(encodeInt(tag));
        this.value(b, u.types[tag], v[1], depth + 1);
        b.endContainer();
        return;
      }
      case Kind.Enum: {
        if (typeof v !== 'string')
          throw new ValueError('ZJSON enum index value is not a JSON string');
        if (!/^[+-]?\d+$/.test(v))
          throw new ValueError('ZJSON enum index value is not a string integer');
        const n = Number(v);
        if (n < 0 || n >= (t as TypeEnum).symbols.length) {
          throw new ValueError(`ZJSON enum index out of range: ${v}`);
        }
        b.appendBytes(encodeUint(n));
        return;
      }
      case Kind.Error:
        this.value(b, (t as TypeErr).type, v, depth + 1);
        return;
    }
  }
}

const smallIntRe = /^-?\d+$/;

/** Appends a string value, NFC-normalised as the reference reads it. */
function appendString(b: Builder, s: string): void {
  const n = s.length;
  if (n < 127) {
    // ASCII, the common case, is copied by hand behind a one-byte tag.
    b.grow(n + 1);
    const buf = b.buf;
    let p = b.len + 1;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[p++] = c;
    }
    if (i === n) {
      buf[b.len] = n + 1;
      b.len = p;
      return;
    }
  }
  // Text below U+0300 is unchanged by NFC: skip the normaliser for it.
  for (let i = 0; i < n; i++) {
    if (s.charCodeAt(i) >= 0x300) {
      s = s.normalize('NFC');
      break;
    }
  }
  const len = Buffer.byteLength(s, 'utf8');
  b.grow(len + 10);
  b.len = putUvarint(b.buf, b.len, len + 1);
  b.len += b.buf.write(s, b.len, 'utf8');
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/** Sorts and deduplicates the tagged elements written since bodyStart (the set normal form). */
function normalizeSet(b: Builder, bodyStart: number): void {
  const buf = b.buf;
  const elems: Buffer[] = [];
  let p = bodyStart;
  while (p < b.len) {
    const tag = readUvarint(buf, p, b.len);
    const end = uv.end + (tag === 0 ? 0 : tag - 1);
    elems.push(Buffer.from(buf.subarray(p, end)));
    p = end;
  }
  elems.sort((x, y) => bytesCompare(x, 0, x.length, y, 0, y.length));
  let w = bodyStart;
  let prev: Buffer | null = null;
  for (const e of elems) {
    if (prev !== null && prev.equals(e)) continue;
    e.copy(b.buf, w);
    w += e.length;
    prev = e;
  }
  b.len = w;
}
