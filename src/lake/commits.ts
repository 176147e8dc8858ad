// Reading and writing commit objects, and rebuilding the snapshot (the
// live object set) at any commit. Commit objects and snapshots never change
// once written, so both are cached by commit ID. A cold snapshot is rebuilt
// from the nearest commit object that embeds a full snapshot (one in every
// SNAPSHOT_INTERVAL along a branch) plus the actions of the commits after
// it, so it costs a bounded number of reads however long the history.

import { ObjectStore, isNotFound } from '../storage/storage';
import { TypeContext } from '../zed/context';
import { CommitObject, commitKey } from './commit';
import { notFound } from './errors';
import { Ksuid } from './ksuid';
import { LRU } from './lru';
import { applyTo, Snapshot } from './snapshot';

export class CommitStore {
  private objects = new LRU<string, CommitObject>(4096);
  private snapshots = new LRU<string, Snapshot>(128);
  private loading = new Map<string, Promise<Snapshot>>();

  constructor(
    private storage: ObjectStore,
    /** The context commit objects decode into (one per lake). */
    readonly ctx: TypeContext,
  ) {}

  /** The commit object; a notfound LakeError when the pool has no such commit. */
  async get(pool: Ksuid, id: Ksuid): Promise<CommitObject> {
    const ck = pool + '/' + id;
    const hit = this.objects.get(ck);
    if (hit) return hit;
    const key = commitKey(pool, id);
    let buf: Buffer;
    try {
      buf = await this.storage.get(key);
    } catch (e) {
      if (isNotFound(e)) throw notFound(`${id}: commit object not found`);
      throw e;
    }
    const o = CommitObject.decode(buf, this.ctx, key);
    this.objects.set(ck, o);
    return o;
  }

  /** Writes a commit object (durable when this resolves). */
  async put(pool: Ksuid, o: CommitObject): Promise<void> {
    const buf = await o.serialize(this.ctx);
    await this.storage.put(commitKey(pool, o.id), buf);
    this.objects.set(pool + '/' + o.id, o);
  }

  /** Removes a commit object that never became part of a branch. */
  async remove(pool: Ksuid, id: Ksuid): Promise<void> {
    this.objects.delete(pool + '/' + id);
    await this.storage.delete(commitKey(pool, id));
  }

  /** Caches a snapshot computed while committing. */
  remember(pool: Ksuid, id: Ksuid, snap: Snapshot): void {
    this.snapshots.set(pool + '/' + id, snap);
  }

  /** Forgets a dropped pool. */
  forgetPool(pool: Ksuid): void {
    this.objects.deletePrefix(pool + '/');
    this.snapshots.deletePrefix(pool + '/');
  }

  /** The live objects at a commit (the nil commit has none). */
  async snapshot(pool: Ksuid, id: Ksuid): Promise<Snapshot> {
    if (id.isNil) return Snapshot.empty;
    const ck = pool + '/' + id;
    const hit = this.snapshots.get(ck);
    if (hit) return hit;
    // Concurrent readers of one snapshot share the work.
    let p = this.loading.get(ck);
    if (!p) {
      p = this.build(pool, id).finally(() => this.loading.delete(ck));
      this.loading.set(ck, p);
    }
    return p;
  }

  private async build(pool: Ksuid, leaf: Ksuid): Promise<Snapshot> {
    const chain: CommitObject[] = [];
    let base: Snapshot = Snapshot.empty;
    for (let at = leaf; !at.isNil;) {
      const cached = this.snapshots.get(pool + '/' + at);
      if (cached) {
        base = cached;
        break;
      }
      const o = await this.get(pool, at);
      if (o.snapshot) {
        base = Snapshot.of(o.snapshot, 0, o.snapshotIndexes, o.snapshotVectors);
        break;
      }
      chain.push(o);
      at = o.parent;
    }
    let snap = base;
    if (chain.length > 0) {
      const state = base.state();
      for (let i = chain.length - 1; i >= 0; i--) applyTo(state, chain[i].actions);
      snap = Snapshot.from(state, base.distance + chain.length);
    }
    this.snapshots.set(pool + '/' + leaf, snap);
    return snap;
  }

  /**
   * The commits from leaf back to the first one, leaf first, stopping
   * after `stop` when given.
   */
  async path(
    pool: Ksuid,
    leaf: Ksuid,
    stop?: (o: CommitObject) => boolean,
  ): Promise<CommitObject[]> {
    const out: CommitObject[] = [];
    for (let at = leaf; !at.isNil;) {
      const o = await this.get(pool, at);
      out.push(o);
      if (stop && stop(o)) break;
      at = o.parent;
    }
    return out;
  }
}
