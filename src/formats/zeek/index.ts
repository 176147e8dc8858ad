// Zeek TSV logs (https://docs.zeek.org/en/master/log-formats.html), read
// and written as the reference does.

import { TypeContext } from '../../zed/context';
import { ByteSource, Format, FormatError } from '../io';
import { ZeekReader } from './reader';
import { ZeekWriter } from './writer';

export { ZeekReader } from './reader';
export { ZeekWriter, zeekTypeName } from './writer';
export { Flattener } from './flatten';

export const zeekFormat: Format = {
  name: 'zeek',
  mimeTypes: ['application/x-zeek'],
  newReader: (src, opts) => new ZeekReader(src, opts),
  newWriter: (sink, opts) => new ZeekWriter(sink, opts),
};

/**
 * The reference's auto-detection test for Zeek: a fresh reader must read
 * its first value (or reach the end of input, e.g. a header only) without
 * error. Returns null on a match, else the reason as the reference words it
 * in its "format detection error" list ("zeek: line 1: ...").
 */
export async function detectZeek(src: ByteSource): Promise<string | null> {
  try {
    await new ZeekReader(src, { ctx: new TypeContext() }).read();
    return null;
  } catch (e) {
    if (e instanceof FormatError) return `zeek: ${e.message}`;
    throw e;
  }
}
