// The Zeek TSV log reader.
//
// Lines follow the reference's scanner: "\r\n" counts as "\n", blank lines
// (and a final one-byte line without newline) are skipped, lines over
// 50 MiB are skipped, and a line starting with '#' is a directive. Data
// lines are split on tabs whatever #separator says, as in the reference.
// Errors read "line N: <reason>" with the reference's reasons.

import { DuplicateFieldError, TypeValueError } from '../../zed/context';
import { TypeRecord } from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder, ZcodeError } from '../../zed/zcode';
import { ByteSource, FormatError, ReaderOptions, ValueReader } from '../io';
import { LineScanner } from '../line/scanner';
import { RecordProgram } from './builder';
import { ZeekHeader } from './header';
import { ParseError } from './strconv';

// The reference's scanner buffer (50 MiB) must hold a line and its newline.
const MAX_LINE = 50 * 1024 * 1024 - 1;
const BATCH_VALUES = 1000;
const BATCH_BYTES = 1024 * 1024;

function isInputError(e: unknown): e is Error {
  return (
    e instanceof ParseError ||
    e instanceof DuplicateFieldError ||
    e instanceof TypeValueError ||
    e instanceof ZcodeError
  );
}

export class ZeekReader implements ValueReader {
  private scanner: LineScanner;
  private header: ZeekHeader;
  private program: RecordProgram | undefined;
  private programType: TypeRecord | undefined;
  private programSkipsPath = false;
  private programSources: readonly number[] = [];
  private path: Buffer | null = null;
  private pathText = '';
  private failure: FormatError | undefined;

  constructor(src: ByteSource, opts: ReaderOptions) {
    this.scanner = new LineScanner(src, MAX_LINE);
    this.header = new ZeekHeader(opts.ctx);
  }

  /** The parsed header state (for tests and tools). */
  get headerState(): ZeekHeader {
    return this.header;
  }

  async read(): Promise<Value[] | null> {
    if (this.failure) throw this.failure;
    const sc = this.scanner;
    const b = new Builder(64 * 1024);
    const offs: number[] = [];
    const ends: number[] = [];
    const types: TypeRecord[] = [];
    while (offs.length < BATCH_VALUES && b.len < BATCH_BYTES) {
      if (!sc.next()) {
        if (sc.done || offs.length > 0) break;
        await sc.fill();
        continue;
      }
      if (sc.tooLong) continue;
      const buf = sc.buf;
      const start = sc.start;
      let end = sc.end;
      if (sc.hasNewline && end > start && buf[end - 1] === 13) end--;
      if (end - start + (sc.hasNewline ? 1 : 0) <= 1) continue;
      try {
        if (buf[start] === 35) {
          this.header.parseDirective(buf.toString('utf8', start + 1, end));
          continue;
        }
        const typ = this.header.ensureDescriptor();
        const program = this.programFor(typ);
        const recStart = b.len;
        try {
          program.build(b, buf, start, end, this.programSkipsPath ? this.path : null);
        } catch (e) {
          b.len = recStart;
          throw e;
        }
        offs.push(recStart);
        ends.push(b.len);
        types.push(typ);
      } catch (e) {
        if (!isInputError(e)) throw e;
        const err = new FormatError(
          'zeek',
          `line ${sc.lineNo}: ${e.message}`,
          sc.lineOffset,
          sc.lineNo,
        );
        if (offs.length === 0) {
          this.failure = err;
          throw err;
        }
        // Deliver what was read before the bad line; fail on the next call.
        this.failure = err;
        break;
      }
    }
    if (offs.length === 0) return null;
    const out: Value[] = new Array(offs.length);
    for (let i = 0; i < offs.length; i++) {
      out[i] = new Value(types[i], b.buf, offs[i], ends[i] - offs[i]);
    }
    return out;
  }

  private programFor(typ: TypeRecord): RecordProgram {
    const h = this.header;
    const skipsPath = h.path !== '' && h.addPath;
    if (skipsPath && h.path !== this.pathText) {
      this.pathText = h.path;
      this.path = Buffer.from(h.path, 'utf8');
    }
    if (
      this.program &&
      this.programType === typ &&
      this.programSources === h.sourceFields &&
      this.programSkipsPath === skipsPath
    ) {
      return this.program;
    }
    this.program = new RecordProgram(typ, h.sourceFields, skipsPath);
    this.programSources = h.sourceFields;
    this.programType = typ;
    this.programSkipsPath = skipsPath;
    return this.program;
  }
}
