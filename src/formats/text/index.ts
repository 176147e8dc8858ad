// Text: values as tab-separated lines for reading by people (write-only,
// and with no media type in the reference's service).

import { Format } from '../io';
import { TextWriter } from './writer';

export { TextWriter } from './writer';
export { appendValue, ColumnFormatter, formatError } from './format';

export const textFormat: Format = {
  name: 'text',
  mimeTypes: [],
  newWriter: (sink, opts) => new TextWriter(sink, opts),
};
