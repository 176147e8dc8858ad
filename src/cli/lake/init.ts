// zlake init: create a new, empty lake in a directory (or at s3://...), for
// the lake commands to use with -lake and for `zlake serve` to serve.

import { LakeCommand } from './command';
import { createLocal, isStorageLocation } from './locallake';

export const init: LakeCommand = {
  name: 'init',
  usage: 'init [path]',
  short: 'create and initialize a new, empty lake',
  long: `
Creates a new, empty lake at the path given, or else at the -lake location
(ZED_LAKE). The path is a directory, file://PATH or s3://bucket/prefix; a
directory that already holds something is refused. The lake commands work
on such a lake directly when -lake names it, and "zlake serve -lake path"
serves it.
`,
  setup(_fs, lake, io) {
    return async (args) => {
      if (args.length > 1) throw new Error('single lake path argument required');
      const location = args.length === 1 ? args[0] : lake.lake;
      if (location === '') throw new Error('single lake path argument required');
      if (!isStorageLocation(location)) throw new Error('init command not valid on remote lake');
      await createLocal(location);
      if (!lake.isQuiet) io.stdout.write(`lake created: ${location}\n`);
    };
  },
};
