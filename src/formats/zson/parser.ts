// ZSON text to a syntax tree, one top-level value at a time.
//
// The parser follows the reference's grammar and matching order (record,
// array, set/map, type value, primitive, error, enum; then any decorators)
// and raises its error texts. It works on a byte buffer that may end
// mid-value: when it needs bytes past the end of a buffer that is not the
// end of the input it throws NEED_MORE, and the caller retries the whole
// value once more input has arrived. Parsing touches no type state, so a
// retry is always safe; types are resolved afterwards by the analyzer.
//
// Deliberate differences from the reference, all on input it refuses or
// mangles: a value cut off by the end of the input is an error (the
// reference drops it silently); an unknown bare word is not consumed (the
// reference drops it from arrays); backtick strings end at one backtick, as
// the spec says; and a literal may be cut short where the longest match is
// no literal, and may be an IPv6 address with an IPv4 tail, so that
// everything the reference's writer prints can be read back.

import {
  lookupPrimitive,
  TypeBool,
  TypeInt64,
  TypeIP,
  TypeNull,
  TypePrimitive,
  TypeString,
  TypeTime,
} from '../../zed/types';
import {
  decodeSeq,
  goQuote,
  isDigitRune,
  isIdRune,
  isNewlineRune,
  isSpaceRune,
  isTypeRune,
  latin1,
  utf8SeqLen,
  validUTF8,
} from './gotext';
import {
  classifyLiteral,
  literalByte,
  literalLengths,
  LiteralError,
  Literal,
  parseRFC3339,
} from './literal';

// Value node kinds.
export const N = {
  Prim: 0,
  Record: 1,
  Array: 2,
  Set: 3,
  Map: 4,
  TypeValue: 5,
  Error: 6,
  Enum: 7,
  Def: 8,
  Cast: 9,
} as const;

// Type node kinds.
export const T = {
  Prim: 0,
  Name: 1,
  Def: 2,
  Record: 3,
  Array: 4,
  Set: 5,
  Map: 6,
  Union: 7,
  Enum: 8,
  Error: 9,
} as const;

/**
 * A primitive literal. `off` and `len` locate its bytes in the parser's
 * buffer, where its text is those bytes (an unquoted literal, or a plain
 * ASCII string without escapes): `text` is then null until needed.
 * Otherwise `off` is -1 and `text` holds the literal's decoded text.
 */
export interface PrimNode {
  k: 0;
  type: TypePrimitive;
  text: string | null;
  /** The parsed value for the implied type (see classifyLiteral). */
  value: unknown;
  off: number;
  len: number;
}
export interface RecordNode {
  k: 1;
  names: string[];
  vals: ValueNode[];
}
export interface ArrayNode {
  k: 2 | 3;
  elems: ValueNode[];
}
export interface MapNode {
  k: 4;
  keys: ValueNode[];
  vals: ValueNode[];
}
export interface TypeValueNode {
  k: 5;
  type: TypeNode;
}
export interface ErrorNode {
  k: 6;
  val: ValueNode | null;
}
export interface EnumNode {
  k: 7;
  name: string;
}
/** `value (=name)`: binds name to the value's type. */
export interface DefNode {
  k: 8;
  of: ValueNode | null;
  name: string;
}
/** `value (type)`. */
export interface CastNode {
  k: 9;
  of: ValueNode;
  type: TypeNode;
}
export type ValueNode =
  | PrimNode
  | RecordNode
  | ArrayNode
  | MapNode
  | TypeValueNode
  | ErrorNode
  | EnumNode
  | DefNode
  | CastNode;

export interface TypePrimNode {
  k: 0;
  type: TypePrimitive;
}
export interface TypeNameNode {
  k: 1;
  name: string;
}
export interface TypeDefNode {
  k: 2;
  name: string;
  type: TypeNode;
}
export interface TypeRecordNode {
  k: 3;
  names: string[];
  types: TypeNode[];
}
export interface TypeInnerNode {
  k: 4 | 5;
  type: TypeNode;
}
export interface TypeMapNode {
  k: 6;
  key: TypeNode;
  val: TypeNode;
}
export interface TypeUnionNode {
  k: 7;
  types: TypeNode[];
}
export interface TypeEnumNode {
  k: 8;
  symbols: string[];
}
export interface TypeErrorNode {
  k: 9;
  type: TypeNode | null;
}
export type TypeNode =
  | TypePrimNode
  | TypeNameNode
  | TypeDefNode
  | TypeRecordNode
  | TypeInnerNode
  | TypeMapNode
  | TypeUnionNode
  | TypeEnumNode
  | TypeErrorNode;

/** Thrown when the parser needs bytes beyond a buffer that is not the end of input. */
export const NEED_MORE = Object.freeze({ needMore: true });

/** A syntax error at byte `pos` of the parser's buffer. */
export class ParseError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

const primTypeNodes = new Map<string, TypePrimNode>();

function primTypeNode(name: string): TypePrimNode | undefined {
  let n = primTypeNodes.get(name);
  if (!n) {
    const t = lookupPrimitive(name);
    if (!t) return undefined;
    n = { k: T.Prim, type: t };
    primTypeNodes.set(name, n);
  }
  return n;
}

const NULL = { text: 'null', type: TypeNull, value: null };
const TRUE = { text: 'true', type: TypeBool, value: true };
const FALSE = { text: 'false', type: TypeBool, value: false };

// ASCII characters of unquoted type names and identifiers.
const typeByte = new Uint8Array(256);
for (let c = 0; c < 128; c++) typeByte[c] = isTypeRune(c) ? 1 : 0;

// Nesting deeper than this is refused rather than risking the JS stack.
const MAX_DEPTH = 1000;

const SP = 0x20;
const QUOTE = 0x22;
const BSLASH = 0x5c;
const BACKTICK = 0x60;

export class Parser {
  buf: Buffer = Buffer.alloc(0);
  pos = 0;
  end = 0;
  /** True when buf[end] is the end of the input. */
  eof = true;
  private depth = 0;
  // Set by peekRune: byte length of the rune at pos.
  private runeSize = 1;
  // Set by scanString: location of a plain ASCII string's bytes, or -1.
  private rawOff = -1;
  private rawLen = 0;

  reset(buf: Buffer, pos: number, end: number, eof: boolean): void {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.eof = eof;
    this.depth = 0;
  }

  private fail(msg: string): never {
    throw new ParseError(msg, this.pos);
  }

  private error(msg: string): never {
    this.fail('parse error: ' + msg);
  }

  /** The byte at pos+i, or -1 at the end of input. */
  private peek(i = 0): number {
    const p = this.pos + i;
    if (p < this.end) return this.buf[p];
    if (this.eof) return -1;
    throw NEED_MORE;
  }

  /** The rune at pos (U+FFFD for a byte that starts no valid sequence), or -1. */
  private peekRune(): number {
    const c = this.peek();
    this.runeSize = 1;
    if (c < 0x80) return c;
    const want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (this.pos + want > this.end && !this.eof) throw NEED_MORE;
    const n = utf8SeqLen(this.buf, this.pos, this.end);
    if (n === 0) return 0xfffd;
    this.runeSize = n;
    return decodeSeq(this.buf, this.pos, n);
  }

  /** Skips whitespace and comments. */
  skipSpace(): void {
    // Fast path: ASCII white space up to a character that is no comment.
    const buf = this.buf;
    const end = this.end;
    let p = this.pos;
    while (p < end) {
      const c = buf[p];
      if (c === SP || (c >= 0x09 && c <= 0x0d)) p++;
      else break;
    }
    this.pos = p;
    if (p < end && buf[p] < 0x80 && buf[p] !== 0x2f) return;
    for (;;) {
      const c = this.peek();
      if (c === SP || (c >= 0x09 && c <= 0x0d)) {
        this.pos++;
        continue;
      }
      if (c === 0x2f) {
        const c1 = this.peek(1);
        if (c1 === 0x2f) {
          this.pos += 2;
          this.skipLine();
          continue;
        }
        if (c1 === 0x2a) {
          this.pos += 2;
          this.skipComment();
          continue;
        }
        return;
      }
      if (c >= 0x80) {
        const r = this.peekRune();
        if (isSpaceRune(r)) {
          this.pos += this.runeSize;
          continue;
        }
      }
      return;
    }
  }

  private skipLine(): void {
    for (;;) {
      const r = this.peekRune();
      if (r < 0) return;
      this.pos += this.runeSize;
      if (isNewlineRune(r)) return;
    }
  }

  private skipComment(): void {
    for (;;) {
      const c = this.peek();
      if (c < 0) return;
      this.pos++;
      if (c === 0x2a && this.peek() === 0x2f) {
        this.pos++;
        return;
      }
    }
  }

  private match(c: number): boolean {
    this.skipSpace();
    if (this.peek() === c) {
      this.pos++;
      return true;
    }
    return false;
  }

  private matchTight(c: number): boolean {
    if (this.peek() === c) {
      this.pos++;
      return true;
    }
    return false;
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) this.error('value nested too deeply');
  }

  /**
   * The next top-level value, or null when only whitespace and comments
   * remain before the end of input.
   */
  parseTop(): ValueNode | null {
    this.depth = 0;
    const v = this.matchValue();
    if (v) return v;
    this.skipSpace();
    if (this.peek() < 0) return null;
    this.fail('ZSON syntax error');
  }

  /** A value where one is required (a field or map value). */
  private parseValue(): ValueNode {
    const v = this.matchValue();
    if (v) return v;
    this.skipSpace();
    if (this.peek() < 0) this.error('unexpected end of input');
    this.fail('ZSON syntax error');
  }

  private matchValue(): ValueNode | null {
    this.skipSpace();
    const c = this.peek();
    let v: ValueNode | null;
    switch (c) {
      case 0x7b: // {
        v = this.matchRecord();
        break;
      case 0x5b: // [
        v = this.matchArray();
        break;
      case 0x7c: // |
        v = this.matchSetOrMap();
        break;
      case 0x3c: // <
        v = this.matchTypeValue();
        break;
      case QUOTE:
        v = this.matchStringValue();
        break;
      case BACKTICK:
      case 0x3d: // = (of =>)
        v = this.matchBacktick();
        break;
      case 0x25: // %
        v = this.matchEnum();
        break;
      default:
        v = this.matchLiteral();
        if (!v) v = this.matchError();
    }
    if (!v) return null;
    return this.decorate(v);
  }

  private decorate(v: ValueNode): ValueNode {
    let n = 0;
    while (this.match(0x28)) {
      // Each decorator nests the value one level deeper.
      this.enter();
      v = this.parseDecorator(v, n++ === 0);
      if (!this.match(0x29)) this.error('mismatched parentheses while parsing type decorator');
    }
    this.depth -= n;
    return v;
  }

  private parseDecorator(v: ValueNode, first: boolean): ValueNode {
    if (this.match(0x3d)) {
      const name = this.scanTypeName();
      if (name === '') this.error('bad short-form type definition');
      // A definition after a cast applies to nothing (an error when
      // analysed), as in the reference.
      return { k: N.Def, of: first ? v : null, name };
    }
    return { k: N.Cast, of: v, type: this.parseType() };
  }

  private matchRecord(): RecordNode {
    this.pos++;
    this.enter();
    const names: string[] = [];
    const vals: ValueNode[] = [];
    let seen: Set<string> | undefined;
    for (;;) {
      const name = this.matchSymbol();
      if (name === null) break;
      if (!this.match(0x3a)) this.error(`no type name found for field ${goQuote(name)}`);
      const val = this.parseValue();
      // A repeated field keeps its first value.
      if (
        names.length === 0 ||
        (names.length < 24 ? names.indexOf(name) < 0 : !(seen ??= new Set(names)).has(name))
      ) {
        seen?.add(name);
        names.push(name);
        vals.push(val);
      }
      if (!this.match(0x2c)) break;
    }
    if (!this.match(0x7d)) this.error('mismatched braces while parsing record type');
    this.depth--;
    return { k: N.Record, names, vals };
  }

  private matchValueList(): ValueNode[] {
    const vals: ValueNode[] = [];
    for (;;) {
      const v = this.matchValue();
      if (!v) break;
      vals.push(v);
      if (!this.match(0x2c)) break;
    }
    return vals;
  }

  private matchArray(): ArrayNode {
    this.pos++;
    this.enter();
    const elems = this.matchValueList();
    if (!this.match(0x5d)) this.error('mismatched brackets while parsing array type');
    this.depth--;
    return { k: N.Array, elems };
  }

  private matchSetOrMap(): ValueNode {
    this.pos++;
    this.enter();
    let v: ValueNode;
    let which: string;
    if (this.matchTight(0x5b)) {
      which = 'set';
      const elems = this.matchValueList();
      if (!this.match(0x5d)) this.error('mismatched set value brackets');
      v = { k: N.Set, elems };
    } else {
      if (!this.matchTight(0x7b)) this.error("no '|[' or '|{' type bracket at '|' character");
      which = 'map';
      const keys: ValueNode[] = [];
      const vals: ValueNode[] = [];
      for (;;) {
        const key = this.matchValue();
        if (!key) break;
        if (!this.match(0x3a)) this.error('no colon found after map key while parsing map entry');
        keys.push(key);
        vals.push(this.parseValue());
        if (!this.match(0x2c)) break;
      }
      if (!this.match(0x7d)) this.error('mismatched map value brackets');
      v = { k: N.Map, keys, vals };
    }
    if (!this.matchTight(0x7c))
      this.error(`mismatched closing bracket while parsing ${which} value`);
    this.depth--;
    return v;
  }

  private matchTypeValue(): TypeValueNode {
    this.pos++;
    const type = this.parseType();
    if (!this.match(0x3e)) this.error('mismatched parentheses while parsing type value');
    return { k: N.TypeValue, type };
  }

  private matchStringValue(): PrimNode {
    const text = this.matchString()!;
    const node: PrimNode = { k: N.Prim, type: TypeString, text, value: null, off: -1, len: 0 };
    if (text === null) {
      node.off = this.rawOff;
      node.len = this.rawLen;
    }
    return node;
  }

  /**
   * A double-quoted string at pos (after spaces), or undefined if there is
   * none. Returns null for a plain ASCII string, whose bytes rawOff/rawLen
   * locate, and the decoded text otherwise.
   */
  private matchString(): string | null | undefined {
    if (!this.match(QUOTE)) return undefined;
    let s: string | null;
    try {
      s = this.scanString();
    } catch (e) {
      if (e instanceof ParseError) this.error('string literal: ' + e.message);
      throw e;
    }
    if (!this.match(QUOTE)) this.error('mismatched string quotes');
    return s;
  }

  /**
   * Scans a string body after its opening quote, leaving pos at the closing
   * quote. The fast path takes ASCII with simple escapes; a \u escape or a
   * non-ASCII byte hands the rest to scanStringSlow, as in the reference.
   */
  private scanString(): string | null {
    const buf = this.buf;
    const start = this.pos;
    let s = '';
    let plain = true;
    let from = start;
    for (;;) {
      const c = this.peek();
      if (c < 0) this.fail('EOF');
      if (c === QUOTE) break;
      if (c >= 0x80) {
        if (plain) s = latin1(buf, start, this.pos);
        else s += latin1(buf, from, this.pos);
        return s + this.scanStringSlow(this.pos);
      }
      if (c === 0x0a) {
        this.pos++;
        this.fail('unescaped line break');
      }
      if (c !== BSLASH) {
        this.pos++;
        continue;
      }
      if (plain) {
        s = latin1(buf, start, this.pos);
        plain = false;
      } else {
        s += latin1(buf, from, this.pos);
      }
      const e = this.peek(1);
      if (e < 0) {
        this.pos++;
        this.fail('no end quote');
      }
      if (e === 0x75) return s + this.scanStringSlow(this.pos);
      this.pos += 2;
      from = this.pos;
      switch (e) {
        case QUOTE:
        case BSLASH:
        case 0x2f:
          s += String.fromCharCode(e);
          break;
        case 0x62:
          s += '\b';
          break;
        case 0x66:
          s += '\f';
          break;
        case 0x6e:
          s += '\n';
          break;
        case 0x72:
          s += '\r';
          break;
        case 0x74:
          s += '\t';
          break;
        default:
          this.fail(`illegal escape (\\${String.fromCharCode(e)})`);
      }
    }
    if (plain) {
      this.rawOff = start;
      this.rawLen = this.pos - start;
      return null;
    }
    return s + latin1(buf, from, this.pos);
  }

  /**
   * The rest of a string from `from` to its closing quote, decoded as the
   * reference's parseStringBytes does (including its quirks: `\'` is
   * accepted here, raw control characters are not, and a surrogate escape
   * is only honoured when the slow part began with `\u`).
   */
  private scanStringSlow(from: number): string {
    const buf = this.buf;
    let end = from;
    for (;;) {
      const c = this.peek(end - this.pos);
      if (c < 0) {
        this.pos = Math.min(end, this.end);
        this.fail('EOF');
      }
      if (c === QUOTE) break;
      end += c === BSLASH ? 2 : 1;
    }
    let s = '';
    let k = from;
    const fail = (msg: string): never => {
      this.pos = k;
      this.fail(msg);
    };
    while (k < end) {
      const c = buf[k];
      if (c === BSLASH) {
        k++;
        const e = buf[k];
        switch (e) {
          case QUOTE:
          case BSLASH:
          case 0x2f:
          case 0x27:
            s += String.fromCharCode(e);
            k++;
            continue;
          case 0x62:
            s += '\b';
            k++;
            continue;
          case 0x66:
            s += '\f';
            k++;
            continue;
          case 0x6e:
            s += '\n';
            k++;
            continue;
          case 0x72:
            s += '\r';
            k++;
            continue;
          case 0x74:
            s += '\t';
            k++;
            continue;
          case 0x75: {
            k++;
            const r = unhex4(buf, k, end);
            if (r < 0) fail(r === -1 ? 'short \\u escape' : 'invalid hex digits in \\u escape');
            k += 4;
            if (r >= 0xd800 && r <= 0xdfff) {
              if (end - from < 6 || buf[from] !== BSLASH || buf[from + 1] !== 0x75) {
                fail('illegal surrogate utf-16 rune pair');
              }
              const r2 = unhex4(buf, k + 2, end);
              if (r2 < 0) fail(r2 === -1 ? 'short \\u escape' : 'invalid hex digits in \\u escape');
              k += 6;
              if (r <= 0xdbff && r2 >= 0xdc00 && r2 <= 0xdfff) s += String.fromCharCode(r, r2);
            } else {
              s += String.fromCharCode(r);
            }
            continue;
          }
          default:
            fail(`illegal escape (\\${String.fromCharCode(e)}) in string`);
        }
      }
      if (c < 0x20) fail('illegal control code');
      if (c < 0x80) {
        s += String.fromCharCode(c);
        k++;
        continue;
      }
      const n = utf8SeqLen(buf, k, end);
      if (n === 0) {
        s += '\ufffd';
        k++;
      } else {
        s += String.fromCodePoint(decodeSeq(buf, k, n));
        k += n;
      }
    }
    this.pos = end;
    return s;
  }

  private matchBacktick(): PrimNode | null {
    let keep = false;
    if (this.peek() === 0x3d) {
      if (this.peek(1) !== 0x3e) return null;
      this.pos += 2;
      keep = true;
      if (!this.match(BACKTICK)) this.fail("no backtick found following '=>'");
    } else {
      this.pos++;
    }
    let end = this.pos;
    for (;;) {
      const c = this.peek(end - this.pos);
      if (c < 0) this.error('parsing backtick string literal');
      if (c === BACKTICK) break;
      end++;
    }
    let text = this.buf.toString('utf8', this.pos, end);
    const valid = validUTF8(this.buf, this.pos, end);
    this.pos = end + 1;
    if (!keep) {
      text = text.replace(/\n[\t\n\f\r ]*/g, '\n');
      if (text[0] === '\n') text = text.slice(1);
    }
    // An invalid string is refused when built, as the reference does.
    return { k: N.Prim, type: TypeString, text, value: valid, off: -1, len: 0 };
  }

  /** An unquoted literal (number, time, address, true, ...), or null. */
  private matchLiteral(): PrimNode | null {
    const buf = this.buf;
    const start = this.pos;
    let i = start;
    // Note the shape of the run on the way: the common int64 and IPv4
    // literals are taken from the bytes without making strings.
    let digits = 0;
    let dots = 0;
    let other = false;
    for (;;) {
      if (i >= this.end) {
        if (!this.eof) throw NEED_MORE;
        break;
      }
      const c = buf[i];
      if (!literalByte[c]) break;
      if (c >= 0x30 && c <= 0x39) digits++;
      else if (c === 0x2e) dots++;
      else if (!(c === 0x2d && i === start)) other = true;
      i++;
    }
    if (i === start) return null;
    const n = i - start;
    if (other && n <= 5) {
      // null, true and false, as whole runs.
      const word =
        n === 4
          ? buf[start] === 0x6e
            ? NULL
            : buf[start] === 0x74
              ? TRUE
              : null
          : n === 5
            ? FALSE
            : null;
      if (word !== null && word.text === latin1(buf, start, i)) {
        this.pos = i;
        return {
          k: N.Prim,
          type: word.type,
          text: word.text,
          value: word.value,
          off: start,
          len: n,
        };
      }
    }
    if (!other) {
      if (dots === 0 && digits > 0 && digits <= 15) {
        let v = 0;
        for (let k = buf[start] === 0x2d ? start + 1 : start; k < i; k++)
          v = v * 10 + buf[k] - 0x30;
        if (buf[start] === 0x2d) v = -v;
        this.pos = i;
        return { k: N.Prim, type: TypeInt64, text: null, value: v, off: start, len: n };
      }
      if (dots === 3 && digits === n - 3) {
        const ip = parseIPv4Bytes(buf, start, i);
        if (ip) {
          this.pos = i;
          return { k: N.Prim, type: TypeIP, text: null, value: ip, off: start, len: n };
        }
      }
    }
    const run = latin1(buf, start, i);
    // A whole run that is an RFC 3339 time is the longest match there is.
    if (run.length >= 20 && run.charCodeAt(10) === 0x54 && run.charCodeAt(4) === 0x2d) {
      const t = parseRFC3339(run);
      if (t !== undefined) {
        this.pos = i;
        return { k: N.Prim, type: TypeTime, text: run, value: t, off: start, len: i - start };
      }
    }
    const lengths = literalLengths(run);
    for (let k = 0; k < lengths.length; k++) {
      const n = lengths[k];
      const text = n === run.length ? run : run.slice(0, n);
      let lit: Literal | undefined;
      try {
        lit = classifyLiteral(text);
      } catch (e) {
        // Bad hex in the longest match is an error, as in the reference.
        if (e instanceof LiteralError && k === 0) this.fail(e.message);
        if (!(e instanceof LiteralError)) throw e;
      }
      if (!lit) continue;
      this.pos = start + n;
      return { k: N.Prim, type: lit.type, text, value: lit.value, off: start, len: n };
    }
    return null;
  }

  /** `error(value)`, or null (consuming nothing) for any other word. */
  private matchError(): ErrorNode | null {
    const start = this.pos;
    const name = this.matchIdentifier();
    if (name === 'error' && this.match(0x28)) {
      this.enter();
      const val = this.matchValue();
      if (this.match(0x29)) {
        this.depth--;
        return { k: N.Error, val };
      }
    }
    this.pos = start;
    return null;
  }

  private matchEnum(): EnumNode | null {
    const start = this.pos;
    this.pos++;
    const name = this.matchIdentifier();
    if (name === '') {
      this.pos = start;
      return null;
    }
    return { k: N.Enum, name };
  }

  /** A field name or enum symbol: a quoted string or an identifier, or null. */
  private matchSymbol(): string | null {
    const s = this.matchString();
    if (s !== undefined)
      return s === null ? latin1(this.buf, this.rawOff, this.rawOff + this.rawLen) : s;
    const id = this.matchIdentifier();
    return id === '' ? null : id;
  }

  /** An identifier at pos (after spaces), or '' when none starts there. */
  private matchIdentifier(): string {
    this.skipSpace();
    const r = this.peekRune();
    if (r < 0 || !isIdRune(r)) return '';
    const s = this.scanTypeChars();
    if (s.indexOf('.') >= 0) this.fail('malformed identifier');
    return s;
  }

  /** A type name: quoted, or a run of type-name characters (maybe empty). */
  private scanTypeName(): string {
    const s = this.matchString();
    if (s !== undefined)
      return s === null ? latin1(this.buf, this.rawOff, this.rawOff + this.rawLen) : s;
    return this.scanTypeChars();
  }

  private scanTypeChars(): string {
    const buf = this.buf;
    const start = this.pos;
    const end = this.end;
    let p = start;
    while (p < end && typeByte[buf[p]] === 1) p++;
    this.pos = p;
    if (p < end && buf[p] < 0x80) return intern(buf, start, p);
    // The end of the buffer, or a non-ASCII character to classify.
    for (;;) {
      if (this.pos >= this.end) {
        if (!this.eof) throw NEED_MORE;
        break;
      }
      const c = buf[this.pos];
      if (c < 0x80) {
        if (typeByte[c] === 1) {
          this.pos++;
          continue;
        }
        break;
      }
      const r = this.peekRune();
      if (!isTypeRune(r)) break;
      this.pos += this.runeSize;
    }
    return buf.toString('utf8', start, this.pos);
  }

  // ---- types ----

  /** A whole type (for parseType of a standalone type text). */
  parseTypeTop(): TypeNode {
    this.depth = 0;
    return this.parseType();
  }

  /** A type, where one is required. */
  private parseType(): TypeNode {
    const t = this.matchType();
    if (!t) this.error("couldn't parse type");
    return t;
  }

  private matchType(): TypeNode | null {
    this.skipSpace();
    const c = this.peek();
    switch (c) {
      case 0x7b:
        return this.matchTypeRecord();
      case 0x5b: {
        this.pos++;
        this.enter();
        const type = this.parseType();
        if (!this.match(0x5d)) this.error('mismatched brackets while parsing array type');
        this.depth--;
        return { k: T.Array, type };
      }
      case 0x7c:
        return this.matchTypeSetOrMap();
      case 0x28:
        return this.matchTypeUnion();
    }
    if (c === QUOTE || (c >= 0x30 && c <= 0x39)) return this.matchTypeName();
    const r = this.peekRune();
    if (r >= 0 && (isIdRune(r) || isDigitRune(r))) return this.matchTypeName();
    return null;
  }

  private matchTypeName(): TypeNode {
    const name = this.scanTypeName();
    if (name === 'error') return this.matchTypeErrorBody();
    if (name === 'enum') return this.matchTypeEnumBody();
    const prim = primTypeNode(name);
    if (prim) return prim;
    if (!this.match(0x3d)) return { k: T.Name, name };
    this.enter();
    const type = this.parseType();
    this.depth--;
    return { k: T.Def, name, type };
  }

  private matchTypeRecord(): TypeRecordNode {
    this.pos++;
    this.enter();
    const names: string[] = [];
    const types: TypeNode[] = [];
    for (;;) {
      const name = this.matchSymbol();
      if (name === null) break;
      if (!this.match(0x3a)) this.error(`no type name found for field ${goQuote(name)}`);
      names.push(name);
      types.push(this.parseType());
      if (!this.match(0x2c)) break;
    }
    if (!this.match(0x7d)) this.error('mismatched braces while parsing record type');
    this.depth--;
    return { k: T.Record, names, types };
  }

  private matchTypeSetOrMap(): TypeNode {
    this.pos++;
    this.enter();
    let t: TypeNode;
    let which: string;
    if (this.matchTight(0x5b)) {
      which = 'set';
      const type = this.parseType();
      if (!this.match(0x5d)) this.error('mismatched set-brackets while parsing set type');
      t = { k: T.Set, type };
    } else {
      if (!this.matchTight(0x7b)) this.error("no '|[' or '|{' type token at '|' character");
      which = 'map';
      const key = this.parseType();
      if (!this.match(0x3a)) this.error('value type missing while parsing map type');
      const val = this.parseType();
      if (!this.match(0x7d)) this.error('mismatched set-brackets while parsing map type');
      t = { k: T.Map, key, val };
    }
    if (!this.matchTight(0x7c))
      this.error(`mismatched closing bracket while parsing type "${which}"`);
    this.depth--;
    return t;
  }

  private matchTypeUnion(): TypeUnionNode {
    this.pos++;
    this.enter();
    const types: TypeNode[] = [];
    for (;;) {
      const t = this.matchType();
      if (!t) break;
      types.push(t);
      if (!this.match(0x2c)) break;
    }
    if (types.length < 2) this.error("type list not found parsing union type at '('");
    if (!this.match(0x29)) this.error('mismatched parentheses while parsing union type');
    this.depth--;
    return { k: T.Union, types };
  }

  private matchTypeEnumBody(): TypeEnumNode {
    if (!this.match(0x28)) this.fail('no opening parenthesis in enum type');
    let symbols: string[] = [];
    for (;;) {
      const s = this.matchSymbol();
      if (s === null) {
        // As in the reference, a missing symbol empties the list.
        symbols = [];
        break;
      }
      symbols.push(s);
      if (!this.match(0x2c)) break;
    }
    if (!this.match(0x29)) this.error('mismatched parentheses while parsing enum type');
    return { k: T.Enum, symbols };
  }

  private matchTypeErrorBody(): TypeErrorNode {
    if (!this.match(0x28)) this.fail('no opening parenthesis in error type');
    this.enter();
    const type = this.matchType();
    if (!this.match(0x29)) this.error('mismatched parentheses while parsing error type');
    this.depth--;
    return { k: T.Error, type };
  }
}

// Names (field names, type names) recur from value to value: a small
// cache keyed by their bytes returns the same string without making one.
const INTERN_SLOTS = 4096;
const interned: string[] = new Array<string>(INTERN_SLOTS).fill('');

/** buf[start, end) (ASCII) as a string, from the cache when it was seen before. */
function intern(buf: Buffer, start: number, end: number): string {
  const n = end - start;
  if (n > 48) return latin1(buf, start, end);
  let h = n;
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + buf[i]) | 0;
  const slot = h & (INTERN_SLOTS - 1);
  const s = interned[slot];
  if (s.length === n) {
    let i = 0;
    while (i < n && s.charCodeAt(i) === buf[start + i]) i++;
    if (i === n) return s;
  }
  const t = latin1(buf, start, end);
  interned[slot] = t;
  return t;
}

/** Dotted IPv4 (no leading zeros, as netip requires) from bytes, or null. */
function parseIPv4Bytes(buf: Uint8Array, start: number, end: number): Uint8Array | null {
  const out = new Uint8Array(4);
  let k = 0;
  let v = 0;
  let n = 0;
  for (let i = start; i <= end; i++) {
    if (i === end || buf[i] === 0x2e) {
      if (n === 0 || n > 3 || v > 255 || (n > 1 && buf[i - n] === 0x30) || k > 3) return null;
      out[k++] = v;
      v = 0;
      n = 0;
      continue;
    }
    v = v * 10 + buf[i] - 0x30;
    n++;
  }
  return k === 4 ? out : null;
}

function hexVal(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** Four hex digits at buf[k]: the value, -1 if fewer than four bytes remain, -2 if not hex. */
function unhex4(buf: Uint8Array, k: number, end: number): number {
  if (k + 4 > end) return -1;
  let v = 0;
  for (let i = 0; i < 4; i++) {
    const h = hexVal(buf[k + i]);
    if (h < 0) return -2;
    v = (v << 4) | h;
  }
  return v;
}
