// zlake use: show or set the working pool and branch (HEAD), kept in
// .zed_head in $ZED_HEAD_DIR or the home directory.

import { goQuote, LakeCommand } from './command';
import { fromSpec, isID, parseCommitish, writeHead } from './lakeflags';

export const use: LakeCommand = {
  name: 'use',
  usage: 'use [pool][@branch]',
  short: 'use a branch',
  long: `
Shows or sets the working pool and branch that commands such as load, query,
merge and log use when -use is not given. "use pool" selects the pool's main
branch, "use pool@branch" a branch (or a commit ID, which leaves no branch
to load into), and "use @branch" another branch of the working pool. The
pool and branch must exist. The setting is kept in the file .zed_head in the
directory $ZED_HEAD_DIR (default: the home directory); scripts are better
off naming the branch with -use on each command.
`,
  setup(_fs, lake, io) {
    return async (args) => {
      if (args.length > 1) throw new Error('too many arguments');
      if (args.length === 0) {
        const head = lake.headOrNone();
        if (!head) throw new Error('default pool and branch unset');
        io.stdout.write(`HEAD at ${head.pool}@${head.branch}\n`);
        return;
      }
      const c = parseCommitish(args[0]);
      if (c.pool === '') {
        const head = lake.headOrNone();
        if (!head) throw new Error('default pool unset');
        c.pool = head.pool;
      }
      if (c.branch === '') c.branch = 'main';
      const client = await lake.connect();
      const poolID = isID(c.pool) ? c.pool : (await client.lookupPool(c.pool)).id.toString();
      if (isID(c.branch)) {
        // A commit: check it exists by reading its log (the service's
        // branch lookup knows only names).
        const q = await client.query(
          `${fromSpec({ pool: poolID, branch: c.branch }, 'log')} | head 1`,
        );
        await q.drain();
        await q.close();
      } else {
        await client.branchGet(poolID, c.branch);
      }
      writeHead(io.env, c.pool, c.branch);
      if (!lake.isQuiet) {
        io.stdout.write(`Switched to branch ${goQuote(c.branch)} on pool ${goQuote(c.pool)}\n`);
      }
    };
  },
};
