// File-system helpers shared by the embedded storage and coordination.

import { promises as fs } from 'node:fs';

/** Makes a directory's entries (a rename, a new file) durable. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
