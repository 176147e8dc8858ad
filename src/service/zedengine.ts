// The service's query engine: src/query, with the lake as its source and
// the request's head pool/branch as the default `from`.

import { primaryKey } from '../lake/config';
import { keyRange } from '../query/compiler/optimizer';
import { Builder } from '../query/compiler/builder';
import * as dag from '../query/compiler/dag';
import { FilterFn } from '../query/runtime/ops/filter';
import { analyze, compileQuery, parseQuery, QueryContext, queryErrorClasses } from '../query';
import { invalid } from '../lake/errors';
import { LakeSource } from '../lake/source';
import { DeleteFilter, QueryEngine, RunningQuery } from './engine';
import { registerClientError } from './errors';

for (const cls of queryErrorClasses) registerClientError(cls);

const INVALID_DELETE = 'invalid delete where query: must be a single filter operation';

export const zedEngine: QueryEngine = {
  async compile(spec): Promise<RunningQuery> {
    const ctx = new QueryContext({ signal: spec.signal, onWarning: spec.onWarning });
    const q = await compileQuery(spec.query, {
      ctx,
      source: new LakeSource(spec.lake),
      head: spec.head.pool ? spec.head : undefined,
      transientOutput: spec.transientOutput,
    });
    return {
      next: () => {
        ctx.checkCancelled();
        return q.next();
      },
      progress: () => ({ ...ctx.stats }),
      close: () => q.close(),
    };
  },

  async deleteFilter(where, lake, pool, branch): Promise<DeleteFilter> {
    // As the reference: the text must be one operation, and with the pool
    // as its source it must be a filter.
    const seq = parseQuery(where);
    if (seq.length !== 1) throw invalid(INVALID_DELETE);
    const ctx = new QueryContext();
    const graph = await analyze(seq, {
      ctx,
      source: new LakeSource(lake),
      head: { pool: pool.id.toString(), branch },
    });
    const op = graph[1];
    if (graph.length !== 2 || op?.kind !== 'Filter') throw invalid(INVALID_DELETE);
    const expr = (op as dag.Filter).expr;
    const fn = new FilterFn(ctx.zctx, new Builder({ ctx }).expr(expr));
    const range = keyRange(expr, primaryKey(pool.layout));
    return {
      // Only a true predicate deletes (errors and non-booleans keep the value).
      pred: (v) => fn.test(v) === v,
      ctx: ctx.zctx,
      range: range ?? undefined,
    };
  },

  checkScript(script) {
    parseQuery(script);
  },

  async runScript(script, input, zctx) {
    const q = await compileQuery(script, {
      ctx: new QueryContext({ zctx }),
      inputs: [input],
    });
    try {
      return await q.all();
    } finally {
      await q.close();
    }
  },
};
