// The frame of the lake client commands, after the reference's `zed`:
// each command's flags are parsed together with the root flags (-lake,
// -use, -q, -configdir, -version), `-h` prints help on stderr, and an
// error prints its message on stderr and exits 1.

import { Readable, Writable } from 'node:stream';
import { ResponseError } from '../../client/errors';
import { FlagSet, UsageError } from '../flags';
import { LakeFlags } from './lakeflags';

/** Where a command reads and writes: the process's streams, or a test's. */
export interface CommandIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}

export function processIO(): CommandIO {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** A command's run step, made once its flags are defined. */
export type Runner = (args: string[]) => Promise<void>;

export interface LakeCommand {
  name: string;
  /** One-line usage, e.g. "create [-orderby key[,key...][:asc|:desc]] name". */
  usage: string;
  /** A short description for the command list. */
  short: string;
  /** The help text's description. */
  long: string;
  /** Flags shown only with -hidden. */
  hidden?: string[];
  /** Defines the command's flags and returns how it runs. */
  setup(fs: FlagSet, lake: LakeFlags, io: CommandIO): Runner;
}

/** The help command-line error: the caller prints help. */
export class NeedHelp extends Error {
  constructor() {
    super('help');
  }
}

/** A nested command's exit status, already reported (a command with subcommands). */
export class ExitStatus extends Error {
  constructor(readonly code: number) {
    super(`exit status ${code}`);
  }
}

/** Process exit status after stdout was closed under us (128 + SIGPIPE). */
const EXIT_SIGPIPE = 141;

function isEPIPE(e: unknown): boolean {
  return (e as NodeJS.ErrnoException)?.code === 'EPIPE';
}

/** Runs a lake command with args; resolves with the exit status. */
export async function runCommand(
  cmd: LakeCommand,
  args: string[],
  io: CommandIO = processIO(),
): Promise<number> {
  const fs = new FlagSet(cmd.name);
  const help = fs.bool('h', false, 'display help');
  const hidden = fs.bool('hidden', false, 'show hidden options');
  const lake = new LakeFlags(fs, io.env);
  const run = cmd.setup(fs, lake, io);
  let rest: string[];
  try {
    rest = fs.parse(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    // Go's flag package prints the error, then charm wraps it.
    io.stderr.write(`${e.message}\nat flag: ${JSON.stringify(args.join(' '))}: ${e.message}\n`);
    return 1;
  }
  if (help.value || hidden.value) {
    io.stderr.write(helpText(cmd, fs, hidden.value));
    return 0;
  }
  if (lake.showVersion) {
    io.stdout.write(`Version: ${cliVersion()}\n`);
    return 0;
  }
  try {
    await run(rest);
    return 0;
  } catch (e) {
    if (e instanceof NeedHelp) {
      io.stderr.write(helpText(cmd, fs, false));
      return 0;
    }
    if (e instanceof ExitStatus) return e.code;
    if (isEPIPE(e)) return EXIT_SIGPIPE;
    // A lake opened in this process words errors as the lake does, without
    // the status line a service's answer carries.
    const text = e instanceof ResponseError && lake.isLocal ? e.detail : (e as Error).message;
    io.stderr.write(`${text}\n`);
    return 1;
  } finally {
    await lake.close();
  }
}

/**
 * Runs the subcommand args[0] of the command named parent with the rest
 * of args, the root flags carried over; no subcommand prints the help,
 * an unknown one lists those that are not hidden.
 */
export async function runSubcommand(
  parent: string,
  subcommands: Record<string, LakeCommand>,
  args: string[],
  lake: LakeFlags,
  io: CommandIO,
  hidden: string[] = [],
): Promise<void> {
  if (args.length === 0) throw new NeedHelp();
  const sub = subcommands[args[0]];
  if (!sub) {
    const names = Object.keys(subcommands)
      .filter((n) => !hidden.includes(n))
      .sort();
    throw new Error(
      `"zlake ${parent}": no such sub-command ${JSON.stringify(args[0])}: options are: ${names.join(' ')}`,
    );
  }
  const code = await runCommand(sub, [...lake.carried(), ...args.slice(1)], io);
  if (code !== 0) throw new ExitStatus(code);
}

/** zlake's version, as `-version` prints it. */
export function cliVersion(): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../../../package.json') as { version?: string };
    return pkg.version ? `v${pkg.version}` : 'unknown';
  } catch {
    return 'unknown';
  }
}

function helpText(cmd: LakeCommand, fs: FlagSet, showHidden: boolean): string {
  const skip = new Set(showHidden ? [] : (cmd.hidden ?? []));
  // FlagSet.usage() gives a heading, then two lines per flag: "  -name value" and "\tusage".
  const lines = fs.usage().split('\n').slice(1);
  const opts: string[] = [];
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const name = lines[i].trim().split(' ')[0].slice(1);
    if (!skip.has(name)) opts.push(`    -${name} ${lines[i + 1].trim()}`);
  }
  return (
    `NAME\n    zlake ${cmd.name} - ${cmd.short}\n\n` +
    `USAGE\n    zlake ${cmd.usage}\n\n` +
    `OPTIONS\n${opts.join('\n')}\n\n` +
    `DESCRIPTION\n${cmd.long.trim().replace(/^/gm, '    ')}\n\n`
  );
}

/**
 * Asks on stdout and reads one word from stdin, as Go's fmt.Scanln does;
 * "y" or "yes" (any case) confirms.
 */
export async function confirm(io: CommandIO, question: string): Promise<void> {
  io.stdout.write(`${question} There is no going back... [y|n]\n`);
  const line = await readLine(io.stdin);
  if (line === null) throw new Error('EOF');
  const word = line.trim().split(/\s+/)[0];
  if (word === '') throw new Error('unexpected newline');
  const answer = word.toLowerCase();
  if (answer !== 'y' && answer !== 'yes') throw new Error('operation canceled');
}

/** One line from a stream (without its newline), or null at end of input. */
function readLine(s: Readable): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let text = '';
    let got = false;
    const cleanup = () => {
      s.off('data', onData);
      s.off('end', onEnd);
      s.off('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      got = true;
      const c = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      const nl = c.indexOf('\n');
      if (nl < 0) {
        text += c;
        return;
      }
      cleanup();
      s.pause();
      const rest = c.slice(nl + 1);
      if (rest !== '') s.unshift(Buffer.from(rest));
      resolve(text + c.slice(0, nl));
    };
    const onEnd = () => {
      cleanup();
      resolve(got ? text : null);
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    s.on('data', onData);
    s.on('end', onEnd);
    s.on('error', onError);
  });
}

/** s quoted as Go's %q verb quotes it. */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, (_m, h: string) => `\\x${h}`);
}
