// Zed values as plain JSON, as the reference's jsonio writer maps them:
// records → objects in field order; arrays and sets → arrays; maps →
// objects keyed by the key's text; unions → their value; enums → the
// symbol; errors → {"error": value}; integers → numbers (exact, whatever
// their size); floats → numbers (NaN and ±Inf are an error, as in Go's
// encoding/json); time, duration, ip, net → their text; bytes → "0x..."
// hex; type values → "<type>"; named types → their underlying value.

import { decodeFloat, decodeIntExact, decodeUintExact } from '../../zed/primitive';
import { formatFloatG } from '../../zed/floatfmt';
import { formatIP, formatNet } from '../../zed/ipnet';
import { formatDuration, formatTime } from '../../zed/nano';
import {
  ID,
  Kind,
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';
import { decodeUint } from '../../zed/primitive';
import { Value } from '../../zed/value';
import { readUvarint, uv } from '../../zed/zcode';
import { formatPrimitive, formatTypeValue } from '../zjson/primitive';
import { TextBuffer } from '../textbuffer';
import { formatJSONFloat, quoteJSON, quoteJSONBytes } from './text';
import { formatValueForKey } from './mapkey';

/** A value the reference's JSON encoder refuses (NaN, ±Inf), with Go's message. */
export class JSONMarshalError extends Error {}

const recordMarshaler = 'json: error calling MarshalJSON for type jsonio.record: ';

/** Writes Zed values as JSON text. One per writer: it caches field-name text per record type. */
export class JSONMarshaler {
  private names = new WeakMap<TypeRecord, Buffer[]>();

  /**
   * Appends the JSON text of the value (type, buf[off, off+len)) to out.
   * Throws JSONMarshalError for a NaN or infinite float, leaving out's
   * length where it was.
   */
  marshal(out: TextBuffer, type: Type, buf: Buffer, off: number, len: number): void {
    const mark = out.len;
    try {
      this.value(out, type, buf, off, len, 0);
    } catch (e) {
      out.len = mark;
      throw e;
    }
  }

  /** records counts the record marshalers around this value (for Go's error text). */
  private value(
    out: TextBuffer,
    type: Type,
    buf: Buffer,
    off: number,
    len: number,
    records: number,
  ): void {
    if (len < 0) {
      out.ascii('null');
      return;
    }
    const t = type.under;
    switch (t.kind) {
      case Kind.Primitive:
        this.primitive(out, t, buf, off, len, records);
        return;
      case Kind.Record:
        this.record(out, t as TypeRecord, buf, off, len, records);
        return;
      case Kind.Array:
      case Kind.Set: {
        const elem = (t as TypeArray | TypeSet).type;
        const end = off + len;
        let p = off;
        out.byte(0x5b);
        while (p < end) {
          if (p > off) out.byte(0x2c);
          const tag = readUvarint(buf, p, end);
          const body = uv.end;
          this.value(out, elem, buf, body, tag - 1, records);
          p = tag === 0 ? body : body + tag - 1;
        }
        out.byte(0x5d);
        return;
      }
      case Kind.Map:
        this.map(out, t as TypeMap, buf, off, len, records);
        return;
      case Kind.Union: {
        const u = t as TypeUnion;
        const tagLen = readUvarint(buf, off, off + len) - 1;
        const tagOff = uv.end;
        const tag = Number(decodeIntExact(buf, tagOff, tagLen));
        const inner = u.types[tag];
        const vtag = readUvarint(buf, tagOff + tagLen, off + len);
        this.value(out, inner, buf, uv.end, vtag - 1, records);
        return;
      }
      case Kind.Enum: {
        const sym = (t as TypeEnum).symbols[decodeUint(buf, off, len)];
        quoteJSON(out, sym ?? '<bad enum>');
        return;
      }
      case Kind.Error:
        out.ascii('{"error":');
        this.value(out, (t as TypeErr).type, buf, off, len, records);
        out.byte(0x7d);
        return;
    }
  }

  private record(
    out: TextBuffer,
    rt: TypeRecord,
    buf: Buffer,
    off: number,
    len: number,
    records: number,
  ): void {
    let names = this.names.get(rt);
    if (names === undefined) {
      const nt = new TextBuffer(64);
      names = rt.fields.map((f, i) => {
        nt.reset();
        if (i > 0) nt.byte(0x2c);
        quoteJSON(nt, f.name);
        nt.byte(0x3a);
        return Buffer.from(nt.buf.subarray(0, nt.len));
      });
      this.names.set(rt, names);
    }
    const fields = rt.fields;
    const end = off + len;
    let p = off;
    out.byte(0x7b);
    for (let i = 0; i < fields.length; i++) {
      const nb = names[i];
      out.raw(nb, 0, nb.length);
      const tag = readUvarint(buf, p, end);
      const body = uv.end;
      const flen = tag - 1;
      this.value(out, fields[i].type, buf, body, flen, records + 1);
      p = flen < 0 ? body : body + flen;
    }
    out.byte(0x7d);
  }

  private map(
    out: TextBuffer,
    mt: TypeMap,
    buf: Buffer,
    off: number,
    len: number,
    records: number,
  ): void {
    const keyType = mt.keyType.under;
    const end = off + len;
    let p = off;
    out.byte(0x7b);
    let first = true;
    while (p < end) {
      const ktag = readUvarint(buf, p, end);
      const ko = uv.end;
      const kl = ktag - 1;
      p = kl < 0 ? ko : ko + kl;
      const vtag = readUvarint(buf, p, end);
      const vo = uv.end;
      const vl = vtag - 1;
      p = vl < 0 ? vo : vo + vl;
      if (!first) out.byte(0x2c);
      first = false;
      // String keys go out as their bytes (a null key as ""), other keys as text.
      if (keyType.id === ID.String) quoteJSONBytes(out, buf, ko, kl < 0 ? 0 : kl);
      else quoteJSON(out, mapKeyText(keyType, buf, ko, kl));
      out.byte(0x3a);
      this.value(out, mt.valType, buf, vo, vl, records + 1);
    }
    out.byte(0x7d);
  }

  private primitive(
    out: TextBuffer,
    t: Type,
    buf: Buffer,
    off: number,
    len: number,
    records: number,
  ): void {
    switch (t.id) {
      case ID.Uint8:
      case ID.Uint16:
      case ID.Uint32:
      case ID.Uint64:
        out.ascii(String(decodeUintExact(buf, off, len)));
        return;
      case ID.Int8:
      case ID.Int16:
      case ID.Int32:
      case ID.Int64:
        out.ascii(String(decodeIntExact(buf, off, len)));
        return;
      case ID.Duration:
        quoteJSON(out, formatDuration(decodeIntExact(buf, off, len)));
        return;
      case ID.Time:
        quoteJSON(out, formatTime(decodeIntExact(buf, off, len)));
        return;
      case ID.Float16:
      case ID.Float32:
      case ID.Float64: {
        const bits = t.id === ID.Float64 ? 64 : 32;
        const f = decodeFloat(buf, off, len);
        if (!Number.isFinite(f)) {
          throw new JSONMarshalError(
            recordMarshaler.repeat(records) + 'json: unsupported value: ' + formatFloatG(f, bits),
          );
        }
        out.ascii(formatJSONFloat(f, bits));
        return;
      }
      case ID.Bool:
        out.ascii(len > 0 && buf[off] !== 0 ? 'true' : 'false');
        return;
      case ID.Bytes:
        out.ascii('"0x' + buf.toString('hex', off, off + len) + '"');
        return;
      case ID.String:
        quoteJSONBytes(out, buf, off, len);
        return;
      case ID.IP:
        out.ascii('"' + formatIP(buf, off, len) + '"');
        return;
      case ID.Net:
        out.ascii('"' + formatNet(buf, off, len) + '"');
        return;
      case ID.Type:
        quoteJSON(out, '<' + formatTypeValue(buf, off, len) + '>');
        return;
      case ID.Null:
        out.ascii('null');
        return;
      default:
        quoteJSON(out, formatPrimitive(t, buf, off, len));
    }
  }
}

/** The object key a map key becomes (keyType is the key's underlying type). */
function mapKeyText(keyType: Type, buf: Buffer, off: number, len: number): string {
  switch (keyType.kind) {
    case Kind.Primitive:
      return formatPrimitive(keyType, buf, off, len);
    case Kind.Union: {
      // The untagged value, decorated, so that 0, 0(uint64) and "0" differ.
      if (len < 0) return 'null';
      const u = keyType as TypeUnion;
      const tagLen = readUvarint(buf, off, off + len) - 1;
      const tagOff = uv.end;
      const inner = u.types[Number(decodeIntExact(buf, tagOff, tagLen))];
      const vtag = readUvarint(buf, tagOff + tagLen, off + len);
      return formatValueForKey(inner, buf, uv.end, vtag - 1);
    }
    case Kind.Enum: {
      if (len < 0) return 'null';
      return (keyType as TypeEnum).symbols[decodeUint(buf, off, len)] ?? '<bad enum>';
    }
    default:
      return formatValueForKey(keyType, buf, off, len);
  }
}

/** A value's JSON form, parsed into JS (records become objects, bytes "0x..." text). */
export function valueToJS(v: Value): unknown {
  const text = new TextBuffer(256);
  new JSONMarshaler().marshal(text, v.type, v.buf, v.off, v.len);
  return JSON.parse(text.toString());
}
