// zlake branch: create a branch at the working branch's tip (or a commit),
// delete one with -d, or list the pool's branches.

import { goQuote, LakeCommand } from './command';
import { isID } from './lakeflags';
import { copyAll, LakeOutputFlags } from './output';

export const branch: LakeCommand = {
  name: 'branch',
  usage: 'branch new-branch [base]',
  short: 'create a new branch',
  long: `
Creates a branch with the given name in the working pool, pointing at the
tip of the working branch (or at the commit when -use names a commit ID).
The new branch is not checked out. With -d the branch is deleted instead;
its data stays in the lake and the branch can be made again from a commit
ID. With no name, lists the branches of the working pool. Use
"-use pool@base" when no branch is checked out.
`,
  setup(fs, lake, io) {
    const del = fs.bool('d', false, 'delete the branch instead of creating it');
    const output = new LakeOutputFlags(fs, 'lake');
    return async (args) => {
      if (args.length > 1) throw new Error('too many arguments');
      const client = await lake.connect();
      if (args.length === 0) {
        const head = lake.head();
        const w = output.open(io.stdout, head.branch);
        let q;
        try {
          q = await client.query(`from '${head.pool}':branches`);
        } catch (e) {
          await w.close();
          throw e;
        }
        await copyAll(q, w);
        return;
      }
      const name = args[0];
      const head = lake.head();
      const poolID = isID(head.pool)
        ? head.pool
        : (await client.lookupPool(head.pool)).id.toString();
      const parent = isID(head.branch)
        ? head.branch
        : (await client.branchGet(poolID, head.branch)).commit.toString();
      if (del.value) {
        await client.deleteBranch(poolID, name);
        if (!lake.isQuiet) io.stdout.write(`branch deleted: ${name}\n`);
        return;
      }
      await client.createBranch(poolID, name, parent);
      if (!lake.isQuiet) io.stdout.write(`${goQuote(name)}: branch created\n`);
    };
  },
};
