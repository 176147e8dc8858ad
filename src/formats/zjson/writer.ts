// ZJSON writer: one {"type":...,"value":...} object per line, as the
// reference's zjsonio writer and its service (ctrl=T) write them.
//
// Types are renumbered in the writer's own context in first-seen order
// (so a stream's IDs start at 30 whatever context its values come from),
// each complex type is defined once and referred to after. Values are
// nested arrays of strings: primitives as ZSON text (strings raw), unions
// as [tag, value], maps as [[key, value], ...], type values as type
// objects. Strings are escaped as Go's json.Marshal does (HTML-escaped).

import { compareTypes } from '../../zed/compare';
import { TypeContext } from '../../zed/context';
import { decodeIntExact, decodeUint } from '../../zed/primitive';
import {
  ID,
  Kind,
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { readUvarint, uv } from '../../zed/zcode';
import { ByteSink, ControlMessage, OutputBuffer, ValueWriter } from '../io';
import { quoteJSON, quoteJSONBytes } from '../json/text';
import { TextBuffer } from '../textbuffer';
import { formatPrimitive } from './primitive';
import { TypeEncoder } from './types';

export class ZJSONWriter implements ValueWriter {
  private out: OutputBuffer;
  private ctx = new TypeContext();
  private local = new Map<Type, Type>();
  // Per source union, the local tag of each source tag (see localType).
  private tags = new Map<Type, number[]>();
  // Decodes type values before they are made local.
  private scratch = new TypeContext();
  private encoder = new TypeEncoder();

  constructor(sink: ByteSink) {
    this.out = new OutputBuffer(sink);
  }

  async write(vals: Value[]): Promise<void> {
    const out = this.out;
    for (const v of vals) {
      this.encodeValue(out, v);
      if (out.full) await out.flush();
    }
  }

  /** Appends one ZJSON line for v. */
  private encodeValue(text: TextBuffer, v: Value): void {
    text.ascii('{"type":');
    // The type goes before the value, whose type values may define more.
    this.encoder.encode(text, this.localType(v.type));
    text.ascii(',"value":');
    this.value(text, v.type, v.buf, v.off, v.len);
    text.ascii('}\n');
  }

  /**
   * The writer's own copy of a type, made depth first as the reference's
   * type translation makes it, with each union's types in the reference's
   * union order (its context sorts them). A union whose order changes has
   * its value tags remapped when written.
   */
  private localType(t: Type): Type {
    let l = this.local.get(t);
    if (l !== undefined) return l;
    const ctx = this.ctx;
    if (t instanceof TypePrimitive) {
      l = t;
    } else if (t instanceof TypeRecord) {
      l = ctx.lookupTypeRecord(
        t.fields.map((f) => ({ name: f.name, type: this.localType(f.type) })),
      );
    } else if (t instanceof TypeArray) {
      l = ctx.lookupTypeArray(this.localType(t.type));
    } else if (t instanceof TypeSet) {
      l = ctx.lookupTypeSet(this.localType(t.type));
    } else if (t instanceof TypeMap) {
      const k = this.localType(t.keyType);
      l = ctx.lookupTypeMap(k, this.localType(t.valType));
    } else if (t instanceof TypeUnion) {
      const members = t.types.map((m) => this.localType(m));
      const u = ctx.lookupTypeUnion(members.slice().sort(compareTypes));
      this.tags.set(
        t,
        members.map((m) => u.types.indexOf(m)),
      );
      l = u;
    } else if (t instanceof TypeEnum) {
      l = ctx.lookupTypeEnum(t.symbols);
    } else if (t instanceof TypeErr) {
      l = ctx.lookupTypeError(this.localType(t.type));
    } else if (t instanceof TypeNamed) {
      l = ctx.lookupTypeNamed(t.name, this.localType(t.type));
    } else {
      throw new Error('ZJSON: unknown type');
    }
    this.local.set(t, l);
    return l;
  }

  /** Writes a control message as {"type":"<name>","value":<value>}. */
  async writeControl(msg: ControlMessage): Promise<void> {
    const out = this.out;
    out.ascii('{"type":');
    quoteJSON(out, msg.type, true);
    out.ascii(',"value":');
    writeJSON(out, msg.value);
    out.ascii('}\n');
    if (out.full) await out.flush();
  }

  async close(): Promise<void> {
    await this.out.end();
  }

  private value(out: TextBuffer, type: Type, buf: Buffer, off: number, len: number): void {
    if (len < 0) {
      out.ascii('null');
      return;
    }
    const t = type.under;
    switch (t.kind) {
      case Kind.Primitive:
        if (t.id === ID.String) {
          quoteJSONBytes(out, buf, off, len, true);
        } else if (t.id === ID.Type) {
          if (this.scratch.size > 10000) this.scratch.reset();
          this.encoder.encode(out, this.localType(this.scratch.lookupByValue(buf, off, len)));
        } else {
          quoteJSON(out, formatPrimitive(t, buf, off, len), true);
        }
        return;
      case Kind.Record: {
        const fields = (t as TypeRecord).fields;
        const end = off + len;
        let p = off;
        out.byte(0x5b);
        for (let i = 0; i < fields.length && p < end; i++) {
          if (i > 0) out.byte(0x2c);
          p = this.child(out, fields[i].type, buf, p, end);
        }
        out.byte(0x5d);
        return;
      }
      case Kind.Array:
      case Kind.Set: {
        const elem = (t as TypeArray | TypeSet).type;
        const end = off + len;
        let p = off;
        out.byte(0x5b);
        while (p < end) {
          if (p > off) out.byte(0x2c);
          p = this.child(out, elem, buf, p, end);
        }
        out.byte(0x5d);
        return;
      }
      case Kind.Map: {
        const mt = t as TypeMap;
        const end = off + len;
        if (end === off) {
          // The reference builds the pairs in a nil slice, so an empty
          // map is written as null.
          out.ascii('null');
          return;
        }
        let p = off;
        out.byte(0x5b);
        while (p < end) {
          out.ascii(p > off ? ',[' : '[');
          p = this.child(out, mt.keyType, buf, p, end);
          out.byte(0x2c);
          p = this.child(out, mt.valType, buf, p, end);
          out.byte(0x5d);
        }
        out.byte(0x5d);
        return;
      }
      case Kind.Union: {
        const end = off + len;
        const tagLen = readUvarint(buf, off, end) - 1;
        const tagOff = uv.end;
        const tag = Number(decodeIntExact(buf, tagOff, tagLen));
        let tags = this.tags.get(t);
        if (tags === undefined) {
          this.localType(t);
          tags = this.tags.get(t)!;
        }
        out.ascii('["' + tags[tag] + '",');
        this.child(out, (t as TypeUnion).types[tag], buf, tagOff + tagLen, end);
        out.byte(0x5d);
        return;
      }
      case Kind.Enum:
        out.ascii('"' + decodeUint(buf, off, len) + '"');
        return;
      case Kind.Error:
        this.value(out, (t as TypeErr).type, buf, off, len);
        return;
    }
  }

  /** Writes the tagged child at buf[p]; returns the offset after it. */
  private child(out: TextBuffer, t: Type, buf: Buffer, p: number, end: number): number {
    const tag = readUvarint(buf, p, end);
    const body = uv.end;
    this.value(out, t, buf, body, tag - 1);
    return tag === 0 ? body : body + tag - 1;
  }
}

/** Writes a JS value (a control message's payload) as Go's json.Marshal would. */
export function writeJSON(out: TextBuffer, v: unknown): void {
  if (v === null || v === undefined) {
    out.ascii('null');
  } else if (typeof v === 'string') {
    quoteJSON(out, v, true);
  } else if (typeof v === 'number') {
    out.ascii(Number.isFinite(v) ? String(v) : 'null');
  } else if (typeof v === 'bigint') {
    out.ascii(v.toString());
  } else if (typeof v === 'boolean') {
    out.ascii(v ? 'true' : 'false');
  } else if (Array.isArray(v)) {
    out.byte(0x5b);
    v.forEach((e, i) => {
      if (i > 0) out.byte(0x2c);
      writeJSON(out, e);
    });
    out.byte(0x5d);
  } else if (typeof v === 'object') {
    out.byte(0x7b);
    let first = true;
    for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
      if (e === undefined) continue;
      if (!first) out.byte(0x2c);
      first = false;
      quoteJSON(out, k, true);
      out.byte(0x3a);
      writeJSON(out, e);
    }
    out.byte(0x7d);
  } else {
    out.ascii('null');
  }
}
