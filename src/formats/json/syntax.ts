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
  private depth = 0;

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

  value(): void {
    const c = this.next();
    switch (c) {
      case 0x7b:
        this.object();
        return;
      case 0x5b:
        this.array();
        return;
      case 0x22:
        this.string();
        return;
      case 0x74:
        this.literal('true');
        return;
      case 0x66:
        this.literal('false');
        return;
      case 0x6e:
        this.literal('null');
        return;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.number(c);
      return;
    }
    this.fail(c, 'looking for beginning of value');
  }

  private nest(): void {
    // Go's scanner stops at 10000 levels.
    if (++this.depth > 10000) throw new SyntaxFail('exceeded max depth');
  }

  private object(): void {
    this.nest();
    this.space();
    if (this.peek() === 0x7d) {
      this.pos++;
      this.depth--;
      return;
    }
    for (;;) {
      const k = this.next();
      if (k !== 0x22) this.fail(k, 'looking for beginning of object key string');
      this.string();
      this.space();
      const colon = this.next();
      if (colon !== 0x3a) this.fail(colon, 'after object key');
      this.space();
      this.value();
      this.space();
      const d = this.next();
      if (d === 0x7d) break;
      if (d !== 0x2c) this.fail(d, 'after object key:value pair');
      this.space();
    }
    this.depth--;
  }

  private array(): void {
    this.nest();
    this.space();
    if (this.peek() === 0x5d) {
      this.pos++;
      this.depth--;
      return;
    }
    for (;;) {
      this.space();
      this.value();
      this.space();
      const d = this.next();
      if (d === 0x5d) break;
      if (d !== 0x2c) this.fail(d, 'after array element');
    }
    this.depth--;
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
