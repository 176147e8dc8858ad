// Lake sources and sinks: a scan of a pool at a commit (with the key range
// and filter the optimizer pushed into it), the meta-query sources
// (`from :pools`, `from pool@branch:objects`...), and `load`, which
// commits its input to a pool.

import { parseValue } from '../../../formats/zson';
import { ValueReader } from '../../../formats/io';
import { PoolConfig } from '../../../lake/config';
import { Ksuid } from '../../../lake/ksuid';
import { Lake } from '../../../lake/lake';
import { commitMeta, lakeMeta, ObjectPruner, poolMeta } from '../../../lake/meta';
import { IndexFilter } from '../../../lake/index/prune';
import { KeyRange } from '../../../lake/seekindex';
import { TypeBytes } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { Expr } from '../../expr/expr';
import { QueryContext } from '../context';
import { ArraySource, Operator } from '../operator';
import { CutField } from './cut';
import { ReaderScan } from './scan';

/** A reader over a pool's values at a commit. */
async function openScan(
  ctx: QueryContext,
  lake: Lake,
  pool: PoolConfig,
  commit: Ksuid,
  range: KeyRange | null,
  index: IndexFilter | null,
): Promise<ValueReader> {
  const scan = await lake.scan(pool, commit, {
    ctx: ctx.zctx,
    // The filter decides which values match: the range and the index
    // lookups only skip objects and seek-index spans that cannot hold any.
    ...(range ? { range, exact: false } : {}),
    index,
  });
  return { read: () => scan.pull(), close: () => scan.close() };
}

/** The values of a pool at a commit, in pool-key order. */
export class PoolSource extends ReaderScan {
  constructor(
    ctx: QueryContext,
    lake: Lake,
    pool: PoolConfig,
    commit: Ksuid,
    filter: Expr | null,
    range: KeyRange | null,
    project: CutField[] | null = null,
    /** The part of the filter index objects can answer. */
    index: IndexFilter | null = null,
  ) {
    super(ctx, () => openScan(ctx, lake, pool, commit, range, index), filter, project);
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

export function lakeMetaSource(ctx: QueryContext, lake: Lake, meta: string): Operator {
  return new LazySource(() => lakeMeta(lake, ctx.zctx, meta));
}

export function poolMetaSource(
  ctx: QueryContext,
  lake: Lake,
  pool: PoolConfig,
  meta: string,
): Operator {
  return new LazySource(() => poolMeta(lake, ctx.zctx, pool, meta));
}

export function commitMetaSource(
  ctx: QueryContext,
  lake: Lake,
  pool: PoolConfig,
  commit: Ksuid,
  meta: string,
  pruner: ObjectPruner | null = null,
): Operator {
  return new LazySource(() => commitMeta(lake, ctx.zctx, pool, commit, meta, pruner));
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
    private readonly lake: Lake,
    private readonly pool: PoolConfig,
    private readonly opts: LoadOptions,
  ) {}

  async pull(): Promise<Value[] | null> {
    if (this.done) return null;
    this.done = true;
    const parent = this.parent;
    const reader: ValueReader = { read: () => parent.pull() };
    const meta = this.opts.meta === null ? undefined : parseValue(this.ctx.zctx, this.opts.meta);
    const res = await this.lake.load(this.pool, this.opts.branch, reader, {
      ...(this.opts.author !== null ? { author: this.opts.author } : {}),
      ...(this.opts.message !== null ? { message: this.opts.message } : {}),
      ...(meta !== undefined ? { meta } : {}),
    });
    return [Value.fromBytes(TypeBytes, Buffer.from(res.commit.bytes))];
  }

  async close(): Promise<void> {
    this.done = true;
    await this.parent.close();
  }
}
