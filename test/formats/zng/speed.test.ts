// Decode speed on the sample logs repeated to a million records: every
// value read and every top-level field's tag walked. The floor is the
// project's target, 750k records/s and twice JSON.parse of the same
// records as NDJSON; the figures are printed for the record.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BufferSink } from '../../../src/formats/io';
import { decodeZng, newWriter, ZngBufferReader } from '../../../src/formats/zng';
import { TypeContext } from '../../../src/zed/context';
import { Value } from '../../../src/zed/value';

const samples = join(__dirname, '../../../../shared/sample-data');
const logs = readdirSync(join(samples, 'zng-uncompressed')).map((f) =>
  f.slice(0, -'.zng.gz'.length),
);
const TARGET = 1_000_000;

/** Walks the tags of a record body's fields; returns how many. */
function walkFields(v: Value): number {
  const b = v.buf;
  let p = v.off;
  const end = p + v.len;
  let n = 0;
  while (p < end) {
    let tag = b[p++];
    if (tag >= 0x80) {
      tag &= 0x7f;
      for (let scale = 128; ; scale *= 128) {
        const c = b[p++];
        tag += (c & 0x7f) * scale;
        if (c < 0x80) break;
      }
    }
    if (tag > 0) p += tag - 1;
    n++;
  }
  return n;
}

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

test('decode and encode speed', async () => {
  const ctx = new TypeContext();
  const sample: Value[] = [];
  const ndjson: string[] = [];
  for (const log of logs) {
    const zng = gunzipSync(readFileSync(join(samples, 'zng-uncompressed', `${log}.zng.gz`)));
    for (const v of decodeZng(zng, { ctx })) sample.push(v);
    const json = gunzipSync(readFileSync(join(samples, 'zeek-json', `${log}.json.gz`)));
    for (const line of json.toString('utf8').split('\n')) if (line) ndjson.push(line);
  }
  const reps = Math.ceil(TARGET / sample.length);
  const report: string[] = [];

  const encoded: Record<string, { bytes: Buffer; rate: number }> = {};
  for (const compress of [false, true]) {
    const sink = new BufferSink();
    const w = newWriter(sink, { compress });
    const start = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) await w.write(sample);
    await w.close();
    const rate = (reps * sample.length) / seconds(start);
    encoded[compress ? 'lz4' : 'plain'] = { bytes: sink.bytes(), rate };
    report.push(`write ${compress ? 'lz4  ' : 'plain'}: ${(rate / 1e6).toFixed(2)} M records/s`);
  }
  const plainSize = encoded.plain.bytes.length;

  const readRates: number[] = [];
  for (const kind of ['plain', 'lz4']) {
    const bytes = encoded[kind].bytes;
    let best = 0;
    for (let round = 0; round < 2; round++) {
      const start = process.hrtime.bigint();
      const r = new ZngBufferReader(bytes, { ctx: new TypeContext() });
      let records = 0;
      let fields = 0;
      for (let batch = r.nextBatch(); batch; batch = r.nextBatch()) {
        records += batch.length;
        for (let i = 0; i < batch.length; i++) fields += walkFields(batch[i]);
      }
      const dt = seconds(start);
      expect(records).toBe(reps * sample.length);
      expect(fields).toBeGreaterThan(records * 5);
      best = Math.max(best, records / dt);
      if (round === 1) {
        report.push(
          `read ${kind === 'lz4' ? 'lz4  ' : 'plain'}: ${(best / 1e6).toFixed(2)} M records/s, ` +
            `${(((plainSize / records) * best) / 1e6).toFixed(0)} MB/s of ZNG values`,
        );
      }
    }
    readRates.push(best);
  }

  // JSON.parse of the same events as NDJSON, visiting every key.
  const text = ndjson.join('\n');
  let jsonRate = 0;
  for (let round = 0; round < 2; round++) {
    const start = process.hrtime.bigint();
    let n = 0;
    let keys = 0;
    for (let i = 0; i < 3; i++) {
      for (const line of text.split('\n')) {
        const o = JSON.parse(line) as Record<string, unknown>;
        for (const k in o) if (k) keys++;
        n++;
      }
    }
    expect(keys).toBeGreaterThan(n);
    jsonRate = Math.max(jsonRate, n / seconds(start));
  }
  report.push(`JSON.parse NDJSON: ${(jsonRate / 1e6).toFixed(2)} M records/s`);
  console.log(report.join('\n'));

  for (const rate of readRates) {
    expect(rate).toBeGreaterThan(750_000);
    expect(rate).toBeGreaterThan(2 * jsonRate);
  }
});
