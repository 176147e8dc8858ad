// Lakes made by zlake before the register journal kept their registers as
// files in `<lake>/coord` (`<sha256 of key>.reg` holding {k, v}). Opening
// such a lake writes each register into the journal as its first version
// and removes the file, once; the journal is the truth from then on.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { encodeVersion, journalKey } from '../lake/registers';
import { ObjectStore } from '../storage/storage';

export async function migrateLegacyRegisters(dir: string, store: ObjectStore): Promise<void> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith('.reg'));
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    const rec = JSON.parse(await fs.readFile(file, 'utf8')) as { k: string; v: string };
    const where = legacyRegister(rec.k);
    if (where) {
      const key = journalKey(where.group, where.name, 1);
      await store.putIfAbsent(key, Buffer.from(encodeVersion(1, rec.v)));
    }
    await fs.unlink(file);
  }
}

function legacyRegister(key: string): { group: string; name: string } | null {
  if (key === 'pools') return { group: 'catalog', name: 'pools' };
  const m = /^branch\/([^/]+)\/(.*)$/s.exec(key);
  return m ? { group: `${m[1]}/branches`, name: m[2] } : null;
}
