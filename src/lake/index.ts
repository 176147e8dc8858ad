// The lake as a library: pools, branches, commits, data objects, scans and
// meta-queries over the storage and coordination interfaces.
export { Lake, MAX_COMMIT_RETRIES } from './lake';
export type {
  CommitMessage,
  CommitResult,
  DeleteWhereOptions,
  IndexFilter,
  IndexOptions,
  IndexRule,
  LakeOptions,
  LakeScanOptions,
  LoadResult,
  PoolOptions,
  PoolStats,
  RuleSpec,
  ScanTotals,
} from './lake';
export { LakeError, isLakeError, kindText, invalid, notFound, conflict } from './errors';
export type { LakeErrorKind } from './errors';
export { Ksuid } from './ksuid';
export type { BranchConfig, Order, PoolConfig, SortKey } from './config';
export { DEFAULT_SEEK_STRIDE, DEFAULT_THRESHOLD, parseSortKey, primaryKey } from './config';
export { DataObject } from './object';
export { Snapshot } from './snapshot';
export type { CommitInfo } from './records';
export { PoolScan } from './scan';
export { DEFAULT_CACHE_SIZE, ScanCache } from './cache';
export type { ScanCacheStats } from './cache';
export type { ScanOptions, ScanStats } from './scan';
export type { KeyRange } from './seekindex';
export type { LakeEvent } from './events';
export {
  lakeMeta,
  poolMeta,
  commitMeta,
  poolsMeta,
  branchesMeta,
  objectsMeta,
  logMeta,
} from './meta';
