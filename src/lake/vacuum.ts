// Vacuum: permanently removes the data objects (with their seek indexes
// and columnar copies) that a revision's history added and that neither
// the revision nor any branch's tip still has, and every index object made
// of them. Those objects are reachable only by time travel to older
// commits, which answer "vacuumed" afterwards.

import { ObjectStore } from '../storage/storage';
import { BranchRegistry } from './branches';
import { CommitStore } from './commits';
import { PoolConfig } from './config';
import { Ksuid } from './ksuid';
import { indexPrefix } from './index/object';
import { dataKey, seekIndexKey } from './object';
import { vectorKey } from './vectors';

export async function vacuumCandidates(
  storage: ObjectStore,
  commits: CommitStore,
  branches: BranchRegistry,
  pool: PoolConfig,
  leaf: Ksuid,
): Promise<Ksuid[]> {
  const keep = new Set<string>();
  for (const o of (await commits.snapshot(pool.id, leaf)).list()) keep.add(o.id.toString());
  for (const b of await branches.list(pool)) {
    for (const o of (await commits.snapshot(pool.id, b.commit)).list()) keep.add(o.id.toString());
  }
  const candidates = new Map<string, Ksuid>();
  for (const c of await commits.path(pool.id, leaf)) {
    for (const a of c.actions) {
      if (a.kind !== 'add') continue;
      const id = a.object.id.toString();
      if (!keep.has(id)) candidates.set(id, a.object.id);
    }
  }
  const out: Ksuid[] = [];
  for (const id of candidates.values())
    if (await storage.exists(dataKey(pool.id, id))) out.push(id);
  return out;
}

/** Removes the objects' data, seek index and columnar copy. */
export async function removeObjects(
  storage: ObjectStore,
  pool: PoolConfig,
  ids: Ksuid[],
): Promise<void> {
  for (const id of ids) {
    await storage.delete(dataKey(pool.id, id));
    await storage.delete(seekIndexKey(pool.id, id));
    await storage.delete(vectorKey(pool.id, id));
  }
}

/**
 * Removes the index objects of the data objects, whatever rule made them
 * (found by listing the pool's index objects: a rule may have been
 * dropped, or the index made on another branch).
 */
export async function removeIndexesOf(
  storage: ObjectStore,
  pool: PoolConfig,
  ids: Ksuid[],
): Promise<void> {
  const gone = new Set(ids.map(String));
  const keys = (await storage.list(indexPrefix(pool.id))).filter((k) => {
    const name = k.slice(k.lastIndexOf('/') + 1);
    return gone.has(name.slice(0, name.search(/[-.]/)));
  });
  for (const k of keys) await storage.delete(k);
}
