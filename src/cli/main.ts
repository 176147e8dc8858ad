// zlake command-line entry: dispatches to the subcommands.

const usage = `usage: zlake <command> [flags] [args]

commands:
  zq       process data files with Zed queries
  serve    run the lake service

lake client commands (-lake URL or ZED_LAKE, default http://localhost:9867):
  create   create a pool              drop     delete a pool
  rename   rename a pool              ls       list pools or branches
  branch   create, delete or list branches
  use      set the working pool and branch
  load     add and commit data        query    run a query
  delete   delete data                merge    merge a branch into another
  revert   undo a commit              vacuum   remove deleted data objects
  log      show the commit history    status   check the service answers
  version  print zlake's version
`;

type Command = (args: string[]) => Promise<number>;

// Loaded on demand so a command only pays for the modules it uses.
const commands: Record<string, () => Promise<Command>> = {
  zq: async () => (await import('./zq')).zq,
  serve: async () => (await import('./serve')).serve,
  ...lakeCommands(
    ['branch', 'create', 'delete', 'drop', 'load', 'log', 'ls', 'merge', 'query'],
    ['rename', 'revert', 'status', 'use', 'vacuum', 'version'],
  ),
};

/** The lake client commands (src/cli/lake), loaded on demand. */
function lakeCommands(...names: string[][]): Record<string, () => Promise<Command>> {
  const run = (name: string) => async () => {
    const { runLake } = await import('./lake');
    return (args: string[]) => runLake(name, args);
  };
  return Object.fromEntries(names.flat().map((n) => [n, run(n)]));
}

export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === 'help' || name === '--help') {
    process.stdout.write(usage);
    return;
  }
  if (name.startsWith('-')) {
    // Lake root flags before the command name: zlake -lake URL ls
    process.exitCode = await (await import('./lake')).runRoot(argv);
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
