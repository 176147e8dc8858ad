// ZJSON (docs/formats/zjson.md): Zed values with their types over JSON,
// one object per line; what the reference's service sends Zui.

import { Format } from '../io';
import { ZJSONReader } from './reader';
import { ZJSONWriter } from './writer';

export const zjsonFormat: Format = {
  name: 'zjson',
  mimeTypes: ['application/x-zjson'],
  newReader: (src, opts) => new ZJSONReader(src, opts),
  newWriter: (sink) => new ZJSONWriter(sink),
};

export { ZJSONReader, MAX_LINE } from './reader';
export type { ZJSONReaderOptions } from './reader';
export { ZJSONWriter } from './writer';
