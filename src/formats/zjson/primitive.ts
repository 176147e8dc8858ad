// Primitive values as ZSON text, the form ZJSON carries them in (and the
// JSON writer uses for map keys): formatting as the reference's
// zson.FormatPrimitive, parsing as its zson.BuildPrimitive (with the ZSON
// format's Go-exact literal parsers), with the same error texts.

import { TypeContext } from '../../zed/context';
import { formatFloatZSON } from '../../zed/floatfmt';
import { formatIP, formatNet, parseIP, parseNet } from '../../zed/ipnet';
import { quoteString } from '../../zed/names';
import { formatDuration, formatTime } from '../../zed/nano';
import {
  decodeBool,
  decodeFloat,
  decodeIntExact,
  decodeString,
  decodeUintExact,
  encodeFloat16,
  encodeFloat32,
  encodeFloat64,
} from '../../zed/primitive';
import { formatType } from '../../zed/typestring';
import { ID, Type } from '../../zed/types';
import { Builder } from '../../zed/zcode';
import { goQuoteString } from '../json/gotext';
import {
  appendTime,
  MAX_TIME_TEXT,
  parseDurationGo,
  parseGoFloat,
  parseGoInt,
  parseGoUint,
  parseRFC3339,
  timeOverflows,
} from '../zson/literal';

const typeCtx = new TypeContext();

/** The ZSON text of a primitive body (type is the underlying primitive type). */
export function formatPrimitive(type: Type, buf: Buffer, off: number, len: number): string {
  if (len < 0) return 'null';
  switch (type.id) {
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
      return formatDuration(decodeIntExact(buf, off, len));
    case ID.Time:
      return formatTime(decodeIntExact(buf, off, len));
    case ID.Float16:
      return formatFloatZSON(decodeFloat(buf, off, len), 16);
    case ID.Float32:
      return formatFloatZSON(decodeFloat(buf, off, len), 32);
    case ID.Float64:
      return formatFloatZSON(decodeFloat(buf, off, len), 64);
    case ID.Bool:
      return decodeBool(buf, off, len) ? 'true' : 'false';
    case ID.Bytes:
      return '0x' + buf.toString('hex', off, off + len);
    case ID.String:
      return quoteString(decodeString(buf, off, len));
    case ID.IP:
      return formatIP(buf, off, len);
    case ID.Net:
      return formatNet(buf, off, len);
    case ID.Type:
      return '<' + formatTypeValue(buf, off, len) + '>';
    case ID.Null:
      return 'null';
    default:
      return `<ZSON unknown primitive: ${type.id}>`;
  }
}

/** The ZSON text of a type value's encoding. */
export function formatTypeValue(buf: Buffer, off: number, len: number): string {
  try {
    return formatType(typeCtx.lookupByValue(buf, off, len));
  } finally {
    // Type values come from anywhere; keep the scratch context small.
    if (typeCtx.size > 10000) typeCtx.reset();
  }
}

/** A primitive that failed to parse, with the reference's message. */
export class PrimitiveError extends Error {}

const hexRe = /^[0-9a-fA-F]*$/;

/**
 * Appends the body of a primitive of type (the underlying primitive type)
 * parsed from its ZSON text, as the reference's zson.BuildPrimitive does
 * (strconv's integer and float syntax, RFC 3339 times, Zed durations);
 * throws a PrimitiveError with its message.
 */
export function appendPrimitive(b: Builder, type: Type, text: string): void {
  switch (type.id) {
    case ID.Uint8:
    case ID.Uint16:
    case ID.Uint32:
    case ID.Uint64: {
      const v = parseGoUint(text);
      if (v === undefined) throw new PrimitiveError(`invalid unsigned integer: ${text}`);
      b.appendUint(v);
      return;
    }
    case ID.Int8:
    case ID.Int16:
    case ID.Int32:
    case ID.Int64: {
      const v = parseGoInt(text);
      if (v === undefined) throw new PrimitiveError(`invalid integer: ${text}`);
      b.appendInt(v);
      return;
    }
    case ID.Duration: {
      const d = parseDurationGo(text);
      if (d === undefined) throw new PrimitiveError(`invalid duration: ${text}`);
      b.appendInt(d);
      return;
    }
    case ID.Time: {
      const t = parseRFC3339(text);
      if (t === undefined) throw new PrimitiveError(`invalid ISO time: ${text}`);
      if (timeOverflows(t))
        throw new PrimitiveError(`time overflow: ${text} (max: ${MAX_TIME_TEXT})`);
      appendTime(b, t);
      return;
    }
    case ID.Float16:
    case ID.Float32:
    case ID.Float64: {
      const f = parseGoFloat(text, type.id === ID.Float64 ? 64 : 32);
      if (f === undefined) throw new PrimitiveError(`invalid floating point: ${text}`);
      const body =
        type.id === ID.Float64
          ? encodeFloat64(f)
          : type.id === ID.Float32
            ? encodeFloat32(f)
            : encodeFloat16(f);
      b.append(body, 0, body.length);
      return;
    }
    case ID.Bool:
      if (text !== 'true' && text !== 'false') throw new PrimitiveError(`invalid bool: ${text}`);
      b.appendBytes(text === 'true' ? TRUE : FALSE);
      return;
    case ID.Bytes: {
      if (!text.startsWith('0x')) throw new PrimitiveError(`invalid bytes: ${text}`);
      const hex = text.slice(2);
      if (!hexRe.test(hex))
        throw new PrimitiveError(`invalid bytes: ${text} (encoding/hex: invalid byte: ${hex})`);
      if (hex.length % 2 === 1)
        throw new PrimitiveError(`invalid bytes: ${text} (encoding/hex: odd length hex string)`);
      b.appendBytes(Buffer.from(hex, 'hex'));
      return;
    }
    case ID.String:
      b.appendBytes(Buffer.from(text.normalize('NFC'), 'utf8'));
      return;
    case ID.IP: {
      const ip = parseIP(text);
      if (!ip) throw new PrimitiveError(`ParseAddr(${goQuoteString(text)}): unable to parse IP`);
      b.appendBytes(ip);
      return;
    }
    case ID.Net: {
      const net = parseNet(text);
      if (!net) throw new PrimitiveError(`invalid network: ${text}`);
      b.appendBytes(net);
      return;
    }
    case ID.Null:
      if (text !== '')
        throw new PrimitiveError(`invalid text body of null value: ${goQuoteString(text)}`);
      b.appendNull();
      return;
    case ID.Type:
      throw new PrimitiveError(
        `type values should not be encoded as primitives: ${goQuoteString(text)}`,
      );
    default:
      throw new PrimitiveError(`unknown primitive: ${type.id}`);
  }
}

const TRUE = Buffer.from([1]);
const FALSE = Buffer.from([0]);
