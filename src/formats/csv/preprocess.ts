// The reference runs CSV input through a "preprocess" pass before a
// standard CSV parser, so that a field with quotes in odd places
// (`"value"2`, `value"3" my friend`) reads as one field. We do the same,
// with the same output byte for byte, because it decides what every
// quoted field reads as:
//
// - A field (text up to the delimiter or newline, where quoted parts may
//   contain either) that contains a quote anywhere is rewritten as
//   `"` + its text with the quote marks removed (`""` kept) and outer white
//   space trimmed + `"`. A trailing "\r" of such a field moves after the
//   closing quote and the field then ends in "\r\n", whatever ended it.
// - Fields without quotes pass through untouched.
// - At end of input the last field is emitted as it stands, unwrapped
//   (and a closing quote right at the end is kept), exactly as the
//   reference does: `"x"` with no final newline reads as `x"`.
//
// Input arrives in chunks; fields without quotes are copied in runs.

import { TextBuffer } from '../textbuffer';
import { decodeRune, isSpace, runeLen } from '../zeek/strconv';

const enum State {
  Field,
  String,
  Quote,
}

export class Preprocessor {
  /** The rewritten bytes. */
  readonly out = new TextBuffer();
  /** out[0, safeEnd) ends with a record-ending newline (or is everything, after end()). */
  safeEnd = 0;

  private state = State.Field;
  private hasStr = false;
  private scratch = new TextBuffer(256);

  constructor(private delim: number) {}

  /** Rewrites a chunk of input. */
  push(chunk: Buffer): void {
    const n = chunk.length;
    const delim = this.delim;
    const out = this.out;
    const scratch = this.scratch;
    let i = 0;
    while (i < n) {
      if (this.state === State.Field && !this.hasStr && scratch.len === 0) {
        // Fast path: copy whole fields up to the next quote.
        const q = chunk.indexOf(34, i);
        const limit = q < 0 ? n : q;
        // Start of the field holding `limit`.
        let fs = limit;
        while (fs > i && chunk[fs - 1] !== delim && chunk[fs - 1] !== 10) fs--;
        if (fs > i) {
          out.raw(chunk, i, fs - i);
          const lastNl = chunk.lastIndexOf(10, fs - 1);
          if (lastNl >= i) this.safeEnd = out.len - (fs - 1 - lastNl);
        }
        scratch.raw(chunk, fs, limit - fs);
        i = limit;
        if (q < 0) break;
        this.hasStr = true;
        this.state = State.String;
        i = q + 1;
        continue;
      }
      if (this.state === State.String) {
        const q = chunk.indexOf(34, i);
        if (q < 0) {
          scratch.raw(chunk, i, n - i);
          i = n;
          break;
        }
        scratch.raw(chunk, i, q - i);
        this.state = State.Quote;
        i = q + 1;
        continue;
      }
      if (this.state === State.Quote) {
        if (chunk[i] === 34) {
          scratch.byte(34);
          scratch.byte(34);
          this.state = State.String;
          i++;
          continue;
        }
        // The byte after a closing quote is read again as field text.
        this.state = State.Field;
        continue;
      }
      // Field text, byte by byte, until the field ends.
      const c = chunk[i++];
      if (c === 34) {
        this.hasStr = true;
        this.state = State.String;
      } else if (c === delim || c === 10) {
        this.endField(c);
      } else {
        scratch.byte(c);
      }
    }
  }

  private endField(c: number): void {
    const out = this.out;
    const scratch = this.scratch;
    if (!this.hasStr) {
      out.raw(scratch.buf, 0, scratch.len);
      out.byte(c);
    } else {
      let crlf = false;
      let len = scratch.len;
      if (len > 1 && scratch.buf[len - 1] === 13) {
        crlf = true;
        len--;
      }
      const [s, e] = trimSpace(scratch.buf, 0, len);
      out.byte(34);
      out.raw(scratch.buf, s, e - s);
      out.byte(34);
      if (crlf) {
        out.byte(13);
        out.byte(10);
      } else {
        out.byte(c);
      }
    }
    if (c === 10) this.safeEnd = out.len;
    scratch.len = 0;
    this.hasStr = false;
  }

  /** Flushes the final field at end of input. */
  end(): void {
    if (this.state === State.Quote) this.scratch.byte(34);
    this.out.raw(this.scratch.buf, 0, this.scratch.len);
    this.scratch.len = 0;
    this.state = State.Field;
    this.hasStr = false;
    this.safeEnd = this.out.len;
  }
}

/** Go's bytes.TrimSpace bounds of buf[s, e). */
export function trimSpace(buf: Buffer, s: number, e: number): [number, number] {
  while (s < e) {
    const c = buf[s];
    if (c < 0x80) {
      if (!(c === 32 || (c >= 9 && c <= 13))) break;
      s++;
      continue;
    }
    const r = decodeRune(buf, s, e);
    if (!isSpace(r)) break;
    s += runeLen;
  }
  while (e > s) {
    const c = buf[e - 1];
    if (c < 0x80) {
      if (!(c === 32 || (c >= 9 && c <= 13))) break;
      e--;
      continue;
    }
    // Back up to the start of the last rune.
    let k = e - 1;
    while (k > s && k > e - 4 && (buf[k] & 0xc0) === 0x80) k--;
    const r = decodeRune(buf, k, e);
    if (runeLen !== e - k || !isSpace(r)) break;
    e = k;
  }
  return [s, e];
}
