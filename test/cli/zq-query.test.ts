// zlake zq running queries (in process, output to a file): queries over
// files, the reference's rule for a lone argument, includes, errors.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zq } from '../../src/cli/zq';

const tmp = mkdtempSync(join(tmpdir(), 'zq-query-'));
const input = join(tmp, 'in.zson');
writeFileSync(input, '{a:1,s:"x"} {a:2,s:"y"} {a:3,s:"x"}');
let n = 0;

async function run(args: string[]): Promise<string[]> {
  const out = join(tmp, `out${n++}.zson`);
  await zq(['-z', '-o', out, ...args]);
  const text = readFileSync(out, 'utf8');
  return text === '' ? [] : text.trimEnd().split('\n');
}

test('a query over a file', async () => {
  expect(await run(['s=="x" | cut a', input])).toEqual(['{a:1}', '{a:3}']);
  expect(await run(['count() by s | sort s', input])).toEqual([
    '{s:"x",count:2(uint64)}',
    '{s:"y",count:1(uint64)}',
  ]);
});

test('a file alone passes everything through', async () => {
  expect(await run([input])).toEqual(['{a:1,s:"x"}', '{a:2,s:"y"}', '{a:3,s:"x"}']);
});

test('a lone yield runs over a single null; a lone source reads itself', async () => {
  expect(await run(['yield 1+1'])).toEqual(['2']);
  expect(await run(['yield this'])).toEqual(['null']);
  expect(await run([`file ${input} | a > 1`])).toEqual(['{a:2,s:"y"}', '{a:3,s:"x"}']);
});

test('a lone argument that is neither is a missing file', async () => {
  await expect(run(['a==1'])).rejects.toThrow('zq: no such file: a==1');
  await expect(run(['nosuchfile.zson'])).rejects.toThrow('zq: no such file: nosuchfile.zson');
});

test('-I prepends query text from files', async () => {
  const inc = join(tmp, 'q.zed');
  writeFileSync(inc, 'const two = 2\nfunc double(x): (x * two)\n');
  expect(await run(['-I', inc, 'yield double(a)', input])).toEqual(['2', '4', '6']);
  const src = join(tmp, 'from.zed');
  writeFileSync(src, `file ${input}\n`);
  expect(await run(['-I', src])).toEqual(['{a:1,s:"x"}', '{a:2,s:"y"}', '{a:3,s:"x"}']);
});

test('parse and compile errors', async () => {
  await expect(run(['a==', input])).rejects.toThrow(/error parsing Zed at column 4/);
  await expect(run(['yield nosuch(a)', input])).rejects.toThrow('nosuch(): no such function');
  await expect(run([`file ${input}`, input])).rejects.toThrow(/redundant inputs specified/);
});
