// Commit objects. A commit is one immutable ZNG object
// (<pool-id>/commits/<commit-id>.zng) holding, in order:
//
//   - a commits.Commit record: id, parent, retries, author, date, message,
//     meta (the reference's commit action);
//   - for a merge, a commits.MergeSource record ({commit, source}) naming
//     the child branch's commit that was merged, so a later merge of the
//     same branches starts from there rather than from where they forked;
//   - its actions: commits.Delete records ({commit, id}), commits.Add
//     records ({commit, object: data.Object}), commits.DeleteIndex records
//     ({commit, id, rule_id}) and commits.AddIndex records ({commit,
//     object: index.Object}), and commits.AddVector and commits.DeleteVector
//     records ({commit, id}) for columnar copies, in the order they apply;
//   - optionally, a full snapshot of the objects live after the commit: a
//     commits.Snapshot header ({commit, count}) followed by count
//     commits.SnapshotObject records, then a commits.SnapshotIndex record
//     ({commit, object: index.Object}) per index object of those objects
//     and a commits.SnapshotVector ({commit, id}) per object with a columnar
//     copy. Writers add one every SNAPSHOT_INTERVAL commits so rebuilding
//     the live set from cold storage reads a bounded number of commit
//     objects.

import { BufferSink } from '../formats/io';
import { decodeZng, newWriter } from '../formats/zng';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import {
  deleteIndexRecord,
  IndexObject,
  indexActionRecord,
  readDeleteIndex,
  readIndexAction,
} from './index/object';
import { Ksuid } from './ksuid';
import { DataObject } from './object';
import {
  addRecord,
  CommitInfo,
  commitRecord,
  CorruptMetadataError,
  deleteRecord,
  idRecord,
  MetaTypes,
  metaTypes,
  readAddLike,
  readCommit,
  readDelete,
  readIdRecord,
  readMergeSource,
  readSnapshotHeader,
  RecordBuilder,
  snapshotObjectRecord,
  typeName,
} from './records';

export type Action =
  | { kind: 'add'; object: DataObject }
  | { kind: 'delete'; id: Ksuid }
  | { kind: 'addIndex'; object: IndexObject }
  | { kind: 'deleteIndex'; rule: Ksuid; id: Ksuid }
  /** The object's columnar copy (<id>.vng) is live from this commit on. */
  | { kind: 'addVector'; id: Ksuid }
  | { kind: 'deleteVector'; id: Ksuid };

/** Adds of new objects, then of the columnar copies written for them. */
export function addActions(objects: DataObject[], vectors: Ksuid[]): Action[] {
  return [
    ...objects.map((object): Action => ({ kind: 'add', object })),
    ...vectors.map((id): Action => ({ kind: 'addVector', id })),
  ];
}

/** Commits between embedded snapshots. */
export const SNAPSHOT_INTERVAL = 32;

export class CommitObject {
  constructor(
    readonly info: CommitInfo,
    readonly actions: Action[],
    /** The live objects after this commit, when the object carries them. */
    readonly snapshot?: DataObject[],
    /** For a merge commit, the child branch commit it merged. */
    readonly mergeSource?: Ksuid,
    /** With snapshot: the index objects live after this commit. */
    readonly snapshotIndexes?: IndexObject[],
    /** With snapshot, the objects that have columnar copies. */
    readonly snapshotVectors?: Ksuid[],
  ) {}

  get id(): Ksuid {
    return this.info.id;
  }

  get parent(): Ksuid {
    return this.info.parent;
  }

  /** The ZNG bytes of the commit object. */
  async serialize(ctx: TypeContext): Promise<Buffer> {
    const mt = metaTypes(ctx);
    const rb = new RecordBuilder();
    const id = this.info.id;
    const vals: Value[] = [commitRecord(mt, rb, this.info, false)];
    if (this.mergeSource)
      vals.push(rb.begin().ksuid(id).ksuid(this.mergeSource).end(mt.mergeSource));
    for (const a of this.actions) vals.push(actionRecord(mt, rb, id, a));
    if (this.snapshot) {
      vals.push(rb.begin().ksuid(id).uint(this.snapshot.length).end(mt.snapshotHeader));
      for (const o of this.snapshot) vals.push(snapshotObjectRecord(mt, rb, id, o));
      for (const o of this.snapshotIndexes ?? [])
        vals.push(indexActionRecord(mt, rb, 'commits.SnapshotIndex', id, o));
      for (const v of this.snapshotVectors ?? []) vals.push(idRecord(rb, mt.snapshotVector, id, v));
    }
    const sink = new BufferSink();
    const w = newWriter(sink);
    await w.write(vals);
    await w.close();
    return sink.bytes();
  }

  /** Decodes a commit object; its values' types live in ctx. */
  static decode(buf: Buffer, ctx: TypeContext, where: string): CommitObject {
    try {
      return decodeCommit(buf, ctx);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      throw new CorruptMetadataError(`corrupt commit object ${where}: ${msg}`);
    }
  }
}

/** An action's record in a commit object (and in `:rawlog`). */
export function actionRecord(mt: MetaTypes, rb: RecordBuilder, commit: Ksuid, a: Action): Value {
  switch (a.kind) {
    case 'add':
      return addRecord(mt, rb, commit, a.object);
    case 'delete':
      return deleteRecord(mt, rb, commit, a.id);
    case 'addIndex':
      return indexActionRecord(mt, rb, 'commits.AddIndex', commit, a.object);
    case 'deleteIndex':
      return deleteIndexRecord(mt, rb, commit, a.rule, a.id);
    case 'addVector':
      return idRecord(rb, mt.addVector, commit, a.id);
    case 'deleteVector':
      return idRecord(rb, mt.delVector, commit, a.id);
  }
}

function decodeCommit(buf: Buffer, ctx: TypeContext): CommitObject {
  const vals = decodeZng(buf, { ctx });
  if (vals.length === 0 || typeName(vals[0]) !== 'commits.Commit') {
    throw new CorruptMetadataError('first record of object not a commit');
  }
  const info = readCommit(vals[0]);
  const actions: Action[] = [];
  let snapshot: DataObject[] | undefined;
  let snapshotIndexes: IndexObject[] | undefined;
  let mergeSource: Ksuid | undefined;
  let vectors: Ksuid[] | undefined;
  let i = 1;
  for (; i < vals.length; i++) {
    const v = vals[i];
    const name = typeName(v);
    if (name === 'commits.Add') {
      actions.push({ kind: 'add', object: readAddLike(v, name).object });
    } else if (name === 'commits.Delete') {
      actions.push({ kind: 'delete', id: readDelete(v).id });
    } else if (name === 'commits.AddIndex') {
      actions.push({ kind: 'addIndex', object: readIndexAction(v, name) });
    } else if (name === 'commits.DeleteIndex') {
      actions.push({ kind: 'deleteIndex', ...readDeleteIndex(v) });
    } else if (name === 'commits.AddVector' || name === 'commits.DeleteVector') {
      const { id } = readIdRecord(v, name);
      actions.push({ kind: name === 'commits.AddVector' ? 'addVector' : 'deleteVector', id });
    } else if (name === 'commits.MergeSource') {
      mergeSource = readMergeSource(v).source;
    } else if (name === 'commits.Snapshot') {
      const { count } = readSnapshotHeader(v);
      if (i + 1 + count > vals.length) throw new CorruptMetadataError('snapshot count mismatch');
      snapshot = [];
      for (let k = i + 1; k < i + 1 + count; k++) {
        snapshot.push(readAddLike(vals[k], 'commits.SnapshotObject').object);
      }
      snapshotIndexes = [];
      vectors = [];
      for (let k = i + 1 + count; k < vals.length; k++) {
        const name = typeName(vals[k]);
        if (name === 'commits.SnapshotVector') vectors.push(readIdRecord(vals[k], name).id);
        else snapshotIndexes.push(readIndexAction(vals[k], 'commits.SnapshotIndex'));
      }
      break;
    } else {
      throw new CorruptMetadataError(`unknown action ${name || 'record'}`);
    }
  }
  return new CommitObject(info, actions, snapshot, mergeSource, snapshotIndexes, vectors);
}

/** Storage key of a commit object. */
export function commitKey(poolId: Ksuid, commit: Ksuid): string {
  return `${poolId}/commits/${commit}.zng`;
}
