// zlake compact: rewrite the given data objects of the working branch as
// new sorted, non-overlapping objects in one commit.

import { LakeCommand } from './command';
import { CommitFlags, parseID } from './lakeflags';

export const compact: LakeCommand = {
  name: 'compact',
  usage: 'compact id id [id ...]',
  short: 'compact data objects on a pool branch',
  long: `
Reads the values of the data objects with the given IDs, writes them to new
objects that are sorted by the pool key and do not overlap, and commits to
the working branch a change that replaces the old objects with the new
ones. The values stay the same; scans of the branch merge fewer objects.
The old objects remain for time travel until vacuum removes them.
`,
  setup(fs, lake, io) {
    const commit = new CommitFlags(fs, io.env);
    return async (args) => {
      const ids = args.map((a) => parseID(a).toString());
      const { client, head, pool } = await lake.working();
      const result = await client.compact(pool, head.branch, ids, commit.commitMessage);
      if (!lake.isQuiet) io.stdout.write(`${result.commit} compaction committed\n`);
    };
  },
};
