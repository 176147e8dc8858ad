// ZNG, Zed's binary format: how the lake stores data and the fastest wire
// format. See docs/formats/zng.md in the reference.

import { Format } from '../io';
import { newReader } from './reader';
import { newWriter } from './writer';

export const zngFormat: Format = {
  name: 'zng',
  mimeTypes: ['application/x-zng'],
  newReader,
  newWriter,
};

export { ControlFormat, DEFAULT_FRAME_THRESHOLD, EOS, MAX_FRAME_SIZE, ZngControl } from './frame';
export { ZngDecoder } from './decoder';
export {
  decodeZng,
  newBufferReader,
  newReader,
  ZngBufferReader,
  ZngReader,
  type ZngBufferOptions,
  type ZngReaderOptions,
} from './reader';
export { controlZSON, newWriter, ZngWriter } from './writer';
export { lz4Codec, lz4Compress, lz4CompressBound, lz4Decompress } from './lz4';
