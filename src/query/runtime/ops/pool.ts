// Lake sources and sinks: a scan of a pool at a commit (with the key range
// and filter the optimizer pushed into it), the meta-query sources
// (`from :pools`, `from pool@branch:objects`...), and `load`, which
// commits its input to a pool.

import { parseValue } from '../../../formats/zson';
import { ValueReader } from '../../../formats/io';
import {
  DataId,
  DataSource,
  IndexFilter,
  KeyRange,
  PoolHandle,
  ScanEnd,
  ScanRequest,
} from '../../data/source';
import { TypeBytes } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { FrameFilter, framePasses } from '../../expr/bufferfilter';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { ArraySource, Operator } from '../operator';
import { CutField } from './cut';
import { FilterFn } from './filter';
import { ReaderScan } from './scan';

/** The values of a pool at a commit, in pool-key order. */
export class PoolSource extends ReaderScan {
  constructor(
    ctx: QueryContext,
    source: DataSource,
    pool: PoolHandle,
    commit: DataId,
    filter: Expr | null,
    range: KeyRange | null,
    project: CutField[] | null = null,
    fields: readonly string[] | null = null,
    match: {
      fields: readonly string[];
      filter: Expr;
      vectors: NonNullable<ScanRequest['match']>['vectors'];
    } | null = null,
    /** The part of the filter index objects can answer. */
    index: IndexFilter | null = null,
    /** The only values the query keeps (ScanRequest.end). */
    end: ScanEnd | null = null,
    /** A test of frames whose values cannot pass filter (ScanRequest.frames). */
    frames: FrameFilter | null = null,
  ) {
    const test = match && new FilterFn(ctx.zctx, match.filter);
    super(
      ctx,
      () =>
        source.scan(pool, commit, {
          ctx: ctx.zctx,
          range,
          fields,
          match: match &&
            test && {
              fields: match.fields,
              test: (v) => test.test(v) !== null,
              vectors: match.vectors,
            },
          index,
          end,
          frames: frames && ((buf, start, to, types) => framePasses(frames, buf, start, to, types)),
        }),
      filter,
      project,
    );
  }
}

/** A source whose values are computed on first pull (the meta-queries). */
export class LazySource implements Operator {
  private src: ArraySource | null = null;
  private closed = false;

  constructor(private readonly make: () => Promise<Value[]>) {}

  async pull(): Promise<Value[] | null> {
    if (this.closed) return null;
    this.src ??= new ArraySource(await this.make());
    return this.src.pull();
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export function lakeMetaSource(ctx: QueryContext, source: DataSource, meta: string): Operator {
  return new LazySource(() => source.lakeMeta(ctx.zctx, meta));
}

export function poolMetaSource(
  ctx: QueryContext,
  source: DataSource,
  pool: PoolHandle,
  meta: string,
): Operator {
  return new LazySource(() => source.poolMeta(ctx.zctx, pool, meta));
}

export function commitMetaSource(
  ctx: QueryContext,
  source: DataSource,
  pool: PoolHandle,
  commit: DataId,
  meta: string,
  pruner: ((min: Value, max: Value) => boolean) | null = null,
): Operator {
  return new LazySource(() => source.commitMeta(ctx.zctx, pool, commit, meta, pruner));
}

export interface LoadOptions {
  branch: string;
  author: string | null;
  message: string | null;
  meta: string | null;
}

/** load: commits the input to a pool's branch; emits the commit ID (bytes). */
export class Load implements Operator {
  private done = false;

  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: Operator,
    private readonly source: DataSource,
    private readonly pool: PoolHandle,
    private readonly opts: LoadOptions,
  ) {}

  async pull(): Promise<Value[] | null> {
    if (this.done) return null;
    this.done = true;
    const parent = this.parent;
    const reader: ValueReader = { read: () => parent.pull() };
    const meta = this.opts.meta === null ? undefined : parseValue(this.ctx.zctx, this.opts.meta);
    const commit = await this.source.load(this.pool, this.opts.branch, reader, {
      ...(this.opts.author !== null ? { author: this.opts.author } : {}),
      ...(this.opts.message !== null ? { message: this.opts.message } : {}),
      ...(meta !== undefined ? { meta } : {}),
    });
    return [Value.fromBytes(TypeBytes, Buffer.from(commit.bytes))];
  }

  async close(): Promise<void> {
    this.done = true;
    await this.parent.close();
  }
}
