// KSUIDs: the lake's globally unique, roughly time-ordered identifiers.
//
// 20 bytes: a 4-byte big-endian count of seconds since the KSUID epoch
// (1400000000 Unix seconds) followed by 16 random bytes. Their text form is
// 27 base62 digits (0-9A-Za-z, most significant first, zero padded), used in
// storage paths and messages; results show the 20 bytes as `0x` + 40 hex
// digits (the ZNG bytes form). Both forms parse.

import { randomFillSync } from 'node:crypto';

const EPOCH = 1400000000;
const BYTES = 20;
const TEXT_LEN = 27;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

// Random bytes are drawn in blocks: one crypto call per 256 IDs.
const pool = Buffer.allocUnsafe(16 * 256);
let poolPos = pool.length;

export class Ksuid {
  private text?: string;

  private constructor(readonly bytes: Buffer) {}

  /** The zero ID (a branch with no commit yet points at it). */
  static readonly nil = new Ksuid(Buffer.alloc(BYTES));

  /** A new ID stamped with the current time (or `nowMs`). */
  static generate(nowMs = Date.now()): Ksuid {
    const b = Buffer.allocUnsafe(BYTES);
    const secs = Math.floor(nowMs / 1000) - EPOCH;
    b.writeUInt32BE(secs >>> 0, 0);
    if (poolPos >= pool.length) {
      randomFillSync(pool);
      poolPos = 0;
    }
    pool.copy(b, 4, poolPos, poolPos + 16);
    poolPos += 16;
    return new Ksuid(b);
  }

  /** The ID held in 20 bytes (copied). Throws on another length. */
  static fromBytes(bytes: Uint8Array): Ksuid {
    if (bytes.length !== BYTES) throw new Error(`valid KSUIDs are ${BYTES} bytes`);
    return new Ksuid(Buffer.from(bytes));
  }

  /**
   * Parses the base62 form or the `0x` hex form; returns undefined when s is
   * neither (callers word the error: the reference says `invalid ID: <s>`).
   */
  static parse(s: string): Ksuid | undefined {
    if (s.length === 2 + 2 * BYTES && s.startsWith('0x')) {
      if (!/^[0-9a-fA-F]+$/.test(s.slice(2))) return undefined;
      return new Ksuid(Buffer.from(s.slice(2), 'hex'));
    }
    if (s.length !== TEXT_LEN) return undefined;
    const digits: number[] = [];
    for (let i = 0; i < TEXT_LEN; i++) {
      const c = s.charCodeAt(i);
      const d = c < 128 ? DIGIT[c] : -1;
      if (d < 0) return undefined;
      digits.push(d);
    }
    const out = base62ToBytes(digits);
    if (!out) return undefined;
    const id = new Ksuid(out);
    id.text = s;
    return id;
  }

  /** Like parse but throws `invalid ID: <s>`. */
  static mustParse(s: string): Ksuid {
    const id = Ksuid.parse(s);
    if (!id) throw new Error(`invalid ID: ${s}`);
    return id;
  }

  get isNil(): boolean {
    for (let i = 0; i < BYTES; i++) if (this.bytes[i] !== 0) return false;
    return true;
  }

  /** Seconds since the Unix epoch at which the ID was made. */
  get timestamp(): number {
    return this.bytes.readUInt32BE(0) + EPOCH;
  }

  equals(o: Ksuid): boolean {
    return this.bytes.equals(o.bytes);
  }

  compare(o: Ksuid): number {
    return this.bytes.compare(o.bytes);
  }

  /** The 27-character base62 form (paths, messages, map keys). */
  toString(): string {
    return (this.text ??= bytesToBase62(this.bytes));
  }

  /** `0x` + 40 hex digits: the form results show. */
  toHex(): string {
    return '0x' + this.bytes.toString('hex');
  }

  toJSON(): string {
    return this.toString();
  }
}

// Base conversion on 32-bit words (five words make the 160-bit number).

function bytesToBase62(b: Buffer): string {
  let words = [
    b.readUInt32BE(0),
    b.readUInt32BE(4),
    b.readUInt32BE(8),
    b.readUInt32BE(12),
    b.readUInt32BE(16),
  ];
  const out = new Array<string>(TEXT_LEN).fill('0');
  let pos = TEXT_LEN;
  while (words.length > 0) {
    const quotient: number[] = [];
    let rem = 0;
    for (const w of words) {
      const acc = rem * 2 ** 32 + w;
      const q = Math.floor(acc / 62);
      rem = acc - q * 62;
      if (quotient.length > 0 || q !== 0) quotient.push(q);
    }
    out[--pos] = ALPHABET[rem];
    words = quotient;
  }
  return out.join('');
}

function base62ToBytes(digits: number[]): Buffer | undefined {
  // words holds the number in base 2^32, most significant first.
  const words = [0, 0, 0, 0, 0];
  for (const d of digits) {
    let carry = d;
    for (let i = words.length - 1; i >= 0; i--) {
      const acc = words[i] * 62 + carry;
      words[i] = acc % 2 ** 32;
      carry = Math.floor(acc / 2 ** 32);
    }
    if (carry !== 0) return undefined; // beyond 160 bits
  }
  const out = Buffer.allocUnsafe(BYTES);
  for (let i = 0; i < 5; i++) out.writeUInt32BE(words[i], i * 4);
  return out;
}

/** The IDs without repeats, in first-seen order. */
export function uniqueIds(ids: Ksuid[]): Ksuid[] {
  return [...new Map(ids.map((id) => [id.toString(), id])).values()];
}
