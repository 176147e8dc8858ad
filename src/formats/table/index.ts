// Table: records as aligned columns under a header line, for reading by
// people (write-only, and with no media type in the reference's service).

import { Format } from '../io';
import { TableWriter } from './writer';

export { TableWriter } from './writer';
export { TabWriter } from './tabwriter';

export const tableFormat: Format = {
  name: 'table',
  mimeTypes: [],
  newWriter: (sink, opts) => new TableWriter(sink, opts),
};
