// TSV, as the reference added it in v1.12: CSV with a tab delimiter (so no
// trimming of leading white space) on input and output.

import { Format } from '../io';
import { CsvReader } from '../csv/reader';
import { CsvWriter } from '../csv/writer';
import { ByteSource } from '../io';
import { detectDelimited } from '../csv';

export const tsvFormat: Format = {
  name: 'tsv',
  mimeTypes: ['text/tab-separated-values'],
  // The delimiter option does not apply: TSV is always tab-delimited.
  newReader: (src, opts) => new CsvReader(src, opts, 'tsv', 9),
  newWriter: (sink, opts) => new CsvWriter(sink, opts, { delim: 9, format: 'tsv' }),
};

/** The reference's (v1.12) auto-detection test for TSV; see detectDelimited. */
export function detectTsv(src: ByteSource): Promise<string | null> {
  return detectDelimited(src, 'tsv', 9);
}
