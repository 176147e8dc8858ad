// The column cache: decoded columns of data objects' columnar copies, for
// the vector engine. A vector scan decodes the columns of the field paths a
// query uses from an object's VNG copy (formats/vng/vectors.ts) and keeps
// each here under (pool/object, path), with what operators derive from it
// later (dictionaries, float64 values), so a later query over the same
// fields reads memory only. Which super type each row has, and which rows
// are null records, are kept per object the same way.
//
// As the scan cache (cache.ts), it is bounded by bytes and evicts by a
// clock (clock.ts); objects are immutable, so entries never go stale
// and are dropped only with their object or pool. Columns are kept in the
// cache's own type context and mapped into each query's. A run of
// overlapping objects merged by columns (vectormerge.ts) keeps its merged
// columns here too, under the run's object IDs joined by '+'.

import { TypeContext } from '../zed/context';
import { Column } from '../zed/vector';
import { ObjectCache } from './clock';

/** Bookkeeping bytes per entry (JS objects, map slots). */
const ENTRY_OVERHEAD = 256;

/** What is known of an object's rows beyond its columns. */
export interface RowLayout {
  /** The super type of each row, or null when the object has one. */
  superOf: Uint8Array | Uint16Array | null;
  /** 1 for each null top-level record (null: none). */
  nulls: Uint8Array | null;
}

class Entry {
  used = false;
  bytes = 0;
  object = '';
  key = '';

  constructor(readonly value: Column | RowLayout) {
    this.bytes = this.size();
  }

  /** Bytes held now (a column's derived data grows after it is cached). */
  size(): number {
    const v = this.value;
    if (v instanceof Column) return v.data.bytes + (v.typeIndex?.byteLength ?? 0) + ENTRY_OVERHEAD;
    return (v.superOf?.byteLength ?? 0) + (v.nulls?.byteLength ?? 0) + ENTRY_OVERHEAD;
  }
}

export class ColumnCache extends ObjectCache<string, Entry> {
  /** Types of the cached columns. */
  readonly ctx = new TypeContext();

  /** The cached column of object (pool/id) at path (counting a hit or miss). */
  column(object: string, path: readonly string[]): Column | undefined {
    return this.get(object, pathKey(path))?.value as Column | undefined;
  }

  rows(object: string): RowLayout | undefined {
    return this.get(object, ROWS)?.value as RowLayout | undefined;
  }

  /**
   * Drops the merged columns of the runs of overlapping objects that hold
   * rows of a pool's objects (vectorscan.ts keeps them under the pool and
   * the run's object IDs joined by '+'), as the objects are dropped.
   */
  dropRunsOf(poolId: string, ids: readonly string[]): void {
    const prefix = `${poolId}/`;
    const gone = new Set(ids);
    const runs = [...this.objects()].filter(
      (k) =>
        k.startsWith(prefix) &&
        k.includes('+') &&
        k
          .slice(prefix.length)
          .split('+')
          .some((id) => gone.has(id)),
    );
    for (const k of runs) this.dropObject(k);
  }

  putColumn(object: string, path: readonly string[], c: Column): void {
    this.put(object, pathKey(path), new Entry(c));
  }

  putRows(object: string, r: RowLayout): void {
    this.put(object, ROWS, new Entry(r));
  }

  /**
   * Recounts the bytes of the entries of an object (their derived data
   * may have grown since they were cached) and evicts to fit.
   */
  recount(object: string): void {
    this.resize(object, (e) => e.size());
  }
}

const ROWS = '\u0000rows';

/** A path's cache key. */
export function pathKey(path: readonly string[]): string {
  return JSON.stringify(path);
}
