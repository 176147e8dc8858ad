// Meta-query sources: the lake's metadata as Zed records with the
// reference's shapes.
//
//   from :pools              pools.Config per pool
//   from :branches           lake.BranchMeta per branch of every pool
//   from :index_rules        index.FieldRule, index.TypeRule or
//                            index.AggRule per rule, by name then age
//   from pool:branches       lake.BranchMeta per branch of the pool
//   from pool@branch:objects data.Object per live object, in scan order
//                            (with `tap`, only those a filter may match)
//   from pool@branch:partitions
//                            meta.Partition per run of overlapping objects
//   from pool@branch:log     lake.BranchTip per branch of the pool, then a
//                            Commit per commit from the revision back
//   from pool@branch:rawlog  the commit objects' records, oldest first
//   from pool@branch:vectors data.Object per live object with a columnar
//                            copy, in scan order
//   from pool@branch:indexes index.Object per index object of a live
//                            object, in scan order of the objects
//
// A name the compiler lets through but no source here knows is a 400.

import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { compare } from '../zed/compare';
import { invalid, isLakeError } from './errors';
import { DataObject } from './object';
import { Lake } from './lake';
import { PoolConfig } from './config';
import { Ksuid } from './ksuid';
import { actionRecord } from './commit';
import { indexObjectRecord, ruleRecord } from './index/object';
import {
  branchMetaRecord,
  branchTipRecord,
  commitRecord,
  metaTypes,
  objectRecord,
  partitionRecord,
  poolRecord,
  RecordBuilder,
} from './records';

/** The lake-level meta sources (`from :<meta>`). */
export async function lakeMeta(lake: Lake, ctx: TypeContext, meta: string): Promise<Value[]> {
  switch (meta) {
    case 'pools':
      return poolsMeta(lake, ctx);
    case 'index_rules': {
      const mt = metaTypes(ctx);
      const rb = new RecordBuilder();
      return (await lake.indexRuleList()).map((r) => ruleRecord(mt, rb, r));
    }
    case 'branches': {
      const out: Value[] = [];
      for (const p of await lake.listPools()) {
        try {
          out.push(...(await branchesMeta(lake, ctx, p)));
        } catch (e) {
          // A pool dropped while we listed.
          if (!isLakeError(e, 'notfound')) throw e;
        }
      }
      return out;
    }
    default:
      throw invalid(`unknown lake metadata type: ${JSON.stringify(meta)}`);
  }
}

/** The pool-level meta sources (`from pool:<meta>`). */
export async function poolMeta(
  lake: Lake,
  ctx: TypeContext,
  pool: string | PoolConfig,
  meta: string,
): Promise<Value[]> {
  if (meta !== 'branches') throw invalid(`unknown pool metadata type: ${JSON.stringify(meta)}`);
  return branchesMeta(lake, ctx, pool);
}

/** The commit-level meta sources (`from pool@revision:<meta>`). */
export async function commitMeta(
  lake: Lake,
  ctx: TypeContext,
  pool: string | PoolConfig,
  revision: string | Ksuid,
  meta: string,
  pruner: ObjectPruner | null = null,
): Promise<Value[]> {
  switch (meta) {
    case 'objects':
      return objectsMeta(lake, ctx, pool, revision, pruner);
    case 'partitions':
      return partitionsMeta(lake, ctx, pool, revision);
    case 'log':
      return logMeta(lake, ctx, pool, revision);
    case 'rawlog':
      return rawlogMeta(lake, ctx, pool, revision);
    case 'indexes': {
      const mt = metaTypes(ctx);
      const rb = new RecordBuilder();
      return (await lake.indexes(pool, revision)).map((x) => indexObjectRecord(mt, rb, x));
    }
    case 'vectors':
      return objectsMeta(lake, ctx, pool, revision, null, true);
    default:
      throw invalid(`unknown commit metadata type: ${JSON.stringify(meta)}`);
  }
}

/** Says an object's key span cannot hold a match (a tapped `:objects` filter). */
export type ObjectPruner = (min: Value, max: Value) => boolean;

export async function poolsMeta(lake: Lake, ctx: TypeContext): Promise<Value[]> {
  const mt = metaTypes(ctx);
  const rb = new RecordBuilder();
  return (await lake.listPools()).map((p) => poolRecord(mt, rb, p));
}

export async function branchesMeta(
  lake: Lake,
  ctx: TypeContext,
  poolRef: string | PoolConfig,
): Promise<Value[]> {
  const pool = typeof poolRef === 'string' ? await lake.lookupPool(poolRef) : poolRef;
  const mt = metaTypes(ctx);
  const rb = new RecordBuilder();
  return (await lake.listBranches(pool)).map((b) => branchMetaRecord(mt, rb, pool, b));
}

export async function objectsMeta(
  lake: Lake,
  ctx: TypeContext,
  pool: string | PoolConfig,
  revision: string | Ksuid,
  pruner: ObjectPruner | null = null,
  /** Only the objects with columnar copies (`:vectors`). */
  vectors = false,
): Promise<Value[]> {
  const mt = metaTypes(ctx);
  const rb = new RecordBuilder();
  let objects = await lake.objects(pool, revision);
  if (pruner) objects = objects.filter((o) => !pruner(o.min, o.max));
  if (vectors) {
    const snap = await lake.snapshot(pool, revision);
    objects = objects.filter((o) => snap.hasVector(o.id));
  }
  return objects.map((o) => objectRecord(mt, rb, o));
}

/**
 * The objects in scan order grouped into partitions: runs of objects whose
 * key spans overlap, each with the span they cover together. Partitions
 * do not overlap one another; a scan merges the objects within one.
 */
export async function partitionsMeta(
  lake: Lake,
  ctx: TypeContext,
  pool: string | PoolConfig,
  revision: string | Ksuid,
): Promise<Value[]> {
  const mt = metaTypes(ctx);
  const rb = new RecordBuilder();
  const out: Value[] = [];
  let run: DataObject[] = [];
  let lo: Value | null = null;
  let hi: Value | null = null;
  const flush = () => {
    if (run.length > 0) out.push(partitionRecord(mt, rb, lo!, hi!, run));
    run = [];
    lo = hi = null;
  };
  for (const o of await lake.objects(pool, revision)) {
    if (lo !== null && hi !== null && (compare(o.max, lo) < 0 || compare(o.min, hi) > 0)) flush();
    run.push(o);
    if (lo === null || compare(o.min, lo) < 0) lo = o.min;
    if (hi === null || compare(o.max, hi) > 0) hi = o.max;
  }
  flush();
  return out;
}

/**
 * The raw commit log: each commit's records as its object stores them
 * (commits.Commit, then its actions), first commit
 * first. zlake's own bookkeeping records (merge sources, embedded
 * snapshots) are not part of the reference's log and are left out.
 */
export async function rawlogMeta(
  lake: Lake,
  ctx: TypeContext,
  pool: string | PoolConfig,
  revision: string | Ksuid,
): Promise<Value[]> {
  const mt = metaTypes(ctx);
  const rb = new RecordBuilder();
  const out: Value[] = [];
  const history = await lake.history(pool, revision);
  for (let i = history.length - 1; i >= 0; i--) {
    const c = history[i];
    out.push(commitRecord(mt, rb, c.info, false));
    for (const a of c.actions) out.push(actionRecord(mt, rb, c.id, a));
  }
  return out;
}

export async function logMeta(
  lake: Lake,
  ctx: TypeContext,
  poolRef: string | PoolConfig,
  revision: string | Ksuid,
): Promise<Value[]> {
  const pool = typeof poolRef === 'string' ? await lake.lookupPool(poolRef) : poolRef;
  const mt = metaTypes(ctx);
  const rb = new RecordBuilder();
  const out = (await lake.listBranches(pool)).map((b) => branchTipRecord(mt, rb, b));
  for (const c of await lake.log(pool, revision)) out.push(commitRecord(mt, rb, c, true));
  return out;
}
