// Text-to-number conversions with the syntax and error texts of Go's
// strconv and net/netip, which the reference's Zeek and CSV readers use:
// the values they accept and the messages they fail with are part of the
// formats' observable behaviour.

import { makeNet, parseIP } from '../../zed/ipnet';

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;

/** Go's utf8.RuneError. */
export const RUNE_ERROR = 0xfffd;

/** Byte length of the rune last decoded by decodeRune. */
export let runeLen = 1;

/**
 * Decodes the UTF-8 rune at buf[i] (i < end) as Go's utf8.DecodeRune does:
 * an invalid or truncated sequence yields RUNE_ERROR with length 1.
 */
export function decodeRune(buf: Uint8Array, i: number, end: number): number {
  const c = buf[i];
  if (c < 0x80) {
    runeLen = 1;
    return c;
  }
  let n: number;
  let r: number;
  let min: number;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    r = c & 0x1f;
    min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    r = c & 0x0f;
    min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    r = c & 0x07;
    min = 0x10000;
  } else {
    runeLen = 1;
    return RUNE_ERROR;
  }
  if (i + n > end) {
    runeLen = 1;
    return RUNE_ERROR;
  }
  for (let k = 1; k < n; k++) {
    const cc = buf[i + k];
    if ((cc & 0xc0) !== 0x80) {
      runeLen = 1;
      return RUNE_ERROR;
    }
    r = (r << 6) | (cc & 0x3f);
  }
  if (r < min || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) {
    runeLen = 1;
    return RUNE_ERROR;
  }
  runeLen = n;
  return r;
}

const printRe = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space. */
export function isPrint(r: number): boolean {
  if (r < 0x80) return r >= 0x20 && r < 0x7f;
  return printRe.test(String.fromCodePoint(r));
}

const spaceRe = /^\s$/u;

/** Go's unicode.IsSpace. */
export function isSpace(r: number): boolean {
  if (r < 0x80) return r === 0x20 || (r >= 0x09 && r <= 0x0d);
  if (r === 0x85 || r === 0xa0) return true;
  if (r === 0xfeff) return false;
  return spaceRe.test(String.fromCodePoint(r));
}

const hexDigits = '0123456789abcdef';

/** Go's strconv.Quote (the %q verb) of the bytes of s. */
export function goQuote(s: string | Uint8Array): string {
  const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
  let out = '"';
  for (let i = 0; i < b.length;) {
    const r = decodeRune(b, i, b.length);
    const n = runeLen;
    if (r === RUNE_ERROR && n === 1) {
      out += '\\x' + hexDigits[b[i] >> 4] + hexDigits[b[i] & 0xf];
      i++;
      continue;
    }
    i += n;
    switch (r) {
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      case 0x07:
        out += '\\a';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x0b:
        out += '\\v';
        continue;
    }
    if (isPrint(r)) {
      out += String.fromCodePoint(r);
    } else if (r < 0x20 || r === 0x7f) {
      out += '\\x' + hexDigits[r >> 4] + hexDigits[r & 0xf];
    } else if (r < 0x10000) {
      out += '\\u' + r.toString(16).padStart(4, '0');
    } else {
      out += '\\U' + r.toString(16).padStart(8, '0');
    }
  }
  return out + '"';
}

/** A conversion failure carrying Go's error text. */
export class ParseError extends Error {}

function syntaxError(fn: string, s: string): ParseError {
  return new ParseError(`strconv.${fn}: parsing ${goQuote(s)}: invalid syntax`);
}

function rangeError(fn: string, s: string): ParseError {
  return new ParseError(`strconv.${fn}: parsing ${goQuote(s)}: value out of range`);
}

/** strconv.ParseInt(s, 10, bits). */
export function parseGoInt(s: string, bits = 64): number | bigint {
  let i = 0;
  if (s.length > 0 && (s[0] === '+' || s[0] === '-')) i = 1;
  if (i >= s.length) throw syntaxError('ParseInt', s);
  for (let k = i; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) throw syntaxError('ParseInt', s);
  }
  if (s.length - i <= 15) {
    const v = Number(s);
    if (bits < 64 && (v > 2 ** (bits - 1) - 1 || v < -(2 ** (bits - 1)))) {
      throw rangeError('ParseInt', s);
    }
    return v;
  }
  const v = BigInt(s);
  const max = bits === 64 ? MAX_INT64 : (1n << BigInt(bits - 1)) - 1n;
  const min = bits === 64 ? MIN_INT64 : -(1n << BigInt(bits - 1));
  if (v > max || v < min) throw rangeError('ParseInt', s);
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

/** strconv.ParseUint(s, 10, bits). */
export function parseGoUint(s: string, bits = 64): number | bigint {
  if (s.length === 0) throw syntaxError('ParseUint', s);
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) throw syntaxError('ParseUint', s);
  }
  if (s.length <= 15) {
    const v = Number(s);
    if (bits < 64 && v >= 2 ** bits) throw rangeError('ParseUint', s);
    return v;
  }
  const v = BigInt(s);
  const max = bits === 64 ? MAX_UINT64 : (1n << BigInt(bits)) - 1n;
  if (v > max) throw rangeError('ParseUint', s);
  return v <= 9007199254740991n ? Number(v) : v;
}

const boolValues: Record<string, boolean> = {
  '1': true,
  t: true,
  T: true,
  TRUE: true,
  true: true,
  True: true,
  '0': false,
  f: false,
  F: false,
  FALSE: false,
  false: false,
  False: false,
};

/** strconv.ParseBool, or undefined when s is not a Go boolean. */
export function goBool(s: string): boolean | undefined {
  return boolValues[s];
}

/** strconv.ParseBool. */
export function parseGoBool(s: string): boolean {
  const v = boolValues[s];
  if (v === undefined) throw syntaxError('ParseBool', s);
  return v;
}

const decimalRe = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const hexRe = /^([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+))[pP]([+-]?[0-9]+)$/;

// Go's underscoreOK: underscores only between digits (or after a base prefix).
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1])) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

function special(s: string): number | undefined {
  const lower = s.toLowerCase();
  switch (lower) {
    case 'inf':
    case '+inf':
    case 'infinity':
    case '+infinity':
      return Infinity;
    case '-inf':
    case '-infinity':
      return -Infinity;
    case 'nan':
      return NaN;
  }
  return undefined;
}

/**
 * strconv.ParseFloat(s, 64) without throwing: the value, or undefined for
 * a syntax error, or null when the value overflows (Go's range error).
 */
export function goFloat(s: string): number | undefined | null {
  const c = s.charCodeAt(0);
  if (!(c >= 48 && c <= 57) && c !== 46) {
    const sp = special(s);
    if (sp !== undefined) return sp;
  }
  if (s.indexOf('_') >= 0) {
    if (!underscoreOK(s)) return undefined;
    s = s.replace(/_/g, '');
  }
  let v: number;
  if (decimalRe.test(s)) {
    v = Number(s);
  } else {
    const m = hexRe.exec(s);
    if (!m) return undefined;
    const [, sign, mant, exp] = m;
    const dot = mant.indexOf('.');
    const digits = dot < 0 ? mant : mant.slice(0, dot) + mant.slice(dot + 1);
    const fracBits = dot < 0 ? 0 : 4 * (mant.length - dot - 1);
    const e = Number(exp) - fracBits;
    const big = BigInt('0x' + (digits || '0'));
    // Two steps so that a tiny or huge power of two stays representable.
    const half = Math.trunc(e / 2);
    v = Number(big) * 2 ** half * 2 ** (e - half);
    if (sign === '-') v = -v;
  }
  if (!Number.isFinite(v)) return null;
  return v;
}

/** strconv.ParseFloat(s, 64). */
export function parseGoFloat(s: string): number {
  const v = goFloat(s);
  if (v === undefined) throw syntaxError('ParseFloat', s);
  if (v === null) throw rangeError('ParseFloat', s);
  return v;
}

function addrError(s: string, msg: string, at?: string): ParseError {
  const suffix = at ? ` (at ${goQuote(at)})` : '';
  return new ParseError(`ParseAddr(${goQuote(s)}): ${msg}${suffix}`);
}

// netip's IPv4 parser, for its error texts.
function parseGoIPv4(s: string): Uint8Array {
  const out = new Uint8Array(4);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && val === 0) throw addrError(s, 'IPv4 field has octet with leading zero');
      val = val * 10 + c - 48;
      digits++;
      if (val > 255) throw addrError(s, 'IPv4 field has value >255');
    } else if (c === 46) {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') {
        throw addrError(s, 'IPv4 field must have at least one digit', s.slice(i));
      }
      if (pos === 3) throw addrError(s, 'IPv4 address too long');
      out[pos++] = val;
      val = 0;
      digits = 0;
    } else {
      throw addrError(s, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw addrError(s, 'IPv4 address too short');
  out[3] = val;
  return out;
}

/** netip.ParseAddr: 4 or 16 address bytes. */
export function parseGoAddr(s: string): Uint8Array {
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '.') return parseGoIPv4(s);
    if (c === ':') {
      const ip = parseIP(s);
      if (!ip || ip.length !== 16) throw addrError(s, 'unable to parse IP');
      return ip;
    }
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

/** netip.ParsePrefix followed by masking: the 8- or 32-byte network encoding. */
export function parseGoPrefix(s: string): Uint8Array {
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw new ParseError(`netip.ParsePrefix(${goQuote(s)}): no '/'`);
  let ip: Uint8Array;
  try {
    ip = parseGoAddr(s.slice(0, slash));
  } catch (e) {
    throw new ParseError(`netip.ParsePrefix(${goQuote(s)}): ${(e as Error).message}`);
  }
  const bitsText = s.slice(slash + 1);
  if (!/^[+-]?[0-9]+$/.test(bitsText)) {
    throw new ParseError(
      `netip.ParsePrefix(${goQuote(s)}): bad bits after slash: ${goQuote(bitsText)}`,
    );
  }
  const bits = Number(bitsText);
  if (bits < 0 || bits > ip.length * 8) {
    throw new ParseError(`netip.ParsePrefix(${goQuote(s)}): prefix length out of range`);
  }
  return makeNet(ip, bits);
}
