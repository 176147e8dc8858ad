// A growable byte buffer for JSON text, with JSON string escaping exactly
// as Go's encoding/json writes it (the reference's JSON and ZJSON writers
// use that package): \" \\ \n \r \t, other control bytes as \u00XX (\b and
// \f included, as Go before 1.22 wrote them), U+2028 and U+2029 escaped,
// invalid UTF-8 as \ufffd, and with escapeHTML also < > & as \u003c etc.

import { formatFloatE, formatFloatF } from '../../zed/floatfmt';
import { runeLength } from './gotext';

const hex = '0123456789abcdef';

// 1 where a byte is written as itself inside a JSON string.
const safe = new Uint8Array(128);
const htmlSafe = new Uint8Array(128);
for (let c = 0x20; c < 0x80; c++) {
  safe[c] = c === 0x22 || c === 0x5c ? 0 : 1;
  htmlSafe[c] = safe[c] && c !== 0x3c && c !== 0x3e && c !== 0x26 ? 1 : 0;
}

export class JSONText {
  buf: Buffer;
  len = 0;

  constructor(initial = 4096) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  reset(): void {
    this.len = 0;
  }

  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const nb = Buffer.allocUnsafe(size);
    this.buf.copy(nb, 0, 0, this.len);
    this.buf = nb;
  }

  byte(c: number): void {
    if (this.len >= this.buf.length) this.ensure(1);
    this.buf[this.len++] = c;
  }

  /** Appends a string known to be ASCII (numbers, literals, punctuation). */
  ascii(s: string): void {
    const n = s.length;
    this.ensure(n);
    const buf = this.buf;
    let p = this.len;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    this.len = p;
  }

  raw(src: Uint8Array, off: number, len: number): void {
    this.ensure(len);
    const buf = this.buf;
    let p = this.len;
    if (len < 64) {
      // Short pieces (field names) copy faster by hand than through a view.
      for (let i = 0; i < len; i++) buf[p++] = src[off + i];
    } else if (Buffer.isBuffer(src)) {
      src.copy(buf, p, off, off + len);
      p += len;
    } else {
      buf.set(src.subarray(off, off + len), p);
      p += len;
    }
    this.len = p;
  }

  /** Appends UTF-8 bytes as a quoted JSON string. */
  quoteBytes(src: Uint8Array, off: number, len: number, escapeHTML = false): void {
    const ok = escapeHTML ? htmlSafe : safe;
    const end = off + len;
    // Worst case: 6 output bytes per input byte, plus quotes.
    this.ensure(len * 6 + 2);
    const buf = this.buf;
    let p = this.len;
    buf[p++] = 0x22;
    let i = off;
    while (i < end) {
      const c = src[i];
      if (c < 0x80) {
        if (ok[c] === 1) {
          buf[p++] = c;
          i++;
          continue;
        }
        buf[p++] = 0x5c;
        switch (c) {
          case 0x22:
          case 0x5c:
            buf[p++] = c;
            break;
          case 0x0a:
            buf[p++] = 0x6e;
            break;
          case 0x0d:
            buf[p++] = 0x72;
            break;
          case 0x09:
            buf[p++] = 0x74;
            break;
          default:
            buf[p++] = 0x75;
            buf[p++] = 0x30;
            buf[p++] = 0x30;
            buf[p++] = hex.charCodeAt(c >> 4);
            buf[p++] = hex.charCodeAt(c & 15);
        }
        i++;
        continue;
      }
      const n = runeLength(src, i, end);
      if (n === 0) {
        p = writeAsciiAt(buf, p, '\\ufffd');
        i++;
        continue;
      }
      // U+2028 and U+2029 (E2 80 A8/A9) break JavaScript string literals.
      if (n === 3 && c === 0xe2 && src[i + 1] === 0x80 && (src[i + 2] & 0xfe) === 0xa8) {
        p = writeAsciiAt(buf, p, src[i + 2] === 0xa8 ? '\\u2028' : '\\u2029');
        i += 3;
        continue;
      }
      for (let k = 0; k < n; k++) buf[p++] = src[i + k];
      i += n;
    }
    buf[p++] = 0x22;
    this.len = p;
  }

  /** Appends a JS string as a quoted JSON string. */
  quote(s: string, escapeHTML = false): void {
    let ascii = true;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (
        c >= 0x80 ||
        c < 0x20 ||
        c === 0x22 ||
        c === 0x5c ||
        (escapeHTML && (c === 0x3c || c === 0x3e || c === 0x26))
      ) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      this.ensure(s.length + 2);
      this.buf[this.len++] = 0x22;
      this.ascii(s);
      this.buf[this.len++] = 0x22;
      return;
    }
    const b = Buffer.from(s, 'utf8');
    this.quoteBytes(b, 0, b.length, escapeHTML);
  }

  /** The text built so far, as a string. */
  toString(): string {
    return this.buf.toString('utf8', 0, this.len);
  }
}

function writeAsciiAt(buf: Buffer, p: number, s: string): number {
  for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
  return p;
}

const F32_1E_6 = Math.fround(1e-6);
const F32_1E21 = Math.fround(1e21);

/**
 * A finite float as Go's encoding/json writes it: shortest round-trip
 * digits, in %f form for 1e-6 <= |v| < 1e21 and %e form (with a one-digit
 * negative exponent where possible) outside it. bits is the float's width:
 * float32 and float16 values print with float32's shortest digits.
 */
export function formatJSONFloat(v: number, bits: 32 | 64): string {
  if (bits === 64) {
    // JavaScript's own Number-to-string rule is the same, except for -0.
    if (v === 0) return Object.is(v, -0) ? '-0' : '0';
    return String(v);
  }
  // Go compares in float32 here, against float32(1e-6) and float32(1e21).
  const abs = Math.abs(v);
  if (abs !== 0 && (abs < F32_1E_6 || abs >= F32_1E21)) {
    const s = formatFloatE(v, 32);
    const n = s.length;
    // e-07 → e-7
    if (n >= 4 && s[n - 4] === 'e' && s[n - 3] === '-' && s[n - 2] === '0')
      return s.slice(0, n - 2) + s[n - 1];
    return s;
  }
  return formatFloatF(v, 32);
}
