// Regular expressions in the reference's syntax (Go RE2) run on
// JavaScript's engine, and globs turned into them as the reference does.
//
// The translation covers what differs in practice: leading flag groups
// ((?i) etc.), named groups (?P<n>...), \A \z, \Q...\E, POSIX classes
// ([[:alpha:]]), \pL forms, and escaped punctuation, which RE2 accepts
// everywhere but JavaScript's Unicode mode does not.

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7f',
  blank: '\\t ',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

function hexEscape(c: string): string {
  return '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0');
}

function isPunct(c: string): boolean {
  return /^[!-/:-@[-`{-~]$/.test(c);
}

export class RegexpError extends Error {}

/** Translates an RE2 pattern to a JavaScript RegExp (throws RegexpError). */
export function compileRegexp(pattern: string): RegExp {
  let flags = '';
  let src = pattern;
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    for (const f of lead[1]) if (f !== 'U' && !flags.includes(f)) flags += f;
    src = src.slice(lead[0].length);
  }
  let out = '';
  let unicode = false;
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\' && i + 1 < src.length) {
      const d = src[++i];
      if (d === 'Q') {
        const end = src.indexOf('\\E', i + 1);
        const lit = end < 0 ? src.slice(i + 1) : src.slice(i + 1, end);
        for (const ch of lit) out += isPunct(ch) ? hexEscape(ch) : ch;
        i = end < 0 ? src.length : end + 1;
      } else if (d === 'z' && !inClass) {
        out += '(?![\\s\\S])';
      } else if (d === 'A' && !inClass) {
        out += '(?<![\\s\\S])';
      } else if ((d === 'p' || d === 'P') && i + 1 < src.length) {
        unicode = true;
        if (src[i + 1] === '{') {
          const end = src.indexOf('}', i);
          out += '\\' + d + src.slice(i + 1, end + 1);
          i = end;
        } else {
          out += '\\' + d + '{' + src[i + 1] + '}';
          i++;
        }
      } else if (isPunct(d)) {
        out += hexEscape(d);
      } else {
        out += '\\' + d;
      }
      continue;
    }
    if (inClass) {
      if (c === '[' && src[i + 1] === ':') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(src.slice(i));
        if (m && POSIX[m[2]] !== undefined && m[1] === '') {
          out += POSIX[m[2]];
          i += m[0].length - 1;
          continue;
        }
      }
      if (c === ']') inClass = false;
      out += c === '[' ? '\\[' : c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (src[i + 1] === '^') out += src[++i];
      if (src[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && src.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    out += c;
  }
  if (unicode) flags += 'u';
  try {
    return new RegExp(out, flags);
  } catch (e) {
    const msg = (e as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, '');
    throw new RegexpError(`error parsing regexp: ${goRegexpMessage(msg, pattern)}`);
  }
}

/** The RE2 wording of a JavaScript regexp syntax error (the common ones). */
function goRegexpMessage(msg: string, pattern: string): string {
  const m = msg.toLowerCase();
  if (m.startsWith('unterminated group')) return `missing closing ): \`${pattern}\``;
  if (m.startsWith("unmatched ')'")) return `unexpected ): \`${pattern}\``;
  if (m.startsWith('unterminated character class')) {
    return `missing closing ]: \`${pattern.slice(pattern.lastIndexOf('['))}\``;
  }
  if (m.startsWith('nothing to repeat')) {
    const op = /[*+?{]/.exec(pattern);
    return `missing argument to repetition operator: \`${op ? op[0] : '*'}\``;
  }
  if (m.startsWith('\\ at end of pattern')) return 'trailing backslash at end of expression: ``';
  return `${m}: \`${pattern}\``;
}

/** The reference's glob-to-regexp translation (pkg/reglob), anchored. */
export function reglob(glob: string): string {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    switch (c) {
      case '/':
      case '$':
      case '^':
      case '+':
      case '.':
      case '(':
      case ')':
      case '=':
      case '!':
      case '|':
      case ',':
        re += '\\' + c;
        break;
      case '?':
      case '[':
      case ']':
      case '{':
      case '}':
        break;
      case '\\':
        if (glob[i + 1] === '*') {
          i++;
          re += '\\*';
        } else {
          re += c;
        }
        break;
      case '*':
        while (glob[i + 1] === '*') i++;
        re += '.*';
        break;
      default:
        re += c;
    }
  }
  return '^' + re + '$';
}
