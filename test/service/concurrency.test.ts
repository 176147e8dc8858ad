import { call, contents, createPool, startService, TestService } from './helpers';

let t: TestService;
beforeAll(async () => {
  t = await startService();
});
afterAll(async () => {
  await t.close();
});

test('8 writers loading to one branch: every commit lands, history stays linear', async () => {
  await createPool(t.base, 'conc', { keys: [['w']] });
  const writers = 8;
  const loadsEach = 6;
  const acknowledged: string[] = [];
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < loadsEach; i++) {
        const body = Array.from({ length: 50 }, (_, k) => `{"w":${w},"i":${i},"k":${k}}`).join(
          '\n',
        );
        const ok = await call(t.base, 'POST', '/pool/conc/branch/main', {
          body,
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        });
        expect(ok.status).toBe(200);
        acknowledged.push((ok.json() as { commit: string }).commit);
      }
    }),
  );
  expect(acknowledged).toHaveLength(writers * loadsEach);
  // The log from the tip is a single chain holding every acknowledged commit.
  const log = await t.lake.log('conc', 'main');
  expect(log).toHaveLength(writers * loadsEach);
  expect(new Set(log.map((c) => c.id.toHex()))).toEqual(new Set(acknowledged));
  for (let i = 0; i + 1 < log.length; i++) expect(log[i].parent.equals(log[i + 1].id)).toBe(true);
  expect(log[log.length - 1].parent.isNil).toBe(true);
  const vals = await contents(t.lake, 'conc');
  expect(vals).toHaveLength(writers * loadsEach * 50);
  // Each writer's values are all there.
  for (let w = 0; w < writers; w++) {
    expect(vals.filter((v) => v.startsWith(`{w:${w},`))).toHaveLength(loadsEach * 50);
  }
});
