// The line reader: each input line becomes a string value, as the
// reference's lineio does with Go's bufio.Scanner: "\n" or "\r\n" ends a
// line, empty lines are kept, a final line needs no newline, bytes are
// taken as they are (no UTF-8 check), and a line of 64 KiB or more is an
// error ("token too long").

import { ByteSource, FormatError, ReaderOptions, ValueReader } from '../io';
import { TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { LineScanner } from './scanner';

/** bufio.MaxScanTokenSize: a line and its newline must fit in 64 KiB. */
const MAX_LINE = 64 * 1024 - 1;
const BATCH_VALUES = 1024;
const BATCH_BYTES = 512 * 1024;

export class LineReader implements ValueReader {
  private scanner: LineScanner;

  constructor(src: ByteSource, _opts?: ReaderOptions) {
    this.scanner = new LineScanner(src, MAX_LINE);
  }

  async read(): Promise<Value[] | null> {
    const sc = this.scanner;
    const starts: number[] = [];
    const ends: number[] = [];
    let arena = Buffer.allocUnsafe(64 * 1024);
    let used = 0;
    while (starts.length < BATCH_VALUES && used < BATCH_BYTES) {
      if (!sc.next()) {
        if (sc.done || starts.length > 0) break;
        await sc.fill();
        continue;
      }
      if (sc.tooLong) {
        throw new FormatError('line', 'bufio.Scanner: token too long', sc.lineOffset, sc.lineNo);
      }
      let end = sc.end;
      if (end > sc.start && sc.buf[end - 1] === 13) end--;
      const n = end - sc.start;
      if (used + n > arena.length) {
        const bigger = Buffer.allocUnsafe(Math.max(arena.length * 2, used + n));
        arena.copy(bigger, 0, 0, used);
        arena = bigger;
      }
      sc.buf.copy(arena, used, sc.start, end);
      starts.push(used);
      ends.push(used + n);
      used += n;
    }
    if (starts.length === 0) return null;
    const out: Value[] = new Array(starts.length);
    for (let i = 0; i < starts.length; i++) {
      out[i] = new Value(TypeString, arena, starts[i], ends[i] - starts[i]);
    }
    return out;
  }
}
