// Parse errors, worded and positioned as the reference reports them.
//
// The reference names the farthest position its parser reached and shows
// the source line with a caret under it:
//
//     error parsing Zed at column 12:
//     count() by ,x,y
//                === ^ ===
//
// "line N, " appears only when the query has more than one line. Offsets
// and columns count UTF-8 bytes, as the reference (Go) does.

/** A query that does not parse. */
export class ParseError extends Error {
  /** 0-based byte offset of the error in the query (UTF-8). */
  readonly offset: number;
  /** 1-based line of the error. */
  readonly line: number;
  /** 1-based column of the error, in bytes from the start of its line. */
  readonly column: number;

  constructor(message: string, offset: number, line: number, column: number) {
    super(message);
    this.name = 'ParseError';
    this.offset = offset;
    this.line = line;
    this.column = column;
  }
}

/** Byte offset of UTF-16 index `index` of `src`. */
export function byteOffset(src: string, index: number): number {
  let n = 0;
  for (let i = 0; i < index; i++) {
    const c = src.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < index) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The reference's "error parsing Zed" error for a failure at UTF-16 index `index`. */
export function syntaxError(src: string, index: number): ParseError {
  const lineStart = src.lastIndexOf('\n', index - 1) + 1;
  let lineEnd = src.indexOf('\n', lineStart);
  if (lineEnd < 0) lineEnd = src.length;
  const offset = byteOffset(src, index);
  const col = offset - byteOffset(src, lineStart); // 0-based, bytes
  let lineNum = 1;
  for (let i = src.indexOf('\n'); i >= 0 && i < index; i = src.indexOf('\n', i + 1)) lineNum++;
  const multiLine = src.includes('\n');
  let caret = '';
  for (let k = 0; k < col; k++) caret += k >= col - 4 && k !== col - 1 ? '=' : ' ';
  const where = multiLine ? `line ${lineNum}, column ${col + 1}` : `column ${col + 1}`;
  const msg = `error parsing Zed at ${where}:\n${src.slice(lineStart, lineEnd)}\n${caret}^ ===`;
  return new ParseError(msg, offset, lineNum, col + 1);
}

/**
 * A position as the reference's generated parser prints it in errors raised
 * by grammar actions: "line:col (offset)", col counting characters (1-based)
 * and offset bytes.
 */
export function actionPosition(src: string, index: number): string {
  // The reference advances a character at a time; reading a newline moves
  // it to column 0 of the next line.
  let line = 1;
  let col = 0;
  const read = (i: number) => {
    col++;
    if (src.charCodeAt(i) === 10) {
      line++;
      col = 0;
    }
  };
  read(0);
  for (let i = 0; i < index;) {
    const c = src.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < src.length ? 2 : 1;
    read(i);
  }
  return `${line}:${col} (${byteOffset(src, index)})`;
}
