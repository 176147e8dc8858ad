// zlake create: make a pool, with the reference's -orderby, -S and
// -seekstride.

import { LakeCommand } from './command';
import { parseBytes } from './units';
import { SortKey } from '../../client';

/** Parses "key[,key...][:asc|:desc]" (dotted paths) as the reference does. */
export function parseOrderBy(s: string): SortKey {
  if (s === '') return { order: 'asc', keys: [] };
  const parts = s.split(':');
  if (parts.length > 2) throw new Error('only one order clause allowed in sortkey description');
  let order: 'asc' | 'desc' = 'asc';
  if (parts.length > 1) {
    const o = parts[1].toLowerCase();
    if (o !== 'asc' && o !== 'desc') throw new Error(`unknown order: ${parts[1]}`);
    order = o;
  }
  return { order, keys: parts[0].split(',').map((k) => k.split('.')) };
}

export const create: LakeCommand = {
  name: 'create',
  usage: 'create [-orderby key[,key...][:asc|:desc]] name',
  short: 'create a new data pool',
  long: `
Creates a pool with the given name and a branch "main" in it. -orderby sets
the pool key: one or more comma-separated (dotted) field paths that data is
sorted by in the pool, with :asc or :desc for the order (ascending if not
given). The pool key cannot be changed later. -S sets the target size of the
pool's data objects.
`,
  hidden: ['seekstride'],
  setup(fs, lake, io) {
    const thresh = fs.string(
      'S',
      '500MiB',
      "target size of pool data objects, as '10MB' or '4GiB', etc.",
    );
    const orderBy = fs.string(
      'orderby',
      'ts:desc',
      'comma-separated pool keys with optional :asc or :desc suffix to organize data in pool (cannot be changed)',
    );
    const seekStride = fs.string(
      'seekstride',
      '64KiB',
      "size of seek-index unit for ZNG data, as '32KB', '1MB', etc.",
    );
    const vectors = fs.bool(
      'vectors',
      true,
      'write a columnar (VNG) copy of each data object at load time',
    );
    return async (args) => {
      const size = flagBytes('S', thresh.value);
      const stride = flagBytes('seekstride', seekStride.value);
      if (args.length !== 1) throw new Error('create requires one argument');
      const client = await lake.connect();
      const layout = parseOrderBy(orderBy.value);
      const name = args[0];
      const { pool } = await client.createPool({
        name,
        layout,
        seekStride: stride,
        thresh: size,
        vectors: vectors.value,
      });
      if (!lake.isQuiet) io.stdout.write(`pool created: ${name} ${pool.id}\n`);
    };
  },
};

/** A byte-size flag's value, with Go's flag error text. */
function flagBytes(name: string, value: string): number {
  try {
    return parseBytes(value);
  } catch (e) {
    throw new Error(
      `invalid value ${JSON.stringify(value)} for flag -${name}: ${(e as Error).message}`,
    );
  }
}
