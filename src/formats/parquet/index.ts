// Parquet, read and written through Arrow as the reference does
// (zio/parquetio), with parquet-wasm as the Parquet codec; see
// docs/parquet-library.md for why.

import { Format } from '../io';
import { formatValue } from '../zson';
import { newParquetReader } from './reader';
import { ParquetWriter } from './writer';

export const parquetFormat: Format = {
  name: 'parquet',
  mimeTypes: ['application/x-parquet'],
  newReader: (src, opts) => newParquetReader(src, opts.ctx),
  newWriter: (sink) => new ParquetWriter(sink, formatValue),
};

export { newParquetReader } from './reader';
export { ParquetWriter, unsupportedForParquet } from './writer';
