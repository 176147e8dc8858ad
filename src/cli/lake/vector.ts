// zlake vector add|delete: make and drop the columnar copies (VNG) of data
// objects of the working branch, as the reference's `zed vector`.

import { CommandIO, ExitStatus, LakeCommand, NeedHelp, runCommand } from './command';
import { CommitFlags, parseID } from './lakeflags';

function vectorOp(op: 'add' | 'delete'): LakeCommand {
  const added = op === 'add';
  return {
    name: `vector ${op}`,
    usage: `${op} [options] id [id, ]`,
    short: added
      ? 'create vectorized forms of one or more data objects'
      : 'delete vectors from one or more data objects',
    long: added
      ? `
Writes the columnar (VNG) form of each data object with the given IDs
beside it and commits them to the working branch, so queries read only the
columns they need from those objects.
`
      : `
Commits to the working branch that the data objects with the given IDs no
longer have columnar forms; queries read them by rows. The VNG objects stay
for time travel until vacuum removes them with their data objects.
`,
    setup(fs, lake, io) {
      const commit = new CommitFlags(fs, io.env);
      return async (args) => {
        const ids = args.map((a) => parseID(a).toString());
        const { client, head, pool } = await lake.working();
        const result = added
          ? await client.addVectors(pool, head.branch, ids, commit.commitMessage)
          : await client.deleteVectors(pool, head.branch, ids, commit.commitMessage);
        if (!lake.isQuiet)
          io.stdout.write(`${result.commit} vectors ${added ? 'added' : 'deleted'}\n`);
      };
    },
  };
}

const subcommands: Record<string, LakeCommand> = {
  add: vectorOp('add'),
  delete: vectorOp('delete'),
};

export const vector: LakeCommand = {
  name: 'vector',
  usage: 'vector [subcommand]',
  short: 'create and delete vectorized versions of lake data',
  long: `
The vector subcommands control the creation and deletion of the columnar
(VNG) copies of a pool's data objects. Loads write them by default (see
"zlake create -vectors").
`,
  setup(_fs, lake, io: CommandIO) {
    return async (args) => {
      if (args.length === 0) throw new NeedHelp();
      const sub = subcommands[args[0]];
      if (!sub) {
        throw new Error(
          `"zlake vector": no such sub-command ${JSON.stringify(args[0])}: options are: add delete`,
        );
      }
      const code = await runCommand(sub, [...lake.carried(), ...args.slice(1)], io);
      if (code !== 0) throw new ExitStatus(code);
    };
  },
};
