// The reference's pretty ZSON of real Zeek logs reads and writes back to
// the same bytes, and the compact form round-trips too.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BufferSink, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { zsonFormat } from '../../../src/formats/zson';
import { TypeContext, Value } from '../../../src/zed';

const dir = join(__dirname, '../../../../shared/sample-data/zson');
const logs = readdirSync(dir).filter((f) => f.endsWith('.zson.gz'));

async function read(text: Buffer, chunk: number): Promise<Value[]> {
  const r = zsonFormat.newReader!(sourceFromBuffer(text, chunk), { ctx: new TypeContext() });
  return readAll(r);
}

async function write(vals: Value[], pretty: number): Promise<Buffer> {
  const sink = new BufferSink();
  const w = zsonFormat.newWriter!(sink, { pretty });
  // Several batches, as a query would hand them over.
  for (let i = 0; i < vals.length; i += 100) await w.write(vals.slice(i, i + 100));
  await w.close();
  expect(sink.ended).toBe(true);
  return sink.bytes();
}

test('sample logs are present', () => {
  expect(logs.length).toBeGreaterThanOrEqual(14);
});

describe.each(logs)('%s', (log) => {
  const text = gunzipSync(readFileSync(join(dir, log)));

  test('pretty(4) output is byte-identical to the reference', async () => {
    // Chunks that split values, lines and multi-byte characters.
    const vals = await read(text, 4093);
    expect(vals.length).toBeGreaterThan(0);
    const out = await write(vals, 4);
    expect(out.length).toBe(text.length);
    expect(out.equals(text)).toBe(true);
  });

  test('compact output round-trips, and reads back to the same values', async () => {
    const vals = await read(text, 65536);
    const compact = await write(vals, 0);
    expect(compact.toString().split('\n').length).toBe(vals.length + 1);
    const again = await read(compact, 1000);
    expect((await write(again, 0)).equals(compact)).toBe(true);
    expect((await write(again, 4)).equals(text)).toBe(true);
    expect(again.length).toBe(vals.length);
    for (let i = 0; i < vals.length; i++) {
      expect(again[i].bytes()!.equals(vals[i].bytes()!)).toBe(true);
    }
  });
});
