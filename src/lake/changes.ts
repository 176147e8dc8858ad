// The changes users make to a branch: load, delete (whole objects or by
// filter), merge, revert and compact (compact.ts). Each builds its actions on the branch's tip
// and hands them to the commit protocol (committer.ts), which rebuilds
// them on a newer tip when another writer got there first.

import { ValueReader } from '../formats/io';
import { ObjectStore } from '../storage/storage';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { BranchRegistry } from './branches';
import { ScanCache } from './cache';
import { Action, addActions, CommitObject } from './commit';
import { CommitStore } from './commits';
import { CommitMessage, Committer } from './committer';
import { compactObjects } from './compact';
import { PoolConfig } from './config';
import { invalid, isLakeError, notFound } from './errors';
import { Ksuid, uniqueIds } from './ksuid';
import { DataObject, sortObjects } from './object';
import { PoolScan, ScanOptions } from './scan';
import { KeyRange, overlaps } from './seekindex';
import { mergeActions, revertActions, Snapshot } from './snapshot';
import { writeVector } from './vectors';
import { PoolWriter } from './writer';

const MAX_MESSAGE_OBJECTS = 10;

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

/** What the changes need of the rest of the lake. */
export interface ChangeContext {
  storage: ObjectStore;
  /** Context the lake's metadata lives in. */
  ctx: TypeContext;
  cache: ScanCache;
  commits: CommitStore;
  committer: Committer;
  branches: BranchRegistry;
  scanObjects(pool: PoolConfig, objects: DataObject[], commit: Ksuid, opts: ScanOptions): PoolScan;
}

export class BranchChanges {
  constructor(private c: ChangeContext) {}

  /** Sorts, splits and stores the values and commits them to the branch. */
  async load(
    pool: PoolConfig,
    branchName: string,
    reader: ValueReader,
    msg: CommitMessage = {},
  ): Promise<LoadResult> {
    await this.c.branches.lookup(pool, branchName);
    const w = new PoolWriter(this.c.storage, pool, this.c.ctx, this.c.cache);
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
      commit = await this.c.committer.commit(pool, branchName, msg, async () => ({
        actions: addActions(objects, w.vectors),
        message: loadMessage(objects),
      }));
    } catch (e) {
      // The commit certainly did not happen: the objects are garbage.
      if (isLakeError(e)) await w.abort();
      throw e;
    }
    return { commit: commit.id, objects, records: w.stats.records, bytes: w.stats.bytes };
  }

  /** Deletes whole objects from the branch (they stay for time travel until vacuumed). */
  async deleteObjects(
    pool: PoolConfig,
    branchName: string,
    ids: Ksuid[],
    msg: CommitMessage = {},
  ): Promise<CommitObject> {
    const unique = uniqueIds(ids);
    if (unique.length === 0) throw invalid('empty transaction');
    return this.c.committer.commit(pool, branchName, msg, async (_head, snap) => {
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
  }

  /**
   * Deletes the values for which pred is true: every object holding such a
   * value is deleted and the rest of its values are written to new objects,
   * all in one commit. A delete that matches nothing is an error.
   */
  deleteWhere(
    pool: PoolConfig,
    branchName: string,
    pred: (v: Value) => boolean,
    msg: CommitMessage = {},
    opts: DeleteWhereOptions = {},
  ): Promise<CommitObject> {
    const ctx = opts.ctx ?? new TypeContext();
    return this.c.committer.commit(pool, branchName, msg, async (head, snap) => {
      const candidates = sortObjects(
        snap.list().filter((o) => overlaps(o.min, o.max, opts.range)),
        pool.layout.order,
      );
      const w = new PoolWriter(this.c.storage, pool, this.c.ctx, this.c.cache);
      const deleted: DataObject[] = [];
      try {
        for (const o of candidates) {
          const scan = this.c.scanObjects(pool, [o], head.commit, { ctx });
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
            ...addActions(added, w.vectors),
          ],
          message: deleteWhereMessage(deleted, added),
          discard: () => w.abort(),
        };
      } catch (e) {
        await w.abort();
        throw e;
      }
    });
  }

  /**
   * Writes columnar copies of the branch's objects and makes them live
   * with one commit; the commit's ID. Every object must be live on the
   * branch. Objects whose copy is already live are left as they are (loads
   * write copies, so the reference's "load, then vector add" finds them
   * there); when all are, nothing is committed and the tip's ID returned.
   */
  async addVectors(
    pool: PoolConfig,
    branchName: string,
    ids: Ksuid[],
    msg: CommitMessage = {},
  ): Promise<Ksuid> {
    const unique = uniqueIds(ids);
    if (unique.length === 0) throw invalid('empty transaction');
    const head = await this.c.branches.lookup(pool, branchName);
    const missing = (snap: Snapshot): Ksuid[] => {
      for (const id of unique) {
        if (!snap.has(id))
          throw notFound(`non-existent object ${id}: vector add operation aborted`);
      }
      return unique.filter((id) => !snap.hasVector(id));
    };
    const snap = await this.c.commits.snapshot(pool.id, head.commit);
    const todo = missing(snap);
    if (todo.length === 0) return head.commit;
    for (const id of todo) {
      const o = snap.get(id)!;
      const scan = this.c.scanObjects(pool, [o], head.commit, { ctx: new TypeContext() });
      if (!(await writeVector(this.c.storage, pool, id, () => scan.pull())))
        throw invalid(`${id}: values of a type VNG cannot hold: vector add operation aborted`);
    }
    // A failed commit leaves the copies: a copy of an object is the same
    // whoever writes it, and vacuum removes it with its object.
    const commit = await this.c.committer.commit(pool, branchName, msg, async (_head, tip) => {
      // Another writer may have added some meanwhile: add the rest.
      const rest = missing(tip);
      return {
        actions: rest.map((id): Action => ({ kind: 'addVector', id })),
        message: vectorMessage('add', rest),
      };
    });
    return commit.id;
  }

  /** Makes the objects' columnar copies not live on the branch, with one commit. */
  async deleteVectors(
    pool: PoolConfig,
    branchName: string,
    ids: Ksuid[],
    msg: CommitMessage = {},
  ): Promise<CommitObject> {
    const unique = uniqueIds(ids);
    if (unique.length === 0) throw invalid('empty transaction');
    await this.c.branches.lookup(pool, branchName);
    return this.c.committer.commit(pool, branchName, msg, async (_head, tip) => {
      for (const id of unique) {
        if (!tip.has(id))
          throw notFound(`non-existent object ${id}: vector delete operation aborted`);
        if (!tip.hasVector(id))
          throw invalid(`vector ${id} does not exist: vector delete operation aborted`);
      }
      return {
        actions: unique.map((id): Action => ({ kind: 'deleteVector', id })),
        message: vectorMessage('delete', unique),
      };
    });
  }

  /** Brings the child branch's changes since the branches last met into the parent. */
  async merge(
    pool: PoolConfig,
    childName: string,
    parentName: string,
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    const child = await this.c.branches.lookup(pool, childName);
    await this.c.branches.lookup(pool, parentName);
    if (childName === parentName) throw invalid('cannot merge branch into itself');
    const commit = await this.c.committer.commit(
      pool,
      parentName,
      msg,
      async (head, parentSnap) => {
        const { base, parentDeleted } = await this.mergeBase(pool, head.commit, child.commit);
        const baseSnap = await this.c.commits.snapshot(pool.id, base);
        const childSnap = await this.c.commits.snapshot(pool.id, child.commit);
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
          // As the reference, the event names the child branch and the parent's.
          eventBranch: childName,
          eventParent: parentName,
        };
      },
    );
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
    const parentPath = await this.c.commits.path(pool.id, parentTip);
    const childPath = await this.c.commits.path(pool.id, childTip);
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

  /** Rewrites objects as new sorted, non-overlapping ones in one commit (compact.ts). */
  compact(
    pool: PoolConfig,
    branchName: string,
    ids: Ksuid[],
    msg: CommitMessage = {},
  ): Promise<CommitObject> {
    return compactObjects(this.c, pool, branchName, ids, msg);
  }

  /** Undoes a commit's changes on the branch with a new commit. */
  async revert(
    pool: PoolConfig,
    branchName: string,
    commitId: Ksuid,
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    await this.c.branches.lookup(pool, branchName);
    const commit = await this.c.committer.commit(pool, branchName, msg, async (_head, tip) => {
      let target: CommitObject;
      try {
        target = await this.c.commits.get(pool.id, commitId);
      } catch (e) {
        if (isLakeError(e, 'notfound')) throw notFound(`commit not found: ${commitId}`);
        throw e;
      }
      const before = await this.c.commits.snapshot(pool.id, target.parent);
      return {
        actions: revertActions(before, target.actions, tip),
        message: `reverted commit ${commitId}`,
      };
    });
    return { commit: commit.id };
  }
}

/** The reference's message of a vector add or delete. */
function vectorMessage(kind: string, ids: Ksuid[]): string {
  return `vector ${kind}\n\n` + ids.map((id) => `    ${id}\n`).join('');
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
