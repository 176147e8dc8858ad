// Compaction: rewriting a set of a branch's data objects as new sorted,
// non-overlapping objects in one commit, so later scans merge and read
// fewer objects. Also the planner `zlake manage` uses to pick which objects
// are worth compacting.
//
// The new objects are written before the commit, from the objects as the
// branch's tip had them. The commit then goes through the ordinary
// protocol (committer.ts): when another writer moved the tip first, the
// commit is rebuilt on the new tip, and it fails, with the written objects
// discarded, if that writer deleted one of the sources, because adding the
// rewrite then would bring deleted values back. A concurrent load only adds
// objects, so it never conflicts with a compaction and is never lost.

import { compare } from '../zed/compare';
import { TypeContext } from '../zed/context';
import { Value } from '../zed/value';
import { Action, addActions, CommitObject } from './commit';
import { CommitMessage } from './committer';
import { PoolConfig } from './config';
import { ChangeContext } from './changes';
import { invalid, isLakeError, notFound } from './errors';
import { Ksuid, uniqueIds } from './ksuid';
import { DataObject, sortObjects } from './object';
import { PoolWriter } from './writer';

/** Objects a commit message lists before it says "...". */
const MAX_MESSAGE_OBJECTS = 10;

/** Merges the objects into new sorted objects and commits the swap to the branch. */
export async function compactObjects(
  c: ChangeContext,
  pool: PoolConfig,
  branchName: string,
  ids: Ksuid[],
  msg: CommitMessage = {},
): Promise<CommitObject> {
  // As the reference: the count first, then the branch, then the objects.
  const tooFew = () => invalid('compact: two or more source objects required');
  if (ids.length < 2) throw tooFew();
  const head = await c.branches.lookup(pool, branchName);
  const unique = uniqueIds(ids);
  if (unique.length < 2) throw tooFew();
  const base = await c.commits.snapshot(pool.id, head.commit);
  const sources = unique.map((id) => {
    const o = base.get(id);
    if (!o) throw notFound(`${id}: commit object not found`);
    return o;
  });

  const w = new PoolWriter(c.storage, pool, c.ctx, c.cache);
  let rollup: DataObject[];
  try {
    const scan = c.scanObjects(pool, sortObjects(sources, pool.layout.order), head.commit, {
      ctx: new TypeContext(),
    });
    for (let batch = await scan.pull(); batch; batch = await scan.pull()) await w.write(batch);
    rollup = await w.close();
  } catch (e) {
    await w.abort();
    throw e;
  }
  if (rollup.length === 0) {
    await w.abort();
    throw invalid('compact: one or more rollup objects required');
  }
  try {
    return await c.committer.commit(pool, branchName, msg, async (_tip, snap) => {
      for (const o of sources) {
        if (!snap.get(o.id)) throw notFound(`${o.id}: commit object not found`);
      }
      return {
        actions: [
          ...addActions(rollup, w.vectors),
          ...sources.map((o): Action => ({ kind: 'delete', id: o.id })),
        ],
        message: compactMessage(sources, rollup),
      };
    });
  } catch (e) {
    // A lake error means the commit certainly did not happen.
    if (isLakeError(e)) await w.abort();
    throw e;
  }
}

/** The reference's description of a compaction commit. */
function compactMessage(sources: DataObject[], rollup: DataObject[]): string {
  const list = (objs: DataObject[], max: number) => {
    let s = '';
    for (let k = 0; k < objs.length; k++) {
      s += `  ${objs[k]}\n`;
      if (k >= max) s += '  ...\n';
    }
    return s;
  };
  const n = (k: number, w: string) => `${k} ${w}${k === 1 ? '' : 's'}`;
  return (
    `compacted ${n(sources.length, 'object')}\n\n${list(sources, MAX_MESSAGE_OBJECTS)}` +
    `\ncreated ${n(rollup.length, 'object')}\n\n` +
    list(rollup, MAX_MESSAGE_OBJECTS - sources.length)
  );
}

/** What the compaction planner needs of an object (as `:objects` lists it). */
export interface ObjectSpan {
  id: Ksuid;
  min: Value;
  max: Value;
  size: number;
}

/**
 * Picks runs of objects worth compacting, as the reference's `zed manage`
 * does. Objects come in the pool's scan order; only objects older than
 * coldMs (by the time in their ID) take part. An object joins the current
 * run when it is small (at most a quarter of the pool threshold) or
 * overlaps the run's key span; any other object ends the run. A run is
 * worth compacting when it has two or more objects and the ones the next
 * object does not overlap add up to more than half the pool threshold.
 * Also returns when the next hot object turns cold (ms since the epoch),
 * or null when none is hot.
 */
export function planCompaction<T extends ObjectSpan>(
  objects: readonly T[],
  threshold: number,
  coldMs: number,
  nowMs = Date.now(),
): { runs: T[][]; nextCold: number | null } {
  const runs: T[][] = [];
  let nextCold: number | null = null;
  let run: T[] = [];
  let lo: Value | null = null;
  let hi: Value | null = null;
  const send = (next: T | null) => {
    let uncovered = 0;
    for (const o of run) {
      if (!next || !spansOverlap(next.min, next.max, o.min, o.max)) uncovered += o.size;
    }
    if (run.length > 1 && uncovered > threshold / 2) runs.push(run);
    run = [];
    lo = hi = null;
  };
  for (const o of objects) {
    const born = o.id.timestamp * 1000;
    const cold = nowMs - born >= coldMs;
    if (!cold && (nextCold === null || born + coldMs < nextCold)) nextCold = born + coldMs;
    const overlaps = lo !== null && hi !== null && spansOverlap(lo, hi, o.min, o.max);
    if (cold && (o.size <= threshold / 4 || overlaps)) {
      run.push(o);
      if (lo === null || compare(o.min, lo, true) < 0) lo = o.min;
      if (hi === null || compare(o.max, hi, true) > 0) hi = o.max;
      continue;
    }
    send(o);
  }
  send(null);
  return { runs, nextCold };
}

/** Do [aMin, aMax] and [bMin, bMax] share a key (value order, nulls last)? */
function spansOverlap(aMin: Value, aMax: Value, bMin: Value, bMax: Value): boolean {
  return compare(aMin, bMax, true) <= 0 && compare(bMin, aMax, true) <= 0;
}
