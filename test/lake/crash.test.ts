import { openLake } from '../../src/backend/open';
// A loader killed with SIGKILL at arbitrary points: after a restart no
// partial commit is visible and every acknowledged commit is there.

import * as path from 'node:path';
import { TypeContext } from '../../src/zed';
import { int, rmDir, tmpDir } from './helpers';
import { exited, onLines, spawnTs } from './spawn-ts';

const SIZE = 2000;

test('kill -9 during loads, restart, check', async () => {
  const dir = tmpDir();
  let lake = await openLake(dir);
  await lake.createPool('p', { layout: { keys: [['k']] }, threshold: 30000, seekStride: 4000 });
  await lake.close();

  const acked = new Map<number, string>();
  let next = 0;
  let orphans = 0;
  // Four rounds, and more (killing later each time) until a kill has landed
  // after a load stored objects: a slow machine takes longer to get there.
  for (let round = 0; round < 4 || (orphans === 0 && round < 12); round++) {
    const child = spawnTs(path.join(__dirname, 'fixtures/loader.ts'), [dir, String(next)]);
    let seen = 0;
    const target = 2 + Math.min(round, 3);
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`loader exited (${code})`)));
      onLines(child, (line) => {
        const [l, commit] = line.split(' ');
        if (l === 'writing') {
          // Kill at a varying moment while the next load writes.
          if (seen === target) setTimeout(() => resolve(), 1 + round * 5);
          return;
        }
        acked.set(Number(l), commit);
        seen++;
      });
    });
    child.kill('SIGKILL');
    await exited(child);
    next = Math.max(...acked.keys()) + 100;

    lake = await openLake(dir);
    const log = await lake.log('p', 'main');
    const ids = new Set(log.map((c) => c.id.toString()));
    for (const [l, commit] of acked) expect([l, ids.has(commit)]).toEqual([l, true]);
    for (let i = 0; i < log.length - 1; i++) expect(log[i].parent.equals(log[i + 1].id)).toBe(true);
    // Every load in the branch is whole: all of its values, nothing else.
    const scan = await lake.scan('p', 'main', { ctx: new TypeContext() });
    const perLoad = new Map<number, number>();
    for (let b = await scan.pull(); b; b = await scan.pull()) {
      for (const v of b) {
        const l = Math.floor(int(v, 'k') / 10000);
        perLoad.set(l, (perLoad.get(l) ?? 0) + 1);
      }
    }
    expect(perLoad.size).toBe(log.length);
    for (const [l, n] of perLoad) expect([l, n]).toEqual([l, SIZE]);
    for (const l of acked.keys()) expect(perLoad.has(l)).toBe(true);
    // Objects written by a load the kill interrupted: stored, never committed.
    const pool = await lake.lookupPool('p');
    const stored = (await lake.storage.list(`${pool.id}/data/`)).filter(
      (k) => !k.endsWith('-seek.zng'),
    );
    orphans = stored.length - (await lake.snapshot('p', 'main')).size;
    await lake.close();
  }
  expect(acked.size).toBeGreaterThanOrEqual(2 + 3 + 4 + 5);
  // The kills did land inside loads.
  expect(orphans).toBeGreaterThan(0);
  rmDir(dir);
}, 120000);
