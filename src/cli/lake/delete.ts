// zlake delete: delete data objects by ID, or the values matching a
// filter with -where, from a branch in a new commit.

import { LakeCommand } from './command';
import { CommitFlags, parseID } from './lakeflags';

export const del: LakeCommand = {
  name: 'delete',
  usage: 'delete id [id ...]',
  short: 'delete data objects from a pool branch',
  long: `
Deletes the data objects with the given IDs from the working branch by
committing a delete. With -where, deletes every value for which the filter
(a single filter expression) is true. Deleted data stays in the lake, so
earlier commits still show it, until vacuum removes it; a delete can be
undone with revert.
`,
  setup(fs, lake, io) {
    const commit = new CommitFlags(fs, io.env);
    const where = fs.string('where', '', 'delete by pool key predicate');
    return async (args) => {
      const { client, head, pool: poolID } = await lake.working();
      let result;
      if (where.value !== '') {
        if (args.length > 0) throw new Error('too many arguments');
        result = await client.deleteWhere(poolID, head.branch, where.value, commit.commitMessage);
      } else {
        const ids = args.map((a) => parseID(a).toString());
        if (ids.length === 0) throw new Error('no data object IDs specified');
        result = await client.delete(poolID, head.branch, ids, commit.commitMessage);
      }
      if (!lake.isQuiet) io.stdout.write(`${result.commit} delete committed\n`);
    };
  },
};
