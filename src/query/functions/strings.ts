// String functions: lower, upper, trim, replace, rune_len, split, join,
// levenshtein, regexp and regexp_replace.
//
// The common functions work on UTF-8 bytes directly and write results into
// per-call-site scratch memory, so ASCII text never becomes a JS string;
// other text goes through JS strings with Go's per-rune rules.

import { decodeSeq, decodeUTF8Go, isSpaceRune, utf8SeqLen } from '../../formats/zson/gotext';
import { decodeString } from '../../zed/primitive';
import { ID, TypeArray, TypeInt64 as TYPE_INT64, TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder, readUvarint, uv } from '../../zed/zcode';
import { newError, wrapError } from '../expr/errors';
import { compileRegexp, RegexpError } from '../expr/regexp';
import { Scratch } from '../expr/scratch';
import { registerFunction, valueFunction } from './registry';

/** True for a value whose underlying type is string (null or not). */
export function isString(v: Value): boolean {
  return v.type.under === TypeString;
}

/** The text of a string value (empty for null). */
export function stringOf(v: Value): string {
  return v.len <= 0 ? '' : decodeString(v.buf, v.off, v.len);
}

/** A string value's runes as Go ranges over them (invalid bytes → U+FFFD). */
function goString(v: Value): string {
  return v.len <= 0 ? '' : decodeUTF8Go(v.buf, v.off, v.off + v.len);
}

/** Go's simple case mapping of one code point (unicode.ToLower/ToUpper). */
function mapRune(cp: number, upper: boolean): number {
  if (cp === 0x130 && !upper) return 0x69;
  const s = String.fromCodePoint(cp);
  const m = upper ? s.toUpperCase() : s.toLowerCase();
  const r = m.codePointAt(0)!;
  // A mapping to several runes (full case mapping) is not Go's: keep it.
  return m.length === (r > 0xffff ? 2 : 1) ? r : cp;
}

/** lower/upper: ASCII mapped byte by byte, other runes by Go's simple mapping. */
function caseMap(name: string, upper: boolean) {
  return valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    const err = `${name}: string arg required`;
    const from = upper ? 0x61 : 0x41;
    const to = upper ? 0x7a : 0x5a;
    return ([v]) => {
      if (!isString(v)) return newError(zctx, err);
      if (v.len < 0) return out.null(TypeString);
      const src = v.buf;
      const n = v.len;
      const buf = out.reserve(n * 2 + 4);
      let i = 0;
      for (; i < n; i++) {
        const c = src[v.off + i];
        if (c >= 0x80) break;
        buf[i] = c >= from && c <= to ? c ^ 0x20 : c;
      }
      if (i === n) return out.view(TypeString, buf, 0, n);
      let s = '';
      for (const ch of goString(v)) s += String.fromCodePoint(mapRune(ch.codePointAt(0)!, upper));
      return out.string(TypeString, s);
    };
  });
}

registerFunction('lower', caseMap('lower', false));
registerFunction('upper', caseMap('upper', true));

/** The rune starting at buf[i] (end exclusive) and its length, Go's way. */
function runeAt(buf: Uint8Array, i: number, end: number, out: { r: number; n: number }): void {
  const c = buf[i];
  if (c < 0x80) {
    out.r = c;
    out.n = 1;
    return;
  }
  const n = utf8SeqLen(buf, i, end);
  out.r = n === 0 ? 0xfffd : decodeSeq(buf, i, n);
  out.n = n === 0 ? 1 : n;
}

/** The start of the rune that ends at buf[end) (Go's utf8.DecodeLastRune). */
function lastRuneStart(buf: Uint8Array, start: number, end: number): number {
  let i = end - 1;
  const lim = Math.max(start, end - 4);
  while (i > lim && (buf[i] & 0xc0) === 0x80) i--;
  const n = buf[i] < 0x80 ? 1 : utf8SeqLen(buf, i, end);
  return n === end - i ? i : end - 1;
}

registerFunction(
  'trim',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    const rune = { r: 0, n: 0 };
    return ([v]) => {
      if (!isString(v)) return newError(zctx, 'trim: string arg required');
      if (v.len < 0) return out.null(TypeString);
      const buf = v.buf;
      let start = v.off;
      let end = v.off + v.len;
      // Trims Unicode white space (strings.TrimSpace), not U+FEFF as JS does.
      while (start < end) {
        runeAt(buf, start, end, rune);
        if (!isSpaceRune(rune.r)) break;
        start += rune.n;
      }
      while (end > start) {
        const p = lastRuneStart(buf, start, end);
        runeAt(buf, p, end, rune);
        if (!isSpaceRune(rune.r) || p + rune.n !== end) break;
        end = p;
      }
      return out.view(TypeString, buf, start, end - start);
    };
  }),
);

registerFunction(
  'rune_len',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return ([v]) => {
      if (!isString(v)) return newError(zctx, 'rune_len: string arg required');
      let n = 0;
      const buf = v.buf;
      const end = v.off + Math.max(v.len, 0);
      for (let i = v.off; i < end; n++) {
        if (buf[i] < 0x80) i++;
        else i += utf8SeqLen(buf, i, end) || 1;
      }
      return out.int(TYPE_INT64, n);
    };
  }),
);

/** Index of needle (bytes) in buf[from, end), or -1. */
function indexOfBytes(
  buf: Buffer,
  from: number,
  end: number,
  needle: Buffer,
  noff: number,
  nlen: number,
): number {
  const first = needle[noff];
  const last = end - nlen;
  outer: for (let i = from; i <= last; i++) {
    if (buf[i] !== first) continue;
    for (let k = 1; k < nlen; k++) if (buf[i + k] !== needle[noff + k]) continue outer;
    return i;
  }
  return -1;
}

registerFunction(
  'replace',
  valueFunction(3, 3, ({ zctx }) => {
    const b = new Builder(256);
    const out = new Scratch();
    return ([s, old, rep]) => {
      if (!isString(s) || !isString(old) || !isString(rep)) {
        return newError(zctx, 'replace: string arg required');
      }
      if (s.len < 0) return out.null(TypeString);
      if (old.len < 0 || rep.len < 0) return newError(zctx, 'replace: an input arg is null');
      // Go's strings.ReplaceAll on the bytes: an empty old string matches
      // before each rune and at the end.
      b.reset();
      const buf = s.buf;
      const end = s.off + s.len;
      if (old.len === 0) {
        b.appendRaw(rep.buf, rep.off, rep.len);
        for (let i = s.off; i < end;) {
          const n = buf[i] < 0x80 ? 1 : utf8SeqLen(buf, i, end) || 1;
          b.appendRaw(buf, i, n);
          b.appendRaw(rep.buf, rep.off, rep.len);
          i += n;
        }
      } else {
        let p = s.off;
        for (;;) {
          const at = indexOfBytes(buf, p, end, old.buf, old.off, old.len);
          if (at < 0) break;
          b.appendRaw(buf, p, at - p);
          b.appendRaw(rep.buf, rep.off, rep.len);
          p = at + old.len;
        }
        if (p === s.off) return out.view(TypeString, buf, s.off, s.len);
        b.appendRaw(buf, p, end - p);
      }
      return out.view(TypeString, b.buf, 0, b.len);
    };
  }),
);

registerFunction(
  'split',
  valueFunction(2, 2, ({ zctx }) => {
    const arrayType = zctx.lookupTypeArray(TypeString);
    const b = new Builder(256);
    const out = new Scratch();
    return ([s, sep]) => {
      if (!isString(s) || !isString(sep)) return newError(zctx, 'split: string args required');
      if (s.len < 0 || sep.len < 0) return out.null(arrayType);
      b.reset();
      const buf = s.buf;
      const end = s.off + s.len;
      if (sep.len === 0) {
        // Split into runes (an invalid byte is a piece of its own).
        for (let i = s.off; i < end;) {
          const n = buf[i] < 0x80 ? 1 : utf8SeqLen(buf, i, end) || 1;
          b.append(buf, i, n);
          i += n;
        }
      } else {
        let p = s.off;
        for (;;) {
          const at = indexOfBytes(buf, p, end, sep.buf, sep.off, sep.len);
          if (at < 0) break;
          b.append(buf, p, at - p);
          p = at + sep.len;
        }
        b.append(buf, p, end - p);
      }
      return out.view(arrayType, b.buf, 0, b.len);
    };
  }),
);

registerFunction(
  'join',
  valueFunction(1, 2, ({ zctx }) => {
    const out = new Scratch();
    return (args) => {
      const a = args[0];
      const t = a.type.under;
      if (!(t instanceof TypeArray) || t.type.under.id !== ID.String) {
        return newError(zctx, 'join: array of string args required');
      }
      let sepBuf: Buffer = a.buf;
      let sepOff = 0;
      let sepLen = 0;
      if (args.length === 2) {
        const sep = args[1];
        if (!isString(sep)) return newError(zctx, 'join: separator must be string');
        sepBuf = sep.buf;
        sepOff = sep.off;
        sepLen = Math.max(sep.len, 0);
      }
      // Total size first, then copy: one pass over the elements each.
      const end = a.off + Math.max(a.len, 0);
      let size = 0;
      let count = 0;
      for (let p = a.off; p < end; count++) {
        const tag = readUvarint(a.buf, p, end);
        const len = tag > 0 ? tag - 1 : 0;
        size += len;
        p = uv.end + len;
      }
      if (count > 1) size += sepLen * (count - 1);
      const buf = out.reserve(size);
      let w = 0;
      let first = true;
      for (let p = a.off; p < end;) {
        const tag = readUvarint(a.buf, p, end);
        const off = uv.end;
        const len = tag > 0 ? tag - 1 : 0;
        p = off + len;
        if (!first) {
          sepBuf.copy(buf, w, sepOff, sepOff + sepLen);
          w += sepLen;
        }
        first = false;
        a.buf.copy(buf, w, off, off + len);
        w += len;
      }
      return out.view(TypeString, buf, 0, w);
    };
  }),
);

/** Levenshtein distance between the rune sequences of a and b. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  const ra = Array.from(a, (c) => c.codePointAt(0)!);
  const rb = Array.from(b, (c) => c.codePointAt(0)!);
  if (ra.length === 0) return rb.length;
  if (rb.length === 0) return ra.length;
  const row = new Array<number>(ra.length + 1);
  for (let i = 0; i <= ra.length; i++) row[i] = i;
  for (let j = 1; j <= rb.length; j++) {
    let prev = j;
    for (let i = 1; i <= ra.length; i++) {
      const cur =
        ra[i - 1] === rb[j - 1] ? row[i - 1] : Math.min(row[i - 1] + 1, prev + 1, row[i] + 1);
      row[i - 1] = prev;
      prev = cur;
    }
    row[ra.length] = prev;
  }
  return row[ra.length];
}

registerFunction(
  'levenshtein',
  valueFunction(2, 2, ({ zctx }) => {
    const out = new Scratch();
    return ([a, b]) => {
      if (!isString(a)) return wrapError(zctx, 'levenshtein: string args required', a);
      if (!isString(b)) return wrapError(zctx, 'levenshtein: string args required', b);
      return out.int(TYPE_INT64, levenshtein(goString(a), goString(b)));
    };
  }),
);

/** A compiled regular expression cached by its source text. */
class RegexpCache {
  private src: string | null = null;
  re: RegExp | null = null;
  err: string | null = null;

  /** Compiles s unless it is the last source seen; false on a syntax error. */
  compile(s: string): boolean {
    if (s !== this.src) {
      this.src = s;
      try {
        this.re = compileRegexp(s);
        this.err = null;
      } catch (e) {
        if (!(e instanceof RegexpError)) throw e;
        this.re = null;
        this.err = e.message;
      }
    }
    return this.re !== null;
  }
}

registerFunction(
  'regexp',
  valueFunction(2, 2, ({ zctx }) => {
    const cache = new RegexpCache();
    const arrayType = zctx.lookupTypeArray(TypeString);
    const b = new Builder(64);
    const out = new Scratch();
    return ([reVal, s]) => {
      if (!isString(reVal)) return newError(zctx, 'regexp: string required for first arg');
      if (!cache.compile(stringOf(reVal))) return newError(zctx, `regexp: ${cache.err}`);
      if (!isString(s)) return newError(zctx, 'regexp: string required for second arg');
      const m = cache.re!.exec(goString(s));
      cache.re!.lastIndex = 0;
      // No match builds nothing, which the reference returns as a null array.
      if (m === null) return out.null(arrayType);
      b.reset();
      for (const g of m) {
        if (g === undefined) b.appendNull();
        else b.appendBytes(Buffer.from(g, 'utf8'));
      }
      return out.view(arrayType, b.buf, 0, b.len);
    };
  }),
);

/**
 * Go's Regexp.Expand template: $name, ${name} and $$, where a name is as
 * long as possible; unknown or unmatched groups expand to nothing.
 */
export function expandTemplate(tmpl: string, m: RegExpExecArray): string {
  let out = '';
  for (let i = 0; i < tmpl.length; i++) {
    const c = tmpl[i];
    if (c !== '$' || i + 1 >= tmpl.length) {
      out += c;
      continue;
    }
    if (tmpl[i + 1] === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string | null = null;
    let next = i;
    if (tmpl[i + 1] === '{') {
      const close = tmpl.indexOf('}', i + 2);
      const n = close < 0 ? '' : tmpl.slice(i + 2, close);
      if (close >= 0 && /^\w+$/.test(n)) {
        name = n;
        next = close;
      }
    } else {
      const w = /^\w+/.exec(tmpl.slice(i + 1));
      if (w) {
        name = w[0];
        next = i + w[0].length;
      }
    }
    if (name === null) {
      // A bad reference is copied as is, as Go does.
      out += c;
      continue;
    }
    i = next;
    if (/^[0-9]+$/.test(name)) {
      const k = Number(name);
      if (k < m.length && m[k] !== undefined) out += m[k];
    } else if (m.groups !== undefined && m.groups[name] !== undefined) {
      out += m.groups[name];
    }
  }
  return out;
}

/** Go's Regexp.ReplaceAll(src, repl) with a global copy of re. */
export function regexpReplaceAll(re: RegExp, s: string, tmpl: string): string {
  let out = '';
  let last = 0;
  let lastMatchEnd = -1;
  re.lastIndex = 0;
  for (;;) {
    const m = re.exec(s);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    // Go skips an empty match right after the previous match.
    if (!(end === start && start === lastMatchEnd)) {
      out += s.slice(last, start) + expandTemplate(tmpl, m);
      last = end;
    }
    lastMatchEnd = end;
    if (end === start) {
      if (start >= s.length) break;
      const cp = s.codePointAt(start)!;
      re.lastIndex = start + (cp > 0xffff ? 2 : 1);
    } else {
      re.lastIndex = end;
    }
  }
  return out + s.slice(last);
}

registerFunction(
  'regexp_replace',
  valueFunction(3, 3, ({ zctx }) => {
    let src: string | null = null;
    let re: RegExp | null = null;
    let err: string | null = null;
    const out = new Scratch();
    return ([s, reVal, rep]) => {
      if (!isString(s) || !isString(reVal) || !isString(rep)) {
        return newError(zctx, 'regexp_replace: string values required for all args');
      }
      if (s.len < 0) return out.null(TypeString);
      if (reVal.len < 0 || rep.len < 0) {
        return newError(zctx, 'regexp_replace: 2nd and 3rd args cannot be null');
      }
      const text = stringOf(reVal);
      if (text !== src) {
        src = text;
        try {
          const r = compileRegexp(text);
          re = new RegExp(r.source, r.flags + 'g');
          err = null;
        } catch (e) {
          if (!(e instanceof RegexpError)) throw e;
          re = null;
          err = e.message;
        }
      }
      if (re === null) return newError(zctx, `regexp_replace: ${err}`);
      const r = regexpReplaceAll(re, goString(s), goString(rep));
      // The reference builds the result from nothing: empty is null.
      if (r === '') return out.null(TypeString);
      return out.string(TypeString, r);
    };
  }),
);
