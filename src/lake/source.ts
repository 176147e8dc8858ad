// The lake as a query source: adapts Lake to the query layer's DataSource
// interface (src/query/data/source.ts), which it satisfies by shape so the
// lake never imports the query layer. Pools handed to the query layer are
// PoolConfigs and come back as such; commit IDs are Ksuids.

import { ValueReader } from '../formats/io';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { PoolConfig } from './config';
import { Ksuid } from './ksuid';
import { Lake, PoolKeys, VectorScanMode } from './lake';
import { ColumnMatch, VectorPart, VectorScanOptions } from './vectorscan';
import { commitMeta, lakeMeta, ObjectPruner, poolMeta } from './meta';
import { KeyRange } from './seekindex';
import { ScanEnd } from './endrange';
import { FrameTest } from './scan';
import { IndexFilter } from './index/prune';

export interface LakeScanRequest {
  ctx: TypeContext;
  range: KeyRange | null;
  /** Top-level fields the query reads, or null (whole values). */
  fields: readonly string[] | null;
  /** With whole values: a filter on just these fields, to test on columns first. */
  match?: {
    fields: readonly string[];
    test(v: Value): boolean;
    vectors?: ColumnMatch['vectors'];
  } | null;
  /** The part of the filter index objects can answer. */
  index?: IndexFilter | null;
  /** The only values the query keeps: objects past them may be skipped. */
  end?: ScanEnd | null;
  /** A test of a frame of values: frames it fails are skipped (ScanOptions.frames). */
  frames?: FrameTest | null;
}

export interface LakeLoadMessage {
  author?: string;
  message?: string;
  meta?: Value;
}

export interface LakeVectorScanRequest extends VectorScanOptions {
  range: KeyRange | null;
  index?: IndexFilter | null;
  end?: ScanEnd | null;
}

export class LakeSource {
  constructor(readonly lake: Lake) {}

  get vectorMode(): VectorScanMode {
    return this.lake.vectorScan;
  }

  async scanVectors(
    pool: PoolConfig,
    commit: Ksuid,
    req: LakeVectorScanRequest,
  ): Promise<{ read(): Promise<VectorPart | null>; close(): Promise<void>; rows: number }> {
    const scan = await this.lake.scanVectors(pool, commit, {
      ctx: req.ctx,
      paths: req.paths,
      shape: req.shape,
      ...(req.dicts ? { dicts: req.dicts } : {}),
      ...(req.range ? { range: req.range } : {}),
      index: req.index,
      end: req.end ?? null,
      ...(req.limit !== undefined ? { limit: req.limit } : {}),
    });
    return { read: () => scan.read(), close: () => scan.close(), rows: scan.rows };
  }

  listPools(): Promise<PoolConfig[]> {
    return this.lake.listPools();
  }

  lookupPool(ref: string): Promise<PoolConfig> {
    return this.lake.lookupPool(ref);
  }

  resolveRevision(pool: PoolConfig, revision: string): Promise<Ksuid> {
    return this.lake.resolveRevision(pool, revision);
  }

  async scan(pool: PoolConfig, commit: Ksuid, req: LakeScanRequest): Promise<ValueReader> {
    const scan = await this.lake.scan(
      pool,
      commit,
      {
        ctx: req.ctx,
        // The query's filter decides which values match: the range only
        // skips objects and seek-index spans that cannot hold any.
        ...(req.range ? { range: req.range, exact: false } : {}),
        index: req.index,
        end: req.end ?? null,
        frames: req.frames ?? null,
      },
      req.fields,
      req.match
        ? {
            fields: new Set(req.match.fields),
            test: req.match.test,
            vectors: req.match.vectors ?? null,
          }
        : null,
    );
    return { read: () => scan.pull(), close: () => scan.close() };
  }

  lakeMeta(ctx: TypeContext, meta: string): Promise<Value[]> {
    return lakeMeta(this.lake, ctx, meta);
  }

  poolMeta(ctx: TypeContext, pool: PoolConfig, meta: string): Promise<Value[]> {
    return poolMeta(this.lake, ctx, pool, meta);
  }

  commitMeta(
    ctx: TypeContext,
    pool: PoolConfig,
    commit: Ksuid,
    meta: string,
    pruner: ObjectPruner | null,
  ): Promise<Value[]> {
    return commitMeta(this.lake, ctx, pool, commit, meta, pruner);
  }

  poolKeyType(
    pool: PoolConfig,
    commit: Ksuid,
    range: KeyRange | null,
  ): Promise<PoolKeys | 'mixed'> {
    return this.lake.poolKeyType(pool, commit, range);
  }

  async load(
    pool: PoolConfig,
    branch: string,
    reader: ValueReader,
    msg: LakeLoadMessage,
  ): Promise<Ksuid> {
    return (await this.lake.load(pool, branch, reader, msg)).commit;
  }
}
