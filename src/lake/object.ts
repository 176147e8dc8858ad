// Data objects: the immutable ZNG objects that hold a pool's values, and
// the metadata a commit records for each (its key range, count and size),
// which lets scans skip whole objects.

import { compare } from '../zed/compare';
import { Value } from '../zed/value';
import { Order } from './config';
import { Ksuid } from './ksuid';

export class DataObject {
  constructor(
    readonly id: Ksuid,
    /**
     * Smallest and largest pool key in the object in value order (for a
     * descending pool too). A null key sorts above every other value, so
     * max is null when some value lacks the key.
     */
    readonly min: Value,
    readonly max: Value,
    /** Number of values. */
    readonly count: number,
    /** Bytes of the ZNG object in storage. */
    readonly size: number,
  ) {}

  /** The reference's one-line description. */
  toString(): string {
    return `${this.id} ${this.count} record${this.count === 1 ? '' : 's'} in ${this.size} data bytes`;
  }
}

/** Storage key of an object's ZNG data. */
export function dataKey(poolId: Ksuid, id: Ksuid): string {
  return `${poolId}/data/${id}.zng`;
}

/** Storage key of an object's seek index. */
export function seekIndexKey(poolId: Ksuid, id: Ksuid): string {
  return `${poolId}/data/${id}-seek.zng`;
}

/**
 * Orders objects for a scan in pool order: by the key they start with,
 * then the key they end with; objects with the same span keep their order
 * in the snapshot (commit order).
 */
export function sortObjects(objects: DataObject[], order: Order): DataObject[] {
  const desc = order === 'desc';
  const indexed = objects.map((o, i) => ({ o, i }));
  indexed.sort((a, b) => {
    const aFrom = desc ? a.o.max : a.o.min;
    const bFrom = desc ? b.o.max : b.o.min;
    let c = compare(aFrom, bFrom, true);
    if (desc) c = -c;
    if (c !== 0) return c;
    const aTo = desc ? a.o.min : a.o.max;
    const bTo = desc ? b.o.min : b.o.max;
    c = compare(aTo, bTo, true);
    if (desc) c = -c;
    return c !== 0 ? c : a.i - b.i;
  });
  return indexed.map((x) => x.o);
}
