// zlake log: the commit history from the working branch's tip (or a
// commit), newest first, as text for people by default.

import { LakeCommand } from './command';
import { fromSpec } from './lakeflags';
import { copyAll, LakeOutputFlags } from './output';

export const log: LakeCommand = {
  name: 'log',
  usage: 'log [options]',
  short: 'display the commit log history starting at any commit',
  long: `
Writes the commit history of the working branch (or of the branch or commit
-use names), from its tip back to the first commit: each commit's ID, the
branches at it, author, date and message. The default output is text for
people (the "lake" format); -f zng gives the log records for other tools.
`,
  setup(fs, lake, io) {
    const output = new LakeOutputFlags(fs, 'lake');
    return async (args) => {
      if (args.length !== 0) throw new Error('no arguments allowed');
      const client = await lake.connect();
      const head = lake.head();
      const w = output.open(io.stdout, head.branch);
      let q;
      try {
        q = await client.query(fromSpec(head, 'log'));
      } catch (e) {
        await w.close();
        throw e;
      }
      await copyAll(q, w);
    };
  },
};
