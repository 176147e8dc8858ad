// `sort keys | head N` over a pool as one operator (runtime/ops/topn.ts),
// which keeps N values instead of sorting them all. It may have to start
// over with the full sort (keys whose order depends on the whole input),
// so it is used only where the compiler can build its input again and
// read the same values: a pool scan at its commit, then operators that
// take one input and give one output (a summarize among them). It takes
// the sort from the vector engine too, which sorted every row (a sort of
// 1M strings for `sort query | head 5 | cut query`: 1.3 s against 86 ms):
// its input still runs on columns where it can, made rows of just the
// fields the query reads (vectorize.ts).

import { Operator } from '../runtime/operator';
import { TopN } from '../runtime/ops/topn';
import type { Builder } from './builder';
import * as dag from './dag';

/** The largest head that becomes a TopN; a larger one is mostly a sort anyway. */
export const TOPN_MAX = 65536;

/** Operators a TopN's input may have between the pool scan and the sort. */
const REBUILDABLE: ReadonlySet<dag.Op['kind']> = new Set([
  'Filter',
  'Cut',
  'Put',
  'Yield',
  'Drop',
  'Rename',
  'Head',
  'Tail',
  // `count() by x | sort -r count | head 10`: started over, the summarize
  // runs again (its keys and aggregates are rarely without an order).
  'Summarize',
]);

/** seq (which has no parents) built with a TopN for its sort and head, or null. */
export function buildTopN(b: Builder, seq: dag.Seq): Operator[] | null {
  if (seq[0]?.kind !== 'PoolScan') return null;
  let i = 1;
  while (i < seq.length && REBUILDABLE.has(seq[i].kind)) i++;
  const sort = seq[i];
  const head = seq[i + 1];
  if (sort?.kind !== 'Sort' || head?.kind !== 'Head') return null;
  if (sort.args.length === 0 || head.count > TOPN_MAX) return null;
  const input = seq.slice(0, i);
  const top = new TopN(
    b.env.ctx,
    b.seq(input, [])[0],
    {
      keys: b.exprs(sort.args),
      reverse: sort.order === 'desc',
      nullsFirst: sort.nullsFirst,
      count: head.count,
    },
    () => b.seq([sort], b.seq(input, []))[0],
  );
  return b.seq(seq.slice(i + 1), [top]);
}
