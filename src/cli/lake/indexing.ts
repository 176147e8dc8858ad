// zlake index: the reference's `zed index` commands. Index rules are made
// (create), listed (ls) and dropped (drop) lake-wide; apply and update
// index the data objects of the working branch by them.

import { IndexRuleRequest } from '../../client';
import { ExitStatus, goQuote, LakeCommand, NeedHelp, runCommand } from './command';
import { parseID } from './lakeflags';
import { LakeOutputFlags, showQuery } from './output';

/**
 * The rules `create` arguments describe after the name: "field a.b",
 * "type ip" or "agg <script>", any number of times.
 */
export function parseRuleArgs(name: string, args: string[]): IndexRuleRequest[] {
  const rules: IndexRuleRequest[] = [];
  while (args.length > 0) {
    const [kind, value] = args;
    switch (kind) {
      case 'field':
        if (args.length < 2) throw new Error('field index rule requires field(s) argument');
        rules.push({ name, fields: value.split(',').map((p) => p.split('.')) });
        break;
      case 'type':
        if (args.length < 2) throw new Error('type index rule requires type argument');
        rules.push({ name, type: value });
        break;
      case 'agg':
        if (args.length < 2) throw new Error('agg index rule requires a script argument');
        rules.push({ name, script: value });
        break;
      default:
        throw new Error(`unknown index rule type: ${goQuote(kind)}`);
    }
    args = args.slice(2);
  }
  return rules;
}

const create: LakeCommand = {
  name: 'index create',
  usage: 'index create [options] rule-name rule-type value [rule-type value ...]',
  short: 'create an index rule for a lake',
  long: `
Creates index rules that can be applied to the data objects of any pool in
the lake. The arguments are the rule's name, then one or more pairs of a
rule type and its value:

  field <path>    the values of a field (a dotted path), e.g. "field id.orig_h"
  type <type>     every value of a type anywhere in the data, e.g. "type ip"
  agg <script>    the output of a Zed script run over each data object

Several rules may share a name; the name then stands for all of them. A
rule that repeats one of the same name fails ("index rule already exists").

Example: zlake index create IPs field src.ip
`,
  hidden: ['framesize'],
  setup(fs, lake, io) {
    fs.int('framesize', 32 * 1024, 'minimum frame size used in microindex file');
    const output = new LakeOutputFlags(fs, 'lake');
    return async (args) => {
      if (args.length < 2)
        throw new Error('a rule name and at least one index pattern must be specified');
      const [name, ...rest] = args;
      const rules = parseRuleArgs(name, rest);
      await (await lake.connect()).addIndexRules(rules);
      if (!lake.isQuiet)
        await showQuery(
          lake,
          output,
          io.stdout,
          `from :index_rules | name == ${JSON.stringify(name)}`,
        );
    };
  },
};

const drop: LakeCommand = {
  name: 'index drop',
  usage: 'index drop id [id ...]',
  short: 'drop rules from a lake index',
  long: `
Drops the index rules with the given IDs (as "zlake index ls" shows them, or
0x followed by hex). Index objects the rules made stay with their data
objects and are still used by queries.
`,
  setup(_fs, lake, io) {
    return async (args) => {
      if (args.length === 0) throw new Error('must specify one or more index tags');
      const ids = args.map((a) => parseID(a).toString());
      const rules = await (await lake.connect()).deleteIndexRules(ids);
      if (!lake.isQuiet) {
        for (const r of rules) io.stdout.write(`${r.id} dropped from rule ${goQuote(r.name)}\n`);
      }
    };
  },
};

const ls: LakeCommand = {
  name: 'index ls',
  usage: 'index ls [options]',
  short: 'list and display lake index rules',
  long: `
Lists the lake's index rules by name: each name, then its rules with their
IDs. -f chooses another output format (they are \`from :index_rules\`).
`,
  setup(fs, lake, io) {
    const output = new LakeOutputFlags(fs, 'lake');
    return async (args) => {
      if (args.length > 0) throw new Error('too many arguments');
      await showQuery(lake, output, io.stdout, 'from :index_rules');
    };
  },
};

const apply: LakeCommand = {
  name: 'index apply',
  usage: 'index apply -r rule [-r rule ...] tag [tag ...]',
  short: 'apply index rules to one or more data objects in a branch',
  long: `
Indexes data objects of the working branch by the rules given with -r (rule
names or IDs). Each tag is a data object ID, or a commit ID standing for the
data objects that commit added. Objects already indexed by a rule are left
as they are; the new index objects are committed to the branch in one
commit.
`,
  setup(fs, lake, io) {
    const rules = fs.strings('r', 'name of index rule to apply; can be set multiple times');
    return async (args) => {
      if (rules.value.some((r) => r === ''))
        throw new Error('invalid value "" for flag -r: rule cannot be an empty string');
      if (args.length < 1)
        throw new Error('index apply: one or more object IDs must be provided as arguments');
      if (rules.value.length === 0)
        throw new Error('index apply: at least one index rule must be specified (use the -r flag)');
      const tags = args.map((a) => parseID(a).toString());
      const { client, head, pool } = await lake.working();
      const r = await client.applyIndexRules(pool, head.branch, rules.value, tags);
      if (!lake.isQuiet) io.stdout.write(`${r.commit} committed\n`);
    };
  },
};

const update: LakeCommand = {
  name: 'index update',
  usage: 'index update [rule ...]',
  short: 'index all unindexed data objects',
  long: `
Indexes every data object of the working branch that lacks an index object
of the rules named (rule names or IDs), or of every rule when none are
named, in one commit.
`,
  setup(_fs, lake, io) {
    return async (args) => {
      const { client, head, pool } = await lake.working();
      const r = await client.updateIndex(pool, head.branch, args);
      if (!lake.isQuiet) io.stdout.write(`${r.commit} committed\n`);
    };
  },
};

const subcommands: Record<string, LakeCommand> = { apply, create, drop, ls, update };

export const index: LakeCommand = {
  name: 'index',
  usage: 'index [subcommand]',
  short: 'create and drop indexes, index data',
  long: `
The index subcommands manage the lake's index rules and index the data
objects of a pool's branch by them. Each rule makes one index object per
data object, committed to the branch beside it; queries whose filter an
index can answer (a field equal to a constant, or a value of an indexed
type) skip the data objects whose index says nothing in them can match.

The service does not index newly loaded data by itself: "zlake index
update", "zlake index apply" or "zlake manage" do it when asked.
`,
  setup(_fs, lake, io) {
    return async (args) => {
      if (args.length === 0) throw new NeedHelp();
      const sub = subcommands[args[0]];
      if (!sub) {
        throw new Error(
          `"zlake index": no such sub-command ${JSON.stringify(args[0])}: options are: ${Object.keys(subcommands).join(' ')}`,
        );
      }
      // Root flags given before the subcommand carry over.
      const carried = [
        '-lake',
        lake.lake,
        ...(lake.isQuiet ? ['-q'] : []),
        ...(lake.useFlag ? ['-use', lake.useFlag] : []),
      ];
      const code = await runCommand(sub, [...carried, ...args.slice(1)], io);
      if (code !== 0) throw new ExitStatus(code);
    };
  },
};
