// Indexing a branch's data objects: "apply" (some rules to some objects)
// and "update" (rules to every object that lacks them). Index objects are
// built from the tip read when the request starts, written to the store,
// and committed with one commits.AddIndex per index object, through the
// commit protocol like any change. If the tip moved meanwhile, the commit
// keeps only the index objects whose data objects are still there and not
// indexed by now; if none are left it is an empty transaction.

import { ValueReader } from '../../formats/io';
import { TypeContext } from '../../zed/context';
import { ObjectStore } from '../../storage/storage';
import { BranchRegistry } from '../branches';
import { Action, CommitObject } from '../commit';
import { CommitStore } from '../commits';
import { Committer } from '../committer';
import { PoolConfig } from '../config';
import { invalid } from '../errors';
import { Ksuid, uniqueIds } from '../ksuid';
import { DataObject, sortObjects } from '../object';
import { Snapshot } from '../snapshot';
import { buildIndexes, ScriptRunner } from './build';
import { IndexObject } from './object';
import { IndexRule } from './rules';

/** The author of index commits, as the reference names it. */
const AUTHOR = 'indexer';

/** Data objects indexed at once. */
const CONCURRENCY = 4;

export interface IndexOptions {
  /** Runs agg rules' scripts (the query layer's engine). */
  runScript?: ScriptRunner;
}

/** What indexing needs of the lake. */
export interface IndexChangeContext {
  storage: ObjectStore;
  ctx: TypeContext;
  commits: CommitStore;
  committer: Committer;
  branches: BranchRegistry;
  /** A reader of one object's values in stored order. */
  readObject(pool: PoolConfig, o: DataObject, commit: Ksuid, ctx: TypeContext): ValueReader;
}

/** The reference's commit message: the rules' names, each once. */
function indexMessage(rules: readonly IndexRule[]): string {
  const names = [...new Set(rules.map((r) => r.name))];
  return names.length === 0 ? '' : `index rules applied: ${names.join(',')}`;
}

/**
 * The data objects tags name at the tip: an object the branch has, or a
 * commit of the pool (the objects it added that the branch still has).
 */
async function resolveTags(
  c: IndexChangeContext,
  pool: PoolConfig,
  tip: Snapshot,
  tags: readonly Ksuid[],
): Promise<DataObject[]> {
  const out = new Map<string, DataObject>();
  for (const tag of uniqueIds([...tags])) {
    const o = tip.get(tag);
    if (o) {
      out.set(o.id.toString(), o);
      continue;
    }
    // Not an object of the branch: a commit of the pool (CommitStore.get
    // answers an unknown one with the same not-found text).
    const commit = await c.commits.get(pool.id, tag);
    for (const a of commit.actions) {
      if (a.kind !== 'add') continue;
      const live = tip.get(a.object.id);
      if (live) out.set(live.id.toString(), live);
    }
  }
  return [...out.values()];
}

/** Applies the rules to the objects tags name (those not indexed by them yet). */
export async function applyIndexRules(
  c: IndexChangeContext,
  pool: PoolConfig,
  branchName: string,
  rules: readonly IndexRule[],
  tags: readonly Ksuid[],
  opts: IndexOptions = {},
): Promise<CommitObject> {
  if (rules.length === 0) throw invalid('index apply: no index rules given');
  const head = await c.branches.lookup(pool, branchName);
  const tip = await c.commits.snapshot(pool.id, head.commit);
  const objects = await resolveTags(c, pool, tip, tags);
  return indexAndCommit(c, pool, branchName, head.commit, tip, objects, rules, opts);
}

/** Applies the rules (all the lake has, when the caller passes them all) to every object lacking them. */
export async function updateIndexes(
  c: IndexChangeContext,
  pool: PoolConfig,
  branchName: string,
  rules: readonly IndexRule[],
  opts: IndexOptions = {},
): Promise<CommitObject> {
  const head = await c.branches.lookup(pool, branchName);
  const tip = await c.commits.snapshot(pool.id, head.commit);
  const objects = sortObjects(tip.list(), pool.layout.order);
  return indexAndCommit(c, pool, branchName, head.commit, tip, objects, rules, opts);
}

async function indexAndCommit(
  c: IndexChangeContext,
  pool: PoolConfig,
  branchName: string,
  commit: Ksuid,
  tip: Snapshot,
  objects: readonly DataObject[],
  rules: readonly IndexRule[],
  opts: IndexOptions,
): Promise<CommitObject> {
  const work = objects
    .map((o) => ({ o, rules: rules.filter((r) => !tip.indexesOf(o.id).has(r.id.toString())) }))
    .filter((w) => w.rules.length > 0);
  if (work.length === 0) throw invalid('empty transaction');
  const built: IndexObject[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < work.length; i = next++) {
      const { o, rules: todo } = work[i];
      const made = await buildIndexes(
        {
          storage: c.storage,
          metaCtx: c.ctx,
          open: (ctx) => c.readObject(pool, o, commit, ctx),
          runScript: opts.runScript,
        },
        pool.id,
        o.id,
        todo,
      );
      built.push(...made);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, work.length) }, worker));
  // Commit in the objects' order, whatever order the builds finished in.
  const order = new Map(work.map((w, i) => [w.o.id.toString(), i]));
  built.sort((a, b) => order.get(a.id.toString())! - order.get(b.id.toString())!);
  return c.committer.commit(pool, branchName, { author: AUTHOR }, async (_head, snap) => {
    const actions: Action[] = built
      .filter((x) => snap.has(x.id) && !snap.indexesOf(x.id).has(x.rule.id.toString()))
      .map((object) => ({ kind: 'addIndex', object }));
    if (actions.length === 0) throw invalid('empty transaction');
    return { actions, message: indexMessage(rules) };
  });
}
