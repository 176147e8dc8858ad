// Primitive values as ZSON text, the form ZJSON carries them in (and the
// JSON writer uses for map keys): formatting as the reference's
// zson.FormatPrimitive, parsing as its zson.BuildPrimitive, with the same
// error texts.

import { TypeContext } from '../../zed/context';
import { formatFloatZSON } from '../../zed/floatfmt';
import { formatIP, formatNet, parseIP, parseNet } from '../../zed/ipnet';
import { quoteString } from '../../zed/names';
import { formatDuration, formatTime, parseDuration, parseTime } from '../../zed/nano';
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
import { encodeInt, encodeUint } from '../../zed/make';

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

const MAX_TIME = 2n ** 63n - 1n;
const uintRe = /^\d+$/;
const intRe = /^[+-]?\d+$/;
const floatRe = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const specialFloatRe = /^[+-]?(inf|infinity|nan)$/i;
const hexRe = /^([0-9a-fA-F]{2})*$/;

/**
 * Parses the ZSON text of a primitive of type (the underlying primitive
 * type) into its body; null for the null type. Throws PrimitiveError.
 */
export function parsePrimitive(type: Type, text: string): Buffer | null {
  switch (type.id) {
    case ID.Uint8:
    case ID.Uint16:
    case ID.Uint32:
    case ID.Uint64: {
      const v = uintRe.test(text) ? BigInt(text) : -1n;
      if (v < 0n || v >= 2n ** 64n) throw new PrimitiveError(`invalid unsigned integer: ${text}`);
      return encodeUint(v);
    }
    case ID.Int8:
    case ID.Int16:
    case ID.Int32:
    case ID.Int64: {
      const v = intRe.test(text) ? BigInt(text) : null;
      if (v === null || v < -(2n ** 63n) || v >= 2n ** 63n)
        throw new PrimitiveError(`invalid integer: ${text}`);
      return encodeInt(v);
    }
    case ID.Duration: {
      const d = text === '' ? undefined : parseDuration(text);
      if (d === undefined) throw new PrimitiveError(`invalid duration: ${text}`);
      return encodeInt(d);
    }
    case ID.Time: {
      const t = parseTime(text);
      if (t === undefined) throw new PrimitiveError(`invalid ISO time: ${text}`);
      if (t > MAX_TIME)
        throw new PrimitiveError(`time overflow: ${text} (max: 2262-04-11T23:47:16Z)`);
      return encodeInt(BigInt.asIntN(64, t));
    }
    case ID.Float16:
    case ID.Float32:
    case ID.Float64: {
      const f = parseFloatText(text, type.id === ID.Float64 ? 64 : 32);
      if (f === undefined) throw new PrimitiveError(`invalid floating point: ${text}`);
      if (type.id === ID.Float64) return encodeFloat64(f);
      return type.id === ID.Float32 ? encodeFloat32(f) : encodeFloat16(f);
    }
    case ID.Bool:
      if (text === 'true') return Buffer.from([1]);
      if (text === 'false') return Buffer.from([0]);
      throw new PrimitiveError(`invalid bool: ${text}`);
    case ID.Bytes:
      if (!text.startsWith('0x')) throw new PrimitiveError(`invalid bytes: ${text}`);
      if (!hexRe.test(text.slice(2))) {
        throw new PrimitiveError(`invalid bytes: ${text} (encoding/hex: invalid byte or length)`);
      }
      return Buffer.from(text.slice(2), 'hex');
    case ID.String:
      return Buffer.from(text.normalize('NFC'), 'utf8');
    case ID.IP: {
      const ip = parseIP(text);
      if (!ip) throw new PrimitiveError(`ParseAddr(${JSON.stringify(text)}): unable to parse IP`);
      return Buffer.from(ip);
    }
    case ID.Net: {
      const net = parseNet(text);
      if (!net) throw new PrimitiveError(`invalid network: ${text}`);
      return Buffer.from(net);
    }
    case ID.Null:
      if (text !== '')
        throw new PrimitiveError(`invalid text body of null value: ${JSON.stringify(text)}`);
      return null;
    case ID.Type:
      throw new PrimitiveError(
        `type values should not be encoded as primitives: ${JSON.stringify(text)}`,
      );
    default:
      throw new PrimitiveError(`unknown primitive: ${type.id}`);
  }
}

/** strconv.ParseFloat's accepted decimal forms; undefined on a syntax or range error. */
function parseFloatText(text: string, bits: 32 | 64): number | undefined {
  if (specialFloatRe.test(text)) {
    const body = text.replace(/^[+-]/, '').toLowerCase();
    if (body === 'nan') return NaN;
    return text[0] === '-' ? -Infinity : Infinity;
  }
  if (!floatRe.test(text)) return undefined;
  let f = Number(text);
  if (bits === 32) f = Math.fround(f);
  if (!Number.isFinite(f)) return undefined;
  return f;
}
