// The CSV reader (and, with a tab delimiter, the TSV reader).
//
// The first record names the fields. Each later field becomes, as in the
// reference: null (of type null) when empty, a float64 when Go's ParseFloat
// accepts it ("1", "2.5", "1e3", "Inf", "0x1p-2", "1_000"), a bool when
// Go's ParseBool does ("true", "T", "FALSE", ...), and a string otherwise.
// A file with no data records is an error ("empty csv file").
//
// csv-parse is not used: the reference's quote handling (its preprocess
// pass and Go's quoting rules), its typing and its error texts all need to
// be exact, and csv-parse follows other rules and words errors otherwise.

import { DuplicateFieldError, TypeContext } from '../../zed/context';
import { writeFloat } from '../../zed/primitive';
import { Field, TypeBool, TypeFloat64, TypeNull, TypeRecord, TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder } from '../../zed/zcode';
import { ByteSource, FormatError, ReaderOptions, ValueReader } from '../io';
import { appendTagged, smallFloat } from '../zeek/builder';
import { goFloat } from '../zeek/strconv';
import { Preprocessor } from './preprocess';
import { CsvParseError, RecordSplitter } from './records';

const BATCH_VALUES = 1000;
const BATCH_BYTES = 1024 * 1024;

const enum Kind {
  Null,
  Float,
  Bool,
  String,
}

const kindTypes = [TypeNull, TypeFloat64, TypeBool, TypeString];

interface TypeNode {
  next: (TypeNode | undefined)[];
  type?: TypeRecord;
}

/** The error for a csvDelim that is not exactly one (single-byte) character. */
export const ERR_DELIM = 'CSV field delimiter must be exactly one character';

/** Checks a delimiter option and returns its byte; throws FormatError(format). */
export function delimiterByte(format: string, delim: string | undefined, fallback: number): number {
  if (delim === undefined) return fallback;
  if (Buffer.byteLength(delim, 'utf8') !== 1) throw new FormatError(format, ERR_DELIM);
  return delim.charCodeAt(0);
}

export class CsvReader implements ValueReader {
  private pre: Preprocessor;
  private splitter: RecordSplitter;
  private header: string[] | undefined;
  private pos = 0;
  private eof = false;
  private valid = false;
  private failure: FormatError | undefined;
  private types: TypeNode = { next: [] };
  private kinds: Kind[] = [];
  private readonly ctx: TypeContext;
  private readonly badDelim: boolean;

  /**
   * @param format name for errors ("csv" or "tsv")
   * @param delim field delimiter byte
   */
  constructor(
    private src: ByteSource,
    opts: ReaderOptions,
    private format: string,
    delim: number,
  ) {
    this.ctx = opts.ctx;
    this.pre = new Preprocessor(delim);
    this.splitter = new RecordSplitter(delim);
    // Go's csv reader refuses these when reading starts.
    this.badDelim = delim === 0 || delim === 34 || delim === 13 || delim === 10;
  }

  async read(): Promise<Value[] | null> {
    if (this.failure) throw this.failure;
    if (this.badDelim) {
      this.failure = new FormatError(this.format, 'csv: invalid field or comment delimiter');
      throw this.failure;
    }
    const b = new Builder(64 * 1024);
    const offs: number[] = [];
    const ends: number[] = [];
    const types: TypeRecord[] = [];
    const sp = this.splitter;
    const out = this.pre.out;
    for (;;) {
      if (offs.length >= BATCH_VALUES || b.len >= BATCH_BYTES) break;
      let next: number;
      try {
        next = sp.next(out.buf, this.pos, this.pre.safeEnd);
      } catch (e) {
        if (!(e instanceof CsvParseError)) throw e;
        this.fail(new FormatError(this.format, e.message, undefined, e.line));
        if (offs.length > 0) break;
        throw this.failure;
      }
      if (next < 0) {
        this.pos = sp.resume;
        if (offs.length > 0) break;
        if (this.eof) {
          if (!this.valid) {
            this.fail(new FormatError(this.format, 'empty csv file'));
            throw this.failure;
          }
          return null;
        }
        await this.more();
        continue;
      }
      this.pos = next;
      if (!this.header) {
        this.header = this.fieldStrings();
        continue;
      }
      const start = b.len;
      let typ: TypeRecord;
      try {
        typ = this.appendRecord(b);
      } catch (e) {
        if (!(e instanceof DuplicateFieldError)) throw e;
        b.len = start;
        this.fail(new FormatError(this.format, e.message, undefined, sp.numLine));
        if (offs.length > 0) break;
        throw this.failure;
      }
      this.valid = true;
      offs.push(start);
      ends.push(b.len);
      types.push(typ);
    }
    const vals: Value[] = new Array(offs.length);
    for (let i = 0; i < offs.length; i++)
      vals[i] = new Value(types[i], b.buf, offs[i], ends[i] - offs[i]);
    return vals;
  }

  private fail(err: FormatError): void {
    this.failure = err;
  }

  /** Reads and preprocesses more input, dropping what has been parsed. */
  private async more(): Promise<void> {
    const out = this.pre.out;
    if (this.pos > 0) {
      out.shift(this.pos);
      this.pre.safeEnd -= this.pos;
      this.pos = 0;
    }
    const chunk = await this.src.read();
    if (chunk === null) {
      this.eof = true;
      this.pre.end();
    } else {
      this.pre.push(chunk);
    }
  }

  private fieldStrings(): string[] {
    const f = this.splitter.fields;
    const ends = this.splitter.ends;
    const names: string[] = [];
    let s = 0;
    for (const e of ends) {
      names.push(f.buf.toString('utf8', s, e));
      s = e;
    }
    return names;
  }

  /** Appends the typed fields of the current record; returns its type. */
  private appendRecord(b: Builder): TypeRecord {
    const f = this.splitter.fields.buf;
    const ends = this.splitter.ends;
    const kinds = this.kinds;
    let node = this.types;
    let s = 0;
    for (let k = 0; k < ends.length; k++) {
      const e = ends[k];
      const kind = appendField(b, f, s, e);
      kinds[k] = kind;
      let nextNode = node.next[kind];
      if (!nextNode) {
        nextNode = { next: [] };
        node.next[kind] = nextNode;
      }
      node = nextNode;
      s = e;
    }
    if (!node.type) {
      const hdr = this.header!;
      const fields: Field[] = [];
      for (let k = 0; k < ends.length; k++)
        fields.push({ name: hdr[k], type: kindTypes[kinds[k]] });
      node.type = this.ctx.lookupTypeRecord(fields);
    }
    return node.type;
  }
}

/** Appends buf[s, e) typed as the reference types CSV fields; returns its kind. */
function appendField(b: Builder, buf: Buffer, s: number, e: number): Kind {
  if (e === s) {
    b.appendNull();
    return Kind.Null;
  }
  const c = buf[s];
  // Go's ParseFloat needs a sign, digit, dot, or the start of Inf/NaN.
  if (
    (c >= 48 && c <= 57) ||
    c === 45 ||
    c === 43 ||
    c === 46 ||
    c === 73 ||
    c === 105 ||
    c === 78 ||
    c === 110
  ) {
    let v = smallFloat(buf, s, e);
    if (v === undefined && mayBeFloat(buf, s, e)) {
      const f = goFloat(buf.toString('latin1', s, e));
      if (typeof f === 'number') v = f;
    }
    if (v !== undefined) {
      b.grow(9);
      b.buf[b.len] = 9;
      writeFloat(b.buf, b.len + 1, v, 8);
      b.len += 9;
      return Kind.Float;
    }
  }
  if (e - s <= 5 && (c === 116 || c === 84 || c === 102 || c === 70)) {
    const v = goBoolBytes(buf, s, e);
    if (v !== undefined) {
      b.grow(2);
      b.buf[b.len++] = 2;
      b.buf[b.len++] = v ? 1 : 0;
      return Kind.Bool;
    }
  }
  appendTagged(b, buf, s, e);
  return Kind.String;
}

// Bytes a Go float literal can hold (digits, signs, '.', '_', exponent
// and hex letters, and those of "infinity" and "nan").
const floatByte = new Uint8Array(256);
for (const ch of '0123456789+-._xXpPeEaAbBcCdDfFiInNtTyY') floatByte[ch.charCodeAt(0)] = 1;

/** A cheap test that rules out most non-floats before a full parse. */
function mayBeFloat(buf: Buffer, s: number, e: number): boolean {
  let dots = 0;
  for (let i = s; i < e; i++) {
    const c = buf[i];
    if (floatByte[c] === 0) return false;
    if (c === 46 && ++dots > 1) return false;
  }
  return true;
}

const trueWords = ['t', 'T', 'true', 'TRUE', 'True'].map((w) => Buffer.from(w));
const falseWords = ['f', 'F', 'false', 'FALSE', 'False'].map((w) => Buffer.from(w));

/** Go's ParseBool of the bytes (the digit forms are taken as floats first). */
function goBoolBytes(buf: Buffer, s: number, e: number): boolean | undefined {
  const n = e - s;
  for (const w of trueWords) if (w.length === n && buf.compare(w, 0, n, s, e) === 0) return true;
  for (const w of falseWords) if (w.length === n && buf.compare(w, 0, n, s, e) === 0) return false;
  return undefined;
}
