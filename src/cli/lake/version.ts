// zlake version and zlake status: this program's version, and whether the
// lake service answers (with its version).

import { cliVersion, LakeCommand } from './command';

export const version: LakeCommand = {
  name: 'version',
  usage: 'version',
  short: 'print the version of zlake',
  long: `
Prints this program's version, as "zlake -version" does.
`,
  setup(_fs, _lake, io) {
    return async (args) => {
      if (args.length > 0) throw new Error('too many arguments');
      io.stdout.write(`Version: ${cliVersion()}\n`);
    };
  },
};

export const status: LakeCommand = {
  name: 'status',
  usage: 'status',
  short: 'check that the lake service answers',
  long: `
Checks that the lake service (-lake, or ZED_LAKE) answers, and prints its
address and version. Exits non-zero with the error when it does not answer.
`,
  setup(_fs, lake, io) {
    return async (args) => {
      if (args.length > 0) throw new Error('too many arguments');
      const client = await lake.connect();
      await client.ping();
      const v = await client.version();
      io.stdout.write(`${client.url}: ok, version ${v}\n`);
    };
  },
};
