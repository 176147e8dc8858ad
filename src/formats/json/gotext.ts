// Go's text forms that the reference's JSON and ZJSON error messages embed:
// `%q` of a byte (a quoted rune literal) and of a byte slice (a quoted
// string), and Go's UTF-8 decoding rule, under which every byte of an
// invalid sequence becomes one U+FFFD.

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
    const n = runeLength(buf, i, end);
    if (n === 0) {
      s += '\\x' + hex[c >> 4] + hex[c & 15];
      i++;
      continue;
    }
    s += escapeRune(decodeRune(buf, i, n), 0x22);
    i += n;
  }
  return s + '"';
}

/** Go's `%q` of a string. */
export function goQuoteString(s: string): string {
  const b = Buffer.from(s, 'utf8');
  return goQuoteBytes(b, 0, b.length);
}

/**
 * Length of the valid UTF-8 sequence starting at buf[i] (a byte >= 0x80),
 * or 0 when Go's decoder would call it invalid (and consume one byte).
 */
export function runeLength(buf: Uint8Array, i: number, end: number): number {
  const c = buf[i];
  if (c < 0xc2 || c > 0xf4) return 0;
  if (c < 0xe0) return i + 1 < end && (buf[i + 1] & 0xc0) === 0x80 ? 2 : 0;
  if (i + 1 >= end) return 0;
  const c1 = buf[i + 1];
  if (c < 0xf0) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    if (c1 < lo || c1 > hi) return 0;
    return i + 2 < end && (buf[i + 2] & 0xc0) === 0x80 ? 3 : 0;
  }
  const lo = c === 0xf0 ? 0x90 : 0x80;
  const hi = c === 0xf4 ? 0x8f : 0xbf;
  if (c1 < lo || c1 > hi) return 0;
  if (i + 3 >= end || (buf[i + 2] & 0xc0) !== 0x80 || (buf[i + 3] & 0xc0) !== 0x80) return 0;
  return 4;
}

/** Code point of the valid n-byte sequence at buf[i]. */
export function decodeRune(buf: Uint8Array, i: number, n: number): number {
  switch (n) {
    case 2:
      return ((buf[i] & 0x1f) << 6) | (buf[i + 1] & 0x3f);
    case 3:
      return ((buf[i] & 0x0f) << 12) | ((buf[i + 1] & 0x3f) << 6) | (buf[i + 2] & 0x3f);
    default:
      return (
        ((buf[i] & 0x07) << 18) |
        ((buf[i + 1] & 0x3f) << 12) |
        ((buf[i + 2] & 0x3f) << 6) |
        (buf[i + 3] & 0x3f)
      );
  }
}

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
