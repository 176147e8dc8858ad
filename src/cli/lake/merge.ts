// zlake merge: merge the working branch into another branch of its pool.

import { goQuote, LakeCommand } from './command';
import { CommitFlags } from './lakeflags';

export const merge: LakeCommand = {
  name: 'merge',
  usage: 'merge branch',
  short: 'merge current branch into another',
  long: `
Merges the working branch (the child) into the named branch of the same
pool: the data the child added or deleted since they diverged is applied to
the target in a new commit. Merging main into another branch needs -f.
`,
  setup(fs, lake, io) {
    const commit = new CommitFlags(fs, io.env);
    const force = fs.bool('f', false, 'force merge of main into a target');
    return async (args) => {
      if (args.length === 0) throw new Error('merge target branch must be given');
      if (args.length > 1) throw new Error('too many arguments');
      const target = args[0];
      const client = await lake.connect();
      const head = lake.head();
      if (head.branch === '' || target === '') {
        throw new Error('both a child and a parent branch name must be specified');
      }
      if (head.branch === 'main' && !force.value) {
        throw new Error('merging the main branch into another branch is unusual; use -f to force');
      }
      const pool = await client.lookupPool(head.pool);
      await client.mergeBranch(pool.id.toString(), head.branch, target, commit.commitMessage);
      if (!lake.isQuiet)
        io.stdout.write(`${goQuote(head.branch)}: merged into branch ${goQuote(target)}\n`);
    };
  },
};
