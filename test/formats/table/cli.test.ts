// zlake zq -f table / -f text, in process with output to a file: the
// flags choose the writers, and a writer error still leaves the rows
// written before it.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlagSet } from '../../../src/cli/flags';
import { OutputFlags } from '../../../src/cli/output';
import { zq } from '../../../src/cli/zq';

const tmp = mkdtempSync(join(tmpdir(), 'zq-table-'));
let n = 0;

/** Runs zq with the flags and query over the ZSON input; returns the output file's text and any error. */
async function run(flags: string[], query: string, input: string) {
  const inFile = join(tmp, `in${n}.zson`);
  const outFile = join(tmp, `out${n++}.txt`);
  writeFileSync(inFile, input);
  let error: Error | undefined;
  try {
    await zq([...flags, '-o', outFile, query, inFile]);
  } catch (e) {
    error = e as Error;
  }
  return { out: readFileSync(outFile, 'utf8'), error };
}

test('-f table aligns a query result under its header (the reference ls-pools ztest)', async () => {
  const pools =
    '{name:"p2",id:0x01,layout:{order:"desc",keys:[["ts"]]}}\n{name:"p1",id:0x02,layout:{order:"desc",keys:[["ts"]]}}';
  expect((await run(['-f', 'table'], 'cut name | sort name', pools)).out).toBe('name\np1\np2\n');
  expect((await run(['-f', 'table'], 'sort name | cut name, layout.order', pools)).out).toBe(
    'name layout.order\np1   desc\np2   desc\n',
  );
});

test('-f text writes tab-separated columns (the reference uses it to get ids in scripts)', async () => {
  expect((await run(['-f', 'text'], 'cut id:=hex(id)', '{id:0xabcd}\n{id:0x01}')).out).toBe(
    'abcd\n01\n',
  );
  expect((await run(['-f', 'text'], 'yield [this.a, this.a]', '{a:1}')).out).toBe('1,1\n');
});

test('-f table fails on a non-record after flushing the rows before it', async () => {
  const { out, error } = await run(['-f', 'table'], 'pass', '{a:1}\n[1,2]\n{a:2}');
  expect(error?.message).toMatch(/table output encountered non-record value: \[1,2]/);
  expect(out).toBe('a\n1\n');
});

test('the -f usage lists table and text', () => {
  const fs = new FlagSet('zq');
  new OutputFlags(fs);
  expect(fs.usage()).toContain('[arrows,csv,json,parquet,table,text,tsv,vng,zeek,zjson,zng,zson]');
});
