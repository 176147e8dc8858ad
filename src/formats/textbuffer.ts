// The growable byte buffer that every text writer assembles its output in
// (ZSON, JSON, ZJSON, Zeek, CSV, table, text), and quoting of UTF-8 bytes
// as a double-quoted string, with the escapes of ZSON or of Go's
// encoding/json chosen by a table.

import { copyRange, utf8SeqLen } from './zson/gotext';

/** A growable byte buffer: append pieces, then take or hand on buf[0, len). */
export class TextBuffer {
  buf: Buffer;
  len = 0;

  constructor(size = 1 << 16) {
    this.buf = Buffer.allocUnsafe(size);
  }

  reset(): void {
    this.len = 0;
  }

  /** Makes room for n more bytes. */
  ensure(n: number): void {
    const need = this.len + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const nb = Buffer.allocUnsafe(size);
    this.buf.copy(nb, 0, 0, this.len);
    this.buf = nb;
  }

  byte(c: number): void {
    if (this.len >= this.buf.length) this.ensure(1);
    this.buf[this.len++] = c;
  }

  /** Appends a string of ASCII (Latin-1) characters. */
  ascii(s: string): void {
    const n = s.length;
    if (this.len + n > this.buf.length) this.ensure(n);
    const buf = this.buf;
    let p = this.len;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    this.len = p;
  }

  /** Appends any string as UTF-8. */
  utf8(s: string): void {
    this.ensure(s.length * 3);
    this.len += this.buf.write(s, this.len, 'utf8');
  }

  /** Appends any string as UTF-8, copying ASCII by hand (quick for short, mostly ASCII text). */
  text(s: string): void {
    const n = s.length;
    this.ensure(n);
    const buf = this.buf;
    let at = this.len;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.len = at;
        this.utf8(s.slice(i));
        return;
      }
      buf[at++] = c;
    }
    this.len = at;
  }

  raw(src: Uint8Array, off: number, len: number): void {
    if (this.len + len > this.buf.length) this.ensure(len);
    if (len < 256) {
      // Short pieces (field names, strings) copy faster by hand than through a view.
      const buf = this.buf;
      let p = this.len;
      for (let i = 0; i < len; i++) buf[p++] = src[off + i];
      this.len = p;
      return;
    }
    this.buf.set(src.subarray(off, off + len), this.len);
    this.len += len;
  }

  /** Appends the decimal digits of a non-negative safe integer. */
  digits(n: number): void {
    if (n < 10) {
      this.byte(48 + n);
      return;
    }
    let k = 1;
    for (let m = n; m >= 10; m = Math.floor(m / 10)) k++;
    if (this.len + k > this.buf.length) this.ensure(k);
    const buf = this.buf;
    let p = this.len + k;
    this.len = p;
    while (n >= 10) {
      const q = Math.floor(n / 10);
      buf[--p] = 48 + (n - q * 10);
      n = q;
    }
    buf[--p] = 48 + n;
  }

  spaces(n: number): void {
    if (n <= 0) return;
    if (this.len + n > this.buf.length) this.ensure(n);
    const buf = this.buf;
    let p = this.len;
    for (let i = 0; i < n; i++) buf[p++] = 0x20;
    this.len = p;
  }

  /** Drops the first n bytes. */
  shift(n: number): void {
    if (n <= 0) return;
    this.buf.copy(this.buf, 0, n, this.len);
    this.len -= n;
  }

  /** Takes the text written so far, leaving the buffer empty. */
  take(): Buffer {
    const out = copyRange(this.buf, 0, this.len);
    this.len = 0;
    return out;
  }

  toString(): string {
    return this.buf.toString('utf8', 0, this.len);
  }
}

/**
 * How a quoted string writes each ASCII byte: 0 as itself, 0x75 ('u') as
 * \u00XX, any other byte c as a backslash and c. lineSeps: U+2028 and
 * U+2029 as \u2028 and \u2029.
 */
export interface Escapes {
  readonly table: Uint8Array;
  readonly lineSeps: boolean;
}

function escapes(named: Record<number, number>, also: string, lineSeps: boolean): Escapes {
  const table = new Uint8Array(128);
  for (let c = 0; c < 0x20; c++) table[c] = 0x75;
  table[0x22] = 0x22;
  table[0x5c] = 0x5c;
  for (const [c, e] of Object.entries(named)) table[Number(c)] = e;
  for (let i = 0; i < also.length; i++) table[also.charCodeAt(i)] = 0x75;
  return { table, lineSeps };
}

const NAMED = { 0x0a: 0x6e, 0x0d: 0x72, 0x09: 0x74 }; // \n \r \t

/** ZSON's escapes (the reference's): \b and \f by name too. */
export const ZSON_ESCAPES = escapes({ ...NAMED, 0x08: 0x62, 0x0c: 0x66 }, '', false);
/** Go's encoding/json (before Go 1.22, as the reference was built): \b and \f as \u00XX. */
export const JSON_ESCAPES = escapes(NAMED, '', true);
/** Go's encoding/json with HTML escaping: < > & as \u003c \u003e \u0026. */
export const JSON_HTML_ESCAPES = escapes(NAMED, '<>&', true);

const hexDigits = '0123456789abcdef';

/**
 * Appends src[off, off+len) as a double-quoted string with the escapes of
 * esc; bytes that are not valid UTF-8 (by Go's decoding rule) as \ufffd,
 * as the reference's writers do.
 */
export function writeQuoted(
  out: TextBuffer,
  src: Uint8Array,
  off: number,
  len: number,
  esc: Escapes,
): void {
  // Worst case: 6 output bytes per input byte, plus quotes.
  out.ensure(len * 6 + 2);
  const table = esc.table;
  const ob = out.buf;
  let p = out.len;
  ob[p++] = 0x22;
  const end = off + len;
  for (let i = off; i < end;) {
    const c = src[i];
    if (c < 0x80) {
      const e = table[c];
      if (e === 0) {
        ob[p++] = c;
      } else if (e === 0x75) {
        ob[p++] = 0x5c;
        ob[p++] = 0x75;
        ob[p++] = 0x30;
        ob[p++] = 0x30;
        ob[p++] = hexDigits.charCodeAt(c >> 4);
        ob[p++] = hexDigits.charCodeAt(c & 15);
      } else {
        ob[p++] = 0x5c;
        ob[p++] = e;
      }
      i++;
      continue;
    }
    const n = utf8SeqLen(src, i, end);
    if (n === 0) {
      p = writeEscape(ob, p, 0xfffd);
      i++;
      continue;
    }
    // U+2028 and U+2029 (E2 80 A8/A9) end lines in JavaScript source.
    if (
      esc.lineSeps &&
      n === 3 &&
      c === 0xe2 &&
      src[i + 1] === 0x80 &&
      (src[i + 2] & 0xfe) === 0xa8
    ) {
      p = writeEscape(ob, p, src[i + 2] === 0xa8 ? 0x2028 : 0x2029);
      i += 3;
      continue;
    }
    for (let k = 0; k < n; k++) ob[p++] = src[i + k];
    i += n;
  }
  ob[p++] = 0x22;
  out.len = p;
}

/** Writes \uXXXX for a code point below 0x10000 at ob[p]; returns the new offset. */
function writeEscape(ob: Buffer, p: number, cp: number): number {
  ob[p++] = 0x5c;
  ob[p++] = 0x75;
  for (let shift = 12; shift >= 0; shift -= 4) ob[p++] = hexDigits.charCodeAt((cp >> shift) & 15);
  return p;
}

/** Appends a JS string as a double-quoted string with the escapes of esc. */
export function writeQuotedString(out: TextBuffer, s: string, esc: Escapes): void {
  const table = esc.table;
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || table[c] !== 0) {
      plain = false;
      break;
    }
  }
  if (plain) {
    out.ensure(s.length + 2);
    out.buf[out.len++] = 0x22;
    out.ascii(s);
    out.buf[out.len++] = 0x22;
    return;
  }
  const b = Buffer.from(s, 'utf8');
  writeQuoted(out, b, 0, b.length, esc);
}
