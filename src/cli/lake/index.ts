// The lake client commands by name, and the entry for root flags given
// before the command name (`zlake -lake URL ls`), as the reference allows.

import { CommandIO, LakeCommand, processIO, runCommand } from './command';

// Each command is loaded on first use, so a command that needs no data
// formats (create, use, drop, ...) starts without loading them all.
const loaders: Record<string, () => Promise<LakeCommand>> = {
  branch: async () => (await import('./branch')).branch,
  create: async () => (await import('./create')).create,
  delete: async () => (await import('./delete')).del,
  drop: async () => (await import('./drop')).drop,
  load: async () => (await import('./load')).load,
  log: async () => (await import('./log')).log,
  ls: async () => (await import('./ls')).ls,
  merge: async () => (await import('./merge')).merge,
  query: async () => (await import('./query')).query,
  rename: async () => (await import('./rename')).rename,
  revert: async () => (await import('./revert')).revert,
  status: async () => (await import('./version')).status,
  use: async () => (await import('./use')).use,
  vacuum: async () => (await import('./vacuum')).vacuum,
  version: async () => (await import('./version')).version,
};

/** The names of the lake client commands. */
export const lakeCommandNames = Object.keys(loaders);

/** Runs the named lake command. */
export async function runLake(
  name: string,
  args: string[],
  io: CommandIO = processIO(),
): Promise<number> {
  return runCommand(await loaders[name](), args, io);
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
      return runLake('version', [], io);
    }
    io.stderr.write('zlake: a command must follow the flags (see zlake -h)\n');
    return 1;
  }
  if (!loaders[name]) {
    io.stderr.write(`"zlake": no such sub-command "${name}"\n`);
    return 1;
  }
  return runLake(name, [...lead, ...argv.slice(i + 1)], io);
}
