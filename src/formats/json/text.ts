// JSON text as Go's encoding/json writes it (the reference's JSON and ZJSON
// writers use that package): strings with \" \\ \n \r \t, other control
// bytes as \u00XX (\b and \f included, as Go before 1.22 wrote them),
// U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd, and with escapeHTML
// also < > & as \u003c etc.; floats in Go's shortest form.

import { formatFloatE, formatFloatF } from '../../zed/floatfmt';
import {
  JSON_ESCAPES,
  JSON_HTML_ESCAPES,
  TextBuffer,
  writeQuoted,
  writeQuotedString,
} from '../textbuffer';

/** Appends s as a quoted JSON string. */
export function quoteJSON(out: TextBuffer, s: string, escapeHTML = false): void {
  writeQuotedString(out, s, escapeHTML ? JSON_HTML_ESCAPES : JSON_ESCAPES);
}

/** Appends UTF-8 bytes as a quoted JSON string. */
export function quoteJSONBytes(
  out: TextBuffer,
  src: Uint8Array,
  off: number,
  len: number,
  escapeHTML = false,
): void {
  writeQuoted(out, src, off, len, escapeHTML ? JSON_HTML_ESCAPES : JSON_ESCAPES);
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
