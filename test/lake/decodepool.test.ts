// Columns decoded on worker threads (src/lake/decodepool.ts): queries
// answer the same with the workers on and off, over many objects read
// ahead and with the column cache keeping what the workers built; a
// corrupt copy gives the in-thread path's error; a worker that dies fails
// its tasks (no hang) and is replaced; closing the lake ends the workers.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { openLake } from '../../src/backend/open';
import { reassemblyRange, readLayout, TRAILER_BYTES } from '../../src/formats/vng/project';
import { Segment } from '../../src/formats/vng/metadata';
import { Lake } from '../../src/lake';
import { DecodePool, parseWorkers } from '../../src/lake/decodepool';
import { LakeError } from '../../src/lake/errors';
import { loadDnsObjects, oneTypeRecords, QUERIES, run, tempLakes } from './vectordata';

/** Objects of one record type and distinct keys: each is read by columns, on the workers. */
const RECORDS = oneTypeRecords(3000);

const lakes = tempLakes();

/** A lake reading every object by columns, its columns decoded by `workers` threads (any size). */
async function lakeWith(sub: string, workers: number, vectorCacheSize = 0): Promise<Lake> {
  const l = await openLake({
    lake: join(lakes.dir, sub),
    vectorScan: 'on',
    cacheSize: 0,
    vectorCacheSize,
    vectorWorkers: workers,
    vectorWorkerMinBytes: 0,
  });
  lakes.open.push(l);
  return l;
}

test('queries answer the same with columns decoded by workers and in-thread, over many objects', async () => {
  const par = await lakeWith('par', 2);
  const one = await lakeWith('one', 0);
  // Small objects: many of them, so scans read ahead.
  await loadDnsObjects(8000, RECORDS, par, one);
  const decode = jest.spyOn(DecodePool.prototype, 'decode');
  try {
    for (const q of QUERIES) {
      const a = await run(par, `from dns | ${q}`);
      const b = await run(one, `from dns | ${q}`);
      expect({ q, out: a.out, stats: a.stats }).toEqual({ q, out: b.out, stats: b.stats });
    }
    // The in-thread lake never hands columns over; the other did, with dictionaries.
    const dicts = decode.mock.calls.filter((c) => c[3]).length;
    expect(decode.mock.contexts.every((p) => p === par.decoder)).toBe(true);
    expect(decode.mock.calls.length).toBeGreaterThan(20);
    expect(dicts).toBeGreaterThan(0);
  } finally {
    decode.mockRestore();
  }
  expect(par.decoder.threads).toBe(2);
  expect(one.decoder.threads).toBe(0);
});

test('with the column cache on, columns (and dictionaries) the workers built are kept and reused', async () => {
  const par = await lakeWith('par', 2, 64 << 20);
  const one = await lakeWith('one', 0);
  await loadDnsObjects(8000, RECORDS, par, one);
  for (const pass of [1, 2]) {
    for (const q of QUERIES) {
      const a = await run(par, `from dns | ${q}`);
      const b = await run(one, `from dns | ${q}`);
      expect({ pass, q, out: a.out }).toEqual({ pass, q, out: b.out });
    }
  }
});

/** The .vng copy of pool dns's only object in a lake directory. */
function vngPath(lakeDir: string): string {
  for (const pool of readdirSync(lakeDir)) {
    const data = join(lakeDir, pool, 'data');
    let names: string[];
    try {
      names = readdirSync(data);
    } catch {
      continue;
    }
    const vng = names.filter((n) => n.endsWith('.vng'));
    if (vng.length === 1) return join(data, vng[0]);
  }
  throw new Error('no single .vng copy');
}

/** Overwrites the stored bytes of a top-level field's first segment with garbage. */
function corruptColumn(file: string, field: string): void {
  const buf = readFileSync(file);
  const r = reassemblyRange(buf.subarray(Math.max(0, buf.length - TRAILER_BYTES)));
  const layout = readLayout(r.offset, buf.subarray(r.offset, r.offset + r.length));
  const meta = layout.metas[0];
  if (meta.kind !== 'Record') throw new Error('not a record');
  const f = meta.fields.find((x) => x.name === field)!.values;
  if (f.kind !== 'Primitive') throw new Error(`${field} is not a primitive column`);
  const s: Segment = f.segmap[0];
  buf.fill(0xf0, s.offset, s.offset + s.length);
  writeFileSync(file, buf);
}

test('a corrupt copy fails a query with the error the in-thread decode gives', async () => {
  const par = await lakeWith('par', 2);
  const one = await lakeWith('one', 0);
  await loadDnsObjects(1 << 22, RECORDS, par, one);
  for (const sub of ['par', 'one']) {
    corruptColumn(vngPath(join(lakes.dir, sub)), 'query');
    corruptColumn(vngPath(join(lakes.dir, sub)), 'qtype_name');
  }
  const failure = async (lake: Lake, q: string) => {
    const err = await run(lake, q).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).not.toBeNull();
    // The object's ID differs between the lakes.
    return `${err!.constructor.name}: ${err!.message.replace(/[0-9A-Za-z]{27}\.vng/, 'ID.vng')}`;
  };
  // Two bad columns, read alone and together.
  for (const q of [
    'from dns | count() by query',
    'from dns | cut ts,query',
    'from dns | count() by qtype_name, query',
    'from dns | count() by query, qtype_name',
  ]) {
    const a = await failure(par, q);
    expect(a).toBe(await failure(one, q));
    expect(a).toMatch(/ID\.vng: vng: /);
  }
  // The workers survive a bad column.
  expect(par.decoder.threads).toBe(2);
  expect((await run(par, 'from dns | count() by rtt | sort this')).out).toEqual(
    (await run(one, 'from dns | count() by rtt | sort this')).out,
  );
});

/** A packed column of n one-byte values (tag 2: one byte each), uncompressed. */
function column(n: number): { buf: Buffer; segs: Segment[] } {
  const buf = Buffer.allocUnsafeSlow(2 * n);
  for (let i = 0; i < n; i++) {
    buf[2 * i] = 2;
    buf[2 * i + 1] = i % 7;
  }
  return { buf, segs: [{ offset: 0, length: 2 * n, memLength: 2 * n, compression: 0 }] };
}

test('a worker that dies fails its tasks and is replaced; close ends them all', async () => {
  const pool = new DecodePool(2, 0);
  try {
    const c = column(1000);
    const d = await pool.decode(c.buf, c.segs, 1000, true);
    expect(d.n).toBe(1000);
    expect(d.dict?.count).toBe(7);
    // The worker holding a task fails (as an uncaught error in it would
    // report): the task fails, it does not hang, and the thread ends.
    const c2 = column(1000);
    const pending = pool.decode(c2.buf, c2.segs, 1000, false);
    const workers = (pool as unknown as { workers: { worker: Worker }[] }).workers;
    expect(workers).toHaveLength(1);
    const dead = workers[0].worker;
    const exited = new Promise((resolve) => dead.once('exit', resolve));
    dead.emit('error', new Error('boom'));
    await expect(pending).rejects.toThrow('column decode worker failed: boom');
    await exited;
    expect(pool.threads).toBe(0);
    // The next task gets a new worker.
    const c3 = column(10);
    expect((await pool.decode(c3.buf, c3.segs, 10, false)).n).toBe(10);
    expect(pool.threads).toBe(1);
    // A column whose values do not fill it: the in-thread decode's error.
    const c4 = column(10);
    await expect(pool.decode(c4.buf, c4.segs, 11, false)).rejects.toThrow(
      'vng: vector: column ended early',
    );
  } finally {
    await pool.close();
  }
  expect(pool.threads).toBe(0);
  const c5 = column(1);
  await expect(pool.decode(c5.buf, c5.segs, 1, false)).rejects.toThrow(/closed/);
});

test('closing the lake ends its workers', async () => {
  const par = await lakeWith('par', 2);
  await loadDnsObjects(8000, RECORDS, par);
  await run(par, 'from dns | count() by query');
  expect(par.decoder.threads).toBeGreaterThan(0);
  await par.close();
  lakes.open.splice(lakes.open.indexOf(par), 1);
  expect(par.decoder.threads).toBe(0);
});

test('worker counts: auto (the cores) or a number from 0 to 256, default none', () => {
  expect(parseWorkers('0')).toBe(0);
  expect(parseWorkers('1')).toBe(1);
  expect(parseWorkers('8')).toBe(8);
  expect(parseWorkers('auto')).toBe(availableParallelism());
  expect(parseWorkers(undefined)).toBe(0);
  expect(parseWorkers('')).toBe(0);
  for (const bad of ['-1', 'x', '1.5', '300']) expect(() => parseWorkers(bad)).toThrow(LakeError);
  expect(() => parseWorkers('x')).toThrow(
    'vector workers must be auto or a whole number from 0 to 256: x',
  );
});
