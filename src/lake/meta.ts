// Meta-query sources: the lake's metadata as Zed records with the
// reference's shapes.
//
//   from :pools              pools.Config per pool
//   from :branches           lake.BranchMeta per branch of every pool
//   from pool:branches       lake.BranchMeta per branch of the pool
//   from pool@branch:objects data.Object per live object, in scan order
//   from pool@branch:log     lake.BranchTip per branch of the pool, then a
//                            Commit per commit from the revision back

import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { isLakeError } from './errors';
import { Lake } from './lake';
import { PoolConfig } from './config';
import { Ksuid } from './ksuid';
import {
  branchMetaRecord,
  branchTipRecord,
  commitRecord,
  metaTypes,
  objectRecord,
  poolRecord,
  RecordBuilder,
} from './records';

/** The lake-level meta sources (`from :<meta>`). */
export async function lakeMeta(lake: Lake, ctx: TypeContext, meta: string): Promise<Value[]> {
  switch (meta) {
    case 'pools':
      return poolsMeta(lake, ctx);
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
      throw new Error(`unknown lake metadata type: ${JSON.stringify(meta)}`);
  }
}

/** The pool-level meta sources (`from pool:<meta>`). */
export async function poolMeta(
  lake: Lake,
  ctx: TypeContext,
  pool: string | PoolConfig,
  meta: string,
): Promise<Value[]> {
  if (meta !== 'branches') throw new Error(`unknown pool metadata type: ${JSON.stringify(meta)}`);
  return branchesMeta(lake, ctx, pool);
}

/** The commit-level meta sources (`from pool@revision:<meta>`). */
export async function commitMeta(
  lake: Lake,
  ctx: TypeContext,
  pool: string | PoolConfig,
  revision: string | Ksuid,
  meta: string,
): Promise<Value[]> {
  switch (meta) {
    case 'objects':
      return objectsMeta(lake, ctx, pool, revision);
    case 'log':
      return logMeta(lake, ctx, pool, revision);
    default:
      throw new Error(`unknown commit metadata type: ${JSON.stringify(meta)}`);
  }
}

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
): Promise<Value[]> {
  const mt = metaTypes(ctx);
  const rb = new RecordBuilder();
  return (await lake.objects(pool, revision)).map((o) => objectRecord(mt, rb, o));
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
