// zlake vacuum: remove the data objects the working branch no longer
// references (after confirmation unless -f), or count them with -dryrun.

import { confirm, goQuote, LakeCommand } from './command';

export const vacuum: LakeCommand = {
  name: 'vacuum',
  usage: 'vacuum [options]',
  short: 'clear space by removing unreferenced objects',
  long: `
Permanently removes the data objects of the pool that the working branch
(or commit) no longer sees, i.e., data deleted or reverted earlier. Queries
of older commits that saw those objects fail afterwards. Asks for
confirmation unless -f is given; -dryrun only counts the objects.
`,
  setup(fs, lake, io) {
    const dryrun = fs.bool('dryrun', false, 'vacuum without deleting objects');
    const force = fs.bool('f', false, 'do not prompt for confirmation');
    return async () => {
      const at = lake.head();
      const client = await lake.connect();
      if (!dryrun.value && !force.value) {
        await confirm(
          io,
          `Are you sure you want to vacuum data objects from ${goQuote(`${at.pool}@${at.branch}`)}?`,
        );
      }
      const ids = await client.vacuum(at.pool, at.branch, dryrun.value);
      const verb = dryrun.value ? 'would vacuum' : 'vacuumed';
      if (!lake.isQuiet)
        io.stdout.write(`${verb} ${ids.length} object${ids.length === 1 ? '' : 's'}\n`);
    };
  },
};
