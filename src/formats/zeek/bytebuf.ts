// The growable byte buffer the Zeek and CSV code assembles text in: the
// ZSON formatter's TextBuffer, plus appending text that is usually ASCII
// and dropping a consumed prefix.

import { TextBuffer } from '../zson';

export class ByteBuf extends TextBuffer {
  /** Appends the UTF-8 bytes of s, copying ASCII by hand. */
  text(s: string): void {
    const n = s.length;
    this.ensure(n);
    const buf = this.buf;
    let at = this.len;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.len = at;
        this.utf8(s.slice(i));
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
