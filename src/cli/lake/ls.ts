// zlake ls: list the pools of the lake, or the branches of a pool.

import { LakeCommand } from './command';
import { copyAll, LakeOutputFlags } from './output';

export const ls: LakeCommand = {
  name: 'ls',
  usage: 'ls [options] [pool]',
  short: 'list pools in a lake or branches in a pool',
  long: `
Lists the pools of the lake, or with a pool name (or ID) the branches of
that pool and the commit at the tip of each. The default output is text
for people (the "lake" format); -f chooses any other output format.
`,
  setup(fs, lake, io) {
    const output = new LakeOutputFlags(fs, 'lake');
    return async (args) => {
      if (args.length > 1) throw new Error('too many arguments');
      let query = 'from :pools';
      if (args.length === 1) {
        if (args[0].includes("'")) throw new Error('pool name may not contain quote characters');
        query = `from '${args[0]}':branches`;
      }
      const client = await lake.connect();
      const w = output.open(io.stdout);
      let q;
      try {
        q = await client.query(query);
      } catch (e) {
        await w.close();
        throw e;
      }
      await copyAll(q, w);
    };
  },
};
