// The commit protocol: every change to a branch is a new commit object
// whose parent is the tip the writer read, and it becomes part of the
// branch only when the branch's durable register moves from that tip to
// the new commit (registers.ts). A writer that loses the race rebuilds its
// commit on the new tip and tries again, so history stays linear and
// nothing acknowledged is lost. Data and commit objects are written before
// the swap, so a crash at any point leaves either the old tip or the whole
// new commit.

import { trace } from '@opentelemetry/api';
import { branchGroup, BranchRegistry } from './branches';
import { Action, CommitObject, SNAPSHOT_INTERVAL } from './commit';
import { CommitStore } from './commits';
import { BranchConfig, encodeBranch, nowNs, PoolConfig } from './config';
import { conflict } from './errors';
import { StreamedEvent } from './events';
import { Ksuid } from './ksuid';
import { CommitInfo } from './records';
import { Registers } from './registers';
import { Snapshot } from './snapshot';
import { Value } from '../zed/value';

/** Attempts at moving a branch tip before a commit gives up. */
export const MAX_COMMIT_RETRIES = 100;

const tracer = trace.getTracer('zlake');

/** Who made a commit and why (the service takes it from the Zed-Commit header). */
export interface CommitMessage {
  author?: string;
  /** The commit message; a description of the change when absent. */
  message?: string;
  /** Application metadata (any Zed value). */
  meta?: Value;
}

/** What a commit under construction contributes. */
export interface Built {
  actions: Action[];
  message: string;
  mergeSource?: Ksuid;
  /** Undo side effects of building when the commit is abandoned. */
  discard?: () => Promise<void>;
  /** The branch the commit event names as merged from (a merge's child). */
  eventBranch?: string;
  /** The commit event's parent field (a merge names the parent branch). */
  eventParent?: string;
}

/** Called as commits retry and give up (metrics). */
export interface CommitHooks {
  commitRetry?(): void;
  commitConflict?(): void;
}

export type Build = (head: BranchConfig, snap: Snapshot, retries: number) => Promise<Built>;

export class Committer {
  private queues = new Map<string, Promise<unknown>>();
  /** Commits under way (close waits for them). */
  private running = new Set<Promise<unknown>>();

  constructor(
    private registers: Registers,
    private branches: BranchRegistry,
    private commits: CommitStore,
    private hooks: CommitHooks = {},
  ) {}

  /**
   * Builds a commit on the branch's tip and moves the tip to it, rebuilding
   * on the new tip when another writer got there first. Commits of one
   * branch from this process go one at a time (they would only race),
   * though the next may start once the coordinator has taken this one:
   * its build overlaps this one's journal write.
   */
  commit(
    pool: PoolConfig,
    branchName: string,
    msg: CommitMessage,
    build: Build,
  ): Promise<CommitObject> {
    return this.serialize(`${pool.id}/${branchName}`, (release) =>
      tracer.startActiveSpan('lake.commit', async (span) => {
        span.setAttribute('zlake.pool', pool.name);
        span.setAttribute('zlake.branch', branchName);
        try {
          const c = await this.attempt(pool, branchName, msg, build, release);
          span.setAttribute('zlake.commit', c.id.toString());
          span.setAttribute('zlake.commit.retries', c.info.retries);
          return c;
        } finally {
          span.end();
        }
      }),
    );
  }

  private async attempt(
    pool: PoolConfig,
    branchName: string,
    msg: CommitMessage,
    build: Build,
    swapped: () => void,
  ): Promise<CommitObject> {
    for (let retries = 0; retries < MAX_COMMIT_RETRIES; retries++) {
      if (retries > 0) this.hooks.commitRetry?.();
      const { branch: head, version } = await this.branches.read(pool, branchName);
      const snap = await this.commits.snapshot(pool.id, head.commit);
      const built = await build(head, snap, retries);
      const id = Ksuid.generate();
      const embed = snap.distance + 1 >= SNAPSHOT_INTERVAL;
      const next = snap.apply(built.actions, embed ? 0 : snap.distance + 1);
      const info: CommitInfo = {
        id,
        parent: head.commit,
        retries: Math.min(retries, 255),
        author: msg.author ?? '',
        date: nowNs(),
        message: msg.message || built.message,
        meta: msg.meta ?? Value.null(),
      };
      const obj = new CommitObject(
        info,
        built.actions,
        embed ? next.list() : undefined,
        built.mergeSource,
        embed ? next.indexList() : undefined,
        embed ? next.vectorIds() : undefined,
      );
      await this.commits.put(pool.id, obj);
      const events = commitEvents(pool, built, branchName, id);
      const tip = encodeBranch({ ...head, commit: id });
      const result = await this.registers.swap(
        branchGroup(pool.id),
        branchName,
        version,
        tip,
        events,
        swapped,
      );
      if (result === 'swapped') {
        this.commits.remember(pool.id, id, next);
        return obj;
      }
      // Lost the race. An overruled commit object stays (a reader may have
      // seen the coordinator name it for a moment; nothing builds on it);
      // one nobody saw goes, with what was built for it.
      if (result === 'lost') await this.commits.remove(pool.id, id);
      await built.discard?.();
      await sleep(Math.random() * Math.min(50, 2 ** retries));
    }
    this.hooks.commitConflict?.();
    throw conflict(
      `branch ${JSON.stringify(branchName)}: exceeded max update attempts (${MAX_COMMIT_RETRIES}) to branch tip: commit failed`,
    );
  }

  /** Runs fn after the previous fn of key has ended or called its release. */
  private serialize<T>(key: string, fn: (release: () => void) => Promise<T>): Promise<T> {
    const prev = this.queues.get(key) ?? Promise.resolve();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const run = prev.then(() => fn(release));
    const settled = run.catch(() => undefined);
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    const tail = Promise.race([settled, released]);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }

  /** Resolves when the commits under way have finished. */
  async drain(): Promise<void> {
    await Promise.all([...this.running]);
  }
}

/**
 * The reference's two events for a commit (the branch's, then the pool's),
 * and the lake's own naming the objects it deleted.
 */
function commitEvents(pool: PoolConfig, built: Built, branch: string, commit: Ksuid): string[] {
  const poolId = pool.id.toString();
  const events: StreamedEvent[] = [
    {
      name: 'branch-commit',
      commit_id: commit.toString(),
      pool_id: poolId,
      branch: built.eventBranch ?? branch,
      parent: built.eventParent ?? '',
    },
    { name: 'pool-commit', pool_id: poolId, commit_id: commit.toString() },
  ];
  const dropped = built.actions.flatMap((a) => (a.kind === 'delete' ? [a.id.toString()] : []));
  if (dropped.length > 0)
    events.push({ name: 'objects-dropped', pool_id: poolId, objects: dropped });
  return events.map((e) => JSON.stringify(e));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
