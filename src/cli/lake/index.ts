// The lake client commands by name, and the entry for root flags given
// before the command name (`zlake -lake URL ls`), as the reference allows.

import { FlagSet } from '../flags';
import { CommandIO, LakeCommand, processIO, runCommand } from './command';
import { LakeFlags } from './lakeflags';

// Each command is loaded on first use, so a command that needs no data
// formats (create, use, drop, ...) starts without loading them all.
const loaders: Record<string, () => Promise<LakeCommand>> = {
  auth: async () => (await import('./auth')).auth,
  branch: async () => (await import('./branch')).branch,
  compact: async () => (await import('./compact')).compact,
  create: async () => (await import('./create')).create,
  delete: async () => (await import('./delete')).del,
  drop: async () => (await import('./drop')).drop,
  init: async () => (await import('./init')).init,
  index: async () => (await import('./indexing')).index,
  load: async () => (await import('./load')).load,
  log: async () => (await import('./log')).log,
  ls: async () => (await import('./ls')).ls,
  manage: async () => (await import('./manage')).manage,
  merge: async () => (await import('./merge')).merge,
  query: async () => (await import('./query')).query,
  rename: async () => (await import('./rename')).rename,
  revert: async () => (await import('./revert')).revert,
  status: async () => (await import('./version')).status,
  use: async () => (await import('./use')).use,
  vacuum: async () => (await import('./vacuum')).vacuum,
  vector: async () => (await import('./vector')).vector,
  version: async () => (await import('./version')).version,
};

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
export async function runRoot(
  argv: string[],
  io: CommandIO = processIO(),
  runOther?: (name: string, args: string[]) => Promise<number>,
): Promise<number> {
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
    io.stderr.write(await rootHelp(io.env));
    return 0;
  }
  if (!loaders[name] && !otherCommands[name]) {
    const names = [...Object.keys(loaders), ...Object.keys(otherCommands)].sort();
    io.stderr.write(`"zlake": no such sub-command "${name}": options are: ${names.join(' ')}\n`);
    return 1;
  }
  const args = [...lead, ...argv.slice(i + 1)];
  if (otherCommands[name]) {
    if (!runOther) throw new Error(`zlake ${name} cannot be run from here`);
    return runOther(name, args);
  }
  return runLake(name, args, io);
}

/** The commands zlake has beside the lake client ones (src/cli/main.ts runs them). */
const otherCommands: Record<string, string> = {
  serve: 'service requests to a Zed lake',
  zq: 'process data with Zed queries',
};

/**
 * The help of `zlake` alone, laid out as the reference's: name, usage, the
 * root flags, the commands with their one-line descriptions, description.
 */
export async function rootHelp(env: NodeJS.ProcessEnv): Promise<string> {
  const fs = new FlagSet('zlake');
  fs.bool('h', false, 'display help');
  fs.bool('hidden', false, 'show hidden options');
  new LakeFlags(fs, env);
  // FlagSet.usage() gives a heading, then two lines per flag.
  const lines = fs.usage().split('\n').slice(1);
  const opts: string[] = [];
  for (let i = 0; i + 1 < lines.length; i += 2) {
    opts.push(`-${lines[i].trim().split(' ')[0].slice(1)} ${lines[i + 1].trim()}`);
  }
  opts.sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
  const cmds: string[] = [];
  for (const name of [...Object.keys(loaders), ...Object.keys(otherCommands)].sort()) {
    cmds.push(`${name} - ${otherCommands[name] ?? (await loaders[name]()).short}`);
  }
  const list = (xs: string[]) => xs.map((x) => `    ${x}\n`).join('');
  return (
    `NAME\n    zlake - run Zed commands\n\n` +
    `USAGE\n    zlake <command> [options] [arguments...]\n\n` +
    `OPTIONS\n${list(opts)}\n` +
    `COMMANDS\n${list(cmds)}\n` +
    `DESCRIPTION\n    zlake is a command-line tool for creating, configuring, ingesting into,\n` +
    `    querying, and serving Zed data lakes.\n\n`
  );
}
