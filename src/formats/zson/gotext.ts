// The pieces of Go's text handling that the reference's ZSON reader and
// writer inherit: UTF-8 validity by Go's decoding rule, Unicode classes of
// runes (unicode.IsSpace, unicode.IsLetter), `%q` quoting for error
// messages, and `%T` names of types.

import { Type, TypeNamed } from '../../zed/types';

/**
 * Length of the valid UTF-8 sequence at buf[i] (1–4), or 0 when the bytes
 * there do not start one (Go's utf8.DecodeRune then yields U+FFFD for that
 * single byte). buf[i] must be >= 0x80.
 */
export function utf8SeqLen(buf: Uint8Array, i: number, end: number): number {
  const c = buf[i];
  if (c < 0xc2) return 0;
  if (c < 0xe0) return i + 1 < end && (buf[i + 1] & 0xc0) === 0x80 ? 2 : 0;
  if (c < 0xf0) {
    if (i + 2 >= end) return 0;
    const c1 = buf[i + 1];
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    if (c1 < lo || c1 > hi || (buf[i + 2] & 0xc0) !== 0x80) return 0;
    return 3;
  }
  if (c < 0xf5) {
    if (i + 3 >= end) return 0;
    const c1 = buf[i + 1];
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    if (c1 < lo || c1 > hi || (buf[i + 2] & 0xc0) !== 0x80 || (buf[i + 3] & 0xc0) !== 0x80)
      return 0;
    return 4;
  }
  return 0;
}

/** The code point of a valid sequence of length n at buf[i]. */
export function decodeSeq(buf: Uint8Array, i: number, n: number): number {
  switch (n) {
    case 2:
      return ((buf[i] & 0x1f) << 6) | (buf[i + 1] & 0x3f);
    case 3:
      return ((buf[i] & 0x0f) << 12) | ((buf[i + 1] & 0x3f) << 6) | (buf[i + 2] & 0x3f);
    case 4:
      return (
        ((buf[i] & 0x07) << 18) |
        ((buf[i + 1] & 0x3f) << 12) |
        ((buf[i + 2] & 0x3f) << 6) |
        (buf[i + 3] & 0x3f)
      );
    default:
      return buf[i];
  }
}

/** True when buf[off, end) is valid UTF-8 (utf8.Valid). */
export function validUTF8(buf: Uint8Array, off: number, end: number): boolean {
  for (let i = off; i < end;) {
    if (buf[i] < 0x80) {
      i++;
      continue;
    }
    const n = utf8SeqLen(buf, i, end);
    if (n === 0) return false;
    i += n;
  }
  return true;
}

/**
 * Decodes bytes to a string as Go's string-to-rune conversion does: every
 * byte that does not start a valid sequence becomes one U+FFFD.
 */
export function decodeUTF8Go(buf: Uint8Array, off: number, end: number): string {
  let s = '';
  let start = off;
  for (let i = off; i < end;) {
    if (buf[i] < 0x80) {
      i++;
      continue;
    }
    const n = utf8SeqLen(buf, i, end);
    if (n > 0) {
      i += n;
      continue;
    }
    s += Buffer.from(buf.buffer, buf.byteOffset + start, i - start).toString('utf8') + '\ufffd';
    i++;
    start = i;
  }
  return s + Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8');
}

/** unicode.IsSpace. */
export function isSpaceRune(r: number): boolean {
  if (r < 0x80) return r === 0x20 || (r >= 0x09 && r <= 0x0d);
  return (
    r === 0x85 ||
    r === 0xa0 ||
    r === 0x1680 ||
    (r >= 0x2000 && r <= 0x200a) ||
    r === 0x2028 ||
    r === 0x2029 ||
    r === 0x202f ||
    r === 0x205f ||
    r === 0x3000
  );
}

/** The line breaks that end a `//` comment. */
export function isNewlineRune(r: number): boolean {
  return (r >= 0x0a && r <= 0x0d) || r === 0x85 || r === 0x2028 || r === 0x2029;
}

const letterRe = /^\p{L}$/u;

/** unicode.IsLetter, _ or $: the characters of ZSON identifiers. */
export function isIdRune(r: number): boolean {
  if (r < 0x80)
    return (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a) || r === 0x5f || r === 0x24;
  return letterRe.test(String.fromCodePoint(r));
}

export function isDigitRune(r: number): boolean {
  return r >= 0x30 && r <= 0x39;
}

/** Characters of an unquoted type name. */
export function isTypeRune(r: number): boolean {
  return isIdRune(r) || isDigitRune(r) || r === 0x2e;
}

const printRe = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const hexDigits = '0123456789abcdef';

/** Go's `%q` of a string (strconv.Quote). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x22 || cp === 0x5c) out += '\\' + ch;
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (cp === 0x0a) out += '\\n';
    else if (cp === 0x09) out += '\\t';
    else if (cp === 0x0d) out += '\\r';
    else if (cp === 0x07) out += '\\a';
    else if (cp === 0x08) out += '\\b';
    else if (cp === 0x0c) out += '\\f';
    else if (cp === 0x0b) out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + hexDigits[cp >> 4] + hexDigits[cp & 15];
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else if (printRe.test(ch)) out += ch;
    else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += '\\U' + cp.toString(16).padStart(8, '0');
  }
  return out + '"';
}

const kindTypeNames = [
  '',
  'TypeRecord',
  'TypeArray',
  'TypeSet',
  'TypeMap',
  'TypeUnion',
  'TypeEnum',
  'TypeError',
];

/** Go's `%T` of a type as the reference's error messages print it. */
export function goTypeName(t: Type): string {
  if (t instanceof TypeNamed) return '*zed.TypeNamed';
  if (t.kind !== 0) return '*zed.' + kindTypeNames[t.kind];
  const name = (t as unknown as { name: string }).name;
  const go = name === 'ip' ? 'IP' : name === 'net' ? 'Net' : name[0].toUpperCase() + name.slice(1);
  return '*zed.TypeOf' + go;
}

// Buffer's unchecked Latin-1 decoder (not in Node's type declarations).
const latin1Slice = (
  Buffer.prototype as unknown as { latin1Slice(start: number, end: number): string }
).latin1Slice;

/** buf[start, end) as Latin-1 text: quick for ASCII. */
export function latin1(buf: Buffer, start: number, end: number): string {
  return latin1Slice.call(buf, start, end);
}

/** A copy of buf[start, end) (Buffer.from of a view copies byte by byte). */
export function copyRange(buf: Buffer, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(end - start);
  buf.copy(out, 0, start, end);
  return out;
}
