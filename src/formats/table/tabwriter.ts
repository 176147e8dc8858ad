// Column alignment as Go's text/tabwriter does it with no flags and a
// padding character other than tab (the reference's table writer: minimum
// width 0, padding 1, spaces).
//
// Input is text whose cells end at a tab (or \v); a line ends at \n (or
// \f). The last cell of a line belongs to no column. A column is aligned
// over each run of consecutive lines that have a cell in it (a "column
// block"): every cell of the block is padded to the widest cell's width
// (in runes) plus the padding. Text between two 0xff bytes is one piece
// whose terminators are not special (Go's Escape). Everything is buffered
// until flush(), or until a line of one cell ends (which cannot change
// the layout of what follows).

import { TextBuffer } from '../textbuffer';
import { decodeRune, runeLen } from '../zeek/strconv';

const ESCAPE = 0xff;

/** Go's utf8.RuneCount of buf[s, e): invalid bytes count one each. */
function runeCount(buf: Uint8Array, s: number, e: number): number {
  let n = 0;
  for (let i = s; i < e; n++) {
    if (buf[i] < 0x80) i++;
    else {
      decodeRune(buf, i, e);
      i += runeLen;
    }
  }
  return n;
}

export class TabWriter {
  /** Formatted output; the owner drains it. */
  readonly out = new TextBuffer(64 * 1024);
  // Text of the buffered cells, and the start of text not yet measured.
  private text = new TextBuffer(64 * 1024);
  private pos = 0;
  // Whether text since pos has bytes of 0x80 and up (else width = bytes).
  private nonASCII = false;
  // The cell being written.
  private cellSize = 0;
  private cellWidth = 0;
  private endChar = 0;
  // Finished cells (size in bytes, width in runes), all lines in a row.
  private sizes = new Int32Array(256);
  private widths = new Int32Array(256);
  private ncells = 0;
  // Index of each line's first cell; the last line is the one being written.
  private lineStart = new Int32Array(64);
  private nlines = 0;
  // Widths of the columns of the block being formatted, leftmost first.
  private colWidths: number[] = [];

  constructor(
    private readonly minWidth = 0,
    private readonly padding = 1,
    private readonly padChar = 0x20,
  ) {
    this.reset();
  }

  /** Writes the bytes src[s, e). */
  write(src: Uint8Array, s = 0, e = src.length): void {
    let n = s;
    let i = s;
    while (i < e) {
      if (this.endChar !== 0) {
        // Inside an escape: only its closing byte matters.
        while (i < e && src[i] !== ESCAPE) i++;
        if (i === e) break;
        this.append(src, n, i + 1);
        n = ++i;
        this.endEscape();
        continue;
      }
      // Plain text up to the next terminator or escape, noting whether it
      // needs a rune count.
      let ch = 0;
      for (; i < e; i++) {
        ch = src[i];
        if (ch < 0x80) {
          if (ch <= 12 && ch >= 9) break;
        } else if (ch === ESCAPE) break;
        else this.nonASCII = true;
      }
      if (i === e) break;
      this.append(src, n, i);
      this.updateWidth();
      if (ch === ESCAPE) {
        n = i++;
        this.endChar = ESCAPE;
        this.nonASCII = true;
        continue;
      }
      n = ++i;
      const cells = this.terminateCell();
      if (ch === 10 || ch === 12) {
        this.addLine();
        // A one-cell line ends every column block: format what we have.
        if (ch === 12 || cells === 1) this.flush();
      }
    }
    this.append(src, n, e);
  }

  /** Formats every buffered line into out (a partial last line without its newline). */
  flush(): void {
    if (this.cellSize > 0) {
      // An escape still open at a flush ends here.
      if (this.endChar !== 0) this.endEscape();
      this.terminateCell();
    }
    this.format(0, 0, this.nlines);
    this.reset();
  }

  private reset(): void {
    this.text.len = 0;
    this.pos = 0;
    this.nonASCII = false;
    this.cellSize = 0;
    this.cellWidth = 0;
    this.endChar = 0;
    this.ncells = 0;
    this.nlines = 0;
    this.colWidths.length = 0;
    this.addLine();
  }

  private append(src: Uint8Array, s: number, e: number): void {
    if (e <= s) return;
    this.text.raw(src, s, e - s);
    this.cellSize += e - s;
  }

  private updateWidth(): void {
    const end = this.text.len;
    this.cellWidth += this.nonASCII ? runeCount(this.text.buf, this.pos, end) : end - this.pos;
    this.nonASCII = false;
    this.pos = end;
  }

  private endEscape(): void {
    this.updateWidth();
    // The two escape bytes have no width.
    this.cellWidth -= 2;
    this.endChar = 0;
  }

  /** Ends the current cell; returns the number of cells in its line. */
  private terminateCell(): number {
    const k = this.ncells;
    if (k === this.sizes.length) {
      const sizes = new Int32Array(k * 2);
      sizes.set(this.sizes);
      this.sizes = sizes;
      const widths = new Int32Array(k * 2);
      widths.set(this.widths);
      this.widths = widths;
    }
    this.sizes[k] = this.cellSize;
    this.widths[k] = this.cellWidth;
    this.ncells = k + 1;
    this.cellSize = 0;
    this.cellWidth = 0;
    return this.ncells - this.lineStart[this.nlines - 1];
  }

  private addLine(): void {
    if (this.nlines === this.lineStart.length) {
      const starts = new Int32Array(this.nlines * 2);
      starts.set(this.lineStart);
      this.lineStart = starts;
    }
    this.lineStart[this.nlines++] = this.ncells;
  }

  private lineLen(i: number): number {
    const end = i + 1 < this.nlines ? this.lineStart[i + 1] : this.ncells;
    return end - this.lineStart[i];
  }

  /**
   * Writes lines [line0, line1) whose text starts at pos, aligning the
   * column after those whose widths are known; returns the text position
   * after them.
   */
  private format(pos: number, line0: number, line1: number): number {
    const column = this.colWidths.length;
    for (let th = line0; th < line1; th++) {
      if (column >= this.lineLen(th) - 1) continue;
      // A block of this column starts here: the lines before it are done.
      pos = this.writeLines(pos, line0, th);
      line0 = th;
      let width = this.minWidth;
      for (; th < line1; th++) {
        if (column >= this.lineLen(th) - 1) break;
        const w = this.widths[this.lineStart[th] + column] + this.padding;
        if (w > width) width = w;
      }
      this.colWidths.push(width);
      pos = this.format(pos, line0, th);
      this.colWidths.pop();
      line0 = th;
    }
    return this.writeLines(pos, line0, line1);
  }

  private writeLines(pos: number, line0: number, line1: number): number {
    const out = this.out;
    const text = this.text.buf;
    const cols = this.colWidths;
    for (let i = line0; i < line1; i++) {
      const a = this.lineStart[i];
      const n = this.lineLen(i);
      for (let j = 0; j < n; j++) {
        const size = this.sizes[a + j];
        if (size > 0) {
          out.raw(text, pos, size);
          pos += size;
        }
        if (j < cols.length) this.pad(cols[j] - this.widths[a + j]);
      }
      if (i + 1 === this.nlines) {
        // The line being written: its unfinished cell, and no newline.
        out.raw(text, pos, this.cellSize);
        pos += this.cellSize;
      } else {
        out.byte(10);
      }
    }
    return pos;
  }

  private pad(n: number): void {
    const out = this.out;
    if (this.padChar === 0x20) {
      out.spaces(n);
      return;
    }
    for (let i = 0; i < n; i++) out.byte(this.padChar);
  }
}
