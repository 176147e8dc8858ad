// A growable byte buffer that writers assemble lines in: small appends are
// plain JS loops rather than native calls, and a whole line then goes to
// the output in one piece.

/** A growable byte buffer. */
export class ByteBuf {
  buf: Buffer;
  len = 0;

  constructor(size = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(size);
  }

  reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const nb = Buffer.allocUnsafe(size);
    this.buf.copy(nb, 0, 0, this.len);
    this.buf = nb;
  }

  push(b: number): void {
    if (this.len === this.buf.length) this.reserve(1);
    this.buf[this.len++] = b;
  }

  append(src: Buffer, s: number, e: number): void {
    const n = e - s;
    if (n <= 0) return;
    this.reserve(n);
    if (n < 32) {
      const buf = this.buf;
      let at = this.len;
      for (let i = s; i < e; i++) buf[at++] = src[i];
    } else {
      src.copy(this.buf, this.len, s, e);
    }
    this.len += n;
  }

  /** Appends the UTF-8 bytes of s (ASCII copied by hand). */
  text(s: string): void {
    const n = s.length;
    this.reserve(n);
    const buf = this.buf;
    let at = this.len;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.len = at;
        this.reserve((n - i) * 3);
        this.len += this.buf.write(s.slice(i), this.len, 'utf8');
        return;
      }
      buf[at++] = c;
    }
    this.len = at;
  }

  /** Drops the first n bytes. */
  shift(n: number): void {
    if (n <= 0) return;
    this.buf.copy(this.buf, 0, n, this.len);
    this.len -= n;
  }
}
