// zlake rename: give a pool a new name.

import { LakeCommand } from './command';

export const rename: LakeCommand = {
  name: 'rename',
  usage: 'rename old-name new-name',
  short: 'rename a data pool',
  long: `
Changes the name of a pool (given by its current name or its ID) to the new
name. The pool's ID does not change.
`,
  setup(_fs, lake, io) {
    return async (args) => {
      if (args.length !== 2) throw new Error('two pool names must be provided');
      const [oldName, newName] = args;
      const client = await lake.connect();
      const pool = await client.lookupPool(oldName);
      if (newName === '') throw new Error('no pool name provided');
      await client.renamePool(pool.id.toString(), newName);
      if (!lake.isQuiet) io.stdout.write(`pool ${pool.id} renamed from ${oldName} to ${newName}\n`);
    };
  },
};
