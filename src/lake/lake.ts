// The lake: pools, branches and commits over an object store and a
// coordinator. This is the library the HTTP service calls; it composes the
// lake's rooms and knows nothing of which backends run:
//
//   catalog.ts    the pool catalog (one durable register)
//   branches.ts   the branches of a pool (a durable register each)
//   registers.ts  durable registers: coordinator swap + journal in storage
//   committer.ts  the commit protocol that moves a branch's tip
//   changes.ts    load, delete, merge and revert
//   compact.ts    compaction of objects, and the planner for it
//   vacuum.ts     removal of objects no branch needs
//   scan.ts       reading a pool's values at a commit
//   index/        index rules, index objects, and pruning scans with them
//
// Storage layout (docs/architecture.md has the whole picture):
//   catalog/<hex name>/<seq>                 catalog journal
//   <pool-id>/branches/<hex branch>/<seq>    branch journals
//   <pool-id>/commits/<id>.zng               immutable commit objects
//   <pool-id>/data/<id>.zng, <id>-seek.zng   immutable data objects
//   <pool-id>/index/<rule-id>/<id>.zng       immutable index objects
//   catalog/<hex "index_rules">/<seq>        index rules journal

import { Coordinator } from '../coord/coord';
import { ValueReader } from '../formats/io';
import { isNotFound, ObjectStore } from '../storage/storage';
import { TypeContext } from '../zed/context';
import { decodeIntBig } from '../zed/primitive';
import { ID, Kind, Type } from '../zed/types';
import { formatType } from '../zed/typestring';
import { Value } from '../zed/value';
import { BranchRegistry } from './branches';
import { DEFAULT_CACHE_SIZE, ScanCache } from './cache';
import { PoolCatalog, PoolOptions } from './catalog';
import { BranchChanges, CommitResult, DeleteWhereOptions, LoadResult } from './changes';
import { CommitObject } from './commit';
import { CommitStore } from './commits';
import { CommitHooks, CommitMessage, Committer, MAX_COMMIT_RETRIES } from './committer';
import { BranchConfig, PoolConfig, primaryKey } from './config';
import { invalid, LakeError, notFound } from './errors';
import { LakeEvent, ObjectsDropped, StreamedEvent } from './events';
import { Ksuid } from './ksuid';
import { LRU } from './lru';
import { DataObject, seekIndexKey, sortObjects } from './object';
import { CommitInfo, SeekEntry } from './records';
import { Registers } from './registers';
import { newScanStats, partition, PoolScan, ScanOptions, ScanStats } from './scan';
import { ColumnCache } from './colcache';
import { decodeSeekIndex, KeyRange, overlaps, within } from './seekindex';
import { endRange, rangesAlike, ScanEnd } from './endrange';
import { ColumnMatch, ColumnScan, loadLayout, VectorScan, VectorScanOptions } from './vectorscan';
import { mergeCache } from './vectormerge';
import { DecodePool, parseWorkers } from './decodepool';
import { VngLayout } from '../formats/vng/project';
import { leafTypeOf } from '../formats/vng/vectors';
import { Snapshot } from './snapshot';
import { removeIndexesOf, removeObjects, vacuumCandidates } from './vacuum';
import { applyIndexRules, IndexOptions, updateIndexes } from './index/apply';
import { IndexReader } from './index/lookup';
import { IndexObject } from './index/object';
import { IndexFilter, planScan } from './index/prune';
import { IndexRule, makeRule, RuleSpec } from './index/rules';
import { IndexRuleStore } from './index/rulestore';

export { MAX_COMMIT_RETRIES };
export type {
  CommitMessage,
  CommitResult,
  DeleteWhereOptions,
  IndexFilter,
  IndexOptions,
  IndexRule,
  LoadResult,
  PoolOptions,
  RuleSpec,
};

/** Columnar layouts read at once when the lake reads its objects' key types (poolKeyType). */
const LAYOUTS_AT_ONCE = 16;

/**
 * An object a key range covers in part is read by columns where the
 * range's streams hold at least this share of its rows: reading all of a
 * few columns then costs less than decoding whole records of that share
 * (the query's own key filter leaves out the rest), while a narrow range
 * reads the few streams it needs by rows.
 */
export const partialRows = { share: 0.25 };

/** What is known of a pool's keys at a commit (Lake.poolKeyType). */
export interface PoolKeys {
  /** The one type of the keys present and not null (null: none is). */
  type: Type | null;
  /** Some value lacks the key (its key is error("missing")). */
  missing: boolean;
  /** It holds for every value (each object's columnar copy), not only for each object's first and last keys. */
  exact: boolean;
}

/** A scan's options, with the part of its filter that indexes can answer. */
export interface LakeScanOptions extends ScanOptions {
  index?: IndexFilter | null;
  /** The query keeps only these values: the scan may skip the rest (endrange.ts). */
  end?: ScanEnd | null;
}

export interface PoolStats {
  /** Bytes of data objects. */
  size: number;
  /** Key span when the pool key is a time: first and one past the last (ns). */
  span?: { ts: bigint; dur: bigint };
}

/** What the lake's scans have read and skipped since it opened (for metrics). */
export interface ScanTotals {
  scans: number;
  /** Bytes of data objects scans covered (from storage or the scan cache). */
  bytesRead: number;
  objectsRead: number;
  /** Objects skipped for their key span. */
  objectsSkipped: number;
  /** Objects skipped because their indexes ruled them out. */
  objectsPruned: number;
  /** Bytes of index objects read to decide that. */
  indexBytesRead: number;
}

export interface LakeOptions {
  /**
   * Bytes of decoded data-object streams scans may keep in memory (the
   * scan cache); 0 turns the cache off. Default DEFAULT_CACHE_SIZE.
   */
  cacheSize?: number;
  /** Called as commits retry and give up (metrics). */
  hooks?: CommitHooks;
  /**
   * When scans read objects by their columnar copies: `auto` (the default)
   * when the query names the fields it reads, the object lies wholly in
   * the scan's key range and the scan cache does not hold most of its
   * rows (decoded rows in memory beat columns in storage), `on` whatever
   * the scan cache holds (for testing the columnar path), `off` never. In
   * every mode an object the key range covers in part is read by rows,
   * its seek index skipping the rest. Default from ZLAKE_VECTOR_SCAN.
   */
  vectorScan?: VectorScanMode;
  /**
   * Bytes of decoded columns vector scans may keep in memory (the column
   * cache, colcache.ts); 0 turns it off. Default: cacheSize.
   */
  vectorCacheSize?: number;
  /**
   * Worker threads that decode columns for vector scans (decodepool.ts);
   * 0 or 1 decode on the query's thread. Default from ZLAKE_VECTOR_WORKERS
   * (a number or `auto`: the cores), else none (DEFAULT_WORKERS says why).
   */
  vectorWorkers?: number;
  /** Columns of fewer decoded bytes are decoded in-thread (default DEFAULT_MIN_BYTES). */
  vectorWorkerMinBytes?: number;
}

export type VectorScanMode = 'auto' | 'on' | 'off';

/** The mode from a flag's or the environment's text. */
export function parseVectorScanMode(s: string | undefined): VectorScanMode {
  if (s === undefined || s === '') return 'auto';
  if (s === 'auto' || s === 'on' || s === 'off') return s;
  throw invalid(`vector scan mode must be auto, on or off: ${s}`);
}

export class Lake {
  /** Context the lake's metadata (object key ranges, commit meta) lives in. */
  readonly ctx = new TypeContext();
  readonly commits: CommitStore;
  /** Decoded streams of data objects (see cache.ts). */
  readonly cache: ScanCache;
  /** Decoded columns of columnar copies (see colcache.ts). */
  readonly columnCache: ColumnCache;
  /** Merge orders of runs of overlapping objects read by columns (vectormerge.ts). */
  private readonly merges = mergeCache();
  private registers: Registers;
  private pools: PoolCatalog;
  private branches: BranchRegistry;
  private committer: Committer;
  private changes: BranchChanges;
  private seekIndexes = new LRU<string, SeekEntry[]>(8192);
  private indexRules: IndexRuleStore;
  /** Looks keys up in index objects (and caches what it read). */
  readonly indexReader: IndexReader;
  readonly scanTotals: ScanTotals = {
    scans: 0,
    bytesRead: 0,
    objectsRead: 0,
    objectsSkipped: 0,
    objectsPruned: 0,
    indexBytesRead: 0,
  };
  private vngLayouts = new LRU<string, Promise<VngLayout>>(4096);
  /** Lake.poolKeyType of whole pools, by pool and commit. */
  private poolKeys = new LRU<string, Promise<PoolKeys | 'mixed'>>(256);
  readonly vectorScan: VectorScanMode;
  /** Decodes columns on other cores (decodepool.ts). */
  readonly decoder: DecodePool;
  private unsubscribe: () => void;

  constructor(
    readonly storage: ObjectStore,
    readonly coord: Coordinator,
    opts: LakeOptions = {},
  ) {
    this.commits = new CommitStore(storage, this.ctx);
    const size = opts.cacheSize ?? DEFAULT_CACHE_SIZE;
    if (!(size >= 0)) throw invalid(`cache size must be a number of bytes: ${size}`);
    this.cache = new ScanCache(size);
    const vsize = opts.vectorCacheSize ?? size;
    if (!(vsize >= 0)) throw invalid(`vector cache size must be a number of bytes: ${vsize}`);
    this.columnCache = new ColumnCache(vsize);
    this.vectorScan = opts.vectorScan ?? parseVectorScanMode(process.env.ZLAKE_VECTOR_SCAN);
    this.decoder = new DecodePool(
      opts.vectorWorkers ?? parseWorkers(process.env.ZLAKE_VECTOR_WORKERS),
      opts.vectorWorkerMinBytes,
    );
    this.registers = new Registers(storage, coord);
    this.branches = new BranchRegistry(this.registers, this.commits);
    this.pools = new PoolCatalog(this.registers, this.branches);
    this.committer = new Committer(this.registers, this.branches, this.commits, opts.hooks);
    this.indexRules = new IndexRuleStore(this.registers);
    this.indexReader = new IndexReader(storage, this.ctx);
    this.changes = new BranchChanges({
      storage,
      ctx: this.ctx,
      cache: this.cache,
      commits: this.commits,
      committer: this.committer,
      branches: this.branches,
      scanObjects: (pool, objects, commit, o) => this.scanObjects(pool, objects, commit, o),
    });
    // Every replica hears every change, so each drops what it caches of
    // objects that were deleted, vacuumed or dropped with their pool.
    this.unsubscribe = coord.subscribe(({ message }) => this.forget(JSON.parse(message)));
  }

  async close(): Promise<void> {
    await this.committer.drain();
    this.unsubscribe();
    await this.coord.close();
    await this.storage.close?.();
    await this.decoder.close();
  }

  // ---- events ----

  /**
   * Calls handler with every event of any replica, in the order the
   * changes became visible; with `after` (an event ID), first with the
   * retained events after it.
   */
  subscribe(handler: (e: LakeEvent, id: string) => void, after?: string): () => void {
    return this.coord.subscribe(({ id, message }) => {
      const e = JSON.parse(message) as StreamedEvent;
      if (e.name !== 'objects-dropped') handler(e, id);
    }, after);
  }

  private forget(e: StreamedEvent): void {
    if (e.name === 'objects-dropped') {
      for (const id of e.objects) {
        this.cache.dropObject(`${e.pool_id}/${id}`);
        this.columnCache.dropObject(`${e.pool_id}/${id}`);
        this.seekIndexes.delete(`${e.pool_id}/${id}`);
        this.vngLayouts.delete(`${e.pool_id}/${id}`);
      }
      this.columnCache.dropRunsOf(e.pool_id, e.objects);
      this.indexReader.forgetObjects(e.pool_id, e.objects);
    } else if (e.name === 'pool-delete') {
      const id = Ksuid.mustParse(e.pool_id);
      this.commits.forgetPool(id);
      this.seekIndexes.deletePrefix(`${id}/`);
      this.vngLayouts.deletePrefix(`${id}/`);
      this.merges.deletePrefix(`${id}/`);
      this.cache.dropPool(id.toString());
      this.columnCache.dropPool(id.toString());
      this.indexReader.forgetPool(id);
    }
  }

  // ---- pools ----

  /** Every pool, by name. */
  listPools(): Promise<PoolConfig[]> {
    return this.pools.list();
  }

  /** A pool by ID (either ID form) or name. */
  lookupPool(ref: string): Promise<PoolConfig> {
    return this.pools.lookup(ref);
  }

  createPool(
    name: string,
    opts: PoolOptions = {},
  ): Promise<{ pool: PoolConfig; branch: BranchConfig }> {
    return this.pools.create(name, opts);
  }

  renamePool(ref: string, newName: string): Promise<void> {
    return this.pools.rename(ref, newName);
  }

  /** Removes a pool, its branches and all of its objects. */
  async deletePool(ref: string): Promise<void> {
    const pool = await this.pools.remove(ref);
    // The pool is gone from the catalog; what follows is clean-up.
    await this.branches.removeAll(pool);
    await this.storage.deleteByPrefix(`${pool.id}/`);
    this.forget({ name: 'pool-delete', pool_id: pool.id.toString() });
  }

  // ---- branches ----

  /** A pool's branches, by name. */
  async listBranches(poolRef: string | PoolConfig): Promise<BranchConfig[]> {
    return this.branches.list(await this.pool(poolRef));
  }

  async lookupBranch(poolRef: string | PoolConfig, name: string): Promise<BranchConfig> {
    return this.branches.lookup(await this.pool(poolRef), name);
  }

  /** Creates a branch pointing at commit (which must be in the pool). */
  async createBranch(
    poolRef: string | PoolConfig,
    name: string,
    commit: Ksuid,
  ): Promise<BranchConfig> {
    return this.branches.create(await this.pool(poolRef), name, commit);
  }

  async deleteBranch(poolRef: string | PoolConfig, name: string): Promise<void> {
    return this.branches.remove(await this.pool(poolRef), name);
  }

  /** A commit ID (either form) or a branch name, as the branch's tip. */
  async resolveRevision(poolRef: string | PoolConfig, revision: string): Promise<Ksuid> {
    return this.branches.resolve(await this.pool(poolRef), revision);
  }

  private async pool(ref: string | PoolConfig): Promise<PoolConfig> {
    return typeof ref === 'string' ? this.pools.lookup(ref) : ref;
  }

  // ---- changes ----

  /** Sorts, splits and stores the values and commits them to the branch. */
  async load(
    poolRef: string | PoolConfig,
    branchName: string,
    reader: ValueReader,
    msg: CommitMessage = {},
  ): Promise<LoadResult> {
    return this.changes.load(await this.pool(poolRef), branchName, reader, msg);
  }

  /** Deletes whole objects from the branch (they stay for time travel until vacuumed). */
  async deleteObjects(
    poolRef: string | PoolConfig,
    branchName: string,
    ids: Ksuid[],
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    const pool = await this.pool(poolRef);
    const commit = await this.changes.deleteObjects(pool, branchName, ids, msg);
    return { commit: commit.id };
  }

  /** Deletes the values for which pred is true (see BranchChanges.deleteWhere). */
  async deleteWhere(
    poolRef: string | PoolConfig,
    branchName: string,
    pred: (v: Value) => boolean,
    msg: CommitMessage = {},
    opts: DeleteWhereOptions = {},
  ): Promise<CommitResult> {
    const pool = await this.pool(poolRef);
    const commit = await this.changes.deleteWhere(pool, branchName, pred, msg, opts);
    return { commit: commit.id };
  }

  /** Writes columnar copies of the branch's objects and commits them. */
  async addVectors(
    poolRef: string | PoolConfig,
    branchName: string,
    ids: Ksuid[],
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    return {
      commit: await this.changes.addVectors(await this.pool(poolRef), branchName, ids, msg),
    };
  }

  /** Commits the removal of the objects' columnar copies from the branch. */
  async deleteVectors(
    poolRef: string | PoolConfig,
    branchName: string,
    ids: Ksuid[],
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    const commit = await this.changes.deleteVectors(await this.pool(poolRef), branchName, ids, msg);
    return { commit: commit.id };
  }

  /** Brings the child branch's changes since the branches last met into the parent. */
  async merge(
    poolRef: string | PoolConfig,
    childName: string,
    parentName: string,
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    return this.changes.merge(await this.pool(poolRef), childName, parentName, msg);
  }

  /** Rewrites the objects as new sorted, non-overlapping objects in one commit. */
  async compact(
    poolRef: string | PoolConfig,
    branchName: string,
    ids: Ksuid[],
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    const commit = await this.changes.compact(await this.pool(poolRef), branchName, ids, msg);
    return { commit: commit.id };
  }

  /** Undoes a commit's changes on the branch with a new commit. */
  async revert(
    poolRef: string | PoolConfig,
    branchName: string,
    commitId: Ksuid,
    msg: CommitMessage = {},
  ): Promise<CommitResult> {
    return this.changes.revert(await this.pool(poolRef), branchName, commitId, msg);
  }

  /**
   * Permanently removes the data objects that the revision's history added
   * and that neither the revision nor any branch's tip still has. A dry run
   * lists them without removing anything.
   */
  async vacuum(poolRef: string | PoolConfig, revision: string, dryrun: boolean): Promise<Ksuid[]> {
    const pool = await this.pool(poolRef);
    const leaf = await this.resolveRevision(pool, revision);
    const ids = await vacuumCandidates(this.storage, this.commits, this.branches, pool, leaf);
    if (dryrun || ids.length === 0) return ids;
    // Every replica drops its cached streams first, then the objects go.
    const dropped: ObjectsDropped = {
      name: 'objects-dropped',
      pool_id: pool.id.toString(),
      objects: ids.map(String),
    };
    await this.coord.publish(JSON.stringify(dropped));
    this.forget(dropped);
    await removeObjects(this.storage, pool, ids);
    await removeIndexesOf(this.storage, pool, ids);
    return ids;
  }

  // ---- index rules and index objects ----

  /** Every index rule, by name then creation time. */
  indexRuleList(): Promise<IndexRule[]> {
    return this.indexRules.list();
  }

  /**
   * Adds index rules, all or none. checkScript checks an agg rule's
   * script (the query layer's parser).
   */
  async addIndexRules(
    specs: readonly RuleSpec[],
    checkScript: (script: string) => void = () => undefined,
  ): Promise<IndexRule[]> {
    if (specs.length === 0) throw invalid('no index rules given');
    const rules = specs.map((s) => makeRule(s, checkScript));
    await this.indexRules.add(rules);
    return rules;
  }

  /** Drops the index rules with these IDs, all or none; returns them. */
  dropIndexRules(ids: readonly Ksuid[]): Promise<IndexRule[]> {
    return this.indexRules.drop(ids);
  }

  /** The rules named by each reference (a rule name or ID). */
  lookupIndexRules(refs: readonly string[]): Promise<IndexRule[]> {
    return this.indexRules.lookup(refs);
  }

  /**
   * Indexes the data objects tags name (object IDs, or commit IDs for the
   * objects those commits added) by the rules they lack, in one commit.
   */
  async applyIndexRules(
    poolRef: string | PoolConfig,
    branchName: string,
    rules: readonly IndexRule[],
    tags: readonly Ksuid[],
    opts: IndexOptions = {},
  ): Promise<CommitResult> {
    const pool = await this.pool(poolRef);
    const c = await applyIndexRules(this.indexing(), pool, branchName, rules, tags, opts);
    return { commit: c.id };
  }

  /** Indexes every data object of the branch by the rules it lacks, in one commit. */
  async updateIndex(
    poolRef: string | PoolConfig,
    branchName: string,
    rules: readonly IndexRule[],
    opts: IndexOptions = {},
  ): Promise<CommitResult> {
    const pool = await this.pool(poolRef);
    const c = await updateIndexes(this.indexing(), pool, branchName, rules, opts);
    return { commit: c.id };
  }

  /** The index objects of the live objects at a revision, in scan order of their objects. */
  async indexes(poolRef: string | PoolConfig, revision: string | Ksuid): Promise<IndexObject[]> {
    const pool = await this.pool(poolRef);
    const snap = await this.snapshot(pool, revision);
    return sortObjects(snap.list(), pool.layout.order).flatMap((o) => [
      ...snap.indexesOf(o.id).values(),
    ]);
  }

  private indexing() {
    return {
      storage: this.storage,
      ctx: this.ctx,
      commits: this.commits,
      committer: this.committer,
      branches: this.branches,
      readObject: (pool: PoolConfig, o: DataObject, commit: Ksuid, ctx: TypeContext) => {
        const scan = this.scanObjects(pool, [o], commit, { ctx });
        return { read: () => scan.pull(), close: () => scan.close() };
      },
    };
  }

  // ---- reading ----

  /** The pool and the commit a revision (commit ID or branch) names. */
  private async at(
    poolRef: string | PoolConfig,
    revision: string | Ksuid,
  ): Promise<{ pool: PoolConfig; commit: Ksuid }> {
    const pool = await this.pool(poolRef);
    const commit =
      typeof revision === 'string' ? await this.resolveRevision(pool, revision) : revision;
    return { pool, commit };
  }

  /** The live objects at a revision (commit ID or branch). */
  async snapshot(poolRef: string | PoolConfig, revision: string | Ksuid): Promise<Snapshot> {
    const { pool, commit } = await this.at(poolRef, revision);
    return this.commits.snapshot(pool.id, commit);
  }

  /** The objects at a revision in the order a scan reads them. */
  async objects(poolRef: string | PoolConfig, revision: string | Ksuid): Promise<DataObject[]> {
    const pool = await this.pool(poolRef);
    return sortObjects((await this.snapshot(pool, revision)).list(), pool.layout.order);
  }

  /**
   * A scan of the pool's values at a revision (commit ID or branch), in
   * pool-key order. With opts.index, the objects' index objects are asked
   * first which objects (and which of their streams) can hold a match;
   * the rest are not read (index/prune.ts).
   */
  async scan(
    poolRef: string | PoolConfig,
    revision: string | Ksuid,
    opts: LakeScanOptions,
    /**
     * The top-level fields the caller reads from each value, or null: it
     * may read all. With fields, objects may be read by their columnar
     * copies, as records of just those fields (and the pool key).
     */
    fields: readonly string[] | null = null,
    /**
     * Without fields: a filter that looks only at its fields, which the
     * scan may test on objects' columns to read only the rows that may pass.
     */
    match: ColumnMatch | null = null,
  ): Promise<PoolScan> {
    const { pool, commit } = await this.at(poolRef, revision);
    const snap = await this.commits.snapshot(pool.id, commit);
    const { index, end, ...scanOpts } = opts;
    if (end && !index) {
      const range = await this.endRange(pool, snap, commit, end, opts.range);
      if (range) {
        scanOpts.range = range;
        scanOpts.exact = false;
      }
    }
    let columns: ColumnScan | undefined;
    if (fields) columns = this.columnScan(pool, snap, commit, fields, scanOpts.range);
    else if (match) {
      // A match on column vectors pays even where the rows are cached:
      // its columns are cached too, and it reads the few rows it needs.
      columns = this.columnScan(
        pool,
        snap,
        commit,
        [...match.fields],
        scanOpts.range,
        !!match.vectors && this.columnCache.enabled,
      );
      if (columns) columns.match = match;
    }
    const withColumns = columns ? { ...scanOpts, columns } : scanOpts;
    if (!index || !snap.indexed) return this.scanObjects(pool, snap.list(), commit, withColumns);
    // Objects whose indexes rule the filter out are skipped; for the rest,
    // an index may name the few streams worth reading by rows.
    const plan = await planScan(this.indexReader, pool, snap, snap.list(), index, scanOpts.range);
    const scan = this.scanObjects(pool, plan.objects, commit, { ...withColumns, rows: plan.rows });
    scan.stats.objectsPruned = plan.pruned;
    scan.stats.indexBytesRead = plan.stats.bytesRead;
    return scan;
  }

  /**
   * A scan of the pool's values at a revision as columns of the given
   * field paths (vectorscan.ts): objects that overlap no other and have a
   * columnar copy come as columns; the rest as rows (records of the paths'
   * top-level fields, or whole values). Index pruning and the key range
   * skip objects as in scan().
   */
  async scanVectors(
    poolRef: string | PoolConfig,
    revision: string | Ksuid,
    opts: VectorScanOptions & {
      range?: KeyRange;
      index?: IndexFilter | null;
      end?: ScanEnd | null;
    },
  ): Promise<VectorScan> {
    const { pool, commit } = await this.at(poolRef, revision);
    const snap = await this.commits.snapshot(pool.id, commit);
    let range = opts.range && (opts.range.lower || opts.range.upper) ? opts.range : undefined;
    if (opts.end && !opts.index)
      range = (await this.endRange(pool, snap, commit, opts.end, range)) ?? range;
    let objects = snap.list();
    let rows: ScanOptions['rows'];
    const stats = newScanStats();
    if (opts.index && snap.indexed) {
      const plan = await planScan(this.indexReader, pool, snap, objects, opts.index, range);
      objects = plan.objects;
      rows = plan.rows;
      stats.objectsPruned = plan.pruned;
      stats.indexBytesRead = plan.stats.bytesRead;
    }
    const selected = objects.filter((o) => overlaps(o.min, o.max, range));
    stats.objectsSkipped = objects.length - selected.length;
    const groups = partition(sortObjects(selected, pool.layout.order), pool.layout.order);
    const fields = [...new Set(opts.paths.map((p) => p[0]))];
    const mode = this.vectorScan;
    const partial =
      mode === 'off' || range === undefined
        ? new Map<string, Int32Array>()
        : await this.partialRows(pool, groups, range, (o) => snap.hasVector(o.id), mode === 'on');
    const layouts = (o: DataObject) => this.vngLayout(pool, o, commit);
    const scan = new VectorScan(
      {
        storage: this.storage,
        pool,
        commit: commit.toString(),
        cache: this.columnCache,
        decoder: this.decoder,
        merges: this.merges,
        layout: layouts,
        // An object a range covers in part is read by columns only where
        // it overlaps no other and the range's seek-index streams hold a
        // good part of its rows (partialRows), the rest of them left out
        // as a row scan leaves them (a filter that gives errors passes
        // them on, so the rows tested must be the same); else by rows.
        // An index lookup's few streams are read by rows.
        use: (o) =>
          mode !== 'off' &&
          snap.hasVector(o.id) &&
          !rows?.has(o.id.toString()) &&
          (within(o.min, o.max, range) || partial.has(o.id.toString())),
        rowsIn: (o) => partial.get(o.id.toString()),
        rows: (objs) => {
          const columns = this.columnScan(pool, snap, commit, fields, range);
          const s = this.scanObjects(pool, objs, commit, {
            ctx: opts.ctx,
            ...(range ? { range, exact: false } : {}),
            ...(rows ? { rows } : {}),
            ...(columns ? { columns } : {}),
          });
          return s;
        },
        stats,
      },
      groups,
      opts,
    );
    scan.onDone = () => this.addTotals(stats);
    return scan;
  }

  /**
   * For each object alone in its group (overlapping no other) that has a
   * columnar copy and that range covers in part: the ordinals of the rows
   * of its seek-index streams the range meets (the rows a row scan reads),
   * where they are at least partialRows.share of the object's (or any,
   * when all is set: the vector scan forced on).
   */
  private async partialRows(
    pool: PoolConfig,
    groups: DataObject[][],
    range: KeyRange,
    copied: (o: DataObject) => boolean,
    all: boolean,
  ): Promise<Map<string, Int32Array>> {
    const out = new Map<string, Int32Array>();
    for (const g of groups) {
      const o = g[0];
      if (g.length > 1 || o.count === 0 || !copied(o) || within(o.min, o.max, range)) continue;
      let rows = 0;
      const spans: SeekEntry[] = [];
      for (const e of await this.seekIndex(pool, o)) {
        if (!overlaps(e.min, e.max, range)) continue;
        spans.push(e);
        rows += e.valCnt;
      }
      if (rows === 0 || (!all && rows < o.count * partialRows.share)) continue;
      const sel = new Int32Array(rows);
      let k = 0;
      for (const e of spans) for (let i = 0; i < e.valCnt; i++) sel[k++] = e.valOff + i;
      out.set(o.id.toString(), sel);
    }
    return out;
  }

  /**
   * What is known of the pool key in the values at a commit whose keys may
   * lie in range (the objects whose spans overlap it): the one type of the
   * keys there (nulls aside: a primitive column holds nulls without saying
   * so), whether some value lacks the key, and whether that holds for
   * every value (read from every object's columnar copy) or only for each
   * object's first and last keys (an object without a copy); 'mixed' when
   * the keys are of several types, or held in a union or under a null
   * record. Read from metadata only, so it covers values no scan has read.
   */
  async poolKeyType(
    poolRef: string | PoolConfig,
    revision: string | Ksuid,
    range: KeyRange | null = null,
  ): Promise<PoolKeys | 'mixed'> {
    const { pool, commit } = await this.at(poolRef, revision);
    return this.keysAt(pool, await this.commits.snapshot(pool.id, commit), commit, range);
  }

  /** poolKeyType of a snapshot; without a range, kept per commit (a commit does not change). */
  private keysAt(
    pool: PoolConfig,
    snap: Snapshot,
    commit: Ksuid,
    range: KeyRange | null,
  ): Promise<PoolKeys | 'mixed'> {
    if (range) return this.readKeys(pool, snap, commit, range);
    const ck = `${pool.id}/${commit}`;
    let p = this.poolKeys.get(ck);
    if (!p) {
      p = this.readKeys(pool, snap, commit, null);
      p.catch(() => this.poolKeys.delete(ck));
      this.poolKeys.set(ck, p);
    }
    return p;
  }

  private async readKeys(
    pool: PoolConfig,
    snap: Snapshot,
    commit: Ksuid,
    range: KeyRange | null,
  ): Promise<PoolKeys | 'mixed'> {
    const objects = snap
      .list()
      .filter((o) => o.count > 0 && overlaps(o.min, o.max, range ?? undefined));
    const key = primaryKey(pool.layout);
    let type: Type | null = null;
    let typeText = '';
    let missing = false;
    let exact = true;
    // Adds a key type; false when it is another than the one so far.
    const add = (t: Type): boolean => {
      const text = formatType(t);
      if (type === null) {
        type = t;
        typeText = text;
        return true;
      }
      return text === typeText;
    };
    const withCopies: DataObject[] = [];
    for (const o of objects) {
      if (snap.hasVector(o.id)) {
        withCopies.push(o);
        continue;
      }
      exact = false;
      for (const b of [o.min, o.max]) {
        if (b.len < 0) continue;
        if (b.type.kind === Kind.Error) missing = true;
        else if (!add(b.type)) return 'mixed';
      }
    }
    // A few layouts at a time: each is a read of the object's end the first time.
    for (let i = 0; i < withCopies.length; i += LAYOUTS_AT_ONCE) {
      const some = withCopies.slice(i, i + LAYOUTS_AT_ONCE);
      for (const l of await Promise.all(some.map((o) => this.vngLayout(pool, o, commit)))) {
        const leaf = leafTypeOf(l, key);
        if (leaf === null || (leaf.type !== null && !add(leaf.type))) return 'mixed';
        if (leaf.missing) missing = true;
      }
    }
    return { type, missing, exact };
  }

  /**
   * The key range a scan for end needs (endrange.ts), within the range of
   * the query's filter when it has one (the compiler gives end with a
   * filter only when the filter is exactly that range), when every key in
   * reach is present, not null (endrange.ts) and of one type
   * that the sort, the merge and the range test order alike, the filter's
   * bounds of that type too; else undefined (the filter's range, or the
   * whole pool). A failed read of the metadata gives undefined too: the
   * scan then reads what it would have without end.
   */
  private async endRange(
    pool: PoolConfig,
    snap: Snapshot,
    commit: Ksuid,
    end: ScanEnd,
    filter: KeyRange | undefined,
  ): Promise<KeyRange | undefined> {
    if (pool.layout.keys.length === 0) return undefined;
    try {
      const k = await this.keysAt(pool, snap, commit, filter ?? null);
      if (k === 'mixed' || !k.exact || k.missing || k.type === null || !rangesAlike(k.type))
        return undefined;
      const t = k.type;
      if (filter && [filter.lower, filter.upper].some((b) => b && b.type.id !== t.id))
        return undefined;
      return await endRange(snap.list(), end, (o) => this.seekIndex(pool, o), filter);
    } catch {
      return undefined;
    }
  }

  private vngLayout(pool: PoolConfig, o: DataObject, commit: Ksuid): Promise<VngLayout> {
    const ck = `${pool.id}/${o.id}`;
    let p = this.vngLayouts.get(ck);
    if (!p) {
      p = loadLayout(this.storage, pool, o, commit.toString());
      // A failed read is not kept.
      p.catch(() => this.vngLayouts.delete(ck));
      this.vngLayouts.set(ck, p);
    }
    return p;
  }

  /**
   * How a scan that reads only the given top-level fields uses columnar
   * copies, or undefined when it reads by rows only.
   */
  private columnScan(
    pool: PoolConfig,
    snap: Snapshot,
    commit: Ksuid,
    fields: readonly string[],
    range: KeyRange | undefined,
    /** Whether auto reads by columns objects whose rows the scan cache holds. */
    cached = false,
  ): ColumnScan | undefined {
    const mode = this.vectorScan;
    const key = primaryKey(pool.layout);
    // Merging objects needs the key; a key that is the value itself cannot be projected.
    if (mode === 'off' || key.length === 0) return undefined;
    const withKey = new Set(fields);
    withKey.add(key[0]);
    return {
      fields: new Set(fields),
      withKey,
      use: (o) =>
        snap.hasVector(o.id) &&
        within(o.min, o.max, range) &&
        (mode === 'on' || cached || this.cache.storedBytes(`${pool.id}/${o.id}`) < o.size / 2),
      layout: (o) => this.vngLayout(pool, o, commit),
      cache: this.columnCache,
    };
  }

  private scanObjects(
    pool: PoolConfig,
    objects: DataObject[],
    commit: Ksuid,
    opts: ScanOptions,
  ): PoolScan {
    const scan = new PoolScan(
      this.storage,
      pool,
      objects,
      (o) => this.seekIndex(pool, o),
      opts,
      commit.toString(),
      this.cache,
    );
    scan.onDone = (s) => this.addTotals(s);
    return scan;
  }

  /** Adds a finished scan's stats to the lake's totals. */
  private addTotals(s: ScanStats): void {
    const t = this.scanTotals;
    t.scans++;
    t.bytesRead += s.bytesRead;
    t.objectsRead += s.objectsRead;
    t.objectsSkipped += s.objectsSkipped;
    t.objectsPruned += s.objectsPruned;
    t.indexBytesRead += s.indexBytesRead;
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
    return (await this.history(poolRef, revision)).map((c) => c.info);
  }

  /** The commit objects from the revision back to the pool's first commit. */
  async history(poolRef: string | PoolConfig, revision: string | Ksuid): Promise<CommitObject[]> {
    const { pool, commit } = await this.at(poolRef, revision);
    return this.commits.path(pool.id, commit);
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

function timeOf(v: Value): bigint | undefined {
  if (v.isNull || v.type.under.id !== ID.Time) return undefined;
  return decodeIntBig(v.buf, v.off, v.len);
}

export { LakeError };
