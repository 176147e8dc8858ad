// Lakes written before the register journal kept their registers as
// files in <lake>/coord ({k, v} JSON named by the key's SHA-256). Opening
// one moves them into the journal once, and the lake reads as before.

import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openLake } from '../../src/backend/open';
import { encodeBranch, encodeCatalog } from '../../src/lake/config';
import { TypeContext } from '../../src/zed';
import { query, recs } from './helpers';

test('registers kept as files by earlier versions move into the journal on open', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'zlake-legacy-'));
  try {
    // A lake with data, written by this version...
    let lake = await openLake(dir);
    const { pool } = await lake.createPool('logs', { layout: { keys: [['k']] } });
    const ctx = new TypeContext();
    let fed = false;
    await lake.load('logs', 'main', {
      read: async () => (fed ? null : ((fed = true), recs(ctx, [3, 1, 2]))),
    });
    const main = await lake.lookupBranch('logs', 'main');
    await lake.close();
    // ...turned into the old layout: registers as files, no journal.
    await lake.storage.deleteByPrefix('catalog/');
    await lake.storage.deleteByPrefix(`${pool.id}/branches/`);
    const reg = (k: string, v: string) =>
      writeFileSync(
        path.join(dir, 'coord', createHash('sha256').update(k).digest('hex') + '.reg'),
        JSON.stringify({ k, v }),
      );
    reg('pools', encodeCatalog([pool]));
    reg(`branch/${pool.id}/main`, encodeBranch(main));

    lake = await openLake(dir);
    expect((await lake.listPools()).map((p) => p.name)).toEqual(['logs']);
    expect((await lake.lookupBranch('logs', 'main')).commit.equals(main.commit)).toBe(true);
    expect(await query(lake, 'logs', 'main')).toHaveLength(3);
    expect(readdirSync(path.join(dir, 'coord')).filter((f) => f.endsWith('.reg'))).toEqual([]);
    await lake.close();
    // The journal is the truth from then on.
    lake = await openLake(dir);
    expect(await query(lake, 'logs', 'main')).toHaveLength(3);
    await lake.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
