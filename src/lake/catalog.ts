// The pool catalog: every pool's configuration, in one durable register
// (group `catalog`, name `pools`) so that pool names stay unique across
// replicas: a create or rename swaps the whole catalog from the version it
// read, and loses to any concurrent change of it.

import { BranchRegistry } from './branches';
import {
  BranchConfig,
  decodeCatalog,
  DEFAULT_SEEK_STRIDE,
  DEFAULT_THRESHOLD,
  encodeCatalog,
  nowNs,
  parseOrder,
  PoolConfig,
  SortKey,
} from './config';
import { conflict, invalid, notFound } from './errors';
import { LakeEvent } from './events';
import { Ksuid } from './ksuid';
import { Registers, Version } from './registers';

const GROUP = 'catalog';
const NAME = 'pools';

export interface PoolOptions {
  layout?: { order?: string; keys?: string[][] };
  seekStride?: number;
  threshold?: number;
  /** Write a columnar copy of each data object at load time (default true). */
  vectors?: boolean;
}

export class PoolCatalog {
  /** The last catalog decoded, by its register version. */
  private decoded: { raw: string | null; pools: PoolConfig[] } = { raw: null, pools: [] };

  constructor(
    private registers: Registers,
    private branches: BranchRegistry,
  ) {}

  private async read(): Promise<{ version: Version; pools: PoolConfig[] }> {
    const version = await this.registers.get(GROUP, NAME);
    if (version.raw !== this.decoded.raw)
      this.decoded = { raw: version.raw, pools: decodeCatalog(version.value) };
    return { version, pools: this.decoded.pools };
  }

  /** Swaps the catalog from the version read to next, with an event. */
  private async swap(version: Version, next: PoolConfig[], event: LakeEvent): Promise<boolean> {
    const events = [JSON.stringify(event)];
    return (
      (await this.registers.swap(GROUP, NAME, version, encodeCatalog(next), events)) === 'swapped'
    );
  }

  /** Every pool, by name. */
  async list(): Promise<PoolConfig[]> {
    const { pools } = await this.read();
    return [...pools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * A pool by ID (either ID form) or name. As in the reference, a string
   * that parses as an ID is taken as one.
   */
  async lookup(ref: string): Promise<PoolConfig> {
    if (ref === '') throw invalid('no pool name given');
    const id = Ksuid.parse(ref);
    const { pools } = await this.read();
    const p = id ? pools.find((x) => x.id.equals(id)) : pools.find((x) => x.name === ref);
    if (!p) throw notFound(`${id ? id.toString() : ref}: pool not found`);
    return p;
  }

  async create(
    name: string,
    opts: PoolOptions = {},
  ): Promise<{ pool: PoolConfig; branch: BranchConfig }> {
    if (name === 'HEAD') throw invalid(`pool cannot be named "HEAD"`);
    if (name === '') throw invalid('pool name cannot be empty');
    const layout = checkLayout(opts.layout);
    const seekStride = opts.seekStride || DEFAULT_SEEK_STRIDE;
    const threshold = opts.threshold || DEFAULT_THRESHOLD;
    if (!(seekStride > 0) || !(threshold > 0))
      throw invalid('seek stride and threshold must be positive');
    const pool: PoolConfig = {
      ts: nowNs(),
      name,
      id: Ksuid.generate(),
      layout,
      seekStride,
      threshold,
      vectors: opts.vectors ?? true,
    };
    // The main branch first: until the catalog names the pool it is unseen.
    const branch = await this.branches.create(pool, 'main', Ksuid.nil, { quiet: true });
    for (;;) {
      const { version, pools } = await this.read();
      if (pools.some((p) => p.name === name)) {
        await this.branches.removeAll(pool);
        throw conflict(`${name}: pool already exists`);
      }
      const event: LakeEvent = { name: 'pool-new', pool_id: pool.id.toString() };
      if (await this.swap(version, [...pools, pool], event)) break;
    }
    return { pool, branch };
  }

  async rename(ref: string, newName: string): Promise<void> {
    const { id } = await this.lookup(ref);
    if (newName === '') throw invalid('pool name cannot be empty');
    for (;;) {
      const { version, pools } = await this.read();
      const cur = pools.find((p) => p.id.equals(id));
      if (!cur) throw notFound(`${id}: pool not found`);
      if (pools.some((p) => p.name === newName)) throw conflict(`${newName}: pool already exists`);
      const next = pools.map((p) => (p === cur ? { ...p, name: newName } : p));
      if (await this.swap(version, next, { name: 'pool-update', pool_id: id.toString() })) return;
    }
  }

  /** Takes a pool out of the catalog; the caller removes what it held. */
  async remove(ref: string): Promise<PoolConfig> {
    const pool = await this.lookup(ref);
    for (;;) {
      const { version, pools } = await this.read();
      if (!pools.some((p) => p.id.equals(pool.id))) throw notFound(`${pool.id}: pool not found`);
      const next = pools.filter((p) => !p.id.equals(pool.id));
      if (await this.swap(version, next, { name: 'pool-delete', pool_id: pool.id.toString() }))
        return pool;
    }
  }
}

function checkLayout(l: PoolOptions['layout']): SortKey {
  const order = l?.order ? parseOrder(l.order) : 'asc';
  const keys = l?.keys && l.keys.length > 0 ? l.keys : [['ts']];
  for (const k of keys) {
    if (!Array.isArray(k) || k.some((f) => typeof f !== 'string'))
      throw invalid('pool keys must be arrays of field names');
  }
  return { order, keys };
}
