// The lake client commands by name, and the entry for root flags given
// before the command name (`zlake -lake URL ls`), as the reference allows.

import { branch } from './branch';
import { CommandIO, LakeCommand, processIO, runCommand } from './command';
import { create } from './create';
import { del } from './delete';
import { drop } from './drop';
import { load } from './load';
import { log } from './log';
import { ls } from './ls';
import { merge } from './merge';
import { query } from './query';
import { rename } from './rename';
import { revert } from './revert';
import { use } from './use';
import { vacuum } from './vacuum';
import { status, version } from './version';

export const lakeCommands: Record<string, LakeCommand> = Object.fromEntries(
  [
    branch,
    create,
    del,
    drop,
    load,
    log,
    ls,
    merge,
    query,
    rename,
    revert,
    status,
    use,
    vacuum,
    version,
  ].map((c) => [c.name, c]),
);

/** Runs the named lake command. */
export function runLake(
  name: string,
  args: string[],
  io: CommandIO = processIO(),
): Promise<number> {
  return runCommand(lakeCommands[name], args, io);
}

/** Root flags that take a value (the rest are booleans). */
const valueFlags = new Set(['lake', 'use', 'configdir']);
const boolFlags = new Set(['q', 'version', 'h', 'hidden']);

/**
 * Runs `zlake <root flags> <command> <args>`: the root flags are handed to
 * the command, whose flags include them. `zlake -version` alone prints the
 * version.
 */
export async function runRoot(argv: string[], io: CommandIO = processIO()): Promise<number> {
  const lead: string[] = [];
  let i = 0;
  while (i < argv.length && argv[i].startsWith('-') && argv[i] !== '-' && argv[i] !== '--') {
    const arg = argv[i++];
    lead.push(arg);
    const name = arg.replace(/^--?/, '').split('=')[0];
    if (!arg.includes('=') && valueFlags.has(name) && i < argv.length) lead.push(argv[i++]);
    else if (!valueFlags.has(name) && !boolFlags.has(name)) {
      io.stderr.write(
        `flag provided but not defined: -${name}\nat flag: ${JSON.stringify(argv.join(' '))}: flag provided but not defined: -${name}\n`,
      );
      return 1;
    }
  }
  if (argv[i] === '--') i++;
  const name = argv[i];
  if (name === undefined) {
    if (lead.some((a) => /^--?version(=(true|1|t|T|TRUE|True))?$/.test(a))) {
      return runCommand(version, [], io);
    }
    io.stderr.write('zlake: a command must follow the flags (see zlake -h)\n');
    return 1;
  }
  const cmd = lakeCommands[name];
  if (!cmd) {
    io.stderr.write(`"zlake": no such sub-command "${name}"\n`);
    return 1;
  }
  return runCommand(cmd, [...lead, ...argv.slice(i + 1)], io);
}
