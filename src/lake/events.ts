// Events the lake appends to the coordinator's event stream as changes
// become visible, with the reference's names and fields (IDs in base62
// text; the service renders them as its clients expect). One more kind,
// `objects-dropped`, is the lake's own: it tells every replica to drop its
// cached streams of objects a commit deleted or a vacuum removed, and is
// not shown to event clients.

export type LakeEvent =
  | { name: 'pool-new' | 'pool-update' | 'pool-delete'; pool_id: string }
  | { name: 'pool-commit'; pool_id: string; commit_id: string }
  | { name: 'branch-update' | 'branch-delete'; pool_id: string; branch: string }
  | { name: 'branch-commit'; commit_id: string; pool_id: string; branch: string; parent: string };

/** The lake's own event: cached streams of these objects are stale. */
export interface ObjectsDropped {
  name: 'objects-dropped';
  pool_id: string;
  objects: string[];
}

export type StreamedEvent = LakeEvent | ObjectsDropped;
