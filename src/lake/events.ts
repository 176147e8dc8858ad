// Events the lake publishes through coordination pub/sub as operations
// complete, with the reference's names and fields (IDs in base62 text; the
// service renders them as its clients expect).

export type LakeEvent =
  | { name: 'pool-new' | 'pool-update' | 'pool-delete'; pool_id: string }
  | { name: 'pool-commit'; pool_id: string; commit_id: string }
  | { name: 'branch-update' | 'branch-delete'; pool_id: string; branch: string }
  | { name: 'branch-commit'; commit_id: string; pool_id: string; branch: string; parent: string };

/** The coordination channel lake events travel on. */
export const EVENTS_CHANNEL = 'zlake:events';
