// Value text for the text and table writers: the reference formats their
// cells as its Zeek writer formats any value (bools T/F, times and
// durations as seconds, containers comma-joined, "-" for null, Zeek string
// escapes), except that a record column of type time is RFC 3339.
//
// Inside sets, maps and unions the reference formats a null element as the
// zero value of its type (0, "", F, "invalid IP"...), inside arrays and
// records as "-"; both are kept here.

import { formatFloatF } from '../../zed/floatfmt';
import { formatIP, formatNet } from '../../zed/ipnet';
import { civilFromDays } from '../../zed/nano';
import {
  decodeFloat,
  decodeInt,
  decodeIntExact,
  decodeUintExact,
  float16ToNumber,
} from '../../zed/primitive';
import {
  ID,
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypeRecord,
  TypeSet,
  TypeString,
  TypeTime,
  TypeUnion,
  TypeUint64,
} from '../../zed/types';
import { DuplicateFieldError } from '../../zed/context';
import { Value } from '../../zed/value';
import { FormatError } from '../io';
import { readUvarint, uv, ZcodeError, ZIter } from '../../zed/zcode';
import { formatValue } from '../zson';
import { TextBuffer } from '../textbuffer';
import { writeZeekString } from '../zeek/escape';
import { FlatLayout, Flattener } from '../zeek/flatten';
import { formatZeekTimeBody, nsParts, splitNs } from '../zeek/time';

const DASH = 0x2d;
const COMMA = 0x2c;
const TAB = 9;

// A scratch value for the rare types formatted as ZSON (types, errors).
const scratch = Value.null();

/** Appends the text of a value (null as "-"): the reference's zeekio.FormatValue. */
export function appendValue(out: TextBuffer, t: Type, buf: Buffer, off: number, len: number): void {
  if (len < 0) out.byte(DASH);
  else appendAny(out, t, buf, off, len, false);
}

/**
 * Appends a value that may be null (len -1), formatting a null the way the
 * reference's zeekio does at that position: "-" for unions, the zero value
 * of other types.
 */
function appendAny(
  out: TextBuffer,
  t: Type,
  buf: Buffer,
  off: number,
  len: number,
  inContainer: boolean,
): void {
  if (t instanceof TypeNamed) {
    appendAny(out, t.type, buf, off, len, inContainer);
    return;
  }
  if (t instanceof TypeArray || t instanceof TypeSet) {
    if (len <= 0) {
      out.ascii('(empty)');
      return;
    }
    // Array nulls are "-", set nulls their element's zero value.
    const dashNulls = t instanceof TypeArray;
    const it = new ZIter(buf, off, off + len);
    let first = true;
    while (!it.done()) {
      it.next();
      if (!first) out.byte(COMMA);
      first = false;
      if (dashNulls && it.len < 0) out.byte(DASH);
      else appendAny(out, t.type, buf, it.off, it.len, true);
    }
    return;
  }
  if (t instanceof TypeRecord) {
    appendRecord(out, t, buf, off, len);
    return;
  }
  if (t instanceof TypeMap) {
    out.byte(0x5b);
    if (len > 0) {
      const it = new ZIter(buf, off, off + len);
      while (!it.done()) {
        it.next();
        appendAny(out, t.keyType, buf, it.off, it.len, true);
        if (it.done()) throw new ZcodeError('map entry without a value');
        it.next();
        appendAny(out, t.valType, buf, it.off, it.len, true);
      }
    }
    out.byte(0x5d);
    return;
  }
  if (t instanceof TypeUnion) {
    appendUnion(out, t, buf, off, len);
    return;
  }
  if (t instanceof TypeEnum) {
    appendAny(out, TypeUint64, buf, off, len, false);
    return;
  }
  if (t instanceof TypeErr) {
    if (t.type.under === TypeString) {
      if (len > 0) out.raw(buf, off, len);
    } else {
      out.utf8(formatValue(scratch.set(t, buf, off, len)));
    }
    return;
  }
  // A null primitive reads as its zero value: an empty body.
  const n = len < 0 ? 0 : len;
  switch (t.id) {
    case ID.String:
      writeZeekString(out, buf, off, off + n, inContainer);
      return;
    case ID.Bool:
      out.byte(n > 0 && buf[off] !== 0 ? 0x54 : 0x46);
      return;
    case ID.Bytes:
      if (n > 0) out.ascii(buf.toString('base64', off, off + n));
      return;
    case ID.Time:
    case ID.Duration:
      out.ascii(formatZeekTimeBody(buf, off, n));
      return;
    case ID.Float64:
      out.ascii(formatFloatF(decodeFloat(buf, off, n), 64));
      return;
    case ID.Float32:
      out.ascii(formatFloatF(decodeFloat(buf, off, n), 32));
      return;
    case ID.Float16:
      out.ascii(formatFloatF(n === 2 ? float16ToNumber(buf[off] | (buf[off + 1] << 8)) : 0, 32));
      return;
    case ID.Int8:
    case ID.Int16:
    case ID.Int32:
    case ID.Int64:
      appendNumber(out, decodeIntExact(buf, off, n));
      return;
    case ID.Uint8:
    case ID.Uint16:
    case ID.Uint32:
    case ID.Uint64:
      appendNumber(out, decodeUintExact(buf, off, n));
      return;
    case ID.IP:
      out.ascii(n === 0 ? 'invalid IP' : formatIP(buf, off, n));
      return;
    case ID.Net:
      out.ascii(n === 0 ? 'invalid Prefix' : formatNet(buf, off, n));
      return;
    case ID.Null:
      out.byte(DASH);
      return;
    case ID.Type:
      out.utf8(formatValue(scratch.set(t, buf, off, len)));
      return;
  }
  throw new ZcodeError(`unknown type ID ${t.id}`);
}

function appendNumber(out: TextBuffer, v: number | bigint): void {
  if (typeof v === 'number' && v >= 0) out.digits(v);
  else out.ascii(String(v));
}

/** Fields comma-joined, nulls as "-". */
function appendRecord(out: TextBuffer, t: TypeRecord, buf: Buffer, off: number, len: number): void {
  const fields = t.fields;
  // The reference fails on a null record here; every field null is the
  // nearest sensible reading.
  const it = len < 0 ? null : new ZIter(buf, off, off + len);
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) out.byte(COMMA);
    if (it === null || it.done()) {
      out.byte(DASH);
      continue;
    }
    it.next();
    if (it.len < 0) out.byte(DASH);
    else appendAny(out, fields[i].type, buf, it.off, it.len, false);
  }
}

/** "<tag>:<value>", or "-" for a null union. */
function appendUnion(out: TextBuffer, t: TypeUnion, buf: Buffer, off: number, len: number): void {
  if (len < 0) {
    out.byte(DASH);
    return;
  }
  const end = off + len;
  const ttag = readUvarint(buf, off, end);
  if (ttag <= 0) throw new ZcodeError('bad union value');
  const tagOff = uv.end;
  const tagLen = ttag - 1;
  const tag = decodeInt(buf, tagOff, tagLen);
  const vtag = readUvarint(buf, tagOff + tagLen, end);
  if (vtag < 0 || tag < 0 || tag >= t.types.length) throw new ZcodeError('bad union value');
  const voff = uv.end;
  const vlen = vtag - 1;
  if (voff + Math.max(vlen, 0) > end) throw new ZcodeError('bad union value');
  out.digits(tag);
  out.byte(0x3a);
  appendAny(out, t.types[tag], buf, voff, vlen, false);
}

/**
 * Appends the time body buf[off, off+len) as Go's RFC3339Nano in UTC
 * (fraction without trailing zeros), in number arithmetic: every int64
 * time is within ±9.3e9 seconds.
 */
function appendTime(out: TextBuffer, buf: Buffer, off: number, len: number): void {
  splitNs(buf, off, len);
  let sec = nsParts.sec;
  let frac = nsParts.frac;
  if (nsParts.neg) {
    sec = -sec;
    if (frac > 0) {
      sec -= 1;
      frac = 1e9 - frac;
    }
  }
  const days = Math.floor(sec / 86400);
  const sod = sec - days * 86400;
  const [y, m, d] = civilFromDays(days);
  if (y < 0) out.byte(DASH);
  pad(out, Math.abs(y), 4);
  out.byte(DASH);
  pad(out, m, 2);
  out.byte(DASH);
  pad(out, d, 2);
  out.byte(0x54);
  pad(out, Math.floor(sod / 3600), 2);
  out.byte(0x3a);
  pad(out, Math.floor((sod % 3600) / 60), 2);
  out.byte(0x3a);
  pad(out, sod % 60, 2);
  if (frac > 0) {
    let digits = 9;
    while (frac % 10 === 0) {
      frac /= 10;
      digits--;
    }
    out.byte(0x2e);
    pad(out, frac, digits);
  }
  out.byte(0x5a);
}

/** Appends n (≥ 0) in decimal with at least width digits. */
function pad(out: TextBuffer, n: number, width: number): void {
  for (let p = 10 ** (width - 1); p > 1 && n < p; p /= 10) out.byte(0x30);
  out.digits(n);
}

/** Is buf[off, off+len) of type t the error("missing") the reference shows as null? */
function isMissing(t: Type, buf: Buffer, off: number, len: number): boolean {
  return (
    t instanceof TypeErr &&
    t.type === TypeString &&
    len === 7 &&
    buf.toString('latin1', off, off + 7) === 'missing'
  );
}

/**
 * Flattens records and appends their leaf columns, tab-separated, as the
 * reference's text and table writers do: time columns in RFC 3339 (a null
 * time as nullTime), error("missing") as "-", the rest as appendValue.
 */
export class ColumnFormatter {
  readonly flattener = new Flattener();

  constructor(private readonly nullTime: string) {}

  /** The flat columns of a record type (throws DuplicateFieldError). */
  layout(t: Type): FlatLayout {
    return this.flattener.layout(t);
  }

  /** Appends the columns of a record value, without a line ending. */
  appendRow(out: TextBuffer, v: Value): void {
    const fl = this.flattener;
    const types = fl.layout(v.type).types;
    const n = fl.locate(v.type, v.buf, v.off, v.len);
    const buf = v.buf;
    for (let i = 0; i < n; i++) {
      if (i > 0) out.byte(TAB);
      const t = types[i];
      const off = fl.offs[i];
      const len = fl.lens[i];
      if (t === TypeTime) {
        if (len < 0) out.ascii(this.nullTime);
        else appendTime(out, buf, off, len);
      } else if (isMissing(t, buf, off, len)) {
        out.byte(DASH);
      } else {
        appendValue(out, t, buf, off, len);
      }
    }
  }
}

/**
 * An error met while formatting, as a FormatError of the format (a
 * record that flattens to a repeated column, a corrupt body); others pass.
 */
export function formatError(format: string, e: unknown): unknown {
  if (e instanceof DuplicateFieldError || e instanceof ZcodeError) {
    return new FormatError(format, e.message);
  }
  return e;
}
