// Line: each input line is a string value (read-only; the reference does
// not auto-detect it).

import { Format } from '../io';
import { LineReader } from './reader';

export { LineReader } from './reader';
export { LineScanner } from './scanner';

export const lineFormat: Format = {
  name: 'line',
  mimeTypes: ['application/x-line'],
  newReader: (src, opts) => new LineReader(src, opts),
};
