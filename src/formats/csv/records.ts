// Splits preprocessed CSV text into records with the rules and error
// texts of Go's encoding/csv reader as the reference configures it
// (non-lazy quotes, field count fixed by the first record, leading white
// space trimmed unless the delimiter is itself white space):
//
// - "\r\n" ends a line like "\n"; a "\r" just before the end of input is
//   dropped; empty lines are skipped.
// - A field starting with `"` is quoted: `""` is a quote, and the closing
//   quote must be followed by the delimiter or the end of the line.
// - A quote inside an unquoted field is an error.
//
// Errors read like Go's: `parse error on line 2, column 5: bare " in
// non-quoted-field`, `record on line 3: wrong number of fields`.

import { decodeRune, isSpace, runeLen } from '../zeek/strconv';
import { TextBuffer } from '../textbuffer';

export const ERR_BARE_QUOTE = 'bare " in non-quoted-field';
export const ERR_QUOTE = 'extraneous or missing " in quoted-field';
export const ERR_FIELD_COUNT = 'wrong number of fields';

/** A record-level parse failure, with Go's message and position. */
export class CsvParseError extends Error {
  constructor(
    readonly startLine: number,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(
      reason === ERR_FIELD_COUNT
        ? `record on line ${line}: ${reason}`
        : startLine !== line
          ? `record on line ${startLine}; parse error on line ${line}, column ${column}: ${reason}`
          : `parse error on line ${line}, column ${column}: ${reason}`,
    );
  }
}

export class RecordSplitter {
  /** Field contents of the last record, back to back. */
  readonly fields = new TextBuffer(1024);
  /** End offset in `fields` of each field of the last record. */
  ends: number[] = [];
  /** Lines read so far (the line of the last record's end). */
  numLine = 0;
  /** After next() returns -1: where parsing resumes (past skipped empty lines). */
  resume = 0;
  private fieldsPerRecord = 0;
  private readonly trim: boolean;

  // The current line: buf[ls, le) is its content (newline excluded,
  // "\r\n" normalised), nl whether a newline ended it.
  private ls = 0;
  private le = 0;
  private nl = false;

  constructor(private delim: number) {
    this.trim = !isSpace(delim);
  }

  /**
   * Reads the next line of buf from pos (bounded by end) into ls/le/nl and
   * returns the position after it, or -1 at the end.
   */
  private readLine(buf: Buffer, pos: number, end: number): number {
    if (pos >= end) return -1;
    const nlAt = buf.indexOf(10, pos);
    this.numLine++;
    if (nlAt >= 0 && nlAt < end) {
      this.ls = pos;
      this.le = nlAt > pos && buf[nlAt - 1] === 13 ? nlAt - 1 : nlAt;
      this.nl = true;
      return nlAt + 1;
    }
    // The final line, without newline: a trailing "\r" is dropped.
    this.ls = pos;
    this.le = buf[end - 1] === 13 ? end - 1 : end;
    this.nl = false;
    return end;
  }

  /**
   * Parses the record starting at pos in buf[.., end), where end is the
   * end of a whole number of lines. Returns the position after it, or -1
   * when no record is left. Throws CsvParseError.
   */
  next(buf: Buffer, pos: number, end: number): number {
    // Skip empty lines.
    let p: number;
    for (;;) {
      p = this.readLine(buf, pos, end);
      if (p < 0) {
        this.resume = pos;
        return -1;
      }
      if (this.le > this.ls) break;
      pos = p;
    }
    const fields = this.fields;
    const delim = this.delim;
    fields.len = 0;
    const ends = this.ends;
    ends.length = 0;
    const recLine = this.numLine;
    let ls = this.ls;
    let le = this.le;
    let nl = this.nl;
    let line = this.numLine;
    let col = 1;
    parseField: for (;;) {
      if (this.trim) {
        const start = ls;
        while (ls < le) {
          const c = buf[ls];
          if (c < 0x80) {
            if (!(c === 32 || (c >= 9 && c <= 13))) break;
            ls++;
          } else {
            const r = decodeRune(buf, ls, le);
            if (!isSpace(r)) break;
            ls += runeLen;
          }
        }
        col += ls - start;
        if (ls === le && nl) {
          // The newline is white space too: the line is used up.
          nl = false;
        }
      }
      if (ls === le || buf[ls] !== 34) {
        // Unquoted field.
        let i = buf.indexOf(delim, ls);
        if (i >= le) i = -1;
        const fe = i >= 0 ? i : le;
        // (A bounded loop: indexOf would scan the rest of the buffer.)
        for (let q = ls; q < fe; q++) {
          if (buf[q] === 34) {
            throw new CsvParseError(recLine, this.numLine, col + (q - ls), ERR_BARE_QUOTE);
          }
        }
        fields.raw(buf, ls, fe - ls);
        ends.push(fields.len);
        if (i >= 0) {
          col += i + 1 - ls;
          ls = i + 1;
          continue parseField;
        }
        break parseField;
      }
      // Quoted field.
      ls++;
      col++;
      for (;;) {
        const q = ls < le ? buf.indexOf(34, ls) : -1;
        if (q >= 0 && q < le) {
          fields.raw(buf, ls, q - ls);
          col += q + 1 - ls;
          ls = q + 1;
          if (ls < le && buf[ls] === 34) {
            fields.byte(34);
            ls++;
            col++;
          } else if (ls < le && buf[ls] === delim) {
            ls++;
            col++;
            ends.push(fields.len);
            continue parseField;
          } else if (ls === le) {
            ends.push(fields.len);
            break parseField;
          } else {
            throw new CsvParseError(recLine, this.numLine, col - 1, ERR_QUOTE);
          }
        } else if (ls < le || nl) {
          // The quoted field goes on past the end of the line.
          fields.raw(buf, ls, le - ls);
          if (nl) fields.byte(10);
          col += le - ls + (nl ? 1 : 0);
          const np = this.readLine(buf, p, end);
          if (np < 0) {
            ls = le = 0;
            nl = false;
            throw new CsvParseError(recLine, line, col, ERR_QUOTE);
          }
          p = np;
          ls = this.ls;
          le = this.le;
          nl = this.nl;
          if (le > ls || nl) {
            line++;
            col = 1;
          }
        } else {
          throw new CsvParseError(recLine, line, col, ERR_QUOTE);
        }
      }
    }
    if (this.fieldsPerRecord > 0) {
      if (ends.length !== this.fieldsPerRecord) {
        throw new CsvParseError(recLine, recLine, 1, ERR_FIELD_COUNT);
      }
    } else {
      this.fieldsPerRecord = ends.length;
    }
    return p;
  }
}
