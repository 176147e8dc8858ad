// The lake: pools, branches and commits over an object store and a
// coordinator. This is the library the HTTP service calls.
//
// State and where it lives:
//   - coordination register `pools`: the pool catalog (JSON);
//   - register `branch/<pool-id>/<name>`: a branch and its tip commit;
//   - storage `<pool-id>/commits/<id>.zng`: immutable commit objects;
//   - storage `<pool-id>/data/<id>.zng` and `<id>-seek.zng`: data objects.
//
// Every change to a branch is a new commit object whose parent is the tip
// the writer read; it becomes visible only when a compare-and-swap moves
// the branch register from that tip to the new commit. A writer that loses
// the race rebuilds its commit on the new tip and tries again, so history
// stays linear and nothing acknowledged is lost. Data and commit objects
// are durable before the swap, so a crash at any point leaves either the
// old tip or the whole new commit.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Coordinator } from '../coord/coord';
import { LocalCoordinator } from '../coord/local';
import { ValueReader } from '../formats/io';
import { LocalStore } from '../storage/local';
import { isNotFound, ObjectStore } from '../storage/storage';
import { TypeContext } from '../zed/context';
import { decodeIntBig } from '../zed/primitive';
import { ID } from '../zed/types';
import { Value } from '../zed/value';
import { Action, CommitObject, SNAPSHOT_INTERVAL } from './commit';
import { CommitStore } from './commits';
import {
  BranchConfig,
  decodeBranch,
  decodeCatalog,
  DEFAULT_SEEK_STRIDE,
  DEFAULT_THRESHOLD,
  encodeBranch,
  encodeCatalog,
  nowNs,
  parseOrder,
  PoolConfig,
  SortKey,
} from './config';
import { conflict, invalid, isLakeError, LakeError, notFound } from './errors';
import { EVENTS_CHANNEL, LakeEvent } from './events';
import { Ksuid } from './ksuid';
import { DataObject, dataKey, seekIndexKey, sortObjects } from './object';
import { CommitInfo, SeekEntry } from './records';
import { DEFAULT_CACHE_SIZE, ScanCache } from './cache';
import { PoolScan, ScanOptions } from './scan';
import { decodeSeekIndex, KeyRange, overlaps } from './seekindex';
import { mergeActions, revertActions, Snapshot } from './snapshot';
import { LRU } from './lru';
import { PoolWriter } from './writer';

/** Attempts at moving a branch tip before a commit gives up. */
export const MAX_COMMIT_RETRIES = 100;
const MAX_MESSAGE_OBJECTS = 10;
const CATALOG = 'pools';

/** Who made a commit and why (the service takes it from the Zed-Commit header). */
export interface CommitMessage {
  author?: string;
  /** The commit message; a description of the change when absent. */
  message?: string;
  /** Application metadata (any Zed value). */
  meta?: Value;
}

export interface PoolOptions {
  layout?: { order?: string; keys?: string[][] };
  seekStride?: number;
  threshold?: number;
}

export interface CommitResult {
  commit: Ksuid;
}

export interface LoadResult extends CommitResult {
  objects: DataObject[];
  records: number;
  /** Bytes of ZNG written. */
  bytes: number;
}

export interface DeleteWhereOptions {
  /** Context values are decoded in (the predicate's). */
  ctx?: TypeContext;
  /** Objects wholly outside this key range are not read. */
  range?: KeyRange;
}

export interface PoolStats {
  /** Bytes of data objects. */
  size: number;
  /** Key span when the pool key is a time: first and one past the last (ns). */
  span?: { ts: bigint; dur: bigint };
}

export interface LakeOptions {
  /**
   * Bytes of decoded data-object streams scans may keep in memory (the
   * scan cache); 0 turns the cache off. Default DEFAULT_CACHE_SIZE.
   */
  cacheSize?: number;
}

/** What a commit under construction contributes. */
interface Built {
  actions: Action[];
  message: string;
  mergeSource?: Ksuid;
  /** Undo side effects of building when the commit is abandoned. */
  discard?: () => Promise<void>;
}

export class Lake {
  /** Context the lake's metadata (object key ranges, commit meta) lives in. */
  readonly ctx = new TypeContext();
  readonly commits: CommitStore;
  private seekIndexes = new LRU<string, SeekEntry[]>(8192);
  /** Decoded streams of data objects (see cache.ts). */
  readonly cache: ScanCache;
  private branchQueues = new Map<string, Promise<unknown>>();
  private catalogText: string | null = null;
  private catalog: PoolConfig[] = [];

  constructor(
    readonly storage: ObjectStore,
    readonly coord: Coordinator,
    opts: LakeOptions = {},
  ) {
    this.commits = new CommitStore(storage, this.ctx);
    const size = opts.cacheSize ?? DEFAULT_CACHE_SIZE;
    if (!(size >= 0)) throw invalid(`cache size must be a number of bytes: ${size}`);
    this.cache = new ScanCache(size);
  }

  /** The embedded lake in a local directory (created when missing). */
  static async openLocal(dir: string, opts: LakeOptions = {}): Promise<Lake> {
    await fs.mkdir(dir, { recursive: true });
    const coord = await LocalCoordinator.open(path.join(dir, 'coord'));
    return new Lake(new LocalStore(dir), coord, opts);
  }

  async close(): Promise<void> {
    await Promise.all([...this.branchQueues.values()].map((p) => p.catch(() => undefined)));
    await this.coord.close();
    await this.storage.close?.();
  }

  // ---- events ----

  /** Calls handler with every event published by any replica. */
  subscribe(handler: (e: LakeEvent) => void): () => void {
    return this.coord.subscribe(EVENTS_CHANNEL, (m) => handler(JSON.parse(m) as LakeEvent));
  }

  private async publish(e: LakeEvent): Promise<void> {
    try {
      await this.coord.publish(EVENTS_CHANNEL, JSON.stringify(e));
    } catch {
      // Events are advisory: a failed publish must not fail the operation.
    }
  }

  private async publishCommit(
    pool: PoolConfig,
    branch: string,
    commit: Ksuid,
    parent = '',
  ): Promise<void> {
    await this.publish({
      name: 'branch-commit',
      commit_id: commit.toString(),
      pool_id: pool.id.toString(),
      branch,
      parent,
    });
    await this.publish({
      name: 'pool-commit',
      pool_id: pool.id.toString(),
      commit_id: commit.toString(),
    });
  }

  // ---- pools ----

  private async readCatalog(): Promise<{ text: string | null; pools: PoolConfig[] }> {
    const text = await this.coord.get(CATALOG);
    if (text !== this.catalogText) {
      this.catalog = decodeCatalog(text);
      this.catalogText = text;
    }
    return { text, pools: this.catalog };
  }

  /** Every pool, by name. */
  async listPools(): Promise<PoolConfig[]> {
    const { pools } = await this.readCatalog();
    return [...pools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * A pool by ID (either ID form) or name. As in the reference, a string
   * that parses as an ID is taken as one.
   */
  async lookupPool(ref: string): Promise<PoolConfig> {
    if (ref === '') throw invalid('no pool name given');
    const id = Ksuid.parse(ref);
    const { pools } = await this.readCatalog();
    const p = id ? pools.find((x) => x.id.equals(id)) : pools.find((x) => x.name === ref);
    if (!p) throw notFound(`${id ? id.toString() : ref}: pool not found`);
    return p;
  }

  async createPool(
    name: string,
    opts: PoolOptions = {},
  ): Promise<{ pool: PoolConfig; branch: BranchConfig }> {
    if (name === 'HEAD') throw invalid(`pool cannot be named "HEAD"`);
    if (name === '') throw invalid('pool name cannot be empty');
    const layout = checkLayout(opts.layout);
    const seekStride = opts.seekStride || DEFAULT_SEEK_STRIDE;
    const threshold = opts.threshold || DEFAULT_THRESHOLD;
    if (!(seekStride > 0) || !(threshold > 0))
      throw invalid('seek stride and threshold must be positive');
    const pool: PoolConfig = {
      ts: nowNs(),
      name,
      id: Ksuid.generate(),
      layout,
      seekStride,
      threshold,
    };
    const branch: BranchConfig = { ts: nowNs(), name: 'main', commit: Ksuid.nil };
    // The main branch first: until the catalog names the pool it is unseen.
    const bkey = branchKey(pool.id, 'main');
    await this.coord.compareAndSwap(bkey, null, encodeBranch(branch));
    for (;;) {
      const { text, pools } = await this.readCatalog();
      if (pools.some((p) => p.name === name)) {
        await this.coord.compareAndSwap(bkey, encodeBranch(branch), null);
        throw conflict(`${name}: pool already exists`);
      }
      if (await this.coord.compareAndSwap(CATALOG, text, encodeCatalog([...pools, pool]))) break;
    }
    await this.publish({ name: 'pool-new', pool_id: pool.id.toString() });
    return { pool, branch };
  }

  async renamePool(ref: string, newName: string): Promise<void> {
    const { id } = await this.lookupPool(ref);
    if (newName === '') throw invalid('pool name cannot be empty');
    for (;;) {
      const { text, pools } = await this.readCatalog();
      const cur = pools.find((p) => p.id.equals(id));
      if (!cur) throw notFound(`${id}: pool not found`);
      if (pools.some((p) => p.name === newName)) throw conflict(`${newName}: pool already exists`);
      const next = pools.map((p) => (p === cur ? { ...p, name: newName } : p));
      if (await this.coord.compareAndSwap(CATALOG, text, encodeCatalog(next))) break;
    }
    await this.publish({ name: 'pool-update', pool_id: id.toString() });
  }

  /** Removes a pool, its branches and all of its objects. */
  async deletePool(ref: string): Promise<void> {
    const { id } = await this.lookupPool(ref);
    for (;;) {
      const { text, pools } = await this.readCatalog();
      if (!pools.some((p) => p.id.equals(id))) throw notFound(`${id}: pool not found`);
      const next = pools.filter((p) => !p.id.equals(id));
      if (await this.coord.compareAndSwap(CATALOG, text, encodeCatalog(next))) break;
    }
    await this.publish({ name: 'pool-delete', pool_id: id.toString() });
    // The pool is gone from the catalog; what follows is clean-up.
    for (const [key, value] of await this.coord.list(`branch/${id}/`)) {
      await this.coord.compareAndSwap(key, value, null);
    }
    await this.storage.deleteByPrefix(`${id}/`);
    this.commits.forgetPool(id);
    this.seekIndexes.deletePrefix(`${id}/`);
    this.cache.dropPool(id.toString());
  }

  // ---- branches ----

  /** A pool's branches, by name. */
  async listBranches(poolRef: string | PoolConfig): Promise<BranchConfig[]> {
    const pool = await this.pool(poolRef);
    const prefix = `branch/${pool.id}/`;
    const out: BranchConfig[] = [];
    for (const [key, value] of await this.coord.list(prefix))
      out.push(decodeBranch(key.slice(prefix.length), value));
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async lookupBranch(poolRef: string | PoolConfig, name: string): Promise<BranchConfig> {
    const pool = await this.pool(poolRef);
    const text = await this.coord.get(branchKey(pool.id, name));
    if (text === null) throw notFound(`${JSON.stringify(name)}: branch not found`);
    return decodeBranch(name, text);
  }

  /** Creates a branch pointing at commit (which must be in the pool). */
  async createBranch(
    poolRef: string | PoolConfig,
    name: string,
    commit: Ksuid,
  ): Promise<BranchConfig> {
    const pool = await this.pool(poolRef);
    if (name === '') throw invalid('branch name cannot be empty');
    if (!commit.isNil) await this.commits.get(pool.id, commit);
    const branch: BranchConfig = { ts: nowNs(), name, commit };
    if (!(await this.coord.compareAndSwap(branchKey(pool.id, name), null, encodeBranch(branch)))) {
      throw conflict(`${pool.name}/${name}: branch already exists`);
    }
    await this.publish({ name: 'branch-update', pool_id: pool.id.toString(), branch: name });
    return branch;
  }

  async deleteBranch(poolRef: string | PoolConfig, name: string): Promise<void> {
    const pool = await this.pool(poolRef);
    const key = branchKey(pool.id, name);
    const text = await this.coord.get(key);
    if (text === null) throw notFound(`${JSON.stringify(name)}: branch not found`);
    if (!(await this.coord.compareAndSwap(key, text, null))) {
      const b = decodeBranch(name, text);
      throw conflict(
        `${JSON.stringify(name)}: branch at commit ${b.commit} operated on during removal.. aborted`,
      );
    }
    await this.publish({ name: 'branch-delete', pool_id: pool.id.toString(), branch: name });
  }

  /** A commit ID (either form) or a branch name, as the branch's tip. */
  async resolveRevision(poolRef: string | PoolConfig, revision: string): Promise<Ksuid> {
    const id = Ksuid.parse(revision);
    if (id) return id;
    return (await this.lookupBranch(poolRef, revision)).commit;
  }

  private async pool(ref: string | PoolConfig): Promise<PoolConfig> {
    return typeof ref === 'string' ? this.lookupPool(ref) : ref;
  }

  // ---- committing ----

  /** Runs fn with no other commit of this lake instance on the branch running. */
  private serialize<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.branchQueues.get(key) ?? Promise.resolve();
    const run = prev.then(fn);
    const tail = run.catch(() => undefined);
    this.branchQueues.set(key, tail);
    void tail.then(() => {
      if (this.branchQueues.get(key) === tail) this.branchQueues.delete(key);
    });
    return run;
  }

  /**
   * Builds a commit on the branch's tip and moves the tip to it, rebuilding
   * on the new tip when another writer got there first.
   */
  private commit(
    pool: PoolConfig,
    branchName: string,
    msg: CommitMessage,
    build: (head: BranchConfig, snap: Snapshot, retries: number) => Promise<Built>,
  ): Promise<CommitObject> {
    return this.serialize(`${pool.id}/${branchName}`, async () => {
      const key = branchKey(pool.id, branchName);
      for (let retries = 0; retries < MAX_COMMIT_RETRIES; retries++) {
        const text = await this.coord.get(key);
        if (text === null) throw notFound(`${JSON.stringify(branchName)}: branch not found`);
        const head = decodeBranch(branchName, text);
        const snap = await this.commits.snapshot(pool.id, head.commit);
        const built = await build(head, snap, retries);
        const id = Ksuid.generate();
        const embed = snap.distance + 1 >= SNAPSHOT_INTERVAL;
        const next = snap.apply(built.actions, embed ? 0 : snap.distance + 1);
        const info: CommitInfo = {
          id,
          parent: head.commit,
          retries: Math.min(retries, 255),
          author: msg.author ?? '',
          date: nowNs(),
          message: msg.message || built.message,
          meta: msg.meta ?? Value.null(),
        };
        const obj = new CommitObject(
          info,
          built.actions,
          embed ? next.list() : undefined,
          built.mergeSource,
        );
        await this.commits.put(pool.id, obj);
        if (await this.coord.compareAndSwap(key, text, encodeBranch({ ...head, commit: id }))) {
          this.commits.remember(pool.id, id, next);
          return obj;
        }
        // Lost the race: the commit object was never part of the branch.
        await this.commits.remove(pool.id, id);
        await built.discard?.();
        await sleep(Math.random() * Math.min(50, 2 ** retries));
      }
      throw conflict(
        `branch ${JSON.stringify(branchName)}: exceeded max update attempts (${MAX_COMMIT_RETRIES}) to branch tip: commit failed`,
      );
    });
  }

  /** Sorts, splits and stores the values and commits them to the branch. */
  async load(
    poolRef: string | PoolConfig,
    branchName: string,
    reader: ValueReader,
    msg: CommitMessage = {},
  ): Promise<LoadResult> {
    const pool = await this.pool(poolRef);
    await this.lookupBranch(pool, branchName);
    const w = new PoolWriter(this.storage, pool, this.ctx, this.cache);
    let objects: DataObject[];
    try {
      for (let batch = await reader.read(); batch; batch = await reader.read())
        await w.write(batch);
      objects = await w.close();
    } catch (e) {
      await w.abort();
      throw e;
    }
    if (objects.length === 0) throw invalid('empty transaction');
    let commit: CommitObject;
    try {
      commit = await this.commit(pool, branchName, msg, async () => ({
        actions: objects.map((object) => ({ kind: 'add', object })),
        message: loadMessage(objects),
      }));
    } catch (e) {
      // The commit certainly did not happen: the objects are garbage.
      if (isLakeError(e)) await w.abort();
      throw e;
    }
    await this.publishCommit(pool, branchName, commit.id);
    return { commit: commit.id, objects, records: w.stats.records, bytes: w.stats.bytes };
  }

  /** Deletes whole objects from the branch (they stay for time travel until vacuumed). */
  async deleteObjects(
    poolRef: string | PoolConfig,
    branchName: string,
    ids: Ksuid[],
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    const pool = await this.pool(poolRef);
    const unique = [...new Map(ids.map((id) => [id.toString(), id])).values()];
    if (unique.length === 0) throw invalid('empty transaction');
    const commit = await this.commit(pool, branchName, msg, async (_head, snap) => {
      const objects = unique.map((id) => {
        const o = snap.get(id);
        if (!o) throw notFound(`${id}: commit object not found`);
        return o;
      });
      return {
        actions: unique.map((id) => ({ kind: 'delete', id })),
        message:
          `deleted ${plural(objects.length, 'data object')}\n\n` +
          listObjects(objects, MAX_MESSAGE_OBJECTS),
      };
    });
    this.forgetObjects(pool, commit);
    await this.publishCommit(pool, branchName, commit.id);
    return { commit: commit.id };
  }

  /**
   * Deletes the values for which pred is true: every object holding such a
   * value is deleted and the rest of its values are written to new objects,
   * all in one commit. A delete that matches nothing is an error.
   */
  async deleteWhere(
    poolRef: string | PoolConfig,
    branchName: string,
    pred: (v: Value) => boolean,
    msg: CommitMessage = {},
    opts: DeleteWhereOptions = {},
  ): Promise<CommitResult> {
    const pool = await this.pool(poolRef);
    const ctx = opts.ctx ?? new TypeContext();
    const commit = await this.commit(pool, branchName, msg, async (head, snap) => {
      const candidates = sortObjects(
        snap.list().filter((o) => overlaps(o.min, o.max, opts.range)),
        pool.layout.order,
      );
      const w = new PoolWriter(this.storage, pool, this.ctx, this.cache);
      const deleted: DataObject[] = [];
      try {
        for (const o of candidates) {
          const scan = this.scanObjects(pool, [o], head.commit, { ctx });
          const kept: Value[][] = [];
          let n = 0;
          for (let batch = await scan.pull(); batch; batch = await scan.pull()) {
            const keep = batch.filter((v) => !pred(v));
            n += keep.length;
            if (keep.length > 0) kept.push(keep);
          }
          if (n === o.count) continue;
          deleted.push(o);
          for (const batch of kept) await w.write(batch);
        }
        if (deleted.length === 0) throw invalid('empty transaction');
        const added = await w.close();
        return {
          actions: [
            ...deleted.map((o): Action => ({ kind: 'delete', id: o.id })),
            ...added.map((object): Action => ({ kind: 'add', object })),
          ],
          message: deleteWhereMessage(deleted, added),
          discard: () => w.abort(),
        };
      } catch (e) {
        await w.abort();
        throw e;
      }
    });
    this.forgetObjects(pool, commit);
    await this.publishCommit(pool, branchName, commit.id);
    return { commit: commit.id };
  }

  /** Brings the child branch's changes since the branches last met into the parent. */
  async merge(
    poolRef: string | PoolConfig,
    childName: string,
    parentName: string,
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    const pool = await this.pool(poolRef);
    const child = await this.lookupBranch(pool, childName);
    await this.lookupBranch(pool, parentName);
    if (childName === parentName) throw invalid('cannot merge branch into itself');
    const commit = await this.commit(pool, parentName, msg, async (head, parentSnap) => {
      const { base, parentDeleted } = await this.mergeBase(pool, head.commit, child.commit);
      const baseSnap = await this.commits.snapshot(pool.id, base);
      const childSnap = await this.commits.snapshot(pool.id, child.commit);
      return {
        actions: mergeActions(
          baseSnap,
          childSnap,
          parentSnap,
          parentDeleted,
          childName,
          parentName,
        ),
        message: `merged ${JSON.stringify(childName)} into ${JSON.stringify(parentName)}`,
        mergeSource: child.commit,
      };
    });
    await this.publishCommit(pool, childName, commit.id, parentName);
    return { commit: commit.id };
  }

  /**
   * Where two branches last met: a commit both descend from, either where
   * they forked or where one was last merged into the other. Also the
   * objects the parent deleted since then.
   */
  private async mergeBase(
    pool: PoolConfig,
    parentTip: Ksuid,
    childTip: Ksuid,
  ): Promise<{ base: Ksuid; parentDeleted: Set<string> }> {
    const parentPath = await this.commits.path(pool.id, parentTip);
    const childPath = await this.commits.path(pool.id, childTip);
    const inChild = new Map(childPath.map((c) => [c.id.toString(), c]));
    const parentIndex = new Map(parentPath.map((c, i) => [c.id.toString(), i]));
    // Candidates: [base commit, its date, index on the parent path where the
    // parent's own changes since the meeting begin].
    const candidates: { base: Ksuid; date: bigint; cut: number }[] = [];
    for (let i = 0; i < parentPath.length; i++) {
      const p = parentPath[i];
      const c = inChild.get(p.id.toString());
      if (c) candidates.push({ base: p.id, date: p.info.date, cut: i });
      if (p.mergeSource) {
        const src = inChild.get(p.mergeSource.toString());
        if (src) candidates.push({ base: src.id, date: src.info.date, cut: i });
      }
      if (c) break;
    }
    for (const c of childPath) {
      if (!c.mergeSource) continue;
      const i = parentIndex.get(c.mergeSource.toString());
      if (i !== undefined)
        candidates.push({ base: c.mergeSource, date: parentPath[i].info.date, cut: i });
    }
    let best: { base: Ksuid; date: bigint; cut: number } | undefined;
    for (const c of candidates) if (!best || c.date > best.date) best = c;
    const cut = best ? best.cut : parentPath.length;
    const parentDeleted = new Set<string>();
    for (let i = 0; i < cut; i++) {
      for (const a of parentPath[i].actions)
        if (a.kind === 'delete') parentDeleted.add(a.id.toString());
    }
    return { base: best ? best.base : Ksuid.nil, parentDeleted };
  }

  /** Undoes a commit's changes on the branch with a new commit. */
  async revert(
    poolRef: string | PoolConfig,
    branchName: string,
    commitId: Ksuid,
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    const pool = await this.pool(poolRef);
    await this.lookupBranch(pool, branchName);
    const commit = await this.commit(pool, branchName, msg, async (_head, tip) => {
      let target: CommitObject;
      try {
        target = await this.commits.get(pool.id, commitId);
      } catch (e) {
        if (isLakeError(e, 'notfound')) throw notFound(`commit not found: ${commitId}`);
        throw e;
      }
      const before = await this.commits.snapshot(pool.id, target.parent);
      return {
        actions: revertActions(before, target.actions, tip),
        message: `reverted commit ${commitId}`,
      };
    });
    await this.publishCommit(pool, branchName, commit.id);
    return { commit: commit.id };
  }

  /**
   * Permanently removes the data objects that the revision's history added
   * and that neither the revision nor any branch's tip still has. A dry run
   * lists them without removing anything.
   */
  async vacuum(poolRef: string | PoolConfig, revision: string, dryrun: boolean): Promise<Ksuid[]> {
    const pool = await this.pool(poolRef);
    const leaf = await this.resolveRevision(pool, revision);
    const keep = new Set<string>();
    for (const o of (await this.commits.snapshot(pool.id, leaf)).list()) keep.add(o.id.toString());
    for (const b of await this.listBranches(pool)) {
      for (const o of (await this.commits.snapshot(pool.id, b.commit)).list())
        keep.add(o.id.toString());
    }
    const candidates = new Map<string, Ksuid>();
    for (const c of await this.commits.path(pool.id, leaf)) {
      for (const a of c.actions) {
        if (a.kind !== 'add') continue;
        const id = a.object.id.toString();
        if (!keep.has(id)) candidates.set(id, a.object.id);
      }
    }
    const out: Ksuid[] = [];
    for (const id of candidates.values()) {
      const key = dataKey(pool.id, id);
      if (!(await this.storage.exists(key))) continue;
      if (!dryrun) {
        await this.storage.delete(key);
        await this.storage.delete(seekIndexKey(pool.id, id));
        this.seekIndexes.delete(`${pool.id}/${id}`);
        this.cache.dropObject(`${pool.id}/${id}`);
      }
      out.push(id);
    }
    return out;
  }

  /**
   * Drops the cached streams of the objects a commit deletes: they stay in
   * storage for time travel until vacuumed, but are unlikely to be read.
   */
  private forgetObjects(pool: PoolConfig, commit: CommitObject): void {
    for (const a of commit.actions)
      if (a.kind === 'delete') this.cache.dropObject(`${pool.id}/${a.id}`);
  }

  // ---- reading ----

  /** The live objects at a revision (commit ID or branch). */
  async snapshot(poolRef: string | PoolConfig, revision: string | Ksuid): Promise<Snapshot> {
    const pool = await this.pool(poolRef);
    const commit =
      typeof revision === 'string' ? await this.resolveRevision(pool, revision) : revision;
    return this.commits.snapshot(pool.id, commit);
  }

  /** The objects at a revision in the order a scan reads them. */
  async objects(poolRef: string | PoolConfig, revision: string | Ksuid): Promise<DataObject[]> {
    const pool = await this.pool(poolRef);
    return sortObjects((await this.snapshot(pool, revision)).list(), pool.layout.order);
  }

  /** A scan of the pool's values at a revision (commit ID or branch), in pool-key order. */
  async scan(
    poolRef: string | PoolConfig,
    revision: string | Ksuid,
    opts: ScanOptions,
  ): Promise<PoolScan> {
    const pool = await this.pool(poolRef);
    const commit =
      typeof revision === 'string' ? await this.resolveRevision(pool, revision) : revision;
    const snap = await this.commits.snapshot(pool.id, commit);
    return this.scanObjects(pool, snap.list(), commit, opts);
  }

  private scanObjects(
    pool: PoolConfig,
    objects: DataObject[],
    commit: Ksuid,
    opts: ScanOptions,
  ): PoolScan {
    return new PoolScan(
      this.storage,
      pool,
      objects,
      (o) => this.seekIndex(pool, o),
      opts,
      commit.toString(),
      this.cache,
    );
  }

  private async seekIndex(pool: PoolConfig, o: DataObject): Promise<SeekEntry[]> {
    const ck = `${pool.id}/${o.id}`;
    const hit = this.seekIndexes.get(ck);
    if (hit) return hit;
    let buf: Buffer;
    try {
      buf = await this.storage.get(seekIndexKey(pool.id, o.id));
    } catch (e) {
      if (isNotFound(e)) throw notFound(`data object ${o.id} not found: it was removed by vacuum`);
      throw e;
    }
    const entries = decodeSeekIndex(buf, this.ctx);
    this.seekIndexes.set(ck, entries);
    return entries;
  }

  /** The commits from a revision back to the pool's first, newest first. */
  async log(poolRef: string | PoolConfig, revision: string | Ksuid): Promise<CommitInfo[]> {
    const pool = await this.pool(poolRef);
    const commit =
      typeof revision === 'string' ? await this.resolveRevision(pool, revision) : revision;
    return (await this.commits.path(pool.id, commit)).map((c) => c.info);
  }

  /** Size and key span of a branch (the service's pool stats use main). */
  async stats(poolRef: string | PoolConfig, branchName = 'main'): Promise<PoolStats> {
    const pool = await this.pool(poolRef);
    const snap = await this.snapshot(pool, branchName);
    let size = 0;
    let first: bigint | undefined;
    let last: bigint | undefined;
    for (const o of snap.list()) {
      size += o.size;
      for (const k of [o.min, o.max]) {
        const t = timeOf(k);
        if (t === undefined) continue;
        if (first === undefined || t < first) first = t;
        if (last === undefined || t > last) last = t;
      }
    }
    const stats: PoolStats = { size };
    if (first !== undefined && last !== undefined)
      stats.span = { ts: first, dur: last + 1n - first };
    return stats;
  }
}

function branchKey(pool: Ksuid, name: string): string {
  return `branch/${pool}/${name}`;
}

function checkLayout(l: PoolOptions['layout']): SortKey {
  const order = l?.order ? parseOrder(l.order) : 'asc';
  const keys = l?.keys && l.keys.length > 0 ? l.keys : [['ts']];
  for (const k of keys) {
    if (!Array.isArray(k) || k.some((f) => typeof f !== 'string'))
      throw invalid('pool keys must be arrays of field names');
  }
  return { order, keys };
}

function timeOf(v: Value): bigint | undefined {
  if (v.isNull || v.type.under.id !== ID.Time) return undefined;
  return decodeIntBig(v.buf, v.off, v.len);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The reference's load message: the first objects, then "...". */
function loadMessage(objects: DataObject[]): string {
  let s = `loaded ${plural(objects.length, 'data object')}\n\n`;
  for (let k = 0; k < objects.length; k++) {
    s += `  ${objects[k]}\n`;
    if (k >= MAX_MESSAGE_OBJECTS) {
      s += '  ...\n';
      break;
    }
  }
  return s;
}

/** The reference's object list (which marks every object past the limit). */
function listObjects(objects: DataObject[], max: number): string {
  let s = '';
  for (let k = 0; k < objects.length; k++) {
    s += `  ${objects[k]}\n`;
    if (k >= max) s += '  ...\n';
  }
  return s;
}

function deleteWhereMessage(deleted: DataObject[], added: DataObject[]): string {
  let s =
    `deleted ${plural(deleted.length, 'data object')}\n\n` +
    listObjects(deleted, MAX_MESSAGE_OBJECTS);
  if (added.length > 0) {
    s +=
      `\nadded ${plural(added.length, 'data object')}\n\n` +
      listObjects(added, MAX_MESSAGE_OBJECTS - deleted.length);
  }
  return s;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export { LakeError };
