// How far a scan reads ahead across objects: both scans (by columns,
// VectorScan; by rows, PoolScan) start the next objects' reads while the
// query works on the objects before, so that a store's latency (on S3 a
// round trip of tens of milliseconds a range) passes meanwhile. Measured
// in docs/benchmarks.md ("Fetching ahead").

import { ObjectStore } from '../storage/storage';
import { parseCount } from './errors';
import { DataObject } from './object';

/**
 * Objects a scan fetches ahead of their turn (null: the store's
 * objectsAhead; zlake serve's -vector.ahead), and the most of their
 * stored bytes that may be ahead beyond the next object, which bounds the
 * memory it takes (a scan by columns counts an object's ZNG size, an
 * estimate of its columns' segments; a scan by rows its first range).
 * Tests change it.
 */
export const fetchAhead: { objects: number | null; bytes: number } = {
  objects: null,
  bytes: 64 << 20,
};

/** fetchAhead.objects from a flag's or the environment's text: a whole number, or auto (null). */
export function parseAhead(s: string): number | null {
  return s === '' || s === 'auto' ? null : parseCount(s, 'vector ahead');
}

/** The objects a scan on this store fetches ahead: fetchAhead.objects, or the store's own count. */
export function objectsAhead(storage: ObjectStore): number {
  return fetchAhead.objects ?? storage.objectsAhead;
}

/** The bytes a scan by rows fetches ahead of an object: its first range. */
export function firstRange(storage: ObjectStore, o: DataObject): number {
  return Math.min(o.size, storage.rangeSize);
}
