// Read and write speed of Zeek TSV and CSV on a sample log repeated to
// 250k records. The floors are far below the measured figures (they guard
// against gross regressions on a busy machine; code also runs slower under
// jest than under plain node); the figures are printed for the record.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { csvFormat } from '../../../src/formats/csv';
import { BufferSink, ByteSink, Format, sourceFromBuffer } from '../../../src/formats/io';
import { zeekFormat } from '../../../src/formats/zeek';
import { TypeContext } from '../../../src/zed/context';
import { Value } from '../../../src/zed/value';

const samples = join(__dirname, '../../../../shared/sample-data/zeek-default');
const RECORDS = 250_000;
const discard: ByteSink = { write: async () => {}, end: async () => {} };

async function count(format: Format, data: Buffer): Promise<number> {
  const r = format.newReader!(sourceFromBuffer(data, 64 * 1024), { ctx: new TypeContext() });
  let n = 0;
  for (let b = await r.read(); b; b = await r.read()) n += b.length;
  return n;
}

async function readValues(format: Format, data: Buffer): Promise<Value[]> {
  const r = format.newReader!(sourceFromBuffer(data, 64 * 1024), { ctx: new TypeContext() });
  const out: Value[] = [];
  for (let b = await r.read(); b; b = await r.read()) for (const v of b) out.push(v);
  return out;
}

/** Best records/s of a few rounds. */
async function rate(records: number, run: () => Promise<unknown>): Promise<number> {
  let best = 0;
  for (let round = 0; round < 2; round++) {
    const start = process.hrtime.bigint();
    await run();
    best = Math.max(best, records / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  return best;
}

test('zeek and csv speed', async () => {
  const report: string[] = [];
  const rates: Record<string, number[]> = { zr: [], zw: [], cr: [], cw: [] };
  for (const log of ['rdp']) {
    const zeek = gunzipSync(readFileSync(join(samples, `${log}.log.gz`)));
    const lines = zeek.toString('latin1').split('\n');
    const header = lines.filter((l) => l.startsWith('#') && !l.startsWith('#close'));
    const body = lines.filter((l) => l !== '' && !l.startsWith('#'));
    const reps = Math.ceil(RECORDS / body.length);
    const big = Buffer.from(
      [...header, ...Array(reps).fill(body.join('\n')), ''].join('\n'),
      'latin1',
    );
    const vals = await readValues(zeekFormat, big);
    const n = vals.length;
    expect(n).toBe(reps * body.length);
    const sink = new BufferSink();
    const cw = csvFormat.newWriter!(sink, {});
    await cw.write(vals);
    await cw.close();
    const csv = sink.bytes();

    const zr = await rate(n, () => count(zeekFormat, big));
    const zw = await rate(n, async () => {
      const w = zeekFormat.newWriter!(discard, {});
      await w.write(vals);
      await w.close();
    });
    const cr = await rate(n, () => count(csvFormat, csv));
    const cw2 = await rate(n, async () => {
      const w = csvFormat.newWriter!(discard, {});
      await w.write(vals);
      await w.close();
    });
    rates.zr.push(zr);
    rates.zw.push(zw);
    rates.cr.push(cr);
    rates.cw.push(cw2);
    const k = (x: number) => `${Math.round(x / 1000)}k`;
    report.push(
      `${log}: ${n} records, ${Math.round(big.length / n)} B/record; ` +
        `zeek read ${k(zr)}/s write ${k(zw)}/s; csv read ${k(cr)}/s write ${k(cw2)}/s`,
    );
  }
  console.log(report.join('\n'));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  expect(median(rates.zr)).toBeGreaterThan(50_000);
  expect(median(rates.zw)).toBeGreaterThan(40_000);
  expect(median(rates.cr)).toBeGreaterThan(40_000);
  expect(median(rates.cw)).toBeGreaterThan(25_000);
}, 300_000);
