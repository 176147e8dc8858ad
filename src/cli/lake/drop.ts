// zlake drop: delete a pool, after confirmation unless -f.

import { confirm, goQuote, LakeCommand } from './command';

export const drop: LakeCommand = {
  name: 'drop',
  usage: 'drop pool',
  short: 'delete a data pool from a lake',
  long: `
Deletes the named pool (a name or an ID) and all of its data from the lake.
This cannot be undone, so the command asks for confirmation unless -f is given.
`,
  setup(fs, lake, io) {
    const force = fs.bool('f', false, 'do not prompt for confirmation');
    return async (args) => {
      if (args.length !== 1) throw new Error('a single pool name must be specified');
      const client = await lake.connect();
      const name = args[0];
      const pool = await client.lookupPool(name);
      if (!force.value) await confirm(io, `Are you sure you want to delete pool ${goQuote(name)}?`);
      await client.removePool(pool.id.toString());
      if (!lake.isQuiet) io.stdout.write(`pool deleted: ${name}\n`);
    };
  },
};
