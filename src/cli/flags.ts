// Command-line flags with the semantics of Go's flag package, which the
// reference's commands use: `-name value`, `-name=value`, `--name`, boolean
// flags set by `-name` or `-name=false`, and parsing stops at the first
// argument that is not a flag (or after `--`).

export class UsageError extends Error {}

interface FlagDef {
  name: string;
  usage: string;
  bool: boolean;
  set(value: string): void;
}

export class FlagSet {
  private defs = new Map<string, FlagDef>();
  private order: FlagDef[] = [];

  constructor(readonly command: string) {}

  private add(def: FlagDef): void {
    this.defs.set(def.name, def);
    this.order.push(def);
  }

  bool(name: string, value: boolean, usage: string): { value: boolean } {
    const ref = { value };
    this.add({
      name,
      usage,
      bool: true,
      set: (v) => {
        if (v === 'true' || v === '1' || v === 't' || v === 'T' || v === 'TRUE' || v === 'True')
          ref.value = true;
        else if (
          v === 'false' ||
          v === '0' ||
          v === 'f' ||
          v === 'F' ||
          v === 'FALSE' ||
          v === 'False'
        )
          ref.value = false;
        else throw new UsageError(`invalid boolean value "${v}" for -${name}`);
      },
    });
    return ref;
  }

  string(name: string, value: string, usage: string): { value: string } {
    const ref = { value };
    this.add({ name, usage, bool: false, set: (v) => (ref.value = v) });
    return ref;
  }

  /** A flag that may be given several times; each value is appended. */
  strings(name: string, usage: string): { value: string[] } {
    const ref = { value: [] as string[] };
    this.add({ name, usage, bool: false, set: (v) => ref.value.push(v) });
    return ref;
  }

  int(name: string, value: number, usage: string): { value: number } {
    const ref = { value };
    this.add({
      name,
      usage,
      bool: false,
      set: (v) => {
        if (!/^[+-]?\d+$/.test(v))
          throw new UsageError(`invalid value "${v}" for flag -${name}: parse error`);
        ref.value = Number(v);
      },
    });
    return ref;
  }

  /**
   * Sets each flag from the environment variable named by prefix and the
   * flag's name in upper case with `.` and `-` as `_` (`-s3.endpoint` is
   * ZLAKE_S3_ENDPOINT), before the command line, which wins. For servers
   * configured by their container's environment.
   */
  env(prefix: string, env: NodeJS.ProcessEnv = process.env): this {
    for (const def of this.order) {
      const name = prefix + def.name.toUpperCase().replace(/[.-]/g, '_');
      const v = env[name];
      if (v === undefined || v === '') continue;
      try {
        def.set(v);
      } catch (e) {
        throw new UsageError(`${name}: ${(e as Error).message}`);
      }
    }
    return this;
  }

  /** Parses args, returning the remaining positional arguments. */
  parse(args: string[]): string[] {
    let i = 0;
    while (i < args.length) {
      const arg = args[i];
      if (arg.length < 2 || arg[0] !== '-') break;
      if (arg === '--') {
        i++;
        break;
      }
      let name = arg.slice(arg[1] === '-' ? 2 : 1);
      if (name.length === 0 || name[0] === '-' || name[0] === '=') {
        throw new UsageError(`bad flag syntax: ${arg}`);
      }
      let value: string | undefined;
      const eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.slice(eq + 1);
        name = name.slice(0, eq);
      }
      const def = this.defs.get(name);
      if (!def) throw new UsageError(`flag provided but not defined: -${name}`);
      i++;
      if (def.bool) {
        def.set(value ?? 'true');
      } else {
        if (value === undefined) {
          if (i >= args.length) throw new UsageError(`flag needs an argument: -${name}`);
          value = args[i++];
        }
        def.set(value);
      }
    }
    return args.slice(i);
  }

  usage(): string {
    const lines = this.order.map((d) => `  -${d.name}${d.bool ? '' : ' value'}\n\t${d.usage}`);
    return `usage: zlake ${this.command} [flags] ...\n${lines.join('\n')}\n`;
  }
}
