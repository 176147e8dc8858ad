// Splits a byte source into lines without copying the common case: a line
// that lies inside one chunk is reported as a range of that chunk. Partial
// lines at chunk ends are kept as a list of pieces and joined once, when
// their newline arrives, so a long line costs one copy however many chunks
// it spans. Lines longer than a limit are skipped and reported as such, so
// memory stays bounded on hostile input.

import { ByteSource } from '../io';

const EMPTY = Buffer.alloc(0);

export class LineScanner {
  /** Buffer holding the current line. */
  buf: Buffer = EMPTY;
  /** The current line is buf[start, end), without its newline. */
  start = 0;
  end = 0;
  /** Whether the current line ended with a newline (false only for a final line). */
  hasNewline = false;
  /** The current line exceeded maxLine and was skipped (start = end). */
  tooLong = false;
  /** 1-based number of the current line. */
  lineNo = 0;
  /** Byte offset of the current line in the input. */
  lineOffset = 0;

  private chunk: Buffer = EMPTY;
  private pos = 0;
  private consumed = 0; // input bytes before chunk[0]
  private pieces: Buffer[] = [];
  private piecesLen = 0;
  private skipping = false;
  private eof = false;

  constructor(
    private src: ByteSource,
    private maxLine: number,
  ) {}

  /** True once the input is exhausted and every line has been returned. */
  get done(): boolean {
    return this.eof && this.pos >= this.chunk.length && this.pieces.length === 0 && !this.skipping;
  }

  /**
   * Advances to the next line held in memory. Returns false when more input
   * is needed (call fill()) or the input is done.
   */
  next(): boolean {
    const chunk = this.chunk;
    const pos = this.pos;
    const nl = pos < chunk.length ? chunk.indexOf(10, pos) : -1;
    if (nl >= 0) {
      this.lineNo++;
      this.hasNewline = true;
      this.pos = nl + 1;
      if (this.skipping) return this.skipped(this.consumed + pos - this.piecesLen);
      if (this.pieces.length === 0) {
        if (nl - pos > this.maxLine) return this.skipped(this.consumed + pos);
        return this.found(chunk, pos, nl, this.consumed + pos);
      }
      return this.joinPieces(chunk.subarray(pos, nl));
    }
    // No newline in what is left of the chunk: keep it as a piece.
    if (pos < chunk.length) {
      this.keep(chunk.subarray(pos));
      this.pos = chunk.length;
    }
    if (!this.eof) return false;
    if (this.pieces.length === 0 && !this.skipping) return false;
    // A final line without a newline.
    this.lineNo++;
    this.hasNewline = false;
    if (this.skipping) return this.skipped(this.consumed + this.chunk.length - this.piecesLen);
    return this.joinPieces(EMPTY);
  }

  /** Reports the line buf[start, end) found at input offset `offset`. */
  private found(buf: Buffer, start: number, end: number, offset: number): true {
    this.tooLong = false;
    this.buf = buf;
    this.start = start;
    this.end = end;
    this.lineOffset = offset;
    return true;
  }

  /** Reports a line that was too long (and has been dropped). */
  private skipped(offset: number): true {
    this.skipping = false;
    this.pieces = [];
    this.piecesLen = 0;
    this.found(EMPTY, 0, 0, offset);
    this.tooLong = true;
    return true;
  }

  private keep(piece: Buffer): void {
    if (this.skipping) {
      this.piecesLen += piece.length;
      return;
    }
    this.pieces.push(piece);
    this.piecesLen += piece.length;
    if (this.piecesLen > this.maxLine) {
      // Too long: drop what we have and discard up to the next newline.
      this.pieces = [];
      this.skipping = true;
    }
  }

  private joinPieces(tail: Buffer): boolean {
    const total = this.piecesLen + tail.length;
    // The line's content ends just before the newline at pos - 1 (or at
    // the end of input) and started `total` bytes earlier.
    const contentEnd = this.consumed + (this.hasNewline ? this.pos - 1 : this.pos);
    if (total > this.maxLine) return this.skipped(contentEnd - total);
    this.pieces.push(tail);
    const joined = Buffer.concat(this.pieces, total);
    this.pieces = [];
    this.piecesLen = 0;
    return this.found(joined, 0, total, contentEnd - total);
  }

  /** Reads the next chunk of input (or notes the end of input). */
  async fill(): Promise<void> {
    if (this.eof) return;
    const chunk = await this.src.read();
    this.consumed += this.chunk.length;
    if (chunk === null || chunk.length === 0) {
      if (chunk === null) this.eof = true;
      this.chunk = EMPTY;
      this.pos = 0;
      return;
    }
    this.chunk = chunk;
    this.pos = 0;
  }
}
