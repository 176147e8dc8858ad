// Arrow IPC stream format ("arrows"), read and written with apache-arrow
// using the reference's Zed ↔ Arrow type mapping (zio/arrowio). The
// implementation, and apache-arrow with it (about 0.1 s to load), is
// loaded on first use, so commands that never touch Arrow start faster.

import { Format } from '../io';
import { formatValue } from '../zson';

type Impl = typeof import('./reader') & typeof import('./writer');
let impl: Impl | undefined;
function load(): Impl {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (impl ??= { ...require('./reader'), ...require('./writer') } as Impl);
}

export const arrowsFormat: Format = {
  name: 'arrows',
  mimeTypes: ['application/vnd.apache.arrow.stream'],
  newReader: (src, opts) => load().newArrowReader(src, opts.ctx),
  newWriter: (sink) => new (load().ArrowStreamWriter)(sink, formatValue),
};
