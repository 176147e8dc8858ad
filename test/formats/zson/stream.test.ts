// The reader streams: memory stays bounded by the largest value however
// long the input, and a value spread over many small chunks is read in
// about linear time.

import { ByteSource, FormatError } from '../../../src/formats/io';
import { formatValue, zsonFormat } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed';

const record = (i: number) =>
  `{\n    ts: 2018-03-24T17:15:20.${String(i % 1000000).padStart(6, '0')}Z,\n    id: {orig_h: 10.164.94.${i % 256}, orig_p: ${i % 65536} (port=uint16)},\n    msg: "record ${i}",\n    tags: |["a", "b"]|\n}\n`;

/** A source that makes `total` bytes of records on demand, in chunks of `chunk` bytes. */
function generated(total: number, chunk: number): ByteSource & { made: number } {
  let pending = Buffer.alloc(0);
  let i = 0;
  const src = {
    made: 0,
    async read(): Promise<Buffer | null> {
      if (src.made >= total) {
        // Finish the last record, then end.
        if (pending.length === 0) return null;
        const rest = pending;
        pending = Buffer.alloc(0);
        src.made += rest.length;
        return rest;
      }
      while (pending.length < chunk) {
        const parts: string[] = [];
        for (let k = 0; k < 200; k++) parts.push(record(i++));
        pending = Buffer.concat([pending, Buffer.from(parts.join(''))]);
      }
      const out = pending.subarray(0, chunk);
      pending = pending.subarray(chunk);
      src.made += out.length;
      return out;
    },
  };
  return src;
}

test('64 MB of records read with bounded memory', async () => {
  const src = generated(64 << 20, 65537);
  const r = zsonFormat.newReader!(src, { ctx: new TypeContext() });
  const before = process.memoryUsage();
  let n = 0;
  let peak = 0;
  let last = '';
  for (let b = await r.read(); b; b = await r.read()) {
    n += b.length;
    last = formatValue(b[b.length - 1]);
    if (n % 20000 < b.length) {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.heapUsed + m.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }
  }
  expect(src.made).toBeGreaterThanOrEqual(64 << 20);
  expect(n).toBeGreaterThan(300000);
  expect(last).toMatch(
    /^\{ts:2018-03-24T17:15:20\.\d+Z,id:\{orig_h:10\.164\.94\.\d+,orig_p:\d+\(port=uint16\)\},msg:"record \d+",tags:\|\["a","b"\]\|\}$/,
  );
  // Far less than the input: what is held is a batch and the unread tail.
  expect(peak).toBeLessThan(48 << 20);
}, 120000);

test('a value spread over tiny chunks is read in about linear time', async () => {
  const n = 200000;
  const text = Buffer.from('[' + Array.from({ length: n }, (_, i) => String(i)).join(',') + ']\n');
  let pos = 0;
  const src: ByteSource = {
    async read() {
      if (pos >= text.length) return null;
      const c = text.subarray(pos, pos + 97);
      pos += c.length;
      return c;
    },
  };
  const started = Date.now();
  const r = zsonFormat.newReader!(src, { ctx: new TypeContext() });
  const b = await r.read();
  expect(b!.length).toBe(1);
  expect(formatValue(b![0]).length).toBe(text.length - 1);
  expect(await r.read()).toBeNull();
  expect(Date.now() - started).toBeLessThan(10000);
});

test('a truncated stream ends in an error naming the line', async () => {
  const src = generated(1 << 20, 4096);
  const chunks: Buffer[] = [];
  for (let c = await src.read(); c; c = await src.read()) chunks.push(c);
  const text = Buffer.concat(chunks);
  const cut = text.subarray(0, text.lastIndexOf('msg:'));
  let pos = 0;
  const r2 = zsonFormat.newReader!(
    {
      async read() {
        if (pos >= cut.length) return null;
        const c = cut.subarray(pos, pos + 5000);
        pos += c.length;
        return c;
      },
    },
    { ctx: new TypeContext() },
  );
  let err: unknown;
  try {
    while (await r2.read());
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(FormatError);
  const lines = cut.toString().split('\n').length;
  expect((err as FormatError).line).toBe(lines);
  expect((err as FormatError).offset).toBe(cut.length);
});

test('a value is delivered as soon as what follows shows it is complete (zsonio reader_test.go)', async () => {
  let calls = 0;
  const src: ByteSource = {
    read() {
      // One chunk, then a stream that stalls.
      if (calls++ === 0) return Promise.resolve(Buffer.from('{msg:"record1"}\n{msg:"record1"}'));
      return new Promise<Buffer | null>(() => {});
    },
  };
  const r = zsonFormat.newReader!(src, { ctx: new TypeContext() });
  const batch = await r.read();
  expect(batch!.map((v) => formatValue(v))).toEqual(['{msg:"record1"}']);
});
