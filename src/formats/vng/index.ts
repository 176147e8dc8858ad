// VNG, the reference's columnar format (docs/formats/vng.md): a data
// section of column segments, a ZNG reassembly section, and a ZNG trailer.

import { Format } from '../io';
import { VngReader } from './reader';
import { VngWriter } from './writer';

export const vngFormat: Format = {
  name: 'vng',
  mimeTypes: ['application/x-vng'],
  newReader: (src, opts) => new VngReader(src, opts.ctx),
  newWriter: (sink) => new VngWriter(sink),
};

export { VngReader, readTrailer } from './reader';
export { VngWriter, type VngWriterOptions } from './writer';
