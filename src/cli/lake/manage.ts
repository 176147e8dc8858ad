// zlake manage: lake upkeep (compaction and indexing) through the service,
// as the reference's `zed manage update` (one pass) and `zed manage
// monitor` (keep going as commits arrive). lakemanage.ts does the work.

import { readFileSync } from 'node:fs';
import { Logger, openLogSink, parseLogLevel } from '../../service/log';
import { FlagSet } from '../flags';
import { CommandIO, LakeCommand, runSubcommand } from './command';
import { LakeManager, ManageConfig, parseManageConfig } from './lakemanage';
import { LakeFlags } from './lakeflags';

/** The flags update and monitor share: -config and the log flags. */
function manageFlags(fs: FlagSet) {
  const config = fs.string('config', '', 'path of manage yaml config file');
  const level = fs.string('log.level', 'info', 'logging level');
  const path = fs.string(
    'log.path',
    'stderr',
    'path to send logs (values: stderr, stdout, path in file system)',
  );
  const mode = fs.string(
    'log.filemode',
    'truncate',
    'logger file write mode (values: append, truncate)',
  );
  fs.bool('log.devmode', false, 'development mode (accepted for compatibility)');
  return async <T>(lake: LakeFlags, f: (m: LakeManager) => Promise<T>): Promise<T> => {
    let conf: ManageConfig = { compact: {}, index: {}, pools: [] };
    if (config.value !== '') {
      conf = parseManageConfig(readFileSync(config.value, 'utf8'), config.value);
    }
    if (mode.value !== 'append' && mode.value !== 'truncate') {
      throw new Error(`unknown log file mode: ${JSON.stringify(mode.value)}`);
    }
    const out = openLogSink(path.value, mode.value);
    try {
      const log = new Logger(out.sink, parseLogLevel(level.value));
      return await f(new LakeManager(await lake.connect(), conf, log));
    } finally {
      await out.close();
    }
  };
}

const update: LakeCommand = {
  name: 'manage update',
  usage: 'manage update [options]',
  short: 'compact and index pools and then exit',
  long: `
Makes one pass over every pool: on the branch the config names (main by
default), compacts runs of small or overlapping data objects that are older
than the cold threshold into sorted, non-overlapping objects, and indexes
objects by the rules the config names, then exits.
`,
  setup(fs, lake) {
    const withManager = manageFlags(fs);
    return async (args) => {
      if (args.length > 0) throw new Error('too many arguments');
      await withManager(lake, (m) => m.update());
    };
  },
};

const monitor: LakeCommand = {
  name: 'manage monitor',
  usage: 'manage monitor [options]',
  short: 'monitor pools in a lake',
  long: `
Does what update does for every pool, then keeps doing it: after each
commit to a managed branch, and when an object turns cold. Pools created
later are picked up from the service's event stream. Runs until
interrupted.
`,
  setup(fs, lake) {
    const withManager = manageFlags(fs);
    return async (args) => {
      if (args.length > 0) throw new Error('too many arguments');
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await withManager(lake, (m) => m.monitor(stop.signal));
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    };
  },
};

const subcommands: Record<string, LakeCommand> = { update, monitor };

export const manage: LakeCommand = {
  name: 'manage',
  usage: 'manage [subcommand]',
  short: 'proper care and feeding of Zed lakes',
  long: `
Keeps a lake's pools in shape: "zlake manage update" compacts (and indexes)
once, "zlake manage monitor" keeps doing so as data arrives. A YAML file
given with -config sets the cold thresholds, index rules and branch per
pool.
`,
  setup(_fs, lake, io: CommandIO) {
    return (args) => runSubcommand('manage', subcommands, args, lake, io);
  },
};
