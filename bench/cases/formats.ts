// Issue 2, format speed on ≥1M records made by repeating the sample Zeek
// logs: ZNG read/write, ZSON parse/write, JSON read, beside Node's
// JSON.parse of the same records as NDJSON; and peak RSS while streaming
// 2 GB inputs. Each measurement runs in its own process so its peak RSS is
// its own; the targets are judged on the rates of this run.

import { spawnSync } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  openSync,
  readFileSync,
  readSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  ByteSource,
  sinkToWritable,
  sourceFromReadable,
  ValueReader,
  ValueWriter,
} from '../../src/formats/io';
import { jsonFormat } from '../../src/formats/json';
import { zngFormat } from '../../src/formats/zng';
import { decodeZng } from '../../src/formats/zng';
import { zsonFormat } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed/context';
import { Value } from '../../src/zed/value';
import {
  check,
  ensureDataDir,
  fileSize,
  median,
  now,
  peakRssMB,
  report,
  Result,
  sample,
  sampleLogs,
  since,
} from '../lib';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_FORMAT_RUNS ?? 3);
const dir = ensureDataDir();
const files = {
  zng: join(dir, `zeek-${N}.zng`),
  zngRaw: join(dir, `zeek-${N}-uncompressed.zng`),
  zson: join(dir, `zeek-${N}.zson`),
  ndjson: join(dir, `zeek-${N}.ndjson`),
};

/** The sample logs' values repeated to at least N records. */
function repeatedValues(ctx: TypeContext): Value[] {
  const base: Value[] = [];
  for (const log of sampleLogs())
    for (const v of decodeZng(sample('zng-uncompressed', log + '.zng'), { ctx })) base.push(v);
  const out: Value[] = [];
  while (out.length < N) for (const v of base) out.push(v);
  return out;
}

function repeatedNDJSON(): Buffer[] {
  const base: Buffer[] = [];
  for (const log of sampleLogs()) base.push(sample('zeek-json', log + '.json'));
  const lines = Buffer.concat(base)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const chunks: Buffer[] = [];
  let n = 0;
  let batch: string[] = [];
  while (n < N) {
    for (const l of lines) {
      batch.push(l);
      if (++n >= N) break;
    }
    chunks.push(Buffer.from(batch.join('\n') + '\n'));
    batch = [];
  }
  return chunks;
}

async function writeAll(w: ValueWriter, vals: Value[]): Promise<void> {
  for (let i = 0; i < vals.length; i += 1024) await w.write(vals.slice(i, i + 1024));
  await w.close();
}

function fileSource(path: string): ByteSource {
  return sourceFromReadable(createReadStream(path, { highWaterMark: 1 << 20 }));
}

/** Walks every field of every value, recursively: what "decode" means for zcode values. */
function walk(buf: Buffer, off: number, end: number): number {
  let n = 0;
  while (off < end) {
    let tag = buf[off++];
    if (tag >= 0x80) {
      tag &= 0x7f;
      for (let scale = 128; ; scale *= 128) {
        const c = buf[off++];
        tag += (c & 0x7f) * scale;
        if (c < 0x80) break;
      }
    }
    n++;
    if (tag > 1) off += tag - 1;
  }
  return n;
}

async function drain(r: ValueReader, deep: boolean): Promise<number> {
  let n = 0;
  for (;;) {
    const b = await r.read();
    if (!b) return n;
    n += b.length;
    if (deep)
      for (const v of b) if (v.len > 0 && v.type.kind === 1) walk(v.buf, v.off, v.off + v.len);
  }
}

/**
 * A source repeating a unit of input until `total` bytes: a stream far larger
 * than the process may hold. The unit itself is kept small so the measured
 * peak is the reader's, not the source's.
 */
function repeatSource(path: string, total: number, lines: boolean): ByteSource {
  const unit = lines ? firstLines(path) : readFileSync(path);
  let sent = 0;
  return {
    async read() {
      if (sent >= total) return null;
      sent += unit.length;
      return unit;
    },
  };
}

/** The first ~8 MB of a line-oriented file, ending at a line boundary. */
function firstLines(path: string): Buffer {
  const b = Buffer.alloc(8e6);
  const fd = openSync(path, 'r');
  const n = readSync(fd, b, 0, b.length, 0);
  closeSync(fd);
  return b.subarray(0, b.lastIndexOf(10, n - 1) + 1);
}

const measures: Record<string, () => Promise<Result>> = {
  async 'JSON.parse'() {
    const text = readFileSync(files.ndjson, 'utf8');
    const t = now();
    let n = 0;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      JSON.parse(text.slice(start, nl));
      start = nl + 1;
      n++;
    }
    return {
      name: 'Node JSON.parse (NDJSON lines, baseline)',
      records: n,
      bytes: fileSize(files.ndjson),
      seconds: since(t),
      rssMB: peakRssMB(),
    };
  },
  async 'zng-read'() {
    const t = now();
    const n = await drain(
      zngFormat.newReader!(fileSource(files.zng), { ctx: new TypeContext() }),
      true,
    );
    return {
      name: 'ZNG read, LZ4 (every field walked)',
      records: n,
      bytes: fileSize(files.zng),
      seconds: since(t),
      rssMB: peakRssMB(),
    };
  },
  async 'zng-read-uncompressed'() {
    const t = now();
    const n = await drain(
      zngFormat.newReader!(fileSource(files.zngRaw), { ctx: new TypeContext() }),
      true,
    );
    return {
      name: 'ZNG read, uncompressed (every field walked)',
      records: n,
      bytes: fileSize(files.zngRaw),
      seconds: since(t),
      rssMB: peakRssMB(),
    };
  },
  async 'zson-read'() {
    const t = now();
    const n = await drain(
      zsonFormat.newReader!(fileSource(files.zson), { ctx: new TypeContext() }),
      false,
    );
    return {
      name: 'ZSON parse',
      records: n,
      bytes: fileSize(files.zson),
      seconds: since(t),
      rssMB: peakRssMB(),
    };
  },
  async 'json-read'() {
    const t = now();
    const n = await drain(
      jsonFormat.newReader!(fileSource(files.ndjson), { ctx: new TypeContext() }),
      false,
    );
    return {
      name: 'JSON read into Zed values',
      records: n,
      bytes: fileSize(files.ndjson),
      seconds: since(t),
      rssMB: peakRssMB(),
    };
  },
  async 'zng-write'() {
    const vals = repeatedValues(new TypeContext());
    const out = join(dir, 'out.zng');
    const t = now();
    await writeAll(zngFormat.newWriter!(sinkToWritable(createWriteStream(out)), {}), vals);
    return {
      name: 'ZNG write, LZ4',
      records: vals.length,
      bytes: fileSize(out),
      seconds: since(t),
      rssMB: peakRssMB(),
      note: 'values in memory',
    };
  },
  async 'zson-write'() {
    const vals = repeatedValues(new TypeContext());
    const out = join(dir, 'out.zson');
    const t = now();
    await writeAll(
      zsonFormat.newWriter!(sinkToWritable(createWriteStream(out)), { pretty: 0 }),
      vals,
    );
    return {
      name: 'ZSON write (-z)',
      records: vals.length,
      bytes: fileSize(out),
      seconds: since(t),
      rssMB: peakRssMB(),
      note: 'values in memory',
    };
  },
  async 'zng-2gb'() {
    // Whole ZNG streams repeated: each copy ends with an end-of-stream marker.
    const src = repeatSource(files.zng, 2e9, false);
    const t = now();
    const n = await drain(zngFormat.newReader!(src, { ctx: new TypeContext() }), true);
    return {
      name: 'ZNG read streaming 2 GB',
      records: n,
      bytes: 2e9,
      seconds: since(t),
      rssMB: peakRssMB(),
      note: 'memory bound',
    };
  },
  async 'json-2gb'() {
    const src = repeatSource(files.ndjson, 2e9, true);
    const t = now();
    const n = await drain(jsonFormat.newReader!(src, { ctx: new TypeContext() }), false);
    return {
      name: 'JSON read streaming 2 GB',
      records: n,
      bytes: 2e9,
      seconds: since(t),
      rssMB: peakRssMB(),
      note: 'memory bound',
    };
  },
  async 'zson-2gb'() {
    const src = repeatSource(files.zson, 2e9, true);
    const t = now();
    const n = await drain(zsonFormat.newReader!(src, { ctx: new TypeContext() }), false);
    return {
      name: 'ZSON read streaming 2 GB',
      records: n,
      bytes: 2e9,
      seconds: since(t),
      rssMB: peakRssMB(),
      note: 'memory bound',
    };
  },
};

async function prepare(): Promise<void> {
  if (
    existsSync(files.zng) &&
    existsSync(files.zson) &&
    existsSync(files.ndjson) &&
    existsSync(files.zngRaw)
  )
    return;
  const vals = repeatedValues(new TypeContext());
  await writeAll(zngFormat.newWriter!(sinkToWritable(createWriteStream(files.zng)), {}), vals);
  await writeAll(
    zngFormat.newWriter!(sinkToWritable(createWriteStream(files.zngRaw)), { compress: false }),
    vals,
  );
  await writeAll(
    zsonFormat.newWriter!(sinkToWritable(createWriteStream(files.zson)), { pretty: 0 }),
    vals,
  );
  const out = createWriteStream(files.ndjson);
  for (const c of repeatedNDJSON())
    if (!out.write(c)) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((r) => out.end(() => r()));
}

async function main(): Promise<void> {
  const which = process.argv[2];
  if (which) {
    // The 1M-record measures are short and the machine is shared: each
    // runs RUNS times in this process and reports the median time (the
    // first run also warms the page cache). The 2 GB streams run once.
    const runs = which.endsWith('-2gb') ? 1 : RUNS;
    const results: Result[] = [];
    for (let i = 0; i < runs; i++) results.push(await measures[which]());
    const times = results.map((r) => r.seconds!);
    const note = runs > 1 ? `median of ${runs}: ${times.map((t) => t.toFixed(2)).join(' ')}` : '';
    const r = results[0];
    report({
      ...r,
      seconds: median(times),
      rssMB: peakRssMB(),
      note: [r.note, note].filter((x) => x).join('; '),
    });
    return;
  }
  await prepare();
  const results = new Map<string, Result>();
  for (const m of Object.keys(measures)) {
    const r = spawnSync(process.execPath, ['--max-old-space-size=4096', __filename, m], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    process.stdout.write(r.stdout ?? '');
    for (const line of (r.stdout ?? '').split('\n'))
      if (line.startsWith('RESULT ')) {
        const x = JSON.parse(line.slice(7)) as Result;
        results.set(x.name, x);
      }
    if (r.status !== 0) process.exitCode = 1;
  }
  // Issue 2's targets, judged on rates measured in this run.
  const rate = (name: string) => {
    const x = results.get(name);
    return x?.records && x.seconds ? x.records / x.seconds : NaN;
  };
  const parse = rate('Node JSON.parse (NDJSON lines, baseline)');
  check({
    name: 'ZNG read (LZ4) / JSON.parse, records/s',
    issue: '#2',
    value: rate('ZNG read, LZ4 (every field walked)') / parse,
    target: 2,
    kind: 'min',
    unit: '×',
  });
  check({
    name: 'JSON read into Zed values / JSON.parse, time',
    issue: '#2',
    value: parse / rate('JSON read into Zed values'),
    target: 2,
    kind: 'max',
    unit: '×',
    note: '"within 2× of the JSON.parse rate"',
  });
  for (const f of ['ZNG', 'JSON', 'ZSON'])
    check({
      name: `${f} read streaming 2 GB: peak RSS`,
      issue: '#2',
      value: results.get(`${f} read streaming 2 GB`)?.rssMB ?? NaN,
      target: 300,
      kind: 'max',
      unit: 'MB',
    });
}

void main();
