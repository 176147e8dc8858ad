// Queries over HTTP answer the same whether a lake decodes columns on
// worker threads or on the query's thread, on either backend (on S3 the
// main thread's ranged reads feed the workers).

import { oneTypeRecords, QUERIES } from '../lake/vectordata';
import { load, postJSON, startService, TestService } from './helpers';

let par: TestService;
let one: TestService;
beforeAll(async () => {
  const common = { vectorScan: 'on' as const, cacheSize: 0, vectorCacheSize: 0 };
  par = await startService({}, { ...common, vectorWorkers: 2, vectorWorkerMinBytes: 0 });
  one = await startService({}, { ...common, vectorWorkers: 0 });
  for (const t of [par, one]) {
    // Small objects: many of them, read ahead of their turn by the workers.
    const r = await postJSON(t.base, '/pool', {
      name: 'dns',
      layout: { order: 'asc', keys: [['ts']] },
      thresh: 8000,
    });
    expect(r.status).toBe(200);
    await load(t.base, 'dns', oneTypeRecords(3000));
  }
});
afterAll(async () => {
  await par?.close();
  await one?.close();
});

async function zson(t: TestService, query: string): Promise<{ status: number; text: string }> {
  const r = await postJSON(t.base, '/query', { query }, { Accept: 'application/x-zson' });
  return { status: r.status, text: r.text };
}

test('answers with the workers on equal those on the query thread', async () => {
  const objects = await zson(par, 'from dns@main:objects | count()');
  expect(Number.parseInt(objects.text, 10)).toBeGreaterThan(5);
  for (const q of QUERIES) {
    const a = await zson(par, `from dns | ${q}`);
    const b = await zson(one, `from dns | ${q}`);
    expect({ q, ...a }).toEqual({ q, ...b });
  }
  expect(par.lake.decoder.threads).toBe(2);
  expect(one.lake.decoder.threads).toBe(0);
});
