// The synchronous core of ZNG reading: frame headers, typedefs, values and
// decompression, on frames that are wholly in memory. The streaming reader
// (reader.ts) and the in-memory reader (buffer.ts) feed it frames.
//
// Typedefs are numbered per stream from 30 and mapped straight to types of
// the shared context. As in the reference, a typedef that repeats a type
// already defined in the stream gets that type's ID rather than a new one.

import { FormatError } from '../io';
import { TypeContext } from '../../zed/context';
import { decodeString } from '../../zed/primitive';
import { Field, ID, primitiveById, Type } from '../../zed/types';
import { Value } from '../../zed/value';
import { readUvarint, uv } from '../../zed/zcode';
import {
  COMPRESSED,
  COMPRESSION_LZ4,
  EOS,
  FrameType,
  MALFORMED,
  MAX_FRAME_SIZE,
  TypeDef,
  VERSION_BIT,
  ZngControl,
} from './frame';
import { lz4Decompress } from './lz4';
import { checkBody } from './validate';

export const FORMAT = 'zng';
const LZ4_ERROR = 'zngio: lz4: invalid source or destination buffer too short';

/** What decodeFrame found. */
export const Frame = {
  Types: 0,
  Values: 1,
  Control: 2,
  EOS: 3,
} as const;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export class ZngDecoder {
  /** Stream type ID → shared type; primitives the reference lacks are holes. */
  private types: (Type | undefined)[] = [];
  private localIds = new Map<Type, number>();
  /** The last control frame decoded. */
  control: ZngControl | null = null;

  // Cursor over a types payload, and how to turn a position into a stream
  // offset for errors: errBase + pos, or errFixed when >= 0 (a compressed
  // payload, whose positions are not stream positions).
  private buf: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private end = 0;
  private errBase = 0;
  private errFixed = -1;

  constructor(
    readonly ctx: TypeContext,
    readonly maxFrameSize = MAX_FRAME_SIZE,
    /** Check each value's structure against its type (checkBody). */
    readonly validate = false,
  ) {
    this.reset();
  }

  /** Forgets the stream's typedefs (end of stream): IDs restart at 30. */
  reset(): void {
    const types = this.types;
    types.length = 0;
    for (let id = 0; id < ID.FirstComplex; id++) types.push(primitiveById(id));
    this.localIds.clear();
  }

  private fail(message: string, pos: number): never {
    throw new FormatError(FORMAT, message, this.errFixed >= 0 ? this.errFixed : this.errBase + pos);
  }

  /**
   * The length of the whole frame (header and payload) that starts at
   * buf[off], or -1 when buf[off, end) ends inside the frame header.
   * `offset` is the stream offset of buf[off], for errors. Throws a
   * FormatError for a bad frame code or an oversized frame.
   */
  frameSize(buf: Uint8Array, off: number, end: number, offset: number): number {
    const code = buf[off];
    if (code === EOS) return 1;
    if ((code & VERSION_BIT) !== 0) {
      throw new FormatError(FORMAT, 'zngio: encountered wrong version bit in framing', offset);
    }
    const type = (code >> 4) & 3;
    if (type === 3)
      throw new FormatError(FORMAT, `unknown ZNG message frame type: ${type}`, offset);
    const v = readUvarint(buf, off + 1, end);
    if (v < 0) {
      if (end - off - 1 >= 10) throw new FormatError(FORMAT, MALFORMED, offset);
      return -1;
    }
    const len = v * 16 + (code & 0xf);
    if (len > this.maxFrameSize) {
      throw new FormatError(
        FORMAT,
        `zngio: frame length (${len}) exceeds maximum allowed (${this.maxFrameSize})`,
        offset,
      );
    }
    return uv.end - off + len;
  }

  /**
   * Decodes the frame at buf[off, end), which must be exactly one whole
   * frame as measured by frameSize. Values of a values frame are appended
   * to `out` and point into buf (or into the decompressed payload); a
   * control frame's message is left in `this.control`.
   */
  decodeFrame(buf: Buffer, off: number, end: number, offset: number, out: Value[]): number {
    const code = buf[off];
    if (code === EOS) {
      this.reset();
      return Frame.EOS;
    }
    readUvarint(buf, off + 1, end);
    let pbuf = buf;
    let poff = uv.end;
    let pend = end;
    this.errBase = offset - off;
    this.errFixed = -1;
    if ((code & COMPRESSED) !== 0) {
      // Positions in a decompressed payload are not stream positions:
      // errors inside it report the frame's offset.
      this.errFixed = offset;
      pbuf = this.decompress(buf, poff, end);
      poff = 0;
      pend = pbuf.length;
    }
    switch ((code >> 4) & 3) {
      case FrameType.Types:
        this.decodeTypes(pbuf, poff, pend);
        return Frame.Types;
      case FrameType.Values:
        this.decodeValues(pbuf, poff, pend, out);
        return Frame.Values;
      default:
        if (poff >= pend) this.fail(MALFORMED, poff);
        this.control = new ZngControl(pbuf[poff], pbuf.subarray(poff + 1, pend));
        return Frame.Control;
    }
  }

  private decompress(buf: Buffer, off: number, end: number): Buffer {
    if (off >= end) this.fail(MALFORMED, off);
    const format = buf[off];
    const size = readUvarint(buf, off + 1, end);
    if (size < 0) this.fail(MALFORMED, off + 1);
    const zoff = uv.end;
    if (size > this.maxFrameSize) {
      this.fail(
        `zngio: frame length (${size}) exceeds maximum allowed (${this.maxFrameSize})`,
        off + 1,
      );
    }
    if (format !== COMPRESSION_LZ4) {
      this.fail(`zngio: unknown compression format 0x${format.toString(16)}`, off);
    }
    // LZ4 expands at most 255-fold: refuse absurd sizes before allocating.
    if (size > (end - zoff) * 255 + 64) this.fail(LZ4_ERROR, zoff);
    const ubuf = Buffer.allocUnsafe(size);
    const n = lz4Decompress(buf, zoff, end, ubuf, 0, size);
    if (n < 0) this.fail(LZ4_ERROR, zoff);
    if (n !== size) this.fail(`zngio: got ${n} uncompressed bytes, expected ${size}`, zoff);
    return ubuf;
  }

  /** Appends the values of a values payload to out. */
  decodeValues(buf: Buffer, off: number, end: number, out: Value[]): void {
    const types = this.types;
    let p = off;
    while (p < end) {
      const start = p;
      let id = buf[p++];
      if (id >= 0x80) {
        id = readUvarint(buf, start, end);
        if (id < 0) this.fail(MALFORMED, start);
        p = uv.end;
      }
      if (p >= end) this.fail(MALFORMED, p);
      let tag = buf[p++];
      if (tag >= 0x80) {
        tag = readUvarint(buf, p - 1, end);
        if (tag < 0) this.fail(MALFORMED, p - 1);
        p = uv.end;
      }
      const len = tag - 1;
      if (len > end - p) this.fail(MALFORMED, p);
      const type = id < types.length ? types[id] : undefined;
      if (type === undefined) this.fail(`zngio: type ID ${id} not in context`, start);
      if (this.validate) {
        const err = checkBody(type, buf, p, len);
        if (err !== null) this.fail(err, start);
      }
      out.push(new Value(type, buf, p, len));
      if (len > 0) p += len;
    }
  }

  /** Decodes the typedefs of a types payload. */
  decodeTypes(buf: Uint8Array, off: number, end: number): void {
    this.buf = buf;
    this.pos = off;
    this.end = end;
    while (this.pos < end) {
      const at = this.pos;
      const code = buf[this.pos++];
      let type: Type;
      try {
        type = this.typedef(code, at);
      } catch (e) {
        if (e instanceof FormatError) throw e;
        // The context rejects duplicate fields and primitive type names.
        this.fail((e as Error).message, at);
      }
      let id = this.localIds.get(type);
      if (id === undefined) {
        id = this.types.length;
        this.types.push(type);
        this.localIds.set(type, id);
      }
    }
  }

  private typedef(code: number, at: number): Type {
    const ctx = this.ctx;
    switch (code) {
      case TypeDef.Record: {
        const n = this.uvarint();
        const fields: Field[] = [];
        for (let i = 0; i < n; i++) {
          const name = this.name();
          fields.push({ name, type: this.typeRef() });
        }
        return ctx.lookupTypeRecord(fields);
      }
      case TypeDef.Array:
        return ctx.lookupTypeArray(this.typeRef());
      case TypeDef.Set:
        return ctx.lookupTypeSet(this.typeRef());
      case TypeDef.Map: {
        const k = this.typeRef();
        return ctx.lookupTypeMap(k, this.typeRef());
      }
      case TypeDef.Union: {
        const n = this.uvarint();
        if (n === 0) this.fail('type union: zero types not allowed', at);
        const types: Type[] = [];
        for (let i = 0; i < n; i++) types.push(this.typeRef());
        return ctx.lookupTypeUnion(types);
      }
      case TypeDef.Enum: {
        const n = this.uvarint();
        const symbols: string[] = [];
        for (let i = 0; i < n; i++) symbols.push(this.name());
        return ctx.lookupTypeEnum(symbols);
      }
      case TypeDef.Error:
        return ctx.lookupTypeError(this.typeRef());
      case TypeDef.Named: {
        const name = this.name(true);
        return ctx.lookupTypeNamed(name, this.typeRef());
      }
      default:
        return this.fail(`unknown ZNG typedef code: ${code}`, at);
    }
  }

  private uvarint(): number {
    const v = readUvarint(this.buf, this.pos, this.end);
    if (v < 0) this.fail(MALFORMED, this.pos);
    this.pos = uv.end;
    return v;
  }

  /** A counted UTF-8 string; type names must be valid UTF-8. */
  private name(strict = false): string {
    const at = this.pos;
    const n = this.uvarint();
    if (n > this.end - this.pos) this.fail(MALFORMED, at);
    const start = this.pos;
    this.pos += n;
    if (!strict) return decodeString(this.buf, start, n);
    const bytes = this.buf.subarray(start, start + n);
    try {
      return strictUtf8.decode(bytes);
    } catch {
      return this.fail(`bad type name ${goQuote(bytes)}: invalid UTF-8`, at);
    }
  }

  /** A type ID inside a typedef, as a shared type. */
  private typeRef(): Type {
    const at = this.pos;
    const id = this.uvarint();
    if (id < ID.FirstComplex) {
      const t = primitiveById(id);
      if (!t) this.fail(`primitive type ID ${id} not implemented`, at);
      return t;
    }
    const types = this.types;
    if (id >= types.length) {
      this.fail(`type id (${id}) not in type context (size ${types.length})`, at);
    }
    return types[id]!;
  }
}

/**
 * Quotes bytes as Go's %q does: invalid UTF-8 bytes as \xNN, so error texts
 * name a bad type name as the reference does.
 */
function goQuote(bytes: Uint8Array): string {
  let out = '"';
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i];
    let n = 0;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) n = 3;
    else if (c >= 0xf0 && c <= 0xf4) n = 4;
    if (c < 0x80) {
      if (c === 0x22 || c === 0x5c) out += '\\' + String.fromCharCode(c);
      else if (c >= 0x20 && c < 0x7f) out += String.fromCharCode(c);
      else out += '\\x' + c.toString(16).padStart(2, '0');
      i++;
      continue;
    }
    if (n > 0 && i + n <= bytes.length) {
      try {
        out += strictUtf8.decode(bytes.subarray(i, i + n));
        i += n;
        continue;
      } catch {
        // not a valid sequence: fall through to the byte escape
      }
    }
    out += '\\x' + c.toString(16).padStart(2, '0');
    i++;
  }
  return out + '"';
}
