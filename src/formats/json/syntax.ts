// The syntax error Go's encoding/json reports for a JSON text, with its
// exact wording ("invalid character 'x' after object key:value pair",
// "unexpected end of JSON input", ...). Readers that parse with JSON.parse
// (whose messages differ) call this on failure to report what the
// reference would.

import { goQuoteByte } from './gotext';

class SyntaxFail {
  constructor(readonly message: string) {}
}

const EOF_MSG = 'unexpected end of JSON input';

/** Go's error message for text, or null if Go would accept it. */
export function goJSONSyntaxError(text: Uint8Array): string | null {
  const p = new Checker(text);
  try {
    p.space();
    p.value();
    p.space();
    if (p.pos < text.length) p.fail(text[p.pos], 'after top-level value');
    return null;
  } catch (e) {
    if (e instanceof SyntaxFail) return e.message;
    throw e;
  }
}

class Checker {
  pos = 0;

  constructor(private b: Uint8Array) {}

  fail(c: number, context: string): never {
    throw new SyntaxFail(`invalid character ${goQuoteByte(c)} ${context}`);
  }

  private next(): number {
    if (this.pos >= this.b.length) throw new SyntaxFail(EOF_MSG);
    return this.b[this.pos++];
  }

  private peek(): number {
    if (this.pos >= this.b.length) throw new SyntaxFail(EOF_MSG);
    return this.b[this.pos];
  }

  space(): void {
    const b = this.b;
    while (this.pos < b.length) {
      const c = b[this.pos];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      this.pos++;
    }
  }

  /** Checks one value, iteratively (deep input must not exhaust the JS stack). */
  value(): void {
    // Open containers: true for an object, false for an array.
    const stack: boolean[] = [];
    for (;;) {
      // At the start of a value.
      const c = this.next();
      if (c === 0x7b || c === 0x5b) {
        // Go's scanner stops at 10000 levels.
        if (stack.length >= 10000) throw new SyntaxFail('exceeded max depth');
        const isObject = c === 0x7b;
        stack.push(isObject);
        this.space();
        if (this.peek() === (isObject ? 0x7d : 0x5d)) {
          this.pos++;
          stack.pop();
        } else {
          if (isObject) this.key();
          continue;
        }
      } else if (c === 0x22) {
        this.string();
      } else if (c === 0x74) {
        this.literal('true');
      } else if (c === 0x66) {
        this.literal('false');
      } else if (c === 0x6e) {
        this.literal('null');
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        this.number(c);
      } else {
        this.fail(c, 'looking for beginning of value');
      }
      // After a value: close containers until one continues.
      for (;;) {
        if (stack.length === 0) return;
        this.space();
        const d = this.next();
        const inObject = stack[stack.length - 1];
        if (d === (inObject ? 0x7d : 0x5d)) {
          stack.pop();
          continue;
        }
        if (d !== 0x2c)
          this.fail(d, inObject ? 'after object key:value pair' : 'after array element');
        this.space();
        if (inObject) this.key();
        break;
      }
    }
  }

  /** An object key and its colon, leaving pos at the member's value. */
  private key(): void {
    const k = this.next();
    if (k !== 0x22) this.fail(k, 'looking for beginning of object key string');
    this.string();
    this.space();
    const colon = this.next();
    if (colon !== 0x3a) this.fail(colon, 'after object key');
    this.space();
  }

  private string(): void {
    for (;;) {
      const c = this.next();
      if (c === 0x22) return;
      if (c < 0x20) this.fail(c, 'in string literal');
      if (c !== 0x5c) continue;
      const e = this.next();
      if (e === 0x75) {
        for (let i = 0; i < 4; i++) {
          const h = this.next();
          const isHex =
            (h >= 0x30 && h <= 0x39) || (h >= 0x61 && h <= 0x66) || (h >= 0x41 && h <= 0x46);
          if (!isHex) this.fail(h, 'in \\u hexadecimal character escape');
        }
      } else if ('"\\/bfnrt'.indexOf(String.fromCharCode(e)) < 0) {
        this.fail(e, 'in string escape code');
      }
    }
  }

  private literal(word: string): void {
    for (let i = 1; i < word.length; i++) {
      const c = this.next();
      if (c !== word.charCodeAt(i)) this.fail(c, `in literal ${word} (expecting '${word[i]}')`);
    }
  }

  private number(first: number): void {
    const b = this.b;
    const digit = (c: number) => c >= 0x30 && c <= 0x39;
    let c = first;
    if (c === 0x2d) {
      c = this.next();
      if (!digit(c)) this.fail(c, 'in numeric literal');
    }
    // c is the first digit; a leading 0 takes no more digits.
    if (c !== 0x30) while (this.pos < b.length && digit(b[this.pos])) this.pos++;
    if (this.pos < b.length && b[this.pos] === 0x2e) {
      this.pos++;
      const d = this.next();
      if (!digit(d)) this.fail(d, 'after decimal point in numeric literal');
      while (this.pos < b.length && digit(b[this.pos])) this.pos++;
    }
    if (this.pos < b.length && (b[this.pos] === 0x65 || b[this.pos] === 0x45)) {
      this.pos++;
      let d = this.next();
      if (d === 0x2b || d === 0x2d) d = this.next();
      if (!digit(d)) this.fail(d, 'in exponent of numeric literal');
      while (this.pos < b.length && digit(b[this.pos])) this.pos++;
    }
  }
}
