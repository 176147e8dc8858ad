// The parser's position in the query and its record of the farthest failure.
//
// The grammar is scannerless (what a character means depends on where it
// is: `a/b` is a search keyword, `/a/` a regexp, `a/b` in an expression a
// division), so the parser reads characters directly. Every attempt to
// match a literal or a character class goes through term(), which keeps the
// farthest position of a failed attempt. When the query does not parse,
// that position is where the reference reports the error.
//
// Inside a negative lookahead (not()) the reference counts the opposite:
// a *successful* match there is what makes the enclosing rule fail, so it
// is recorded, and a failed one is not. `inv` tracks that inversion.

/** A memo table entry: the result at a position and where it ended. */
interface MemoEntry<T> {
  node: T | null;
  end: number;
}

export type Memo<T> = Map<number, MemoEntry<T>>;

/** Character classes of the grammar, by UTF-16 code unit (NaN past the end is in none). */
export const isDigit = (c: number): boolean => c >= 48 && c <= 57;
export const isHexDigit = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
export const isAlpha = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
/** [A-Za-z_$] */
export const isIdentStart = (c: number): boolean => isAlpha(c) || c === 95 || c === 36;
/** [A-Za-z_$0-9] */
export const isIdentRest = (c: number): boolean => isIdentStart(c) || isDigit(c);
/** [a-zA-Z_.:/%#@~]: characters of a search keyword. */
export const isKeyWordChar = (c: number): boolean =>
  isAlpha(c) ||
  c === 95 || // _
  c === 46 || // .
  c === 58 || // :
  c === 47 || // /
  c === 37 || // %
  c === 35 || // #
  c === 64 || // @
  c === 126; // ~
/** Tab, vertical tab, form feed, space, no-break space, BOM. */
export const isWhiteSpace = (c: number): boolean =>
  c === 32 || c === 9 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff;
/** \n \r U+2028 U+2029 */
export const isLineTerminator = (c: number): boolean =>
  c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

export class Cursor {
  protected readonly src: string;
  protected readonly n: number;
  /** Current position (UTF-16 index into src). */
  protected pos = 0;
  /** Farthest recorded failure (UTF-16 index). */
  protected far = 0;
  /** True inside an odd number of negative lookaheads. */
  protected inv = false;

  constructor(src: string) {
    this.src = src;
    this.n = src.length;
  }

  /** Records an attempt to match a terminal at p; returns whether it matched. */
  protected term(p: number, matched: boolean): boolean {
    if (matched === this.inv && p > this.far) this.far = p;
    return matched;
  }

  protected code(p = this.pos): number {
    return this.src.charCodeAt(p);
  }

  /** Matches the literal s at the current position. */
  protected lit(s: string): boolean {
    const p = this.pos;
    if (this.src.startsWith(s, p)) {
      this.pos = p + s.length;
      this.term(p, true);
      return true;
    }
    this.term(p, false);
    return false;
  }

  /** Matches the literal s case-insensitively (s is lower case). */
  protected litI(s: string): boolean {
    const p = this.pos;
    if (this.src.slice(p, p + s.length).toLowerCase() === s) {
      this.pos = p + s.length;
      this.term(p, true);
      return true;
    }
    this.term(p, false);
    return false;
  }

  /** Matches the first of the literals that matches, in order; returns it or null. */
  protected oneOf(lits: readonly string[]): string | null {
    for (const s of lits) if (this.lit(s)) return s;
    return null;
  }

  /** Matches one character of a class. */
  protected cls(pred: (c: number) => boolean): boolean {
    const p = this.pos;
    if (pred(this.src.charCodeAt(p))) {
      this.pos = p + 1;
      this.term(p, true);
      return true;
    }
    this.term(p, false);
    return false;
  }

  /** Matches characters of a class while they last (class*); returns how many. */
  protected span(pred: (c: number) => boolean): number {
    const start = this.pos;
    let p = start;
    while (pred(this.src.charCodeAt(p))) p++;
    if (this.inv) {
      if (p > start) this.term(p - 1, true);
    } else this.term(p, false);
    this.pos = p;
    return p - start;
  }

  /** Matches any one character (a whole code point). */
  protected any(): boolean {
    const p = this.pos;
    if (p >= this.n) {
      this.term(p, false);
      return false;
    }
    const c = this.src.charCodeAt(p);
    this.pos = p + (c >= 0xd800 && c <= 0xdbff && p + 1 < this.n ? 2 : 1);
    this.term(p, true);
    return true;
  }

  /** Negative lookahead: true when fn does not match here; never moves. */
  protected not(fn: () => boolean): boolean {
    const p = this.pos;
    this.inv = !this.inv;
    const r = fn();
    this.inv = !this.inv;
    this.pos = p;
    return !r;
  }

  /** Positive lookahead: true when fn matches here; never moves. */
  protected and(fn: () => boolean): boolean {
    const p = this.pos;
    const r = fn();
    this.pos = p;
    return r;
  }

  /** End of input. */
  protected eof(): boolean {
    return this.not(() => this.any());
  }

  /** `!IdentifierRest` */
  protected notIdentRest(): boolean {
    const c = this.src.charCodeAt(this.pos);
    // IdentifierStart, then [0-9], both tried at this position.
    this.inv = !this.inv;
    const m = this.term(this.pos, isIdentStart(c)) || this.term(this.pos, isDigit(c));
    this.inv = !this.inv;
    return !m;
  }

  /** `!KeyWordChars` */
  protected notKeyWordChar(): boolean {
    this.inv = !this.inv;
    const m = this.term(this.pos, isKeyWordChar(this.src.charCodeAt(this.pos)));
    this.inv = !this.inv;
    return !m;
  }

  /** `__`: any whitespace and `//` comments. */
  protected sp(): void {
    const src = this.src;
    const start = this.pos;
    let p = start;
    for (;;) {
      const c = src.charCodeAt(p);
      if (isWhiteSpace(c) || isLineTerminator(c)) {
        p++;
      } else if (c === 47 && src.charCodeAt(p + 1) === 47) {
        p += 2;
        while (p < this.n && !isLineTerminator(src.charCodeAt(p))) p++;
        // The comment's last attempt fails at the newline (or at the end).
        if (p >= this.n || !this.inv) this.term(p, this.inv);
      } else break;
    }
    if (this.inv) {
      if (p > start) {
        const last = src.charCodeAt(p - 1);
        this.term(last >= 0xdc00 && last <= 0xdfff && p - 2 >= start ? p - 2 : p - 1, true);
      }
    } else this.term(p, false);
    this.pos = p;
  }

  /** `_`: at least one whitespace character or comment. */
  protected sp1(): boolean {
    const start = this.pos;
    this.sp();
    return this.pos > start;
  }

  /** Runs fn memoized at (position, inversion) in table. */
  protected memo<T>(table: Memo<T>, fn: () => T | null): T | null {
    const key = this.pos * 2 + (this.inv ? 1 : 0);
    const hit = table.get(key);
    if (hit !== undefined) {
      if (hit.node !== null) this.pos = hit.end;
      return hit.node;
    }
    const start = this.pos;
    const node = fn();
    if (node === null) this.pos = start;
    table.set(key, { node, end: this.pos });
    return node;
  }

  /** keyword followed by whitespace (`kw _`). */
  protected kw(word: string): boolean {
    const start = this.pos;
    if (this.lit(word) && this.sp1()) return true;
    this.pos = start;
    return false;
  }

  /** `word _` then fn(); null with the position unchanged unless both match. */
  protected after<T>(word: string, fn: () => T | null): T | null {
    const start = this.pos;
    if (this.kw(word)) {
      const r = fn();
      if (r !== null) return r;
    }
    this.pos = start;
    return null;
  }

  /** item (__ "," __ item)*: one or more items, or null. */
  protected commaList<T>(item: () => T | null): T[] | null {
    const first = item();
    if (first === null) return null;
    const list = [first];
    for (;;) {
      const save = this.pos;
      this.sp();
      if (this.lit(',')) {
        this.sp();
        const next = item();
        if (next !== null) {
          list.push(next);
          continue;
        }
      }
      this.pos = save;
      return list;
    }
  }

  /** left __ sep __ right: both results, or null with the position unchanged. */
  protected separated<A, B>(
    left: () => A | null,
    sep: string,
    right: () => B | null,
  ): [A, B] | null {
    const start = this.pos;
    const a = left();
    if (a !== null) {
      this.sp();
      if (this.lit(sep)) {
        this.sp();
        const b = right();
        if (b !== null) return [a, b];
      }
    }
    this.pos = start;
    return null;
  }

  /** open __ body __ close: the body's result, or null with the position unchanged. */
  protected enclosed<T>(open: string, close: string, body: () => T | null): T | null {
    const start = this.pos;
    if (!this.lit(open)) return null;
    this.sp();
    const r = body();
    if (r !== null) {
      this.sp();
      if (this.lit(close)) return r;
    }
    this.pos = start;
    return null;
  }

  /** The source text from start to the current position. */
  protected text(start: number): string {
    return this.src.slice(start, this.pos);
  }
}
