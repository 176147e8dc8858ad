// The JSON formats: "json" reads any stream of JSON values (NDJSON
// included) and writes the whole result as one JSON array (the service's
// application/json); "ndjson" writes one JSON value per line (the
// reference's `zq -f json`, and the service's application/x-ndjson).

import { Format } from '../io';
import { JSONReader } from './reader';
import { JSONArrayWriter, NDJSONWriter } from './writer';

export const jsonFormat: Format = {
  name: 'json',
  mimeTypes: ['application/json'],
  newReader: (src, opts) => new JSONReader(src, opts),
  newWriter: (sink) => new JSONArrayWriter(sink),
};

export const ndjsonFormat: Format = {
  name: 'ndjson',
  mimeTypes: ['application/x-ndjson'],
  newWriter: (sink) => new NDJSONWriter(sink),
};

export { JSONReader, MAX_DEPTH } from './reader';
export { JSONArrayWriter, NDJSONWriter } from './writer';
export { JSONMarshaler, JSONMarshalError, valueToJS } from './marshal';
