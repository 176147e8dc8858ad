// Builds the zcode body of a record from one Zeek data line.
//
// The record type is compiled once per header into a flat program of
// container and leaf steps; each leaf names the data column it reads, so a
// line is split on tabs once and its fields parsed straight from the line's
// bytes into the Builder, with no string per field in the common cases.

import { Builder } from '../../zed/zcode';
import { writeFloat, bytesCompare } from '../../zed/primitive';
import { ID, Type, TypeArray, TypeRecord, TypeSet } from '../../zed/types';
import { zeekStringBytes } from './escape';
import {
  goFloat,
  parseGoAddr,
  parseGoBool,
  parseGoFloat,
  parseGoInt,
  parseGoPrefix,
  parseGoUint,
  ParseError,
} from './strconv';
import { appendZeekTime } from './time';

const enum Leaf {
  String,
  Int64,
  Port,
  Uint64,
  Time,
  Float64,
  Bool,
  IP,
  Net,
}

const enum Op {
  Begin,
  End,
  Primitive,
  Array,
  Set,
}

function leafOf(t: Type): Leaf {
  switch (t.under.id) {
    case ID.String:
      return Leaf.String;
    case ID.Int64:
      return Leaf.Int64;
    case ID.Uint16:
      return Leaf.Port;
    case ID.Uint64:
      return Leaf.Uint64;
    case ID.Duration:
    case ID.Time:
      return Leaf.Time;
    case ID.Float64:
      return Leaf.Float64;
    case ID.Bool:
      return Leaf.Bool;
    case ID.IP:
      return Leaf.IP;
    case ID.Net:
      return Leaf.Net;
  }
  throw new Error(`zeek: no reader for type ID ${t.under.id}`);
}

const tooFew = () => new ParseError('too few values');
const tooMany = () => new ParseError('too many values');

const EMPTY_MARK = Buffer.from('(empty)');

/** A compiled record type: build() appends one record body per data line. */
export class RecordProgram {
  private ops: number[] = [];
  private starts = new Int32Array(64);
  private ends = new Int32Array(64);
  private readonly nsource: number;

  /**
   * @param skipFirst the descriptor's first field is a _path supplied by
   *   the caller rather than read from the line.
   */
  constructor(
    typ: TypeRecord,
    private sourceFields: readonly number[],
    skipFirst: boolean,
  ) {
    this.compile(skipFirst ? typ.fields.slice(1) : typ.fields);
    this.nsource = sourceFields.length;
  }

  private compile(fields: readonly { type: Type }[]): void {
    for (const f of fields) {
      const t = f.type;
      if (t instanceof TypeRecord) {
        this.ops.push(Op.Begin, 0);
        this.compile(t.fields);
        this.ops.push(Op.End, 0);
      } else if (t instanceof TypeArray) {
        this.ops.push(Op.Array, leafOf(t.type));
      } else if (t instanceof TypeSet) {
        this.ops.push(Op.Set, leafOf(t.type));
      } else {
        this.ops.push(Op.Primitive, leafOf(t));
      }
    }
  }

  /**
   * Appends the fields of the record in line[s, e) to b (a record body:
   * tagged fields, no outer tag). path, if given, is the leading _path.
   * Throws ParseError.
   */
  build(b: Builder, line: Buffer, s: number, e: number, path: Buffer | null): void {
    if (path) b.append(path, 0, path.length);
    // Split on tabs.
    let n = 0;
    let start = s;
    let starts = this.starts;
    let ends = this.ends;
    for (let i = s; ; i++) {
      if (i === e || line[i] === 9) {
        if (n === starts.length) {
          this.starts = new Int32Array(n * 2);
          this.starts.set(starts);
          this.ends = new Int32Array(n * 2);
          this.ends.set(ends);
          starts = this.starts;
          ends = this.ends;
        }
        starts[n] = start;
        ends[n++] = i;
        start = i + 1;
        if (i === e) break;
      }
    }
    if (n > this.nsource) throw tooMany();
    if (n < this.nsource) throw tooFew();
    const ops = this.ops;
    const src = this.sourceFields;
    let leaf = 0;
    for (let k = 0; k < ops.length; k += 2) {
      const op = ops[k];
      if (op === Op.Begin) {
        if (leaf >= n) throw tooFew();
        b.beginContainer();
        continue;
      }
      if (op === Op.End) {
        b.endContainer();
        continue;
      }
      if (leaf >= n) throw tooFew();
      const col = src[leaf++];
      const fs = starts[col];
      const fe = ends[col];
      if (op === Op.Primitive) {
        appendLeaf(b, ops[k + 1], line, fs, fe);
      } else {
        appendContainer(b, ops[k + 1], line, fs, fe, op === Op.Set);
      }
    }
    if (leaf < n) throw tooMany();
  }
}

function appendContainer(
  b: Builder,
  kind: Leaf,
  line: Buffer,
  s: number,
  e: number,
  isSet: boolean,
): void {
  if (e - s === 1 && line[s] === 45) {
    b.appendNull();
    return;
  }
  const bodyStart = b.len + 1;
  b.beginContainer();
  if (e - s === 7 && line.compare(EMPTY_MARK, 0, 7, s, e) === 0) {
    b.endContainer();
    return;
  }
  let start = s;
  for (let i = s; i < e; i++) {
    if (line[i] === 44) {
      appendLeaf(b, kind, line, start, i);
      start = i + 1;
    }
  }
  appendLeaf(b, kind, line, start, e);
  if (isSet) normalizeSet(b, bodyStart);
  b.endContainer();
}

/** Sorts and deduplicates the tagged elements in b.buf[bodyStart, b.len). */
function normalizeSet(b: Builder, bodyStart: number): void {
  const buf = b.buf;
  const elems: { off: number; len: number }[] = [];
  let off = bodyStart;
  while (off < b.len) {
    // Tags here are small uvarints written by this builder.
    let tag = 0;
    let scale = 1;
    let p = off;
    for (;;) {
      const c = buf[p++];
      tag += (c & 0x7f) * scale;
      if (c < 0x80) break;
      scale *= 128;
    }
    const end = p + (tag === 0 ? 0 : tag - 1);
    elems.push({ off, len: end - off });
    off = end;
  }
  if (elems.length < 2) return;
  elems.sort((x, y) => bytesCompare(buf, x.off, x.len, buf, y.off, y.len));
  const out = Buffer.allocUnsafe(b.len - bodyStart);
  let n = 0;
  let prev: { off: number; len: number } | undefined;
  for (const el of elems) {
    if (prev && bytesCompare(buf, prev.off, prev.len, buf, el.off, el.len) === 0) continue;
    buf.copy(out, n, el.off, el.off + el.len);
    n += el.len;
    prev = el;
  }
  out.copy(buf, bodyStart, 0, n);
  b.len = bodyStart + n;
}

function text(line: Buffer, s: number, e: number): string {
  return line.toString('utf8', s, e);
}

/** Parses the field line[s, e) as a value of the given leaf kind and appends it. */
function appendLeaf(b: Builder, kind: Leaf, line: Buffer, s: number, e: number): void {
  const n = e - s;
  if (n === 1 && line[s] === 45) {
    b.appendNull();
    return;
  }
  switch (kind) {
    case Leaf.String: {
      const bytes = zeekStringBytes(line, s, e);
      if (bytes === null) appendTagged(b, line, s, e);
      else appendTagged(b, bytes, 0, bytes.length);
      return;
    }
    case Leaf.Int64: {
      const v = smallInt(line, s, e, true);
      b.appendInt(v !== undefined ? v : parseGoInt(text(line, s, e)));
      return;
    }
    case Leaf.Port: {
      const v = smallInt(line, s, e, false);
      b.appendUint(v !== undefined && v < 65536 ? v : parseGoUint(text(line, s, e), 16));
      return;
    }
    case Leaf.Uint64: {
      const v = smallInt(line, s, e, false);
      b.appendUint(v !== undefined ? v : parseGoUint(text(line, s, e)));
      return;
    }
    case Leaf.Time:
      appendZeekTime(b, line, s, e);
      return;
    case Leaf.Float64: {
      let v = smallFloat(line, s, e);
      if (v === undefined) {
        const t = text(line, s, e);
        const f = goFloat(t);
        v = typeof f === 'number' ? f : parseGoFloat(t);
      }
      b.grow(9);
      b.buf[b.len] = 9;
      writeFloat(b.buf, b.len + 1, v, 8);
      b.len += 9;
      return;
    }
    case Leaf.Bool: {
      let v: boolean;
      if (n === 1 && line[s] === 84) v = true;
      else if (n === 1 && line[s] === 70) v = false;
      else v = parseGoBool(text(line, s, e));
      b.grow(2);
      b.buf[b.len++] = 2;
      b.buf[b.len++] = v ? 1 : 0;
      return;
    }
    case Leaf.IP: {
      if (!appendIPv4(b, line, s, e)) {
        const ip = parseGoAddr(text(line, s, e));
        b.append(ip, 0, ip.length);
      }
      return;
    }
    case Leaf.Net: {
      const net = parseGoPrefix(text(line, s, e));
      b.append(net, 0, net.length);
      return;
    }
  }
}

/** A decimal integer of at most 15 digits (optionally signed), else undefined. */
function smallInt(line: Buffer, s: number, e: number, signed: boolean): number | undefined {
  let i = s;
  let neg = false;
  if (signed && i < e && (line[i] === 45 || line[i] === 43)) {
    neg = line[i] === 45;
    i++;
  }
  if (i === e || e - i > 15) return undefined;
  let v = 0;
  for (; i < e; i++) {
    const c = line[i] - 48;
    if (c < 0 || c > 9) return undefined;
    v = v * 10 + c;
  }
  return neg ? -v : v;
}

const pow10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * A plain decimal ("-12.345") with at most 15 digits, exactly as a correct
 * float parse gives it (an exact integer divided by an exact power of ten
 * rounds once), else undefined.
 */
export function smallFloat(line: Buffer, s: number, e: number): number | undefined {
  let i = s;
  let neg = false;
  if (i < e && line[i] === 45) {
    neg = true;
    i++;
  }
  let m = 0;
  let digits = 0;
  let frac = -1;
  for (; i < e; i++) {
    const c = line[i];
    if (c === 46 && frac < 0) {
      frac = 0;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9) return undefined;
    m = m * 10 + d;
    digits++;
    if (frac >= 0) frac++;
  }
  if (digits === 0 || digits > 15) return undefined;
  const v = frac > 0 ? m / pow10[frac] : m;
  return neg ? -v : v;
}

/** Appends a dotted-quad IPv4 address without leading zeros; false if not one. */
function appendIPv4(b: Builder, line: Buffer, s: number, e: number): boolean {
  b.grow(5);
  const at = b.len;
  let part = 0;
  let v = 0;
  let digits = 0;
  for (let i = s; i <= e; i++) {
    const c = i < e ? line[i] : 46;
    if (c === 46) {
      if (digits === 0 || part > 3 || v > 255) return false;
      b.buf[at + 1 + part++] = v;
      v = 0;
      digits = 0;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9 || (digits === 1 && v === 0)) return false;
    v = v * 10 + d;
    digits++;
  }
  if (part !== 4) return false;
  b.buf[at] = 5;
  b.len = at + 5;
  return true;
}

/**
 * Appends buf[s, e) as a tagged child of b, copying short runs by hand
 * (cheaper than a subarray view per field).
 */
export function appendTagged(b: Builder, buf: Buffer, s: number, e: number): void {
  const n = e - s;
  b.grow(n + 10);
  const out = b.buf;
  let at = b.len;
  let tag = n + 1;
  while (tag >= 0x80) {
    out[at++] = (tag & 0x7f) | 0x80;
    tag = Math.floor(tag / 128);
  }
  out[at++] = tag;
  if (n < 64) {
    for (let i = s; i < e; i++) out[at++] = buf[i];
  } else {
    buf.copy(out, at, s, e);
    at += n;
  }
  b.len = at;
}
