// Parquet, read and written through Arrow as the reference does
// (zio/parquetio), with parquet-wasm as the Parquet codec; see
// docs/parquet-library.md for why. Loaded on first use, as Arrow is.

import { Format } from '../io';
import { formatValue } from '../zson';

type Impl = typeof import('./reader') & typeof import('./writer');
let impl: Impl | undefined;
function load(): Impl {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (impl ??= { ...require('./reader'), ...require('./writer') } as Impl);
}

export const parquetFormat: Format = {
  name: 'parquet',
  mimeTypes: ['application/x-parquet'],
  newReader: (src, opts) => load().newParquetReader(src, opts.ctx),
  newWriter: (sink) => new (load().ParquetWriter)(sink, formatValue),
};
