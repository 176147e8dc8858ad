// Arrow IPC stream format ("arrows"), read and written with apache-arrow
// using the reference's Zed ↔ Arrow type mapping (zio/arrowio).

import { Format } from '../io';
import { formatValue } from '../zson';
import { newArrowReader } from './reader';
import { ArrowStreamWriter } from './writer';

export const arrowsFormat: Format = {
  name: 'arrows',
  mimeTypes: ['application/vnd.apache.arrow.stream'],
  newReader: (src, opts) => newArrowReader(src, opts.ctx),
  newWriter: (sink) => new ArrowStreamWriter(sink, formatValue),
};

export { BatchDecoder, newArrowReader, RecordBatchValueReader } from './reader';
export { ArrowStreamWriter, BatchEncoder } from './writer';
