// zlake ls: list the pools of the lake, or the branches of a pool.

import { LakeCommand } from './command';
import { LakeOutputFlags, showQuery } from './output';

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
      await showQuery(lake, output, io.stdout, query);
    };
  },
};
