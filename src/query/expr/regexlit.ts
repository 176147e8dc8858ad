// The literals a regular expression's matches must contain, so that bytes
// without any of them can be ruled out before the expression runs (a
// pattern search's frame test and value screen, compiler/bufferfilter.ts).
// The analysis reads the JavaScript source the pattern was translated to
// (regexp.ts), the expression that actually runs. It is conservative: a
// construct it does not follow gives no literal rather than a wrong one.
// A case-insensitive expression's literals are to be found ASCII case
// folded (as TermFinder finds them); in Unicode mode it gives none, as
// Unicode case folding maps non-ASCII characters such as U+212A KELVIN
// SIGN onto ASCII letters (outside it, JavaScript never does).

/** What a piece of a pattern matches: exactly one string, or texts containing one of req's. */
interface Info {
  /** The one string every match of the piece is (zero-width pieces: ''), or null. */
  exact: string | null;
  /** Strings one of which every match contains, or null: none known. */
  req: string[] | null;
  /** Where exact is null: what every match starts with, and ends with. */
  pre: string;
  suf: string;
}

const UNKNOWN: Info = { exact: null, req: null, pre: '', suf: '' };
const EMPTY: Info = { exact: '', req: null, pre: '', suf: '' };

function exactly(s: string): Info {
  return { exact: s, req: null, pre: '', suf: '' };
}

/** Alternatives kept for an alternation's requirement; more gives none. */
const MAX_ALTERNATIVES = 16;

/** A construct the analysis does not follow: the pattern gives no literal. */
class Unfollowed extends Error {}

/**
 * Strings of which every match of re contains at least one (each of at
 * least minLength characters; ASCII case folded where re ignores case),
 * or null when none are known.
 */
export function requiredLiterals(re: RegExp, minLength = 2): string[] | null {
  const f = re.flags;
  if (f.includes('v') || (f.includes('i') && f.includes('u'))) return null;
  let info: Info;
  try {
    const p = new Parser(re.source, re.flags.includes('u'));
    info = p.alternation();
    if (!p.done()) return null;
  } catch (e) {
    if (e instanceof Unfollowed) return null;
    throw e;
  }
  const req = reqOf(info);
  if (req === null || req.some((s) => s.length < minLength)) return null;
  return req;
}

/** The requirement a piece gives: its exact string (if not empty) or its req. */
function reqOf(i: Info): string[] | null {
  if (i.exact !== null) return i.exact === '' ? null : [i.exact];
  return i.req;
}

/** The stronger of two requirements: the one whose shortest string is longer. */
function stronger(a: string[] | null, b: string[] | null): string[] | null {
  if (a === null) return b;
  if (b === null) return a;
  const ma = Math.min(...a.map((s) => s.length));
  const mb = Math.min(...b.map((s) => s.length));
  if (ma !== mb) return ma > mb ? a : b;
  return a.length <= b.length ? a : b;
}

class Parser {
  private i = 0;

  constructor(
    private readonly src: string,
    private readonly unicode: boolean,
  ) {}

  done(): boolean {
    return this.i >= this.src.length;
  }

  /** Branches separated by `|`, up to a `)` or the end. */
  alternation(): Info {
    const branches = [this.sequence()];
    while (this.src[this.i] === '|') {
      this.i++;
      branches.push(this.sequence());
    }
    if (branches.length === 1) return branches[0];
    const first = branches[0].exact;
    if (first !== null && branches.every((b) => b.exact === first)) return branches[0];
    const all: string[] = [];
    for (const b of branches) {
      const r = reqOf(b);
      if (r === null) return UNKNOWN;
      for (const s of r) if (!all.includes(s)) all.push(s);
    }
    return { ...UNKNOWN, req: all.length > MAX_ALTERNATIVES ? null : all };
  }

  /**
   * Quantified atoms one after another: their exact strings joined into
   * runs, which run on into the start of the next piece and go on from
   * the end of the last.
   */
  private sequence(): Info {
    let run = '';
    let pre: string | null = null;
    let req: string[] | null = null;
    while (!this.done() && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const a = this.quantified();
      if (a.exact !== null) {
        run += a.exact;
        continue;
      }
      const joined = run + a.pre;
      pre ??= joined;
      if (joined !== '') req = stronger(req, [joined]);
      req = stronger(req, a.req);
      run = a.suf;
    }
    if (pre === null) return exactly(run);
    if (run !== '') req = stronger(req, [run]);
    return { exact: null, req, pre, suf: run };
  }

  /** An atom and the quantifier after it, if any. */
  private quantified(): Info {
    const a = this.atom();
    const c = this.src[this.i];
    let min: number;
    let max: number;
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Infinity;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      // Not a quantifier: a literal brace (outside Unicode mode), the next atom.
      if (m === null) return a;
      this.i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    } else {
      return a;
    }
    if (this.src[this.i] === '?') this.i++; // lazy
    if (min === 0) return UNKNOWN;
    if (a.exact === null) return a; // its first copy's start, its last's end
    // Repeats of at most 256 characters are spelled out, longer ones cut.
    const n = Math.min(min, Math.floor(256 / Math.max(1, a.exact.length)));
    const rep = a.exact.repeat(n);
    if (min === max && n === min) return exactly(rep);
    return { exact: null, req: rep === '' ? null : [rep], pre: rep, suf: rep };
  }

  private atom(): Info {
    const src = this.src;
    const c = src[this.i++];
    switch (c) {
      case '(':
        return this.group();
      case '[':
        this.skipClass();
        return UNKNOWN;
      case '.':
        return UNKNOWN;
      case '^':
      case '$':
        return EMPTY;
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
      case ')':
      case '|':
        throw new Unfollowed();
      case '{':
        if (this.unicode) throw new Unfollowed();
        return exactly(c);
      default: {
        // A surrogate pair is one character.
        const code = c.charCodeAt(0);
        if (code >= 0xd800 && code < 0xdc00 && this.i < src.length) {
          const lo = src.charCodeAt(this.i);
          if (lo >= 0xdc00 && lo < 0xe000) return exactly(c + src[this.i++]);
        }
        return exactly(c);
      }
    }
  }

  /** After `(`: a group, a non-capturing group, a named group or a lookaround. */
  private group(): Info {
    const src = this.src;
    let zeroWidth = false;
    if (src[this.i] === '?') {
      const rest = src.slice(this.i, this.i + 3);
      if (rest.startsWith('?:')) this.i += 2;
      else if (rest.startsWith('?=') || rest.startsWith('?!')) {
        this.i += 2;
        zeroWidth = true;
      } else if (rest === '?<=' || rest === '?<!') {
        this.i += 3;
        zeroWidth = true;
      } else if (rest.startsWith('?<')) {
        this.i++;
        this.skipBracketed('<', '>');
      } else throw new Unfollowed();
    }
    const inner = this.alternation();
    if (src[this.i] !== ')') throw new Unfollowed();
    this.i++;
    // A lookaround consumes nothing: what is on either side of it is adjacent.
    return zeroWidth ? EMPTY : inner;
  }

  /** After `[`: to the class's closing `]` (in JavaScript, `[]` and `[^]` close at once). */
  private skipClass(): void {
    const src = this.src;
    if (src[this.i] === '^') this.i++;
    while (this.i < src.length && src[this.i] !== ']') {
      if (src[this.i] === '\\') this.i++;
      this.i++;
    }
    if (this.i >= src.length) throw new Unfollowed();
    this.i++;
  }

  /** Past open...close where open is next (a property's or group's name). */
  private skipBracketed(open: string, close: string): void {
    if (this.src[this.i] !== open) return;
    const end = this.src.indexOf(close, this.i);
    if (end < 0) throw new Unfollowed();
    this.i = end + 1;
  }

  /** After `\`. */
  private escape(): Info {
    const src = this.src;
    if (this.i >= src.length) throw new Unfollowed();
    const d = src[this.i++];
    const char = (code: number): Info => exactly(String.fromCodePoint(code));
    switch (d) {
      case 'b':
      case 'B':
        return EMPTY;
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 's':
      case 'S':
        return UNKNOWN;
      case 'p':
      case 'P':
        if (!this.unicode) throw new Unfollowed();
        this.skipBracketed('{', '}');
        return UNKNOWN;
      case 'k':
        // A named backreference: some text, not known here.
        this.skipBracketed('<', '>');
        return UNKNOWN;
      case 'n':
        return char(0x0a);
      case 'r':
        return char(0x0d);
      case 't':
        return char(0x09);
      case 'v':
        return char(0x0b);
      case 'f':
        return char(0x0c);
      case '0':
        if (/[0-9]/.test(src[this.i] ?? '')) throw new Unfollowed();
        return char(0);
      case 'x': {
        const m = /^[0-9A-Fa-f]{2}/.exec(src.slice(this.i, this.i + 2));
        if (m === null) throw new Unfollowed();
        this.i += 2;
        return char(parseInt(m[0], 16));
      }
      case 'u': {
        const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(src.slice(this.i));
        if (braced !== null && this.unicode) {
          this.i += braced[0].length;
          return char(parseInt(braced[1], 16));
        }
        const m = /^[0-9A-Fa-f]{4}/.exec(src.slice(this.i, this.i + 4));
        if (m === null) throw new Unfollowed();
        this.i += 4;
        // A lone surrogate joins the next piece's only where it is exact: kept as a code unit.
        return exactly(String.fromCharCode(parseInt(m[0], 16)));
      }
      case 'c': {
        const l = src[this.i];
        if (l === undefined || !/[A-Za-z]/.test(l)) throw new Unfollowed();
        this.i++;
        return char(l.charCodeAt(0) % 32);
      }
      default:
        // A backreference (some text) or, outside Unicode mode, an octal escape.
        if (/[1-9]/.test(d)) {
          while (/[0-9]/.test(src[this.i] ?? '')) this.i++;
          return UNKNOWN;
        }
        if (/[A-Za-z]/.test(d)) throw new Unfollowed();
        // An escaped punctuation character is itself.
        return exactly(d);
    }
  }
}
