// Quoting of identifiers, type names and strings as ZSON writes them.

const letterRe = /^\p{L}$/u;

function isIdChar(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 0x80) {
    return (
      (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36 // _ $
    );
  }
  return letterRe.test(c);
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

/** True if s can appear unquoted as a field name. */
export function isIdentifier(s: string): boolean {
  if (s === '') return false;
  let first = true;
  for (const c of s) {
    if (!isIdChar(c) && (first || !isDigit(c))) return false;
    first = false;
  }
  return true;
}

/** True if s can appear unquoted as a type name (letters, digits, _ $ .). */
export function isTypeName(s: string): boolean {
  let first = true;
  for (const c of s) {
    if (!(isIdChar(c) || isDigit(c) || c === '.')) return false;
    if (first && isDigit(c)) return false;
    first = false;
  }
  return true;
}

export function quotedName(name: string): string {
  return isIdentifier(name) ? name : quoteString(name);
}

export function quotedTypeName(name: string): string {
  return isTypeName(name) ? name : quoteString(name);
}

const hex = '0123456789abcdef';

// ASCII bytes written as themselves inside a quoted string.
const safe: boolean[] = [];
for (let c = 0; c < 128; c++) safe[c] = c >= 0x20 && c !== 0x22 && c !== 0x5c;

/** Quotes a JS string with ZSON's (JSON's) escapes. */
export function quoteString(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || safe[c]) {
      // Lone surrogates are what invalid UTF-8 decodes to: write U+FFFD as
      // the reference does.
      if (c >= 0xd800 && c <= 0xdfff) {
        const isPair =
          c <= 0xdbff &&
          i + 1 < s.length &&
          s.charCodeAt(i + 1) >= 0xdc00 &&
          s.charCodeAt(i + 1) <= 0xdfff;
        if (isPair) {
          i++;
          continue;
        }
        out += s.slice(start, i) + '\\ufffd';
        start = i + 1;
      }
      continue;
    }
    out += s.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x0c:
        out += '\\f';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      default:
        out += '\\u00' + hex[c >> 4] + hex[c & 0xf];
    }
  }
  return out + s.slice(start) + '"';
}
