import { openLake } from '../../src/backend/open';
// The pool writer's buffering: values a reader decoded next to each other
// in one buffer (with their tags between them) are copied a run at a time,
// which must split objects at exactly the values a copy of each value
// would, and keep every value intact, whatever the buffer holds between
// and around them.

import { decodeZng, newWriter } from '../../src/formats/zng';
import { TypeContext, Value } from '../../src/zed';
import { arrayReader, Plain, rec, rmDir, show, tmpDir } from './helpers';

/** ZNG of n records of varied sizes (some long enough for two-byte tags), some null. */
async function zng(n: number, compress: boolean): Promise<Buffer> {
  const ctx = new TypeContext();
  const chunks: Buffer[] = [];
  const w = newWriter(
    { write: async (c) => void chunks.push(Buffer.from(c)), end: async () => undefined },
    { compress, frameThreshold: 4096 },
  );
  const vals: Value[] = [];
  for (let i = 0; i < n; i++) {
    const k = (i * 7919) % n; // out of order, so the writer sorts
    const r: Record<string, Plain> =
      i % 13 === 0 ? { k, other: `${i}` } : { k, s: 'x'.repeat((i * 37) % 300) };
    vals.push(i % 50 === 7 ? Value.null(rec(ctx, r).type) : rec(ctx, r));
  }
  await w.write(vals);
  await w.close();
  return Buffer.concat(chunks);
}

async function loadAndRead(
  vals: Value[],
  batch: number,
): Promise<{ text: string[]; objects: number[] }> {
  const dir = tmpDir();
  const lake = await openLake({ lake: dir, cacheSize: 0 });
  try {
    await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 20000, seekStride: 3000 });
    await lake.load('p', 'main', arrayReader(vals, batch));
    const objects = (await lake.objects('p', 'main')).map((o) => o.count).sort((a, b) => a - b);
    const s = await lake.scan('p', 'main', { ctx: new TypeContext() });
    const text: string[] = [];
    for (let b = await s.pull(); b; b = await s.pull()) for (const v of b) text.push(show(v));
    return { text, objects };
  } finally {
    await lake.close();
    rmDir(dir);
  }
}

test.each([false, true])(
  'values decoded from one buffer (compressed %s) load as their copies do',
  async (compress) => {
    const decoded = decodeZng(await zng(3000, compress), { ctx: new TypeContext() });
    expect(decoded).toHaveLength(3000);
    // Each value alone in its own buffer: copied one by one.
    const copies = decoded.map((v) => v.copy());
    const want = await loadAndRead(copies, 3000);
    expect(want.objects.length).toBeGreaterThan(5);
    expect(want.text).toHaveLength(3000);
    for (const batch of [1, 77, 3000]) {
      const got = await loadAndRead(decoded, batch);
      expect(got.objects).toEqual(want.objects);
      expect(got.text).toEqual(want.text);
    }
  },
);
