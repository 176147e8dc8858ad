// Go's text forms that the reference's JSON and ZJSON error messages embed:
// `%q` of a byte (a quoted rune literal) and of a byte slice (a quoted
// string), and Go's UTF-8 decoding rule, under which every byte of an
// invalid sequence becomes one U+FFFD.

import { decodeSeq, utf8SeqLen } from '../zson/gotext';

const printRe = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space. */
function isPrint(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f;
  return printRe.test(String.fromCodePoint(cp));
}

const hex = '0123456789abcdef';

function escapeRune(cp: number, quote: number): string {
  if (cp === quote || cp === 0x5c) return '\\' + String.fromCharCode(cp);
  if (isPrint(cp)) return String.fromCodePoint(cp);
  switch (cp) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return '\\x' + hex[cp >> 4] + hex[cp & 15];
  if (cp < 0x10000) return '\\u' + cp.toString(16).padStart(4, '0');
  return '\\U' + cp.toString(16).padStart(8, '0');
}

/** Go's `%q` of a byte: a single-quoted rune literal, e.g. 'x', '\n', 'ÿ'. */
export function goQuoteByte(c: number): string {
  return "'" + escapeRune(c, 0x27) + "'";
}

/** Go's `%q` of a byte slice (strconv.Quote): invalid UTF-8 bytes as \xHH. */
export function goQuoteBytes(buf: Uint8Array, off: number, end: number): string {
  let s = '"';
  let i = off;
  while (i < end) {
    const c = buf[i];
    if (c < 0x80) {
      s += escapeRune(c, 0x22);
      i++;
      continue;
    }
    const n = utf8SeqLen(buf, i, end);
    if (n === 0) {
      s += '\\x' + hex[c >> 4] + hex[c & 15];
      i++;
      continue;
    }
    s += escapeRune(decodeSeq(buf, i, n), 0x22);
    i += n;
  }
  return s + '"';
}

/** Go's `%q` of a string. */
export function goQuoteString(s: string): string {
  const b = Buffer.from(s, 'utf8');
  return goQuoteBytes(b, 0, b.length);
}

// Go's UTF-8 decoding rule, shared with the ZSON format.
export { utf8SeqLen as runeLength, decodeSeq as decodeRune } from '../zson/gotext';

/** Writes code point cp as UTF-8 at out[w]; returns the new write offset. */
export function encodeRune(out: Uint8Array, w: number, cp: number): number {
  if (cp < 0x80) {
    out[w++] = cp;
  } else if (cp < 0x800) {
    out[w++] = 0xc0 | (cp >> 6);
    out[w++] = 0x80 | (cp & 0x3f);
  } else if (cp < 0x10000) {
    out[w++] = 0xe0 | (cp >> 12);
    out[w++] = 0x80 | ((cp >> 6) & 0x3f);
    out[w++] = 0x80 | (cp & 0x3f);
  } else {
    out[w++] = 0xf0 | (cp >> 18);
    out[w++] = 0x80 | ((cp >> 12) & 0x3f);
    out[w++] = 0x80 | ((cp >> 6) & 0x3f);
    out[w++] = 0x80 | (cp & 0x3f);
  }
  return w;
}
