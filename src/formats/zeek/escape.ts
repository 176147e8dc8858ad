// Zeek string escaping, as the reference reads and writes it.
//
// Reading: "\xHH" and the C escapes (\\ \" \b \f \n \r \t) are decoded;
// anything else after a backslash is kept. If the result is not valid
// UTF-8, the offending bytes (and non-printable runes) are re-escaped as
// "\xHH" text, the way Zeek's own JSON output does, and the string is put
// in Unicode NFC form.
//
// Writing: backslash doubles, non-printable runes (and tab, and comma
// inside a set or vector) become "\x" escapes of their code point, and the
// strings "-" and "(empty)", which would read back as unset and empty
// container, are disguised by escaping their first character.

import { isUtf8 } from 'node:buffer';
import { TextBuffer } from '../textbuffer';
import { decodeRune, isPrint, RUNE_ERROR, runeLen } from './strconv';

function unhex(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return 255;
}

function unesc(c: number): number {
  switch (c) {
    case 0x5c:
      return 0x5c;
    case 0x22:
      return 0x22;
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
  }
  return 0;
}

/** Decodes Zeek escapes in buf[s, e) into a new buffer. */
export function unescapeZeek(buf: Uint8Array, s: number, e: number): Buffer {
  const out = Buffer.allocUnsafe(e - s);
  let n = 0;
  let i = s;
  while (i < e) {
    const c = buf[i];
    if (c === 0x5c && e - i >= 2) {
      if (e - i >= 4 && buf[i + 1] === 0x78) {
        const v1 = unhex(buf[i + 2]);
        const v2 = unhex(buf[i + 3]);
        // The reference accepts the escape when either digit is valid.
        if (v1 <= 0xf || v2 <= 0xf) {
          out[n++] = ((v1 << 4) | v2) & 0xff;
          i += 4;
          continue;
        }
      } else {
        const u = unesc(buf[i + 1]);
        if (u !== 0) {
          out[n++] = u;
          i += 2;
          continue;
        }
      }
    }
    out[n++] = c;
    i++;
  }
  return out.subarray(0, n);
}

const hexDigits = '0123456789abcdef';

/** Escapes invalid UTF-8 bytes and non-printable runes of b as "\xHH" text. */
export function escapeZeekHex(b: Uint8Array): Buffer {
  const parts: number[] = [];
  for (let i = 0; i < b.length;) {
    const r = decodeRune(b, i, b.length);
    if (r === RUNE_ERROR || !isPrint(r)) {
      const c = b[i];
      parts.push(0x5c, 0x78, hexDigits.charCodeAt(c >> 4), hexDigits.charCodeAt(c & 0xf));
      i++;
    } else {
      for (let k = 0; k < runeLen; k++) parts.push(b[i + k]);
      i += runeLen;
    }
  }
  return Buffer.from(parts);
}

/**
 * The bytes of a Zeek string field buf[s, e) as the reference stores them:
 * unescaped, hex-escaped if not UTF-8, in NFC. Returns null when the field
 * can be stored as it is (the common case: ASCII without backslashes).
 */
export function zeekStringBytes(buf: Uint8Array, s: number, e: number): Buffer | null {
  let plain = true;
  for (let i = s; i < e; i++) {
    const c = buf[i];
    if (c === 0x5c || c >= 0x80) {
      plain = false;
      break;
    }
  }
  if (plain) return null;
  let b = unescapeZeek(buf, s, e);
  if (!isUtf8(b)) b = escapeZeekHex(b);
  if (mayChangeUnderNFC(b)) {
    const str = b.toString('utf8');
    const norm = str.normalize('NFC');
    if (norm !== str) b = Buffer.from(norm, 'utf8');
  }
  return b;
}

// Lead bytes below 0xcc encode code points below U+0300, which NFC leaves
// alone and which compose with nothing before them.
function mayChangeUnderNFC(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] >= 0xcc) return true;
  return false;
}

/**
 * Writes the string bytes buf[s, e) as the Zeek writer does. Works on
 * bytes so that invalid UTF-8 passes through unchanged, as it does in the
 * reference.
 */
export function writeZeekString(
  out: TextBuffer,
  buf: Buffer,
  s: number,
  e: number,
  inContainer: boolean,
): void {
  const n = e - s;
  if (n === 1 && buf[s] === 0x2d) {
    out.text('\\x2d');
    return;
  }
  if (n === 7 && isEmptyMarker(buf, s)) {
    out.text('\\x28empty)');
    return;
  }
  let start = s;
  for (let i = s; i < e;) {
    const c = buf[i];
    if (c >= 0x20 && c < 0x7f && c !== 0x5c && !(inContainer && c === 0x2c)) {
      i++;
      continue;
    }
    if (c === 0x5c) {
      out.raw(buf, start, i - start);
      out.text('\\\\');
      i++;
      start = i;
      continue;
    }
    const r = decodeRune(buf, i, e);
    const len = runeLen;
    if (!isPrint(r) || r === 0x09 || (inContainer && r === 0x2c)) {
      out.raw(buf, start, i - start);
      out.text(hexRune(r));
      i += len;
      start = i;
    } else {
      i += len;
    }
  }
  out.raw(buf, start, e - start);
}

const emptyMarker = Buffer.from('(empty)');

function isEmptyMarker(buf: Uint8Array, s: number): boolean {
  for (let k = 0; k < 7; k++) if (buf[s + k] !== emptyMarker[k]) return false;
  return true;
}

// The code point in hex, zero-padded to an even length, as "\x" pairs.
function hexRune(r: number): string {
  let code = r.toString(16);
  if (code.length & 1) code = '0' + code;
  let out = '';
  for (let k = 0; k < code.length; k += 2) out += '\\x' + code.slice(k, k + 2);
  return out;
}
