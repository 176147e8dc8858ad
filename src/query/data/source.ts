// The query layer's view of a lake: the few things `from`, the
// meta-queries and `load` need, and nothing of how the lake stores them.
// The service hands the compiler an implementation (src/lake/source.ts
// adapts the lake to it), so the compiler and the operators depend on this
// interface only, and the row and vector scans plug in behind `scan`.

import { ValueReader } from '../../formats/io';
import { TypeContext } from '../../zed/context';
import { Value } from '../../zed/value';
import { Type } from '../../zed/types';
import { Column, RecordShape, VecBatch } from '../../zed/vector';

/** An identifier (pool, commit): printable, with its 20 bytes. */
export interface DataId {
  readonly bytes: Uint8Array;
  toString(): string;
}

/** A pool's sort key: the order and the key paths (the first is the pool key). */
export interface PoolLayout {
  readonly order: 'asc' | 'desc';
  readonly keys: readonly (readonly string[])[];
}

/**
 * A pool as the query layer sees it. A source hands these out and takes
 * back only the ones it handed out, so it may carry more than this.
 */
export interface PoolHandle {
  readonly id: DataId;
  readonly name: string;
  readonly layout: PoolLayout;
}

/**
 * A key range in value order: lower ≤ key ≤ upper, either bound optional.
 * Values whose key is null or missing are in no range with a bound.
 */
export interface KeyRange {
  lower?: Value;
  upper?: Value;
  /** The bound itself is outside the range (`key < 5`). */
  lowerOpen?: boolean;
  upperOpen?: boolean;
}

/**
 * The part of a scan's filter that indexes can answer: `field == constant`
 * comparisons joined by and/or, each with the predicate the filter
 * evaluates, so an index says "no match" exactly when the filter would.
 */
export type IndexFilter =
  | { kind: 'and' | 'or'; lhs: IndexFilter; rhs: IndexFilter }
  | {
      kind: 'equals';
      /** The field compared (a path from the value). */
      path: readonly string[];
      /** The constant. */
      value: Value;
      /** True for the values the comparison holds for. */
      test: (t: Type, buf: Buffer, off: number, len: number) => boolean;
    };

/** The path of the pool key (the reference's default is `ts`). */
export function poolKeyPath(layout: PoolLayout): string[] {
  return layout.keys.length > 0 ? [...layout.keys[0]] : ['ts'];
}

/**
 * The values a query keeps of a scan (`sort -r ts | head 10`, `tail 10`):
 * the count with the lowest or highest pool keys, ties included. A source
 * may skip values it can show are not among them.
 */
export interface ScanEnd {
  side: 'low' | 'high';
  count: number;
}

/** What a scan of a pool reads. */
export interface ScanRequest {
  /** Context the values' types are made in. */
  ctx: TypeContext;
  /**
   * Pool-key range that the query's filter implies: objects and spans that
   * cannot hold such keys may be skipped, but values outside it may still
   * come (the query's filter decides).
   */
  range: KeyRange | null;
  /**
   * The top-level fields the query reads from each value (compiler/
   * demand.ts), or null when it may read whole values. With fields, a
   * source may deliver records that hold only those fields (a columnar
   * read): every other field of a record may be absent.
   */
  fields: readonly string[] | null;
  /**
   * With fields null: the query's filter, when it reads only these
   * top-level fields. A source may test it on records of just those fields
   * (columns) and deliver only the values that pass, whole; test is false
   * for a value the filter drops.
   */
  match?: {
    fields: readonly string[];
    test(v: Value): boolean;
    /**
     * The same test on columns (the vector engine's): the paths it reads,
     * and the rows of a batch of their columns that may pass, ascending.
     */
    vectors?: { paths: readonly (readonly string[])[]; select(b: VecBatch): Int32Array } | null;
  } | null;
  /** The part of the filter index objects can answer: objects they rule out may be skipped. */
  index?: IndexFilter | null;
  /** The only values the query keeps (with no filter): a source may skip the rest. */
  end?: ScanEnd | null;
  /**
   * A test of a frame of values before they are read one by one (a
   * keyword search's, expr/bufferfilter.ts): the frame's decompressed
   * payload buf[start, end) and its values' distinct types; false when
   * none of them can pass the filter. A source that reads frames may skip
   * those.
   */
  frames?:
    ((buf: Uint8Array, start: number, end: number, types: readonly Type[]) => boolean) | null;
}

/** What a scan by columns reads (the vector engine's scan). */
export interface VectorScanRequest {
  ctx: TypeContext;
  /** As ScanRequest.range: objects that cannot hold such keys may be skipped. */
  range: KeyRange | null;
  /** The field paths whose columns to read. */
  paths: readonly (readonly string[])[];
  /** Top-level fields (each also a one-element path) the rows are records of. */
  shape: readonly string[];
  index?: IndexFilter | null;
  /** Paths whose columns' dictionaries the engine will use (a source may build them early, elsewhere). */
  dicts?: readonly (readonly string[])[];
  /** As ScanRequest.end. */
  end?: ScanEnd | null;
  /**
   * At most how many rows the query takes from the scan's front (a head
   * with nothing before it that drops rows): a source may choose reads
   * that stop early over reads that are faster whole.
   */
  limit?: number;
}

/** One piece of a scan by columns, in pool order. */
export type VectorPart =
  /**
   * n rows as the columns of the request's paths, and how to rebuild them
   * as records; sel, where present, the rows of them read (ascending).
   */
  | { kind: 'columns'; n: number; cols: Column[]; shape: RecordShape; sel?: Int32Array }
  /** Rows the source read as values: records holding at least the shape's fields. */
  | { kind: 'rows'; rows: Value[] };

export interface VectorReader {
  read(): Promise<VectorPart | null>;
  close(): Promise<void>;
  /** At most how many rows the reader will give, where the source knows (its objects' counts). */
  readonly rows?: number;
}

export type VectorMode = 'auto' | 'on' | 'off';

export interface LoadMessage {
  author?: string;
  message?: string;
  meta?: Value;
}

/** The lake, as a source of values and pools for queries. */
export interface DataSource {
  listPools(): Promise<PoolHandle[]>;
  /** A pool by name or ID; an unknown one throws the lake's not-found error. */
  lookupPool(ref: string): Promise<PoolHandle>;
  /** A commit ID (either form) or a branch name, as the branch's tip. */
  resolveRevision(pool: PoolHandle, revision: string): Promise<DataId>;
  /** The pool's values at the commit, in pool-key order. */
  scan(pool: PoolHandle, commit: DataId, req: ScanRequest): Promise<ValueReader>;
  /**
   * The pool's values at the commit, in pool-key order, by columns where
   * the source has them (absent: the engine makes columns of scan()'s rows).
   */
  scanVectors?(pool: PoolHandle, commit: DataId, req: VectorScanRequest): Promise<VectorReader>;
  /** When queries run on the vector engine: `off` never, else wherever they can (the lake's -vector.scan). */
  readonly vectorMode?: VectorMode;
  /** `from :pools` and the like. */
  lakeMeta(ctx: TypeContext, meta: string): Promise<Value[]>;
  /** `from pool:branches` and the like. */
  poolMeta(ctx: TypeContext, pool: PoolHandle, meta: string): Promise<Value[]>;
  /**
   * `from pool@commit:objects` and the like; with a pruner, objects whose
   * key span it rejects are left out (a tapped `:objects`).
   */
  commitMeta(
    ctx: TypeContext,
    pool: PoolHandle,
    commit: DataId,
    meta: string,
    pruner: ((min: Value, max: Value) => boolean) | null,
  ): Promise<Value[]>;
  /** Commits the reader's values to the branch; the new commit's ID. */
  load(pool: PoolHandle, branch: string, reader: ValueReader, msg: LoadMessage): Promise<DataId>;
  /**
   * What the source's metadata says of the pool key in the values at the
   * commit whose keys may lie in range, values not yet read included: the
   * one type of the keys (nulls aside), whether some value lacks the key,
   * and whether that is known of every value or only of each object's
   * first and last keys; 'mixed' when the keys are of several types.
   */
  poolKeyType?(
    pool: PoolHandle,
    commit: DataId,
    range: KeyRange | null,
  ): Promise<{ type: Type | null; missing: boolean; exact: boolean } | 'mixed'>;
}
