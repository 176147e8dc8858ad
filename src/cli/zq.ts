// zlake zq: run a Zed query over local inputs (files, stdin, URLs) and
// write the results, with the reference zq's flags and argument rules.

import { ValueReader, ValueWriter } from '../formats/io';
import { Value } from '../zed/value';
import type { Expr, Op, Seq } from '../query/ast';
import { hasBoolResult } from '../query/functions';
import { compileAST, parseQuery, QueryContext, startsWithFrom } from '../query';
import { arrayReader } from '../query/runtime/ops/scan';
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
  let queryArg: string | null = null;
  if (query === '' && rest.length > 0 && !(await isInput(rest[0]))) {
    query = rest.shift()!;
    queryArg = query;
  }
  const texts: string[] = [];
  for (const f of includes.value) texts.push(await readFile(f, 'utf8'));
  texts.push(query);
  const text = texts.join('\n');

  // A lone argument that is not an input is a query only if it starts
  // with a source (from, file, get) or is a yield, which then runs over a
  // single null; otherwise it names a missing file (the reference's rule).
  let nullInput = false;
  let seq: Seq;
  if (queryArg !== null && rest.length === 0) {
    try {
      seq = parseQuery(text);
    } catch {
      throw new UsageError(`zq: no such file: ${queryArg}`);
    }
    if (isYield(seq)) nullInput = true;
    else if (!startsWithFrom(seq)) throw new UsageError(`zq: no such file: ${queryArg}`);
  } else {
    seq = parseQuery(text);
  }

  const ctx = new QueryContext({ onWarning: (msg) => process.stderr.write(`${msg}\n`) });
  const inputs: ValueReader[] = [];
  if (nullInput) inputs.push(arrayReader([Value.null()]));
  for (const path of rest) inputs.push(await input.open(path, ctx.zctx));
  const writer = output.open();
  await run(seq, ctx, inputs, writer);
  return 0;
}

/** Runs the query over the inputs into the writer. */
async function run(
  seq: Seq,
  ctx: QueryContext,
  inputs: ValueReader[],
  writer: ValueWriter,
): Promise<void> {
  const query = await compileAST(seq, { ctx, inputs, allowFiles: true, allowHTTP: true });
  try {
    for (let batch = await query.pull(); batch; batch = await query.pull())
      await writer.write(batch);
  } finally {
    await query.close();
    await writer.close();
  }
}

/** The first operator, looking into declaration scopes. */
function firstOp(seq: Seq): Op | undefined {
  const op = seq[0];
  return op?.kind === 'Scope' ? firstOp(op.body) : op;
}

/** A query whose first operator is a yield (written or implied by a bare expression). */
function isYield(seq: Seq): boolean {
  const op = firstOp(seq);
  if (op === undefined) return false;
  if (op.kind === 'Yield') return true;
  if (op.kind === 'OpExpr') return !isSearchOrBool(op.expr);
  return false;
}

/** Is the expression a search or a boolean (an implied filter rather than a yield)? */
function isSearchOrBool(e: Expr): boolean {
  switch (e.kind) {
    case 'Term':
    case 'Glob':
    case 'Regexp':
    case 'Grep':
      return true;
    case 'Primitive':
      return e.type === 'bool';
    case 'UnaryExpr':
      return e.op === '!' || isSearchOrBool(e.operand);
    case 'BinaryExpr':
      return ['and', 'or', 'in', '==', '!=', '<', '<=', '>', '>=', '~'].includes(e.op);
    case 'Conditional':
      return isSearchOrBool(e.then) && isSearchOrBool(e.else);
    case 'Call':
      return hasBoolResult(e.name);
  }
  return false;
}
