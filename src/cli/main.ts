// zlake command-line entry: dispatches to the subcommands.

type Command = (args: string[]) => Promise<number>;

// zq and serve are loaded on demand so a command only pays for the
// modules it uses; everything else is a lake client command (src/cli/lake),
// which also answers `zlake` alone with help and unknown names with the
// list of commands.
const commands: Record<string, () => Promise<Command>> = {
  zq: async () => (await import('./zq')).zq,
  serve: async () => (await import('./serve')).serve,
};

export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const run = async (cmd: string, args: string[]) => (await commands[cmd]())(args);
  try {
    if (name !== undefined && commands[name]) {
      process.exitCode = await run(name, rest);
      return;
    }
    const lake = await import('./lake');
    const help = name === 'help' || name === '-h' || name === '--help';
    process.exitCode = await lake.runRoot(help ? [] : argv, undefined, run);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
