// Tokens of the Zed grammar: identifiers, quoted strings and escapes,
// search keywords, globs, regular expressions, numbers, durations, times,
// IP addresses and the names used by `from`, `file`, `get` and `load`.
//
// Each method matches at the current position and returns the token (its
// value or text) or null with the position unchanged.

import {
  Cursor,
  isAlpha,
  isDigit,
  isHexDigit,
  isIdentRest,
  isIdentStart,
  isKeyWordChar,
} from './cursor';

const isPathChar = (c: number): boolean =>
  isAlpha(c) ||
  isDigit(c) ||
  (c < 128 && '!@$%^&*_=<>,./?:[]{}~+-'.includes(String.fromCharCode(c)));
const isAlnum = (c: number): boolean => isAlpha(c) || isDigit(c);
const isSign = (c: number): boolean => c === 43 || c === 45;
const isControlOrBackslash = (c: number): boolean => c < 0x20 || c === 92;
const isRegexpChar = (c: number): boolean => c === c && c !== 47 && c !== 92; // [^/\\], not at end

const SINGLE_CHAR_ESCAPES: readonly [string, string][] = [
  ["'", "'"],
  ['"', '"'],
  ['\\', '\\'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
  ['v', '\v'],
];
const TIME_UNITS = ['ns', 'us', 'ms', 's', 'm', 'h', 'd', 'w', 'y'] as const;

export const PRIMITIVE_TYPE_NAMES = [
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'int8',
  'int16',
  'int32',
  'int64',
  'float16',
  'float32',
  'float64',
  'bool',
  'string',
  'duration',
  'time',
  'bytes',
  'ip',
  'net',
  'type',
  'null',
] as const;

/** The keywords of the SQL operator (matched case-insensitively). */
export const SQL_TOKENS = [
  'select',
  'as',
  'from',
  'join',
  'where',
  'group',
  'having',
  'order',
  'limit',
  'on',
] as const;

/** The character of code point cp as the reference builds it (invalid ones become U+FFFD). */
function codePointString(cp: number): string {
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(cp);
}

/** A UInt's value as the reference reads it: 0 when it overflows int64 (the reference gets nil). */
export function uintValue(digits: string): number | null {
  const v = BigInt(digits);
  return v > 0x7fffffffffffffffn ? null : Number(v);
}

export class Lexical extends Cursor {
  // -------------------------------------------------------------------------
  // Identifiers

  /** `true`, `false`, `null`, `NaN`, `[+-]Inf`: words that are never identifiers. */
  protected idGuard(): boolean {
    if (this.lit('true') || this.lit('false') || this.lit('null') || this.lit('NaN')) return true;
    return this.infinity();
  }

  /** `("-" / "+")? "Inf"` */
  protected infinity(): boolean {
    const start = this.pos;
    if (!this.lit('-')) this.lit('+');
    if (this.lit('Inf')) return true;
    this.pos = start;
    return false;
  }

  /**
   * An identifier: [A-Za-z_$][A-Za-z_$0-9]* other than the guard words, or a
   * guard word escaped with a backslash (`\true` names the field "true").
   */
  protected identifierName(): string | null {
    const start = this.pos;
    if (this.not(() => this.idGuard() && this.notIdentRest()) && this.cls(isIdentStart)) {
      this.span(isIdentRest);
      return this.text(start);
    }
    if (this.lit('\\')) {
      const idStart = this.pos;
      if (this.idGuard()) return this.text(idStart);
      this.pos = start;
    }
    return null;
  }

  /** IdentifierName (, IdentifierName)* */
  protected identifierNames(): string[] | null {
    return this.commaList(() => this.identifierName());
  }

  // -------------------------------------------------------------------------
  // Strings and escapes

  /** A double- or single-quoted string; returns its decoded value. */
  protected quotedString(): string | null {
    const start = this.pos;
    const q = this.code();
    if (!this.lit('"') && !this.lit("'")) return null;
    const quote = q;
    let s = '';
    for (;;) {
      const c = this.quotedChar(quote);
      if (c === null) break;
      s += c;
    }
    if (this.cls((c) => c === quote)) return s;
    this.pos = start;
    return null;
  }

  /**
   * One character of a quoted string: anything but the quote, a control
   * character or a backslash, or a backslash escape. Returns it decoded.
   */
  protected quotedChar(quote: number): string | null {
    const p = this.pos;
    const c = this.code(p);
    // !(quote / EscapedChar) .
    this.inv = !this.inv;
    const stop = this.term(p, c === quote) || this.term(p, isControlOrBackslash(c));
    this.inv = !this.inv;
    if (!stop && this.any()) return this.text(p);
    // "\\" EscapeSequence
    if (this.lit('\\')) {
      const e = this.escapeSequence();
      if (e !== null) return e;
      this.pos = p;
    }
    return null;
  }

  /** After a backslash: a single-character escape or \uXXXX / \u{X...}. */
  protected escapeSequence(): string | null {
    for (const [ch, v] of SINGLE_CHAR_ESCAPES) if (this.lit(ch)) return v;
    return this.unicodeEscape();
  }

  /** `u` HexDigit{4} / `u{` HexDigit{1,6} `}` */
  protected unicodeEscape(): string | null {
    const start = this.pos;
    if (this.lit('u')) {
      const hexStart = this.pos;
      let k = 0;
      while (k < 4 && this.cls(isHexDigit)) k++;
      if (k === 4) return codePointString(parseInt(this.text(hexStart), 16));
      this.pos = start;
    }
    if (this.lit('u') && this.lit('{')) {
      const hexStart = this.pos;
      if (this.cls(isHexDigit)) {
        for (let k = 1; k < 6 && this.cls(isHexDigit); k++);
        const hex = this.text(hexStart);
        if (this.lit('}')) return codePointString(parseInt(hex, 16));
      }
    }
    this.pos = start;
    return null;
  }

  // -------------------------------------------------------------------------
  // Search keywords, globs and regular expressions

  /** A search keyword: [a-zA-Z_.:/%#@~] or an escape, then those or digits. */
  protected keyWord(): string | null {
    let s = this.keyWordStart();
    if (s === null) return null;
    for (;;) {
      const r = this.keyWordRest();
      if (r === null) return s;
      s += r;
    }
  }

  protected keyWordStart(): string | null {
    const p = this.pos;
    if (this.cls(isKeyWordChar)) return this.src[p];
    return this.keyWordEsc();
  }

  protected keyWordRest(): string | null {
    const s = this.keyWordStart();
    if (s !== null) return s;
    const p = this.pos;
    return this.cls(isDigit) ? this.src[p] : null;
  }

  /** `\` then `=`, `*`, `+`, `-` or an escape sequence. */
  protected keyWordEsc(): string | null {
    const start = this.pos;
    if (!this.lit('\\')) return null;
    const k = this.oneOf(['=', '*']);
    if (k !== null) return k;
    const p = this.pos;
    if (this.cls(isSign)) return this.src[p];
    const e = this.escapeSequence();
    if (e !== null) return e;
    this.pos = start;
    return null;
  }

  /** A glob: keyword characters with at least one `*` (`\*` stays escaped). */
  protected globPattern(): string | null {
    if (!this.and(() => this.globProperStart())) return null;
    if (!this.and(() => this.globHasStar())) return null;
    let s = this.globStart();
    if (s === null) return null;
    for (;;) {
      let r = this.globStart();
      if (r === null) {
        const p = this.pos;
        if (!this.cls(isDigit)) return s;
        r = this.src[p];
      }
      s += r;
    }
  }

  /** KeyWordStart / "*"+ KeyWordRest */
  private globProperStart(): boolean {
    if (this.keyWordStart() !== null) return true;
    if (!this.lit('*')) return false;
    while (this.lit('*'));
    return this.keyWordRest() !== null;
  }

  /** KeyWordRest* "*" */
  private globHasStar(): boolean {
    while (this.keyWordRest() !== null);
    return this.lit('*');
  }

  /** KeyWordChars / GlobEsc / "*" */
  private globStart(): string | null {
    const p = this.pos;
    if (this.cls(isKeyWordChar)) return this.src[p];
    if (this.lit('\\')) {
      if (this.lit('=')) return '=';
      if (this.lit('*')) return '\\*';
      const q = this.pos;
      if (this.cls(isSign)) return this.src[q];
      const e = this.escapeSequence();
      if (e !== null) return e;
      this.pos = p;
    }
    if (this.lit('*')) return '*';
    return null;
  }

  /** `/body/` not followed by a keyword character; returns the body as written. */
  protected regexpPattern(): string | null {
    const start = this.pos;
    if (!this.lit('/')) return null;
    const bodyStart = this.pos;
    let k = 0;
    for (;;) {
      if (this.cls(isRegexpChar)) {
        k++;
        continue;
      }
      const p = this.pos;
      if (this.lit('\\')) {
        if (this.any()) {
          k++;
          continue;
        }
        this.pos = p;
      }
      break;
    }
    const body = this.text(bodyStart);
    if (k > 0 && this.lit('/') && this.not(() => this.keyWordStart() !== null)) return body;
    this.pos = start;
    return null;
  }

  // -------------------------------------------------------------------------
  // Numbers, durations, times and addresses (all return their source text)

  /** [0-9]+ */
  protected uintString(): string | null {
    const start = this.pos;
    if (this.span(isDigit) === 0) return null;
    return this.text(start);
  }

  /** [0-9]+ or -[0-9]+ */
  protected intString(): string | null {
    const u = this.uintString();
    if (u !== null) return u;
    const start = this.pos;
    if (this.lit('-') && this.uintString() !== null) return this.text(start);
    this.pos = start;
    return null;
  }

  /** 1.5, -1., .5e3, NaN, Inf, -Inf, +Inf */
  protected floatString(): string | null {
    const start = this.pos;
    this.lit('-');
    if (this.span(isDigit) > 0 && this.lit('.')) {
      this.span(isDigit);
      this.exponentPart();
      return this.text(start);
    }
    this.pos = start;
    this.lit('-');
    if (this.lit('.') && this.span(isDigit) > 0) {
      this.exponentPart();
      return this.text(start);
    }
    this.pos = start;
    if (this.lit('NaN') || this.infinity()) return this.text(start);
    return null;
  }

  /** Optional `e[+-]digits` (case-insensitive e). */
  private exponentPart(): void {
    const start = this.pos;
    if (this.litI('e')) {
      this.cls(isSign);
      if (this.uintString() !== null) return;
    }
    this.pos = start;
  }

  /** -?(Decimal TimeUnit)+ such as 1h30m or -1.5s */
  protected duration(): string | null {
    const start = this.pos;
    this.lit('-');
    let k = 0;
    for (;;) {
      const p = this.pos;
      if (this.uintString() !== null) {
        const q = this.pos;
        if (!(this.lit('.') && this.uintString() !== null)) this.pos = q;
        if (this.oneOf(TIME_UNITS) !== null) {
          k++;
          continue;
        }
      }
      this.pos = p;
      break;
    }
    if (k > 0) return this.text(start);
    this.pos = start;
    return null;
  }

  /** An RFC 3339 time: 2006-01-02T15:04:05[.frac](Z|+hh:mm[.frac]) */
  protected time(): string | null {
    const start = this.pos;
    const ok =
      this.digits(4) &&
      this.lit('-') &&
      this.digits(2) &&
      this.lit('-') &&
      this.digits(2) &&
      this.lit('T') &&
      this.digits(2) &&
      this.lit(':') &&
      this.digits(2) &&
      this.lit(':') &&
      this.digits(2) &&
      this.optFraction() &&
      (this.lit('Z') ||
        ((this.lit('+') || this.lit('-')) &&
          this.digits(2) &&
          this.lit(':') &&
          this.digits(2) &&
          this.optFraction()));
    if (ok) return this.text(start);
    this.pos = start;
    return null;
  }

  private digits(k: number): boolean {
    for (let i = 0; i < k; i++) if (!this.cls(isDigit)) return false;
    return true;
  }

  /** ("." [0-9]+)? */
  private optFraction(): boolean {
    const start = this.pos;
    if (!(this.lit('.') && this.span(isDigit) > 0)) this.pos = start;
    return true;
  }

  /** IPv4 address: UInt.UInt.UInt.UInt */
  protected ip4(): string | null {
    const start = this.pos;
    if (
      this.uintString() !== null &&
      this.lit('.') &&
      this.uintString() !== null &&
      this.lit('.') &&
      this.uintString() !== null &&
      this.lit('.') &&
      this.uintString() !== null
    )
      return this.text(start);
    this.pos = start;
    return null;
  }

  /** [0-9a-fA-F]+ */
  private hex(): boolean {
    return this.span(isHexDigit) > 0;
  }

  /** Hex ":" */
  private hexColon(): boolean {
    const start = this.pos;
    if (this.hex() && this.lit(':')) return true;
    this.pos = start;
    return false;
  }

  /** ":" Hex */
  private colonHex(): boolean {
    const start = this.pos;
    if (this.lit(':') && this.hex()) return true;
    this.pos = start;
    return false;
  }

  /** IP / Hex */
  private ip6Tail(): boolean {
    return this.ip4() !== null || this.hex();
  }

  /**
   * An IPv6 address (a superset of the legal forms; the compiler checks),
   * but not `hex:hex` alone, which reads as a keyword or field:value.
   */
  protected ip6(): string | null {
    const start = this.pos;
    const ambiguous = () => {
      if (!(this.hex() && this.lit(':') && this.hex())) return false;
      return this.not(() => this.cls(isHexDigit) || this.lit(':'));
    };
    if (!this.not(ambiguous)) return null;
    // HexColon+ IP6Tail
    if (this.hexColon()) {
      while (this.hexColon());
      if (this.ip6Tail()) return this.text(start);
      this.pos = start;
    }
    // Hex ColonHex* "::" HexColon* IP6Tail
    if (this.hex()) {
      while (this.colonHex());
      if (this.lit('::')) {
        while (this.hexColon());
        if (this.ip6Tail()) return this.text(start);
      }
      this.pos = start;
    }
    // "::" HexColon* IP6Tail
    if (this.lit('::')) {
      while (this.hexColon());
      if (this.ip6Tail()) return this.text(start);
      this.pos = start;
    }
    // Hex ColonHex* "::"
    if (this.hex()) {
      while (this.colonHex());
      if (this.lit('::')) return this.text(start);
      this.pos = start;
    }
    if (this.lit('::')) return '::';
    return null;
  }

  /** addr/bits for an IPv6 or IPv4 address; the bits are written as the number's value. */
  protected ipNet(addr: () => string | null): string | null {
    const start = this.pos;
    const a = addr();
    if (a !== null && this.lit('/')) {
      const m = this.uintString();
      if (m !== null) {
        const v = uintValue(m);
        return `${a}/${v === null ? '<nil>' : v}`;
      }
    }
    this.pos = start;
    return null;
  }

  // -------------------------------------------------------------------------
  // Names of pools, files and URLs

  /** (IdentifierStart / ".") (IdentifierRest / ".")* */
  protected poolIdentifier(): string | null {
    const start = this.pos;
    if (!this.cls(isIdentStart) && !this.lit('.')) return null;
    for (;;) {
      if (this.cls(isIdentRest) || this.lit('.')) continue;
      return this.text(start);
    }
  }

  /** [0-9a-zA-Z]+ */
  protected ksuid(): string | null {
    const start = this.pos;
    if (this.span(isAlnum) === 0) return null;
    return this.text(start);
  }

  /** PoolIdentifier / KSUID / QuotedString */
  protected poolNameString(): string | null {
    const s = this.poolIdentifier();
    if (s !== null) return s;
    const k = this.ksuid();
    if (k !== null) return k;
    return this.quotedString();
  }

  /** A quoted string, or a run of path characters (as written). */
  protected path(): string | null {
    const s = this.quotedString();
    if (s !== null) return s;
    const start = this.pos;
    if (this.span(isPathChar) === 0) return null;
    return this.text(start);
  }

  /** http: or https: then a Path; returns the whole source text. */
  protected url(): string | null {
    const start = this.pos;
    if ((this.lit('http:') || this.lit('https:')) && this.path() !== null) return this.text(start);
    this.pos = start;
    return null;
  }

  /** One of the primitive type names (no word-boundary check). */
  protected primitiveTypeName(): (typeof PRIMITIVE_TYPE_NAMES)[number] | null {
    return this.oneOf(PRIMITIVE_TYPE_NAMES) as (typeof PRIMITIVE_TYPE_NAMES)[number] | null;
  }

  /** One of the SQL keywords, case-insensitively. */
  protected sqlToken(): boolean {
    for (const t of SQL_TOKENS) if (this.litI(t)) return true;
    return false;
  }
}
