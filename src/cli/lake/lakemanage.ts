// Lake upkeep through the service, as the reference's `zed manage`: for
// each pool's branch, compact runs of small or overlapping data objects
// (src/lake/compact.ts picks them) and apply index rules to objects not yet
// indexed. `update` does one pass; `monitor` keeps a pass going whenever a
// branch gets a commit, and when an object turns cold.

import { load as loadYaml } from 'js-yaml';
import { LakeClient, Pool } from '../../client';
import { Ksuid } from '../../lake/ksuid';
import { planCompaction } from '../../lake/compact';
import { readObject } from '../../lake/records';
import { Logger } from '../../service/log';
import { parseDuration } from '../../zed/nano';
import { fromSpec } from './lakeflags';

const DEFAULT_COMPACT_COLD_MS = 5 * 60 * 1000;
const DEFAULT_INDEX_COLD_MS = 10 * 60 * 1000;

export interface CompactConfig {
  disabled?: boolean;
  cold_threshold?: number;
}

export interface IndexConfig {
  disabled?: boolean;
  cold_threshold?: number;
  rules?: string[];
}

export interface PoolManageConfig {
  pool: string;
  branch?: string;
  compact?: CompactConfig;
  index?: IndexConfig & { inherit_rules?: boolean };
}

/** The -config file: defaults for every pool, and per-pool settings. */
export interface ManageConfig {
  compact: CompactConfig;
  index: IndexConfig;
  pools: PoolManageConfig[];
}

/** Parses the YAML config; unknown fields are errors, as the reference's. */
export function parseManageConfig(text: string, file: string): ManageConfig {
  let doc: unknown;
  try {
    doc = loadYaml(text) ?? {};
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message.split('\n')[0]}`);
  }
  const top = fields(doc, ['compact', 'index', 'pools'], file);
  const pools = top.pools ?? [];
  if (!Array.isArray(pools)) throw new Error(`${file}: pools: expected a list`);
  return {
    compact: compactConfig(top.compact, file),
    index: indexConfig(top.index, file, false),
    pools: pools.map((p) => {
      const f = fields(p, ['pool', 'branch', 'compact', 'index'], file);
      if (typeof f.pool !== 'string') throw new Error(`${file}: pools: pool must be a string`);
      return {
        pool: f.pool,
        branch: f.branch === undefined ? undefined : String(f.branch),
        compact: f.compact === undefined ? undefined : compactConfig(f.compact, file),
        index: f.index === undefined ? undefined : indexConfig(f.index, file, true),
      };
    }),
  };
}

function fields(v: unknown, known: string[], file: string): Record<string, unknown> {
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${file}: expected a mapping`);
  for (const k of Object.keys(v)) {
    if (!known.includes(k)) throw new Error(`${file}: field ${k} not found in config`);
  }
  return v as Record<string, unknown>;
}

function durationField(v: unknown, file: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const ns = parseDuration(String(v));
  if (ns === undefined) throw new Error(`${file}: cold_threshold: invalid duration ${v}`);
  return Number(ns / 1000000n);
}

function compactConfig(v: unknown, file: string): CompactConfig {
  const f = fields(v, ['disabled', 'cold_threshold'], file);
  return { disabled: f.disabled === true, cold_threshold: durationField(f.cold_threshold, file) };
}

function indexConfig(v: unknown, file: string, perPool: boolean) {
  const known = ['disabled', 'cold_threshold', 'rules', ...(perPool ? ['inherit_rules'] : [])];
  const f = fields(v, known, file);
  const rules = f.rules ?? [];
  if (!Array.isArray(rules)) throw new Error(`${file}: rules: expected a list`);
  return {
    disabled: f.disabled === true,
    cold_threshold: durationField(f.cold_threshold, file),
    rules: rules.map(String),
    inherit_rules: f.inherit_rules === true,
  };
}

/** An index rule as `from :index_rules` lists it. */
export interface RuleInfo {
  id: string;
  name: string;
}

/** What upkeep does on one pool's branch. */
export interface BranchPlan {
  pool: Pool;
  branch: string;
  compact: { enabled: boolean; coldMs: number };
  index: { enabled: boolean; coldMs: number; rules: RuleInfo[] };
}

/** The plan for a pool: its config entry over the defaults, rules resolved by name or ID. */
export function planFor(conf: ManageConfig, pool: Pool, rules: RuleInfo[]): BranchPlan {
  const entry = conf.pools.find((p) => p.pool === pool.name || p.pool === pool.id.toString());
  let compact = conf.compact;
  let index: IndexConfig = { ...conf.index, rules: [...(conf.index.rules ?? [])] };
  if (entry?.compact) {
    compact = {
      ...entry.compact,
      cold_threshold: entry.compact.cold_threshold ?? conf.compact.cold_threshold,
    };
  }
  if (entry?.index) {
    index = {
      disabled: entry.index.disabled,
      cold_threshold: entry.index.cold_threshold ?? conf.index.cold_threshold,
      rules: [
        ...(entry.index.rules ?? []),
        ...(entry.index.inherit_rules ? (conf.index.rules ?? []) : []),
      ],
    };
  }
  const enabled = !index.disabled && (index.rules?.length ?? 0) > 0;
  const resolved: RuleInfo[] = [];
  if (enabled) {
    for (const want of index.rules ?? []) {
      const r = rules.find((x) => x.name === want || x.id === want);
      if (!r) throw new Error(`could not find index rule ${JSON.stringify(want)}`);
      if (!resolved.some((x) => x.id === r.id)) resolved.push(r);
    }
    resolved.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  return {
    pool,
    branch: entry?.branch || 'main',
    compact: {
      enabled: !compact.disabled,
      coldMs: compact.cold_threshold ?? DEFAULT_COMPACT_COLD_MS,
    },
    index: {
      enabled,
      coldMs: index.cold_threshold ?? DEFAULT_INDEX_COLD_MS,
      rules: resolved,
    },
  };
}

/** The plan as the reference logs it (durations in seconds). */
function logConfig(p: BranchPlan) {
  return {
    compact: { enabled: p.compact.enabled, cold_threshold: p.compact.coldMs / 1000 },
    index: {
      enabled: p.index.enabled,
      cold_threshold: p.index.coldMs / 1000,
      rules: p.index.rules.map((r) => r.name),
    },
  };
}

/** Does upkeep for the lake's pools through a service. */
export class LakeManager {
  constructor(
    private client: LakeClient,
    private conf: ManageConfig,
    private log: Logger,
  ) {}

  /** The index rules the lake has (none when the service keeps none). */
  async rules(): Promise<RuleInfo[]> {
    const vals = (await this.client.queryJS('from :index_rules')) as {
      id?: string;
      name?: string;
    }[];
    return vals.map((r) => ({ id: String(r.id ?? ''), name: String(r.name ?? '') }));
  }

  /** The plans of every pool (throws on a config naming a rule the lake lacks). */
  async plans(): Promise<BranchPlan[]> {
    const wantsRules =
      (this.conf.index.rules?.length ?? 0) > 0 ||
      this.conf.pools.some((p) => (p.index?.rules?.length ?? 0) > 0);
    const rules = wantsRules ? await this.rules() : [];
    return (await this.client.pools()).map((p) => planFor(this.conf, p, rules));
  }

  /** One pass over every pool: `zlake manage update`. */
  async update(): Promise<void> {
    for (const plan of await this.plans()) {
      this.poolLog(plan).info('updating pool', { config: logConfig(plan) });
      await this.runTasks(plan);
    }
  }

  /**
   * Runs the plan's tasks once on the branch's current tip; returns when
   * the next object turns cold (ms since the epoch), or null.
   */
  async runTasks(plan: BranchPlan): Promise<number | null> {
    let next: number | null = null;
    const soonest = (t: number | null) => {
      if (t !== null && (next === null || t < next)) next = t;
    };
    if (plan.compact.enabled) soonest(await this.compact(plan));
    if (plan.index.enabled) soonest(await this.index(plan));
    return next;
  }

  private poolLog(plan: BranchPlan): Logger {
    return this.log.with(
      { name: plan.pool.name, id: plan.pool.id.toString(), branch: plan.branch },
      'pool',
    );
  }

  /** The branch's objects at its tip now (later commits do not change what a pass sees). */
  private async objectsAtTip(plan: BranchPlan) {
    const tip = await this.client.branchGet(plan.pool.id.toString(), plan.branch);
    const head = { pool: plan.pool.name, branch: tip.commit.toString() };
    const objects = (await this.client.queryValues(fromSpec(head, 'objects'))).map(readObject);
    return { head, objects };
  }

  private async compact(plan: BranchPlan): Promise<number | null> {
    const log = this.poolLog(plan).with({}, 'compact');
    log.debug('compaction started');
    const { objects } = await this.objectsAtTip(plan);
    const { runs, nextCold } = planCompaction(objects, plan.pool.threshold, plan.compact.coldMs);
    let compacted = 0;
    for (const run of runs) {
      const ids = run.map((o) => o.id.toString());
      const { commit } = await this.client.compact(plan.pool.id.toString(), plan.branch, ids);
      compacted += run.length;
      log.debug('compacted', { commit: commit.toString(), objects_compacted: run.length });
    }
    const fields = { runs_found: runs.length, objects_compacted: compacted };
    if (compacted > 0) log.info('compaction completed', fields);
    else log.debug('compaction completed', fields);
    return nextCold;
  }

  private async index(plan: BranchPlan): Promise<number | null> {
    const log = this.poolLog(plan).with({}, 'index');
    log.debug('index started');
    const { head, objects } = await this.objectsAtTip(plan);
    const indexed = await this.indexedRules(head);
    const now = Date.now();
    let nextCold: number | null = null;
    let done = 0;
    let created = 0;
    for (const o of objects) {
      const born = o.id.timestamp * 1000;
      if (now - born < plan.index.coldMs) {
        const t = born + plan.index.coldMs;
        if (nextCold === null || t < nextCold) nextCold = t;
        continue;
      }
      const have = indexed.get(o.id.toString()) ?? new Set<string>();
      const need = plan.index.rules.filter((r) => !have.has(r.id));
      if (need.length === 0) continue;
      const { commit } = await this.client.applyIndexRules(
        plan.pool.id.toString(),
        plan.branch,
        need.map((r) => r.id),
        [o.id.toString()],
      );
      done++;
      created += need.length;
      log.debug('indexed', {
        commit: commit.toString(),
        object: o.id.toString(),
        indexes_created: need.length,
      });
    }
    const fields = { objects_indexed: done, indexes_created: created };
    if (done > 0) log.info('index completed', fields);
    else log.debug('index completed', fields);
    return nextCold;
  }

  /** The rule IDs each object already has an index for (`:indexes`). */
  private async indexedRules(head: { pool: string; branch: string }) {
    const out = new Map<string, Set<string>>();
    const vals = (await this.client.queryJS(fromSpec(head, 'indexes'))) as {
      id?: string;
      rule?: { id?: string };
    }[];
    for (const v of vals) {
      const id = Ksuid.parse(String(v.id ?? ''))?.toString();
      const rule = v.rule?.id;
      if (!id || !rule) continue;
      if (!out.has(id)) out.set(id, new Set());
      out.get(id)!.add(String(rule));
    }
    return out;
  }

  /**
   * `zlake manage monitor`: runs each pool's tasks now, again after each
   * commit to its branch, and when the next object turns cold, until the
   * signal aborts. Pools created later are picked up; dropped ones left.
   */
  async monitor(signal: AbortSignal): Promise<void> {
    const monitors = new Map<string, BranchMonitor>();
    const watch = (plan: BranchPlan) => {
      const id = plan.pool.id.toString();
      if (monitors.has(id)) return;
      this.poolLog(plan).info('monitoring pool', { config: logConfig(plan) });
      const m = new BranchMonitor(this, plan, this.poolLog(plan));
      monitors.set(id, m);
      m.kick();
    };
    const plans = await this.plans();
    if (plans.length === 0) this.log.info('no pools found');
    plans.forEach(watch);
    const events = this.client.events();
    signal.addEventListener('abort', () => void events.return(undefined));
    try {
      for await (const ev of events) {
        if (signal.aborted) break;
        const d = (ev.data ?? {}) as { pool_id?: string; branch?: string };
        if (ev.type === 'pool-new' && d.pool_id) {
          const pool = await this.client.lookupPool(d.pool_id);
          watch(planFor(this.conf, pool, await this.rules().catch(() => [])));
        } else if (ev.type === 'pool-delete' && d.pool_id) {
          const m = monitors.get(d.pool_id);
          m?.stop();
          monitors.delete(d.pool_id);
        } else if (ev.type === 'branch-commit' && d.pool_id) {
          const m = monitors.get(d.pool_id);
          if (m && m.branch === d.branch) m.kick();
        }
      }
    } finally {
      for (const m of monitors.values()) m.stop();
    }
  }
}

/** Keeps one branch's tasks going: one pass at a time, rerun on new commits. */
class BranchMonitor {
  private running = false;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private manager: LakeManager,
    private plan: BranchPlan,
    private log: Logger,
  ) {}

  get branch(): string {
    return this.plan.branch;
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        const next = await this.manager.runTasks(this.plan);
        if (next !== null && !this.stopped) {
          if (this.timer) clearTimeout(this.timer);
          this.timer = setTimeout(() => this.kick(), Math.max(0, next - Date.now()) + 1000);
        }
      } while (this.again && !this.stopped);
    } catch (e) {
      this.log.error('task error', { error: (e as Error).message });
    } finally {
      this.running = false;
    }
  }
}
