// The reference's sample logs: reading and rewriting must reproduce its
// bytes exactly (uncompressed), and our compressed output must read back
// to the same values.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BufferSink, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { decodeZng, newReader, newWriter } from '../../../src/formats/zng';
import { TypeContext } from '../../../src/zed/context';
import { Value } from '../../../src/zed/value';
import { formatType } from '../../../src/zed/typestring';
import { compressedBlocks } from './frames';

const samples = join(__dirname, '../../../../shared/sample-data');
const logs = readdirSync(join(samples, 'zng'))
  .filter((f) => f.endsWith('.zng.gz'))
  .map((f) => f.slice(0, -'.zng.gz'.length))
  .sort();

function sample(dir: string, name: string): Buffer {
  return gunzipSync(readFileSync(join(samples, dir, name)));
}

async function rewrite(vals: Value[], compress: boolean, frameThreshold?: number): Promise<Buffer> {
  const sink = new BufferSink();
  const w = newWriter(sink, { compress, frameThreshold });
  // Several batches, as a pipeline would deliver them.
  for (let i = 0; i < vals.length; i += 1000) await w.write(vals.slice(i, i + 1000));
  await w.close();
  return sink.bytes();
}

function sameValues(a: Value[], b: Value[]): void {
  expect(b.length).toBe(a.length);
  for (let i = 0; i < a.length; i++) {
    if (a[i].type !== b[i].type || !a[i].equals(b[i])) {
      throw new Error(`value ${i} differs: ${formatType(a[i].type)} vs ${formatType(b[i].type)}`);
    }
  }
}

test('sample logs are present', () => {
  expect(logs.length).toBeGreaterThanOrEqual(14);
});

describe.each(logs)('%s', (log) => {
  const plain = sample('zng-uncompressed', `${log}.zng.gz`);
  const lz4 = sample('zng', `${log}.zng.gz`);

  test('uncompressed: read and write uncompressed gives the same bytes', async () => {
    const ctx = new TypeContext();
    // Small chunks exercise frames that straddle chunk boundaries.
    const vals = await readAll(newReader(sourceFromBuffer(plain, 4093), { ctx }));
    expect(vals.length).toBeGreaterThan(0);
    expect((await rewrite(vals, false)).equals(plain)).toBe(true);
  });

  test('LZ4 compressed by the reference: read and write uncompressed gives the same bytes', async () => {
    expect(compressedBlocks(lz4).length).toBeGreaterThan(0);
    const ctx = new TypeContext();
    const vals = await readAll(newReader(sourceFromBuffer(lz4, 65536), { ctx }));
    expect((await rewrite(vals, false)).equals(plain)).toBe(true);
  });

  test('our compressed output reads back to the same values and types', async () => {
    const ctx = new TypeContext();
    const vals = decodeZng(plain, { ctx });
    const packed = await rewrite(vals, true);
    if (plain.length > 4096) expect(packed.length).toBeLessThan(plain.length / 2);
    const back = decodeZng(packed, { ctx });
    sameValues(vals, back);
    // ... also with small frames, many of them compressed.
    const small = await rewrite(vals, true, 4096);
    sameValues(vals, decodeZng(small, { ctx }));
  });
});
