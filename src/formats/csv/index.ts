// CSV (RFC 4180 as Go reads and writes it), with the reference's typing of
// fields on input and its flattening of records on output.

import { TypeContext } from '../../zed/context';
import { ByteSource, Format, FormatError } from '../io';
import { CsvReader, delimiterByte } from './reader';
import { CsvWriter } from './writer';

export { CsvReader, delimiterByte, ERR_DELIM } from './reader';
export { CsvWriter, ERR_NOT_DATA_FRAME } from './writer';

export const csvFormat: Format = {
  name: 'csv',
  mimeTypes: ['text/csv'],
  newReader: (src, opts) =>
    new CsvReader(src, opts, 'csv', delimiterByte('csv', opts.csvDelim, 44)),
  newWriter: (sink, opts) => new CsvWriter(sink, opts),
};

/**
 * The reference's auto-detection test for a delimited format: the first
 * line (through its newline) must contain the delimiter, then a fresh
 * reader must read one record without error. Returns null on a match, else
 * the reason as the reference words it ("csv: line 1: no comma found").
 * v1.8 words the missing-delimiter case for CSV only; TSV (v1.12) words it
 * `tsv: line 1: delimiter '\t' not found`.
 */
export async function detectDelimited(
  src: ByteSource,
  format: 'csv' | 'tsv',
  delim: number,
): Promise<string | null> {
  // Buffer the input we read so the reader can see it again.
  const seen: Buffer[] = [];
  let nl = -1;
  let len = 0;
  for (;;) {
    const chunk = await src.read();
    if (chunk === null) break;
    seen.push(chunk);
    const i = chunk.indexOf(10);
    if (i >= 0) {
      nl = len + i;
      break;
    }
    len += chunk.length;
  }
  const head = Buffer.concat(seen);
  if (nl < 0) return `${format}: line 1: EOF`;
  if (head.subarray(0, nl + 1).indexOf(delim) < 0) {
    return format === 'csv'
      ? 'csv: line 1: no comma found'
      : `tsv: line 1: delimiter '\\t' not found`;
  }
  let replayed = false;
  const replay: ByteSource = {
    async read() {
      if (!replayed) {
        replayed = true;
        return head;
      }
      return src.read();
    },
  };
  try {
    await new CsvReader(replay, { ctx: new TypeContext() }, format, delim).read();
    return null;
  } catch (e) {
    if (e instanceof FormatError) return `${format}: ${e.message}`;
    throw e;
  }
}
