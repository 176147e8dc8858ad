// JSON reader: a stream of JSON values (NDJSON, whitespace-separated or
// spanning lines) into Zed values, typed as the reference's jsonio reader
// types them:
//
// - objects become records in key order; a repeated key keeps the first
//   key's position and the last key's value;
// - integers that fit int64 become int64 (exactly, never through a double);
//   other numbers float64; true/false bool; null the null type;
// - strings are NFC-normalised, with invalid UTF-8 coerced to U+FFFD a byte
//   at a time as Go does;
// - an array whose non-null elements have one type is an array of that
//   type; with several, an array of the union of those types ordered by
//   type ID; with none, [null].
//
// The parser is hand-written over bytes and writes zcode straight into the
// batch's output buffer. Record types are found through a trie of (key,
// type) steps whose nodes remember the last step taken, so a stream of
// same-shaped records costs one byte comparison per key and no string
// decoding, map lookup or type lookup. The input is read a chunk at a
// time: a value cut by the end of the window is parsed again once more
// input has arrived, so memory stays bounded by the largest value.

import { compareTypes } from '../../zed/compare';
import { TypeContext, DuplicateFieldError } from '../../zed/context';
import {
  Field,
  Type,
  TypeArray,
  TypeBool,
  TypeFloat64,
  TypeInt64,
  TypeNull,
  TypeRecord,
  TypeString,
  TypeUnion,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { readUvarint, uv, writeIntLE } from '../../zed/zcode';
import { ByteSource, FormatError, ReaderOptions, ValueReader } from '../io';
import { decodeRune, encodeRune, goQuoteByte, goQuoteBytes, runeLength } from './gotext';

/** Thrown (never escapes) when the window ends inside a value. */
const NEED_MORE = { needMore: true };

/** Deepest nesting accepted: deeper input would exhaust the JS stack. */
export const MAX_DEPTH = 1000;

// A batch ends when this much zcode has been written.
const BATCH_BYTES = 512 * 1024;
const OUT_INITIAL = 640 * 1024;
// The record-shape trie is dropped when it grows past this many nodes
// (input whose keys never repeat would otherwise grow it without bound).
const MAX_SHAPES = 200_000;

const utf8 = new TextDecoder('utf-8');

// Character classes.
const Q = 0x22; // "
const BS = 0x5c; // \

/** Bytes a string can copy without a second look: printable ASCII but " and \. */
const plain = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) plain[c] = c === Q || c === BS ? 0 : 1;

/** Bytes the reference's lexer takes as part of a number. */
const numberChar = new Uint8Array(256);
for (const c of '0123456789.eE+-') numberChar[c.charCodeAt(0)] = 1;

/** Bytes that may follow a literal (true, false, null). */
const boundary = new Uint8Array(256);
for (const c of '[{]}," \n\r\t') boundary[c.charCodeAt(0)] = 1;

const f64 = new Float64Array(1);
const f64b = new Uint8Array(f64.buffer);

/** An object key, interned per reader; raw is its bytes as first seen between the quotes. */
class Key {
  constructor(
    readonly name: string,
    readonly raw: Buffer,
    readonly id: number,
  ) {}
}

/** A node of the record-shape trie: the keys and value types of a record so far. */
class Shape {
  // The last step taken from here: a one-entry cache in front of `steps`.
  lastKey: Key | null = null;
  lastType: Type | null = null;
  lastNext: Shape | null = null;
  steps?: Map<string, Shape>;
  /** Record type of a record ending here; null when keys repeat (see dedup). */
  recType: TypeRecord | null | undefined = undefined;
  /** For repeated keys: the record type after dropping repeats... */
  dedupType?: TypeRecord;
  /** ...and, per kept field, the index of the field whose value it takes. */
  dedupFrom?: number[];

  constructor(
    readonly parent: Shape | null,
    readonly key: Key | null,
    readonly type: Type | null,
  ) {}
}

export class JSONReader implements ValueReader {
  private ctx: TypeContext;
  private src: ByteSource;

  // Input window: buf[pos, end) is unread; base is buf[0]'s stream offset.
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private end = 0;
  private base = 0;
  private linesBefore = 0; // newlines in the stream before buf[0]
  private eof = false;
  private done = false;

  // Output: zcode of the current batch.
  private out: Buffer = Buffer.allocUnsafe(OUT_INITIAL);
  private olen = 0;

  // Start offsets (in out) of the fields/elements of open containers.
  private starts: number[] = [];
  private types: Type[] = [];
  private sp = 0;

  private keys = new Map<string, Key>();
  private root = new Shape(null, null, null);
  private shapeCount = 0;
  private nextKeyId = 0;
  private arrayTypes: (TypeArray | undefined)[] = [];
  private scratch: Buffer = Buffer.allocUnsafe(256);

  constructor(src: ByteSource, opts: ReaderOptions) {
    this.src = src;
    this.ctx = opts.ctx;
  }

  async read(): Promise<Value[] | null> {
    if (this.done) return null;
    if (this.olen > 0) {
      // The last batch's values point into out: start a fresh buffer.
      this.out = Buffer.allocUnsafe(OUT_INITIAL);
      this.olen = 0;
    }
    const batch: Value[] = [];
    for (;;) {
      const status = this.parseSome(batch);
      if (status === FULL) return batch;
      if (status === END) {
        this.done = true;
        return batch.length > 0 ? batch : null;
      }
      // The window ended inside a value: read until it holds at least
      // twice as much, so a huge value is re-parsed O(log n) times.
      const want = status === NEED_VALUE ? 2 * (this.end - this.pos) : 1;
      while (this.end - this.pos < want && (await this.fill()));
    }
  }

  /** Appends the next chunk to the window; false at end of input. */
  private async fill(): Promise<boolean> {
    if (this.eof) return false;
    const chunk = await this.src.read();
    if (!chunk) {
      this.eof = true;
      return false;
    }
    this.linesBefore += countNewlines(this.buf, 0, this.pos);
    this.base += this.pos;
    if (this.pos >= this.end) {
      this.buf = chunk;
    } else {
      this.buf = Buffer.concat([this.buf.subarray(this.pos, this.end), chunk]);
    }
    this.pos = 0;
    this.end = this.buf.length;
    return true;
  }

  /** Parses values from the window into batch until it is full or the window runs out. */
  private parseSome(batch: Value[]): number {
    let valueStart = this.pos;
    let outStart = this.olen;
    try {
      for (;;) {
        this.skipSpace();
        if (this.pos >= this.end) return this.eof ? END : NEED_INPUT;
        valueStart = this.pos;
        outStart = this.olen;
        batch.push(this.parseTop());
        if (this.olen >= BATCH_BYTES) return FULL;
      }
    } catch (e) {
      if (e !== NEED_MORE) throw e;
      this.pos = valueStart;
      this.olen = outStart;
      this.sp = 0;
      return NEED_VALUE;
    }
  }

  private skipSpace(): void {
    const buf = this.buf;
    const end = this.end;
    let p = this.pos;
    while (p < end) {
      const c = buf[p];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      p++;
    }
    this.pos = p;
  }

  /** Parses one top-level value, writing its body untagged. */
  private parseTop(): Value {
    const start = this.olen;
    const c = this.buf[this.pos];
    if (c === 0x7b) {
      this.pos++;
      const t = this.parseObject(1);
      return new Value(t, this.out, start, this.olen - start);
    }
    if (c === 0x5b) {
      this.pos++;
      const t = this.parseArray(1);
      return new Value(t, this.out, start, this.olen - start);
    }
    const t = this.parseValue(0);
    if (t === TypeNull) {
      this.olen = start;
      return Value.null(TypeNull);
    }
    // A primitive was written tagged: point past the tag.
    const tag = readUvarint(this.out, start, this.olen);
    return new Value(t, this.out, uv.end, tag - 1);
  }

  /** Parses the value at pos, appending it tagged; returns its type. */
  private parseValue(depth: number): Type {
    if (this.pos >= this.end) return this.needMore();
    const c = this.buf[this.pos];
    switch (c) {
      case Q:
        this.parseString();
        return TypeString;
      case 0x7b: {
        this.pos++;
        const at = this.reserveTag();
        const t = this.parseObject(depth + 1);
        this.closeTag(at);
        return t;
      }
      case 0x5b: {
        this.pos++;
        const at = this.reserveTag();
        const t = this.parseArray(depth + 1);
        this.closeTag(at);
        return t;
      }
      case 0x74: // t
        this.literal(0x72, 0x75, 0x65, -1);
        this.appendBool(1);
        return TypeBool;
      case 0x66: // f
        this.literal(0x61, 0x6c, 0x73, 0x65);
        this.appendBool(0);
        return TypeBool;
      case 0x6e: // n
        this.literal(0x75, 0x6c, 0x6c, -1);
        this.ensure(1);
        this.out[this.olen++] = 0;
        return TypeNull;
      default:
        if ((c >= 0x30 && c <= 0x39) || c === 0x2d) return this.parseNumber();
        return this.fail(
          `invalid character ${goQuoteByte(c)} looking for beginning of value`,
          this.pos,
        );
    }
  }

  // Objects.

  /** Parses the members of an object (after its '{'), appending them; returns the record type. */
  private parseObject(depth: number): TypeRecord {
    if (depth > MAX_DEPTH) this.fail(`JSON value nested more than ${MAX_DEPTH} deep`, this.pos);
    const base = this.sp;
    let shape = this.root;
    this.skipSpace();
    if (this.pos >= this.end) this.needMore();
    if (this.buf[this.pos] === 0x7d) {
      this.pos++;
      return (shape.recType ?? this.resolveShape(shape))!;
    }
    for (;;) {
      if (this.pos >= this.end) this.needMore();
      const c = this.buf[this.pos];
      if (c !== Q) {
        this.tokenError(c, 'looking for beginning of object key string');
      }
      const key = this.parseKey(shape);
      this.skipSpace();
      if (this.pos >= this.end) this.needMore();
      if (this.buf[this.pos] !== 0x3a) this.tokenError(this.buf[this.pos], 'after object key');
      this.pos++;
      this.skipSpace();
      const start = this.olen;
      const t = this.parseValue(depth);
      this.push(start, t);
      shape =
        shape.lastKey === key && shape.lastType === t ? shape.lastNext! : this.step(shape, key, t);
      this.skipSpace();
      if (this.pos >= this.end) this.needMore();
      const d = this.buf[this.pos];
      if (d === 0x2c) {
        this.pos++;
        this.skipSpace();
        continue;
      }
      if (d === 0x7d) {
        this.pos++;
        break;
      }
      this.tokenError(d, 'after object key');
    }
    let rt = shape.recType;
    if (rt === undefined) rt = this.resolveShape(shape);
    if (rt === null) rt = this.dedupFields(shape, base);
    this.sp = base;
    return rt;
  }

  /** Reads an object key at pos (a '"'), using the shape's last key as a guess. */
  private parseKey(shape: Shape): Key {
    const buf = this.buf;
    const start = this.pos + 1;
    const guess = shape.lastKey;
    if (guess !== null) {
      const raw = guess.raw;
      const n = raw.length;
      if (start + n < this.end && buf[start + n] === Q) {
        let i = 0;
        while (i < n && buf[start + i] === raw[i]) i++;
        if (i === n) {
          this.pos = start + n + 1;
          return guess;
        }
      }
    }
    const close = this.findQuote(start);
    let name: string;
    let ascii = true;
    for (let i = start; i < close; i++) {
      if (plain[buf[i]] === 0) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      name = buf.toString('latin1', start, close);
    } else {
      const n = this.unquote(start, close);
      if (n < 0) this.fail(`invalid string ${goQuoteBytes(buf, start - 1, close + 1)}`, start - 1);
      name = utf8.decode(this.scratch.subarray(0, n));
    }
    this.pos = close + 1;
    let key = this.keys.get(name);
    if (key === undefined) {
      key = new Key(name, Buffer.from(buf.subarray(start, close)), this.nextKeyId++);
      this.keys.set(name, key);
    }
    return key;
  }

  /** The trie step from shape by (key, type), creating it if new. */
  private step(shape: Shape, key: Key, t: Type): Shape {
    let steps = shape.steps;
    if (steps === undefined) steps = shape.steps = new Map();
    const id = key.id + ':' + t.id;
    let next = steps.get(id);
    if (next === undefined) {
      if (++this.shapeCount > MAX_SHAPES) {
        // Start a new trie. Key IDs keep counting, so nodes of the old
        // trie still in use stay consistent until they are dropped.
        this.root = new Shape(null, null, null);
        this.shapeCount = 0;
        this.keys.clear();
      }
      next = new Shape(shape, key, t);
      steps.set(id, next);
    }
    shape.lastKey = key;
    shape.lastType = t;
    shape.lastNext = next;
    return next;
  }

  /** Looks up the record type of a shape (null if it repeats a key, with the dedup plan set). */
  private resolveShape(shape: Shape): TypeRecord | null {
    const path: Shape[] = [];
    for (let s: Shape | null = shape; s !== null && s.key !== null; s = s.parent) path.push(s);
    path.reverse();
    const fields: Field[] = path.map((s) => ({ name: s.key!.name, type: s.type! }));
    try {
      shape.recType = this.ctx.lookupTypeRecord(fields);
      return shape.recType;
    } catch (e) {
      if (!(e instanceof DuplicateFieldError)) throw e;
    }
    // Repeated keys: the first position of a key takes its last value
    // (as ECMAScript and jq do, and the reference).
    const from: number[] = [];
    const slot = new Map<string, number>();
    fields.forEach((f, i) => {
      const at = slot.get(f.name);
      if (at === undefined) {
        slot.set(f.name, from.length);
        from.push(i);
      } else {
        from[at] = i;
      }
    });
    shape.dedupFrom = from;
    shape.dedupType = this.ctx.lookupTypeRecord(from.map((i) => fields[i]));
    shape.recType = null;
    return null;
  }

  /** Rewrites the fields of a record with repeated keys; returns its type. */
  private dedupFields(shape: Shape, base: number): TypeRecord {
    const from = shape.dedupFrom!;
    const first = this.starts[base];
    const span = this.olen - first;
    const copy = Buffer.from(this.out.subarray(first, this.olen));
    const n = this.sp - base;
    this.olen = first;
    for (const i of from) {
      const s = this.starts[base + i] - first;
      const e = i + 1 < n ? this.starts[base + i + 1] - first : span;
      copy.copy(this.out, this.olen, s, e);
      this.olen += e - s;
    }
    return shape.dedupType!;
  }

  // Arrays.

  /** Parses the elements of an array (after its '['), appending them; returns the array type. */
  private parseArray(depth: number): TypeArray {
    if (depth > MAX_DEPTH) this.fail(`JSON value nested more than ${MAX_DEPTH} deep`, this.pos);
    const base = this.sp;
    this.skipSpace();
    if (this.pos >= this.end) this.needMore();
    if (this.buf[this.pos] === 0x5d) {
      this.pos++;
      return this.arrayOf(TypeNull);
    }
    for (;;) {
      const start = this.olen;
      const t = this.parseValue(depth);
      this.push(start, t);
      this.skipSpace();
      if (this.pos >= this.end) this.needMore();
      const d = this.buf[this.pos];
      if (d === 0x2c) {
        this.pos++;
        this.skipSpace();
        continue;
      }
      if (d === 0x5d) {
        this.pos++;
        break;
      }
      this.tokenError(d, 'after array value');
    }
    const types = this.types;
    let elem: Type = TypeNull;
    let mixed = false;
    for (let i = base; i < this.sp; i++) {
      const t = types[i];
      if (t === TypeNull || t === elem) continue;
      if (elem === TypeNull) elem = t;
      else mixed = true;
    }
    const at = mixed ? this.unionArray(base) : this.arrayOf(elem);
    this.sp = base;
    return at;
  }

  private arrayOf(t: Type): TypeArray {
    let at = this.arrayTypes[t.id];
    if (at === undefined) {
      at = this.ctx.lookupTypeArray(t);
      this.arrayTypes[t.id] = at;
    }
    return at;
  }

  /** Rewrites mixed-type elements as union values; returns the array-of-union type. */
  private unionArray(base: number): TypeArray {
    const distinct = new Set<Type>();
    for (let i = base; i < this.sp; i++)
      if (this.types[i] !== TypeNull) distinct.add(this.types[i]);
    // By type ID, as the reference's builder orders them, then by its
    // union order, which its context imposes on every union it makes.
    const sorted = [...distinct].sort((a, b) => a.id - b.id).sort(compareTypes);
    const union: TypeUnion = this.ctx.lookupTypeUnion(sorted);
    const first = this.starts[base];
    const copy = Buffer.from(this.out.subarray(first, this.olen));
    this.olen = first;
    let p = 0;
    for (let i = base; i < this.sp; i++) {
      const tag = readUvarint(copy, p, copy.length);
      const body = uv.end;
      const len = tag === 0 ? 0 : tag - 1;
      if (tag === 0) {
        this.ensure(1);
        this.out[this.olen++] = 0;
      } else {
        // Union body: the tag as a zcode int, then the value, each tagged.
        const at = this.reserveTag();
        this.ensure(12 + len);
        const t = union.types.indexOf(this.types[i]);
        const n = writeIntLE(this.out, this.olen + 1, t);
        this.out[this.olen] = n + 1;
        this.olen += n + 1;
        copy.copy(this.out, this.olen, p, body + len);
        this.olen += body + len - p;
        this.closeTag(at);
      }
      p = body + len;
    }
    return this.arrayOf(union);
  }

  // Primitives.

  private parseString(): void {
    const buf = this.buf;
    const end = this.end;
    const start = this.pos + 1;
    let i = start;
    while (i < end && plain[buf[i]] === 1) i++;
    if (i < end && buf[i] === Q) {
      this.appendTagged(buf, start, i);
      this.pos = i + 1;
      return;
    }
    const close = this.findQuote(i);
    this.pos = close + 1;
    // Only UTF-8 at or above U+0300 can change under NFC.
    let simple = true;
    for (let k = i; k < close; k++) {
      const c = buf[k];
      if (c < 0x20 || c === BS || c >= 0xcc) {
        simple = false;
        break;
      }
      if (c >= 0x80) {
        const n = runeLength(buf, k, close);
        if (n === 0) {
          simple = false;
          break;
        }
        k += n - 1;
      }
    }
    if (simple) {
      this.appendTagged(buf, start, close);
      return;
    }
    const n = this.unquote(start, close);
    if (n < 0)
      this.fail(`invalid JSON string ${goQuoteBytes(buf, start - 1, close + 1)}`, start - 1);
    const s = this.scratch;
    let nfcSafe = true;
    for (let k = 0; k < n; k++) {
      if (s[k] >= 0xcc) {
        nfcSafe = false;
        break;
      }
    }
    if (nfcSafe) {
      this.appendTagged(s, 0, n);
      return;
    }
    const text = utf8.decode(s.subarray(0, n));
    const norm = text.normalize('NFC');
    if (norm === text) {
      this.appendTagged(s, 0, n);
    } else {
      const b = Buffer.from(norm, 'utf8');
      this.appendTagged(b, 0, b.length);
    }
  }

  /** Offset of the closing quote of the string whose body starts at from. */
  private findQuote(from: number): number {
    const buf = this.buf;
    const end = this.end;
    let escape = false;
    for (let i = from; i < end; i++) {
      const c = buf[i];
      if (c === Q && !escape) return i;
      escape = c === BS && !escape;
    }
    return this.needMore();
  }

  /**
   * Unescapes the string body buf[start, close) into scratch as the
   * reference does (invalid UTF-8 becomes U+FFFD a byte at a time, lone
   * surrogate escapes become U+FFFD). Returns its length, or -1 if the
   * string holds a control character or a bad escape.
   */
  private unquote(start: number, close: number): number {
    const buf = this.buf;
    if (this.scratch.length < (close - start) * 3 + 8) {
      this.scratch = Buffer.allocUnsafe((close - start) * 3 + 64);
    }
    const out = this.scratch;
    let w = 0;
    let r = start;
    while (r < close) {
      const c = buf[r];
      if (c === BS) {
        r++;
        if (r >= close) return -1;
        const e = buf[r++];
        switch (e) {
          case Q:
          case BS:
          case 0x2f:
          case 0x27:
            out[w++] = e;
            break;
          case 0x62:
            out[w++] = 0x08;
            break;
          case 0x66:
            out[w++] = 0x0c;
            break;
          case 0x6e:
            out[w++] = 0x0a;
            break;
          case 0x72:
            out[w++] = 0x0d;
            break;
          case 0x74:
            out[w++] = 0x09;
            break;
          case 0x75: {
            let cp = hex4(buf, r, close);
            if (cp < 0) return -1;
            r += 4;
            if (cp >= 0xd800 && cp < 0xe000) {
              const lo =
                buf[r] === BS && buf[r + 1] === 0x75 && r + 1 < close
                  ? hex4(buf, r + 2, close)
                  : -1;
              if (cp < 0xdc00 && lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                r += 6;
              } else {
                cp = 0xfffd;
              }
            }
            w = encodeRune(out, w, cp);
            break;
          }
          default:
            return -1;
        }
      } else if (c < 0x20) {
        return -1;
      } else if (c < 0x80) {
        out[w++] = c;
        r++;
      } else {
        const n = runeLength(buf, r, close);
        if (n === 0) {
          w = encodeRune(out, w, 0xfffd);
          r++;
        } else {
          w = encodeRune(out, w, decodeRune(buf, r, n));
          r += n;
        }
      }
    }
    return w;
  }

  private parseNumber(): Type {
    const buf = this.buf;
    const end = this.end;
    const start = this.pos;
    let i = start;
    const neg = buf[i] === 0x2d;
    if (neg) i++;
    let v = 0;
    const digitsStart = i;
    while (i < end) {
      const d = buf[i] - 0x30;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
      i++;
    }
    if (i >= end && !this.eof) return this.needMore();
    const nd = i - digitsStart;
    if (nd === 0 || nd > 15 || (i < end && numberChar[buf[i]] === 1))
      return this.parseNumberSlow(start);
    this.pos = i;
    // Sign in bit 0, magnitude above: exact, since v < 10^15.
    let u = neg ? (v === 0 ? 0 : v * 2 + 1) : v * 2;
    this.ensure(10);
    const out = this.out;
    const tagAt = this.olen;
    let p = tagAt + 1;
    while (u >= 0x80000000) {
      out[p++] = u % 256;
      u = Math.floor(u / 256);
    }
    while (u > 0) {
      out[p++] = u & 0xff;
      u >>>= 8;
    }
    out[tagAt] = p - tagAt; // body length + 1
    this.olen = p;
    return TypeInt64;
  }

  /** A number the fast path declined: as the reference, int64 if ParseInt takes it, else float64. */
  private parseNumberSlow(start: number): Type {
    const buf = this.buf;
    let i = start;
    while (i < this.end && numberChar[buf[i]] === 1) i++;
    if (i >= this.end && !this.eof) return this.needMore();
    const text = buf.toString('latin1', start, i);
    this.pos = i;
    if (/^-?\d+$/.test(text)) {
      const b = BigInt(text);
      if (b >= -(2n ** 63n) && b < 2n ** 63n) {
        this.ensure(10);
        const n = writeIntLE(this.out, this.olen + 1, b);
        this.out[this.olen] = n + 1;
        this.olen += n + 1;
        return TypeInt64;
      }
    }
    if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
      this.fail(`strconv.ParseFloat: parsing "${text}": invalid syntax`, start);
    }
    const f = Number(text);
    if (!Number.isFinite(f))
      this.fail(`strconv.ParseFloat: parsing "${text}": value out of range`, start);
    this.ensure(9);
    f64[0] = f;
    const out = this.out;
    out[this.olen] = 9;
    for (let k = 0; k < 8; k++) out[this.olen + 1 + k] = f64b[k];
    this.olen += 9;
    return TypeFloat64;
  }

  /** Checks the rest of a literal (up to four bytes after its first; -1 ends) and its boundary. */
  private literal(a: number, b: number, c: number, d: number): void {
    const buf = this.buf;
    const n = d < 0 ? 3 : 4;
    const start = this.pos;
    for (let k = 1; k <= n; k++) {
      const at = start + k;
      if (at >= this.end) this.needMore();
      const want = k === 1 ? a : k === 2 ? b : k === 3 ? c : d;
      if (buf[at] !== want) this.fail('bad literal name', start);
    }
    const after = start + n + 1;
    if (after >= this.end) {
      if (!this.eof) this.needMore();
    } else if (boundary[buf[after]] === 0) {
      this.fail('bad literal name', start);
    }
    this.pos = after;
  }

  // Output.

  private ensure(n: number): void {
    if (this.olen + n <= this.out.length) return;
    let size = this.out.length * 2;
    while (size < this.olen + n) size *= 2;
    const nb = Buffer.allocUnsafe(size);
    this.out.copy(nb, 0, 0, this.olen);
    this.out = nb;
  }

  private push(start: number, t: Type): void {
    this.starts[this.sp] = start;
    this.types[this.sp] = t;
    this.sp++;
  }

  private appendBool(b: number): void {
    this.ensure(2);
    this.out[this.olen] = 2;
    this.out[this.olen + 1] = b;
    this.olen += 2;
  }

  private appendTagged(src: Buffer, start: number, end: number): void {
    const len = end - start;
    this.ensure(len + 5);
    const out = this.out;
    let p = this.olen;
    let tag = len + 1;
    while (tag >= 0x80) {
      out[p++] = (tag & 0x7f) | 0x80;
      tag >>>= 7;
    }
    out[p++] = tag;
    if (len < 64) {
      for (let k = start; k < end; k++) out[p++] = src[k];
    } else {
      src.copy(out, p, start, end);
      p += len;
    }
    this.olen = p;
  }

  /** Reserves a one-byte tag for a container; closeTag fills it in. */
  private reserveTag(): number {
    this.ensure(1);
    return this.olen++;
  }

  private closeTag(at: number): void {
    const len = this.olen - at - 1;
    if (len < 0x7f) {
      this.out[at] = len + 1;
      return;
    }
    let tag = len + 1;
    let size = 1;
    for (let t = tag; t >= 0x80; t = Math.floor(t / 128)) size++;
    this.ensure(size - 1);
    const out = this.out;
    out.copyWithin(at + size, at + 1, this.olen);
    this.olen += size - 1;
    let p = at;
    while (tag >= 0x80) {
      out[p++] = (tag & 0x7f) | 0x80;
      tag = Math.floor(tag / 128);
    }
    out[p] = tag;
  }

  // Errors.

  private needMore(): never {
    if (this.eof) this.fail('unexpected EOF', this.end);
    throw NEED_MORE;
  }

  private tokenError(c: number, what: string): never {
    // The reference's lexer reports a byte that starts no token the same
    // way wherever it is found.
    const starts =
      c === Q || c === 0x2c || c === 0x3a || c === 0x7b || c === 0x7d || c === 0x5b || c === 0x5d;
    const token =
      starts || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x74 || c === 0x66 || c === 0x6e;
    if (!token)
      this.fail(`invalid character ${goQuoteByte(c)} looking for beginning of value`, this.pos);
    // A literal is lexed (and may be bad) before the parser sees it.
    if (c === 0x74) this.literal(0x72, 0x75, 0x65, -1);
    else if (c === 0x66) this.literal(0x61, 0x6c, 0x73, 0x65);
    else if (c === 0x6e) this.literal(0x75, 0x6c, 0x6c, -1);
    else if (c === Q) this.findQuote(this.pos + 1);
    return this.fail(`invalid character ${goQuoteByte(c)} ${what}`, this.pos);
  }

  private fail(message: string, at: number): never {
    const line = this.linesBefore + countNewlines(this.buf, 0, at) + 1;
    throw new FormatError('json', message, this.base + at, line);
  }
}

// parseSome results.
const FULL = 0;
const END = 1;
const NEED_INPUT = 2;
const NEED_VALUE = 3;

function hex4(buf: Uint8Array, at: number, end: number): number {
  if (at + 4 > end) return -1;
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = buf[at + k];
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else return -1;
    v = v * 16 + d;
  }
  return v;
}

function countNewlines(buf: Buffer, from: number, to: number): number {
  let n = 0;
  let i = buf.indexOf(0x0a, from);
  while (i >= 0 && i < to) {
    n++;
    i = buf.indexOf(0x0a, i + 1);
  }
  return n;
}

export function newJSONReader(src: ByteSource, opts: ReaderOptions): JSONReader {
  return new JSONReader(src, opts);
}
