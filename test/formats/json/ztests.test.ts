// The reference's own format tests (zio/jsonio, zio/zjsonio and
// zio/anyio/ztests/zjson, each a `zed: '*'` pass-through or a zq pipeline),
// run as data: read the input in its format, write the output format, and
// compare the text byte for byte. ztests.json holds the cases.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BufferSink, Format, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { jsonFormat, ndjsonFormat } from '../../../src/formats/json';
import { zjsonFormat } from '../../../src/formats/zjson';
import { zsonFormat } from '../../../src/formats/zson';
import { TypeContext, Value } from '../../../src/zed';

interface Case {
  source: string;
  input_format: 'json' | 'zson' | 'zjson';
  output_format: 'zson' | 'zson4' | 'ndjson' | 'zjson' | 'zjson-zson';
  input: string;
  output: string;
}

const cases: Case[] = JSON.parse(readFileSync(join(__dirname, 'ztests.json'), 'utf8'));

const readers: Record<Case['input_format'], Format> = {
  json: jsonFormat,
  zson: zsonFormat,
  zjson: zjsonFormat,
};

async function readAs(format: Format, text: string): Promise<Value[]> {
  return readAll(
    format.newReader!(sourceFromBuffer(Buffer.from(text)), { ctx: new TypeContext() }),
  );
}

async function writeAs(format: Format, vals: Value[], pretty = 0): Promise<string> {
  const sink = new BufferSink();
  const w = format.newWriter!(sink, { pretty });
  if (vals.length > 0) await w.write(vals);
  await w.close();
  return sink.text();
}

test.each(cases.map((c) => [c.source, c] as const))('%s', async (_name, c) => {
  const vals = await readAs(readers[c.input_format], c.input);
  let out: string;
  switch (c.output_format) {
    case 'zson':
      out = await writeAs(zsonFormat, vals);
      break;
    case 'zson4':
      out = await writeAs(zsonFormat, vals, 4);
      break;
    case 'ndjson':
      out = await writeAs(ndjsonFormat, vals);
      break;
    case 'zjson':
      out = await writeAs(zjsonFormat, vals);
      break;
    case 'zjson-zson':
      out = await writeAs(zsonFormat, await readAs(zjsonFormat, await writeAs(zjsonFormat, vals)));
      break;
  }
  expect(out).toBe(c.output);
});
