// zlake zq: run a Zed query over local inputs (files, stdin, URLs) and
// write the results, with the reference zq's flags and argument rules.

import { ValueReader, ValueWriter } from '../formats/io';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { FlagSet, UsageError } from './flags';
import { InputFlags, isInput } from './input';
import { OutputFlags } from './output';
import { readFile } from 'node:fs/promises';

export async function zq(args: string[]): Promise<number> {
  const fs = new FlagSet('zq');
  const input = new InputFlags(fs);
  const output = new OutputFlags(fs);
  const includes = fs.strings(
    'I',
    'source file containing Zed query text (may be used multiple times)',
  );
  const queryFlag = fs.string('query', '', 'Zed query text (forces all arguments to be inputs)');
  let rest: string[];
  try {
    rest = fs.parse(args);
    input.check();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${fs.usage()}`);
    return 2;
  }
  if (rest.length === 0 && includes.value.length === 0 && queryFlag.value === '') {
    process.stdout.write(fs.usage());
    return 0;
  }
  // The first argument is the query unless it names an input.
  let query = queryFlag.value;
  if (query === '' && rest.length > 0 && !(await isInput(rest[0]))) {
    query = rest.shift()!;
  }
  for (const f of includes.value) query = (await readFile(f, 'utf8')) + '\n' + query;

  const ctx = new TypeContext();
  const writer = output.open();
  const readers: ValueReader[] = [];
  for (const path of rest) readers.push(await input.open(path, ctx));
  await run(query, ctx, readers, writer);
  return 0;
}

async function run(
  query: string,
  ctx: TypeContext,
  readers: ValueReader[],
  writer: ValueWriter,
): Promise<void> {
  const q = query.trim();
  if (q !== '' && q !== 'pass' && q !== '*') {
    throw new UsageError(`zq: query language not yet available: ${q}`);
  }
  void ctx;
  for (const r of readers) {
    for (;;) {
      const batch: Value[] | null = await r.read();
      if (!batch) break;
      await writer.write(batch);
    }
  }
  await writer.close();
}
