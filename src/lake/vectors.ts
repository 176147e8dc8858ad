// Columnar copies of data objects. Beside `<id>.zng` an object may have
// `<id>.vng`: the same values, in the same order, as VNG (the reference's
// columnar format, src/formats/vng), so a scan that needs a few fields
// reads only their columns. A copy is live on a branch once a commit's
// AddVector action names it (a load's commit does so for the copies it
// wrote); vacuum and pool drop remove copies with their objects.

import { FormatError } from '../formats/io';
import { VngWriter } from '../formats/vng';
import { UnsupportedVngType } from '../formats/vng/columns';
import { ObjectStore } from '../storage/storage';
import { Value } from '../zed/value';
import { PoolConfig } from './config';
import { Ksuid } from './ksuid';

/** Storage key of an object's columnar copy. */
export function vectorKey(poolId: Ksuid, id: Ksuid): string {
  return `${poolId}/data/${id}.vng`;
}

/**
 * Writes the values read from next (batches, null at the end) as the
 * object's columnar copy. Returns false, writing nothing, when the values
 * have a type VNG cannot hold (the object is then read by rows); storage
 * failures throw.
 */
export async function writeVector(
  storage: ObjectStore,
  pool: PoolConfig,
  id: Ksuid,
  next: () => Promise<readonly Value[] | null>,
): Promise<boolean> {
  const out = await storage.create(vectorKey(pool.id, id));
  const w = new VngWriter({ write: (chunk) => out.write(chunk), end: async () => undefined });
  try {
    for (let b = await next(); b; b = await next()) await w.write(b as Value[]);
    await w.close();
    await out.commit();
  } catch (e) {
    await out.abort();
    if (e instanceof FormatError && e.format === 'vng') return false;
    if (e instanceof UnsupportedVngType) return false;
    throw e;
  }
  return true;
}

/** A batch source over an array of values (a writer's sorted values). */
export function arrayBatches(vals: readonly Value[], size = 4096): () => Promise<Value[] | null> {
  let pos = 0;
  return async () => {
    if (pos >= vals.length) return null;
    const b = vals.slice(pos, pos + size);
    pos += b.length;
    return b;
  };
}
