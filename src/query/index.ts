// The query engine's entry point: compile a query text into a running
// dataflow graph whose output is pulled in batches.
//
//   const q = await compileQuery('count() by x', { source, head: {pool, branch} });
//   for (let b = await q.pull(); b; b = await q.pull()) ...
//
// Errors come in three kinds: ParseError (the text does not parse; it has
// the offset of the problem), CompileError (it parses but is not a valid
// query: unknown function, bad assignment...) and errors thrown while
// the query runs (from pull/next). Lake errors (unknown pool or branch)
// pass through with their kind. A query that runs out of call stack in
// a user function throws StackOverflow.

import { ValueReader } from '../formats/io';
import { Value } from '../zed/value';
import * as ast from './ast';
import { Builder, evalAtCompileTime } from './compiler/builder';
import * as dag from './compiler/dag';
import { DataSource, VectorMode } from './data/source';
import { CompileError } from './compiler/errors';
import { optimize } from './compiler/optimizer';
import { Analyzer, ReaderSource } from './compiler/semantic';
import { StackOverflow } from './expr/vars';
import { parse, ParseError } from './parser';
import { QueryContext, QueryContextOptions } from './runtime/context';
import { Operator } from './runtime/operator';
import { Materialize } from './vector/operator';
import './functions';
import './aggregates';

export { ParseError } from './parser';
export { CompileError } from './compiler/errors';
export { StackOverflow } from './expr/vars';
export { QueryContext, QueryCancelled } from './runtime/context';
export type { QueryStats } from './runtime/context';

/** Errors that are the query's (or its input's) fault, for a 400 answer. */
export const queryErrorClasses = [ParseError, CompileError, StackOverflow];

export interface QueryOptions {
  /** The query's context (type context, cancellation, memory limit); a new one by default. */
  ctx?: QueryContext;
  /** Options for a new context when ctx is not given. */
  context?: QueryContextOptions;
  /** The lake `from` and `load` use (the service's lake, adapted). */
  source?: DataSource;
  /** The pool and branch a query without a source reads (the service's HEAD). */
  head?: { pool: string; branch: string };
  /**
   * The caller's inputs for a query without a source (zq's files): read
   * one after another. Values must be in ctx's type context. A reader or
   * a function that opens one on first pull.
   */
  inputs?: (ValueReader | (() => Promise<ValueReader>))[];
  /** `file` may read local files (zq: yes; the service: no). */
  allowFiles?: boolean;
  /** `get` may fetch URLs. */
  allowHTTP?: boolean;
  /**
   * Whether sources feed the vector engine: `off` never, `on` wherever the
   * query allows (inputs without columns too), `auto` pool scans where the
   * query allows. Default: the source's mode, else ZLAKE_VECTOR_SCAN.
   */
  vector?: VectorMode;
  /**
   * The caller has done with each batch next() returned before it calls
   * next() again (it writes the batch out, keeping no value): output rows
   * built from columns may then reuse one batch's memory for the next.
   */
  transientOutput?: boolean;
}

/** One step of a query's output: a batch on a channel, or a channel's end. */
export type QueryOutput =
  { kind: 'batch'; channel: number; values: Value[] } | { kind: 'end'; channel: number };

/** A compiled query, ready to pull. */
export class Query {
  private pending: (Promise<{ i: number; b: Value[] | null }> | null)[];
  private ended: boolean[];
  private closed = false;

  constructor(
    readonly ctx: QueryContext,
    /** One operator per output channel. */
    readonly outputs: Operator[],
    /** The optimized dataflow graph (for tests and explain). */
    readonly graph: dag.Seq,
  ) {
    this.pending = outputs.map(() => null);
    this.ended = outputs.map(() => false);
  }

  /**
   * The next output step in arrival order: batches from every channel,
   * and each channel's end; null when all channels have ended.
   */
  async next(): Promise<QueryOutput | null> {
    if (this.closed) return null;
    const live: Promise<{ i: number; b: Value[] | null }>[] = [];
    for (let i = 0; i < this.outputs.length; i++) {
      if (this.ended[i]) continue;
      this.pending[i] ??= this.outputs[i].pull().then((b) => ({ i, b }));
      live.push(this.pending[i]!);
    }
    if (live.length === 0) return null;
    const { i, b } = live.length === 1 ? await live[0] : await Promise.race(live);
    this.pending[i] = null;
    if (b === null) {
      this.ended[i] = true;
      return { kind: 'end', channel: i };
    }
    return { kind: 'batch', channel: i, values: b };
  }

  /** The next batch from any channel, or null at the end of the query. */
  async pull(): Promise<Value[] | null> {
    for (;;) {
      const out = await this.next();
      if (out === null) return null;
      if (out.kind === 'batch') return out.values;
    }
  }

  /** Every value of the query (tests and small results). */
  async all(): Promise<Value[]> {
    const out: Value[] = [];
    for (let b = await this.pull(); b; b = await this.pull()) for (const v of b) out.push(v);
    return out;
  }

  /** Stops the query: closes every output, which closes the sources. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.outputs.map((o) => o.close()));
  }
}

/** Parses a query (ParseError on bad syntax). */
export function parseQuery(text: string): ast.Seq {
  return parse(text);
}

/** The first operator of a sequence, looking into scopes. */
function firstOp(seq: ast.Seq): ast.Op | undefined {
  const op = seq[0];
  if (op?.kind === 'Scope') return firstOp(op.body);
  return op;
}

/** True when the query starts with a `from` (looking into scopes). */
export function startsWithFrom(seq: ast.Seq): boolean {
  return firstOp(seq)?.kind === 'From';
}

function startsWithSources(op: ast.Op): boolean {
  return op.kind === 'Parallel' && op.paths.every((p) => p.length > 0 && p[0].kind === 'From');
}

/** The sources a query without `from` reads, as the reference inserts them. */
function impliedSources(seq: ast.Seq, opts: QueryOptions): ast.Op | null {
  const first = firstOp(seq);
  if (first === undefined || first.kind === 'From') return null;
  const reader = (index: number): ast.Trunk => ({
    kind: 'Trunk',
    source: { kind: 'Reader', index } as unknown as ast.Source,
    seq: null,
  });
  if (first.kind === 'Join') return { kind: 'From', trunks: [reader(0), reader(1)] };
  if (startsWithSources(first)) return null;
  if (opts.head) {
    return {
      kind: 'From',
      trunks: [
        {
          kind: 'Trunk',
          source: {
            kind: 'Pool',
            spec: { pool: { kind: 'String', text: 'HEAD' }, commit: null, meta: null, tap: false },
            at: null,
          },
          seq: null,
        },
      ],
    };
  }
  return { kind: 'From', trunks: [reader(0)] };
}

function opener(r: ValueReader | (() => Promise<ValueReader>)): () => Promise<ValueReader> {
  return typeof r === 'function' ? r : async () => r;
}

/** One reader that reads the given ones in turn. */
function sequence(inputs: (() => Promise<ValueReader>)[]): () => Promise<ValueReader> {
  return async () => {
    let i = 0;
    let cur: ValueReader | null = null;
    return {
      async read() {
        for (;;) {
          if (cur === null) {
            if (i >= inputs.length) return null;
            cur = await inputs[i++]();
          }
          const b = await cur.read();
          if (b !== null) return b;
          await cur.close?.();
          cur = null;
        }
      },
      async close() {
        await cur?.close?.();
        i = inputs.length;
      },
    };
  };
}

/** Analyzes a parsed query into its (unoptimized) dataflow graph. */
export async function analyze(
  seq: ast.Seq,
  opts: QueryOptions & { ctx: QueryContext },
): Promise<dag.Seq> {
  const zctx = opts.ctx.zctx;
  const a = new Analyzer({
    zctx,
    evalConst: (e) => evalAtCompileTime(zctx, e),
    ...(opts.source ? { source: opts.source } : {}),
    ...(opts.head ? { head: opts.head } : {}),
  });
  const implied = impliedSources(seq, opts);
  const full = implied === null ? seq : [implied, ...seq];
  await a.resolve(full);
  return a.seq(full);
}

function usesReaders(seq: dag.Seq): number {
  let n = 0;
  const visit = (s: dag.Seq) => {
    for (const op of s) {
      if (op.kind === 'Reader') n = Math.max(n, op.index + 1);
      else if (op.kind === 'Fork') op.paths.forEach(visit);
    }
  };
  visit(seq);
  return n;
}

/** Compiles a query text into a runnable graph. */
export async function compileQuery(text: string, opts: QueryOptions = {}): Promise<Query> {
  const seq = parse(text);
  return compileAST(seq, opts);
}

/** Compiles a parsed query. */
export async function compileAST(seq: ast.Seq, opts: QueryOptions = {}): Promise<Query> {
  const ctx = opts.ctx ?? new QueryContext(opts.context);
  let graph = await analyze(seq, { ...opts, ctx });
  const wanted = usesReaders(graph);
  const inputs = (opts.inputs ?? []).map(opener);
  let readers: (() => Promise<ValueReader>)[];
  if (wanted === 2) {
    if (inputs.length !== 2) throw new CompileError('join operator requires two inputs');
    readers = inputs;
  } else if (wanted === 1) {
    if (inputs.length === 0 && opts.inputs !== undefined) {
      throw new CompileError(
        'no input specified: use a command-line file or a Zed source operator',
      );
    }
    readers = [sequence(inputs)];
  } else {
    if (inputs.length > 0) {
      throw new CompileError(
        'redundant inputs specified: use either command-line files or a Zed source operator',
      );
    }
    readers = [];
  }
  graph = optimize(graph);
  const b = new Builder({
    ctx,
    readers,
    ...(opts.source ? { source: opts.source } : {}),
    allowFiles: opts.allowFiles ?? false,
    allowHTTP: opts.allowHTTP ?? false,
    ...(opts.vector ? { vector: opts.vector } : {}),
  });
  const outputs = b.seq(graph, []);
  // Only an output channel's own operator: any operator after it may keep values.
  if (opts.transientOutput) for (const o of outputs) if (o instanceof Materialize) o.reuseOutput();
  return new Query(ctx, outputs, graph);
}

export type { ReaderSource };
