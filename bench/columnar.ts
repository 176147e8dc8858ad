// Throughput and peak memory of the columnar formats on N records.
//
//   npx tsc -p tsconfig.build.json   (or any build to dist/)
//   node dist/bench/columnar.js <arrows|parquet|vng> <write|read> [N] [file]
//
// `write` encodes N generated records and saves them to file; `read`
// decodes file. Run each in its own process: peak RSS is per process.

import * as fs from 'fs';
import { TypeContext } from '../src/zed/context';
import { TypeFloat64, TypeInt64, TypeString, TypeTime } from '../src/zed/types';
import { Value } from '../src/zed/value';
import { Builder } from '../src/zed/zcode';
import { ByteSink, Format, sourceFromBuffer } from '../src/formats/io';
import { arrowsFormat } from '../src/formats/arrow';
import { parquetFormat } from '../src/formats/parquet';
import { vngFormat } from '../src/formats/vng';

const formats: Record<string, Format> = {
  arrows: arrowsFormat,
  parquet: parquetFormat,
  vng: vngFormat,
};

/** Records like the interop tests': nested record, list, int64 past 2^53, times, nulls. */
function generate(n: number): Value[] {
  const ctx = new TypeContext();
  const z = ctx.lookupTypeRecord([{ name: 'deep', type: TypeFloat64 }]);
  const s = ctx.lookupTypeRecord([
    { name: 'x', type: TypeInt64 },
    { name: 'y', type: TypeString },
    { name: 'z', type: z },
  ]);
  const t = ctx.lookupTypeRecord([
    { name: 'id', type: TypeInt64 },
    { name: 'big', type: TypeInt64 },
    { name: 'name', type: TypeString },
    { name: 'ts', type: TypeTime },
    { name: 's', type: s },
    { name: 'l', type: ctx.lookupTypeArray(TypeInt64) },
    { name: 'maybe', type: TypeInt64 },
  ]);
  const b = new Builder(n * 80);
  const offs: number[] = [];
  const f = Buffer.alloc(8);
  for (let i = 0; i < n; i++) {
    offs.push(b.len);
    b.appendInt(i);
    b.appendInt(9007199254740993n + BigInt(i) * 1000003n);
    b.appendBytes(Buffer.from(`name-${i}`));
    b.appendInt(1_704_067_200_000_000_000n + BigInt(i) * 1_234_567_000n);
    b.beginContainer();
    b.appendInt(i % 100);
    b.appendBytes(Buffer.from(`y${i % 7}`));
    b.beginContainer();
    f.writeDoubleLE(i * 2.5);
    b.appendBytes(f);
    b.endContainer();
    b.endContainer();
    b.beginContainer();
    b.appendInt(i);
    b.appendInt(i + 1);
    b.appendInt(i + 2);
    b.endContainer();
    if (i % 10 === 0) b.appendNull();
    else b.appendInt(i % 1000);
  }
  offs.push(b.len);
  const buf = b.buf;
  return offs.slice(0, -1).map((o, i) => new Value(t, buf, o, offs[i + 1] - o));
}

class FileSink implements ByteSink {
  private fd: number;
  constructor(path: string) {
    this.fd = fs.openSync(path, 'w');
  }
  async write(chunk: Buffer): Promise<void> {
    fs.writeSync(this.fd, chunk);
  }
  async end(): Promise<void> {
    fs.closeSync(this.fd);
  }
}

async function main(): Promise<void> {
  const [name, mode, nArg, fileArg] = process.argv.slice(2);
  const format = formats[name];
  const n = Number(nArg ?? 1_000_000);
  const file = fileArg ?? `/tmp/zlake-bench.${name}`;
  let count = 0;
  let secs: number;
  if (mode === 'write') {
    const vals = generate(n);
    const t0 = process.hrtime.bigint();
    const w = format.newWriter!(new FileSink(file), {});
    for (let i = 0; i < vals.length; i += 1000) await w.write(vals.slice(i, i + 1000));
    await w.close();
    secs = Number(process.hrtime.bigint() - t0) / 1e9;
    count = vals.length;
  } else {
    const t0 = process.hrtime.bigint();
    const bytes = fs.readFileSync(file);
    const r = format.newReader!(sourceFromBuffer(bytes, 1 << 20), { ctx: new TypeContext() });
    for (let batch = await r.read(); batch; batch = await r.read()) count += batch.length;
    secs = Number(process.hrtime.bigint() - t0) / 1e9;
  }
  const rss = process.resourceUsage().maxRSS / 1024;
  const size = fs.statSync(file).size / 1e6;
  console.log(
    `${name} ${mode}: ${count} records in ${secs.toFixed(2)} s = ${Math.round(count / secs)} records/s, ` +
      `peak RSS ${Math.round(rss)} MB, file ${size.toFixed(1)} MB`,
  );
}

void main();
