// zcode: the tag-encoded byte layout shared by every Zed value (ZNG spec §2.2).
//
// A value body is preceded by a uvarint tag: 0 for null, length+1 otherwise.
// Containers are concatenations of tag-encoded children, so any value can be
// walked without knowing its type. These helpers work on (buffer, offset)
// pairs rather than subarrays: a subarray costs a JS object, an offset does not.

/** Bytes a uvarint of v occupies. */
export function uvarintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** Writes v as a uvarint at buf[off], returning the offset after it. */
export function putUvarint(buf: Uint8Array, off: number, v: number): number {
  while (v >= 0x80) {
    buf[off++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[off++] = v;
  return off;
}

/**
 * `readUvarint` returns the value and leaves the offset just past it in
 * `uv.end`, so the hot path allocates no result object.
 */
export const uv = { end: 0 };

/**
 * Reads a uvarint at buf[off]. Returns -1 if the buffer ends first (a
 * truncated varint); values past 2^53 lose precision, which no length or
 * type ID reaches.
 */
export function readUvarint(buf: Uint8Array, off: number, end: number = buf.length): number {
  let b = off < end ? buf[off++] : -1;
  if (b < 0x80) {
    uv.end = off;
    return b;
  }
  let v = b & 0x7f;
  let scale = 128;
  for (;;) {
    if (off >= end) return -1;
    b = buf[off++];
    v += (b & 0x7f) * scale;
    if (b < 0x80) break;
    scale *= 128;
    if (scale > 2 ** 63) return -1;
  }
  uv.end = off;
  return v;
}

/**
 * Iterates the tag-encoded children of a container body. After next(),
 * `off`/`len` give the child body (len -1 for null). Reused, not reallocated,
 * by callers that walk many containers.
 */
export class ZIter {
  buf!: Uint8Array;
  pos = 0;
  end = 0;
  off = 0;
  len = 0;

  constructor(buf?: Uint8Array, off = 0, end = 0) {
    if (buf) this.reset(buf, off, end);
  }

  reset(buf: Uint8Array, off: number, end: number): this {
    this.buf = buf;
    this.pos = off;
    this.end = end;
    return this;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** Advances to the next child. Throws on a corrupt encoding. */
  next(): void {
    const tag = readUvarint(this.buf, this.pos, this.end);
    if (tag < 0) throw new ZcodeError('truncated tag');
    const start = uv.end;
    if (tag === 0) {
      this.off = start;
      this.len = -1;
      this.pos = start;
      return;
    }
    const len = tag - 1;
    if (start + len > this.end) throw new ZcodeError('tag length exceeds container');
    this.off = start;
    this.len = len;
    this.pos = start + len;
  }
}

export class ZcodeError extends Error {}

/** Count of the children of a container body. */
export function countChildren(buf: Uint8Array, off: number, end: number): number {
  let n = 0;
  while (off < end) {
    const tag = readUvarint(buf, off, end);
    if (tag < 0) throw new ZcodeError('truncated tag');
    off = uv.end + (tag === 0 ? 0 : tag - 1);
    n++;
  }
  if (off > end) throw new ZcodeError('tag length exceeds container');
  return n;
}

/**
 * Builder appends tag-encoded values into a growable buffer, with nested
 * containers whose tags are patched in when they close. It is the one way
 * values are constructed, so every producer yields canonical bytes.
 */
export class Builder {
  buf: Buffer;
  len = 0;
  private stack: number[] = [];

  constructor(initial = 256) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  reset(): void {
    this.len = 0;
    this.stack.length = 0;
  }

  /** Ensures room for n more bytes. */
  grow(n: number): void {
    const need = this.len + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const nb = Buffer.allocUnsafe(size);
    this.buf.copy(nb, 0, 0, this.len);
    this.buf = nb;
  }

  /** Appends a null child. */
  appendNull(): void {
    this.grow(1);
    this.buf[this.len++] = 0;
  }

  /** Appends a child whose body is src[off, off+len); len -1 appends null. */
  append(src: Uint8Array, off: number, len: number): void {
    if (len < 0) {
      this.appendNull();
      return;
    }
    this.grow(len + 10);
    const buf = this.buf;
    let o = this.len;
    if (len < 127) buf[o++] = len + 1;
    else o = putUvarint(buf, o, len + 1);
    if (len <= 32) {
      // Short bodies: a byte loop beats a subarray (a JS object per call).
      for (let i = off, e = off + len; i < e; i++) buf[o++] = src[i];
    } else {
      buf.set(len === src.length && off === 0 ? src : src.subarray(off, off + len), o);
      o += len;
    }
    this.len = o;
  }

  /** Appends a child whose body is the given bytes (null for a null child). */
  appendBytes(b: Uint8Array | null): void {
    if (b === null) this.appendNull();
    else this.append(b, 0, b.length);
  }

  /** Appends raw bytes with no tag (e.g. copying an already tagged run). */
  appendRaw(src: Uint8Array, off: number, len: number): void {
    this.grow(len);
    if (len <= 32) {
      const buf = this.buf;
      let o = this.len;
      for (let i = off, e = off + len; i < e; i++) buf[o++] = src[i];
      this.len = o;
      return;
    }
    this.buf.set(src.subarray(off, off + len), this.len);
    this.len += len;
  }

  /** Starts a container child; its children follow until endContainer. */
  beginContainer(): void {
    this.grow(1);
    this.stack.push(this.len);
    // Reserve one byte for the tag: most containers are under 127 bytes.
    this.len++;
  }

  endContainer(): void {
    const at = this.stack.pop();
    if (at === undefined) throw new ZcodeError('endContainer without beginContainer');
    const bodyStart = at + 1;
    const bodyLen = this.len - bodyStart;
    const tagSize = uvarintSize(bodyLen + 1);
    if (tagSize > 1) {
      this.grow(tagSize - 1);
      this.buf.copyWithin(at + tagSize, bodyStart, this.len);
      this.len += tagSize - 1;
    }
    putUvarint(this.buf, at, bodyLen + 1);
  }

  /** Appends an unsigned integer body, little-endian, minimal length. */
  appendUint(v: number | bigint): void {
    this.grow(10);
    const start = this.len++;
    const n = writeUintLE(this.buf, this.len, v);
    this.buf[start] = n + 1;
    this.len += n;
  }

  /** Appends a signed integer body (sign in bit 0, little-endian, minimal). */
  appendInt(v: number | bigint): void {
    this.grow(10);
    const start = this.len++;
    const n = writeIntLE(this.buf, this.len, v);
    this.buf[start] = n + 1;
    this.len += n;
  }

  /** The bytes built so far (a view; copy before reusing the builder). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  /** A copy of the bytes built so far. */
  copy(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }

  /**
   * The body of the single top-level child built so far: for building one
   * value (e.g. a record) whose own tag is not wanted.
   */
  body(): { buf: Buffer; off: number; len: number } {
    const tag = readUvarint(this.buf, 0, this.len);
    return { buf: this.buf, off: uv.end, len: tag === 0 ? -1 : tag - 1 };
  }
}

/**
 * Writes the minimal little-endian unsigned encoding of v at buf[off] and
 * returns its byte count (0 for zero). v must be a non-negative integer.
 */
export function writeUintLE(buf: Uint8Array, off: number, v: number | bigint): number {
  let n = 0;
  if (typeof v === 'number') {
    while (v > 0) {
      buf[off + n++] = v % 256;
      v = Math.floor(v / 256);
    }
    return n;
  }
  while (v > 0n) {
    buf[off + n++] = Number(v & 0xffn);
    v >>= 8n;
  }
  return n;
}

/**
 * Writes the signed integer v as the reference encodes it (zcode's counted
 * varint): the magnitude shifted left one bit with the sign in bit 0
 * (2n for n ≥ 0, 2|n|+1 for n < 0; -2^63 is 1), then little-endian with no
 * leading zero bytes. Returns the byte count.
 */
export function writeIntLE(buf: Uint8Array, off: number, v: number | bigint): number {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) {
      // Exact in float arithmetic below 2^52 in magnitude.
      if (v >= 0 && v < 2 ** 52) return writeUintLE(buf, off, v * 2);
      if (v < 0 && v > -(2 ** 52)) return writeUintLE(buf, off, -v * 2 + 1);
    }
    v = BigInt(v);
  }
  v = BigInt.asIntN(64, v);
  const u = v >= 0n ? v << 1n : BigInt.asUintN(64, (-v << 1n) | 1n);
  return writeUintLE(buf, off, u);
}
