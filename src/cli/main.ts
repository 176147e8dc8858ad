// zlake command-line entry: dispatches to the subcommands.

const usage = `usage: zlake <command> [flags] [args]

commands:
  zq       process data files with Zed queries
  serve    run the lake service
`;

type Command = (args: string[]) => Promise<number>;

// Loaded on demand so a command only pays for the modules it uses.
const commands: Record<string, () => Promise<Command>> = {
  zq: async () => (await import('./zq')).zq,
  serve: async () => (await import('./serve')).serve,
};

export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === 'help' || name === '--help') {
    process.stdout.write(usage);
    return;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`zlake: unknown command: ${name}\n${usage}`);
    process.exitCode = 2;
    return;
  }
  try {
    const cmd = await load();
    process.exitCode = await cmd(rest);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
