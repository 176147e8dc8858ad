// Canonical JS forms of Zed values and of DuckDB values, so rows read by
// zlake and by DuckDB can be compared exactly: integers as bigint, times as
// microseconds since the epoch, decimals as their unscaled integer, bytes
// as hex, records as objects, arrays as arrays, maps as [key, value] pairs.

import { decodeFloat, decodeIntBig, decodeString, decodeUintBig } from '../../../src/zed/primitive';
import {
  ID,
  Type,
  TypeArray,
  TypeMap,
  TypeNamed,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { readUvarint, uv } from '../../../src/zed/zcode';

export type Canon = null | boolean | string | number | bigint | Canon[] | { [k: string]: Canon };

function children(buf: Buffer, off: number, len: number): { off: number; len: number }[] {
  const out: { off: number; len: number }[] = [];
  for (let p = off, end = off + len; p < end;) {
    const tag = readUvarint(buf, p, end);
    const s = uv.end;
    out.push({ off: s, len: tag - 1 });
    p = s + Math.max(tag - 1, 0);
  }
  return out;
}

const perMicro: Record<string, bigint> = {
  arrow_timestamp_s: -1000000n,
  arrow_timestamp_ms: -1000n,
  arrow_timestamp_us: 1n,
  arrow_date32: 1n,
  arrow_date64: 1n,
};

export function zedCanon(t: Type, buf: Buffer, off: number, len: number): Canon {
  if (len < 0) return null;
  if (t instanceof TypeNamed) {
    if (t.name === 'arrow_decimal128') {
      const [hi, lo] = children(buf, off, len);
      return (decodeIntBig(buf, hi.off, hi.len) << 64n) + decodeUintBig(buf, lo.off, lo.len);
    }
    if (t.name in perMicro) return decodeIntBig(buf, off, len) / 1000n;
    return zedCanon(t.type, buf, off, len);
  }
  if (t instanceof TypePrimitive) {
    switch (t.id) {
      case ID.Time:
        return decodeIntBig(buf, off, len) / 1000n;
      case ID.Float16:
      case ID.Float32:
      case ID.Float64: {
        const f = decodeFloat(buf, off, len);
        return Number.isInteger(f) ? BigInt(f) : f;
      }
      case ID.Bool:
        return buf[off] === 1;
      case ID.String:
        return decodeString(buf, off, len);
      case ID.Bytes:
        return buf.subarray(off, off + len).toString('hex');
      case ID.Null:
        return null;
      default:
        if (t.id <= ID.Uint256) return decodeUintBig(buf, off, len);
        return decodeIntBig(buf, off, len);
    }
  }
  if (t instanceof TypeRecord) {
    const kids = children(buf, off, len);
    const o: { [k: string]: Canon } = {};
    t.fields.forEach((f, i) => (o[f.name] = zedCanon(f.type, buf, kids[i].off, kids[i].len)));
    return o;
  }
  if (t instanceof TypeArray || t instanceof TypeSet) {
    return children(buf, off, len).map((c) => zedCanon(t.type, buf, c.off, c.len));
  }
  if (t instanceof TypeMap) {
    const kids = children(buf, off, len);
    const out: Canon[] = [];
    for (let i = 0; i < kids.length; i += 2) {
      out.push([
        zedCanon(t.keyType, buf, kids[i].off, kids[i].len),
        zedCanon(t.valType, buf, kids[i + 1].off, kids[i + 1].len),
      ]);
    }
    return out;
  }
  if (t instanceof TypeUnion) {
    const [tag, v] = children(buf, off, len);
    return zedCanon(t.types[Number(decodeIntBig(buf, tag.off, tag.len))], buf, v.off, v.len);
  }
  throw new Error('zedCanon: unsupported type');
}

export function valueCanon(v: Value): Canon {
  return zedCanon(v.type, v.buf, v.off, v.len);
}

/** The canonical form of a value DuckDB's node API returns. */
export function duckCanon(v: unknown): Canon {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === 'bigint' || typeof v === 'string' || typeof v === 'boolean') return v;
  const o = v as Record<string, unknown>;
  switch (o.constructor.name) {
    case 'DuckDBDecimalValue':
      return o.value as bigint;
    case 'DuckDBTimestampValue':
    case 'DuckDBTimestampTZValue':
      return o.micros as bigint;
    case 'DuckDBTimestampNanosecondsValue':
      return (o.nanos as bigint) / 1000n;
    case 'DuckDBTimestampMillisecondsValue':
      return (o.millis as bigint) * 1000n;
    case 'DuckDBTimestampSecondsValue':
      return (o.seconds as bigint) * 1000000n;
    case 'DuckDBDateValue':
      return BigInt(o.days as number) * 86400000000n;
    case 'DuckDBBlobValue':
      return Buffer.from(o.bytes as Uint8Array).toString('hex');
    case 'DuckDBStructValue': {
      const out: { [k: string]: Canon } = {};
      for (const [k, x] of Object.entries(o.entries as Record<string, unknown>))
        out[k] = duckCanon(x);
      return out;
    }
    case 'DuckDBListValue':
    case 'DuckDBArrayValue':
      return (o.items as unknown[]).map(duckCanon);
    case 'DuckDBMapValue':
      return (o.entries as { key: unknown; value: unknown }[]).map((e) => [
        duckCanon(e.key),
        duckCanon(e.value),
      ]);
    default:
      throw new Error(`duckCanon: unhandled ${o.constructor.name}`);
  }
}
