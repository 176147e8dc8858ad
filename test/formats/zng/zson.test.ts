// ZNG against ZSON on the reference's sample logs: ZNG read and written as
// pretty ZSON gives the reference's ZSON, and that ZSON read and written as
// uncompressed ZNG gives the reference's ZNG.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BufferSink, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { decodeZng, newWriter } from '../../../src/formats/zng';
import { zsonFormat } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed/context';

const samples = join(__dirname, '../../../../shared/sample-data');
const logs = readdirSync(join(samples, 'zng'))
  .map((f) => f.slice(0, -'.zng.gz'.length))
  .sort();

function sample(dir: string, name: string): Buffer {
  return gunzipSync(readFileSync(join(samples, dir, name)));
}

describe.each(logs)('%s', (log) => {
  test('ZNG (LZ4) → pretty ZSON is the reference ZSON', async () => {
    const vals = decodeZng(sample('zng', `${log}.zng.gz`), { ctx: new TypeContext() });
    const sink = new BufferSink();
    const w = zsonFormat.newWriter!(sink, { pretty: 4 });
    await w.write(vals);
    await w.close();
    expect(sink.text()).toBe(sample('zson', `${log}.zson.gz`).toString('utf8'));
  });

  test('ZSON → uncompressed ZNG is the reference ZNG', async () => {
    const ctx = new TypeContext();
    const zson = sample('zson', `${log}.zson.gz`);
    const vals = await readAll(zsonFormat.newReader!(sourceFromBuffer(zson, 1 << 16), { ctx }));
    const sink = new BufferSink();
    const w = newWriter(sink, { compress: false });
    await w.write(vals);
    await w.close();
    expect(sink.bytes().equals(sample('zng-uncompressed', `${log}.zng.gz`))).toBe(true);
  });
});
