// Reading response bodies in binary formats.

import { readAll, sourceFromBuffer } from '../../src/formats/io';
import { formatByName } from '../../src/formats/registry';
import { TypeContext } from '../../src/zed/context';
import { Value } from '../../src/zed/value';

export async function readValues(format: string, body: Buffer): Promise<Value[]> {
  const f = formatByName(format);
  if (!f?.newReader) throw new Error(`no reader for ${format}`);
  return readAll(f.newReader(sourceFromBuffer(body), { ctx: new TypeContext() }));
}
