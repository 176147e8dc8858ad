// What the service needs from the query engine, as an interface, so the
// HTTP plumbing does not depend on how queries are compiled: a query
// compiled against the lake becomes a stream of outputs (batches of values
// on numbered channels, and the end of each channel), and a delete's
// `where` becomes a predicate.

import { ValueReader } from '../formats/io';
import { Lake, PoolConfig } from '../lake';
import { KeyRange } from '../lake/seekindex';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { Progress } from './responses';

/** One step of a running query's output. */
export type QueryOutput =
  { kind: 'batch'; channel: number; values: Value[] } | { kind: 'end'; channel: number };

export interface RunningQuery {
  /** The next output, or null when the query is done. Throws the query's errors. */
  next(): Promise<QueryOutput | null>;
  /** Counts so far (for QueryStats and metrics). */
  progress(): Progress;
  /** Stops the query and releases its sources. */
  close(): Promise<void>;
}

export interface QuerySpec {
  lake: Lake;
  /** The query text (empty: everything in the head pool). */
  query: string;
  /** The default source when the query has no `from`. */
  head: { pool: string; branch: string };
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Receives warnings as the query meets them. */
  onWarning?: (msg: string) => void;
  /** The caller writes each batch out before asking for the next (see QueryOptions). */
  transientOutput?: boolean;
}

export interface DeleteFilter {
  /** True for the values to delete. */
  pred: (v: Value) => boolean;
  /** The context pred expects values in. */
  ctx: TypeContext;
  /** Objects wholly outside this pool-key range hold nothing to delete. */
  range?: KeyRange;
}

export interface QueryEngine {
  /**
   * Parses and compiles a query. Throws ParseError (with its offset) for
   * a query that does not parse, a LakeError for an unknown pool, branch
   * or commit, and a compile error for one that parses but is not valid.
   */
  compile(spec: QuerySpec): Promise<RunningQuery>;
  /**
   * Compiles the `where` of a delete on pool@branch: a single filter (the
   * reference's rule), as a predicate over the pool's values.
   */
  deleteFilter(where: string, lake: Lake, pool: PoolConfig, branch: string): Promise<DeleteFilter>;
  /** Checks the script of an agg index rule (throws ParseError when it does not parse). */
  checkScript(script: string): void;
  /** Runs an agg index rule's script over input (values in ctx); its output is the index. */
  runScript(script: string, input: ValueReader, ctx: TypeContext): Promise<Value[]>;
}
