// Branches: a pool's named pointers to commits, one durable register each
// in the pool's group `<pool-id>/branches` (see registers.ts). Creating and
// deleting a branch are swaps of its register; moving a branch's tip is the
// commit protocol's (committer.ts).

import { CommitStore } from './commits';
import { BranchConfig, decodeBranch, encodeBranch, nowNs, PoolConfig } from './config';
import { conflict, invalid, notFound } from './errors';
import { LakeEvent } from './events';
import { Ksuid } from './ksuid';
import { Registers, Version } from './registers';

/** The register group holding a pool's branches. */
export function branchGroup(pool: Ksuid): string {
  return `${pool}/branches`;
}

export class BranchRegistry {
  constructor(
    private registers: Registers,
    private commits: CommitStore,
  ) {}

  /** A pool's branches, by name. */
  async list(pool: PoolConfig): Promise<BranchConfig[]> {
    const out: BranchConfig[] = [];
    for (const [name, v] of await this.registers.list(branchGroup(pool.id)))
      out.push(decodeBranch(name, v.value!));
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The branch and the register version it was read at. */
  async read(pool: PoolConfig, name: string): Promise<{ branch: BranchConfig; version: Version }> {
    const version = await this.registers.get(branchGroup(pool.id), name);
    if (version.value === null) throw notFound(`${JSON.stringify(name)}: branch not found`);
    return { branch: decodeBranch(name, version.value), version };
  }

  async lookup(pool: PoolConfig, name: string): Promise<BranchConfig> {
    return (await this.read(pool, name)).branch;
  }

  /** Creates a branch pointing at commit (which must be in the pool). */
  async create(
    pool: PoolConfig,
    name: string,
    commit: Ksuid,
    opts: { quiet?: boolean } = {},
  ): Promise<BranchConfig> {
    if (name === '') throw invalid('branch name cannot be empty');
    if (!commit.isNil) await this.commits.get(pool.id, commit);
    const branch: BranchConfig = { ts: nowNs(), name, commit };
    const group = branchGroup(pool.id);
    const event: LakeEvent = { name: 'branch-update', pool_id: pool.id.toString(), branch: name };
    for (;;) {
      const cur = await this.registers.get(group, name);
      if (cur.value !== null) throw conflict(`${pool.name}/${name}: branch already exists`);
      const events = opts.quiet ? [] : [JSON.stringify(event)];
      if ((await this.registers.swap(group, name, cur, encodeBranch(branch), events)) === 'swapped')
        return branch;
    }
  }

  async remove(pool: PoolConfig, name: string, opts: { quiet?: boolean } = {}): Promise<void> {
    const { branch, version } = await this.read(pool, name);
    const event: LakeEvent = { name: 'branch-delete', pool_id: pool.id.toString(), branch: name };
    const events = opts.quiet ? [] : [JSON.stringify(event)];
    if (
      (await this.registers.swap(branchGroup(pool.id), name, version, null, events)) !== 'swapped'
    ) {
      throw conflict(
        `${JSON.stringify(name)}: branch at commit ${branch.commit} operated on during removal.. aborted`,
      );
    }
  }

  /** Removes every branch of a pool that is not (or no longer) in the catalog. */
  removeAll(pool: PoolConfig): Promise<void> {
    return this.registers.destroy(branchGroup(pool.id));
  }

  /** A commit ID (either form) or a branch name, as the branch's tip. */
  async resolve(pool: PoolConfig, revision: string): Promise<Ksuid> {
    const id = Ksuid.parse(revision);
    if (id) return id;
    return (await this.lookup(pool, revision)).commit;
  }
}
