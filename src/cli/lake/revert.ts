// zlake revert: undo a commit's actions in a new commit on the branch.

import { goQuote, LakeCommand } from './command';
import { CommitFlags, isID, parseID } from './lakeflags';

export const revert: LakeCommand = {
  name: 'revert',
  usage: 'revert commit',
  short: 'revert reverses an old commit',
  long: `
Reverses the actions of a commit by committing their inverse to the tip of
the working branch: data the commit added no longer appears in the branch
(it stays in the lake), and data it deleted appears again. A revert can
itself be reverted.
`,
  setup(fs, lake, io) {
    const commit = new CommitFlags(fs, io.env);
    return async (args) => {
      if (args.length !== 1) throw new Error('commit ID must be specified');
      const client = await lake.connect();
      const head = lake.head();
      const pool = await client.lookupPool(head.pool);
      if (isID(head.branch)) throw new Error('branch must be named');
      const id = parseID(args[0]);
      const r = await client.revert(
        pool.id.toString(),
        head.branch,
        id.toString(),
        commit.commitMessage,
      );
      if (!lake.isQuiet)
        io.stdout.write(`${goQuote(head.branch)}: ${id} reverted in ${r.commit}\n`);
    };
  },
};
