// The lake's index rules, in one durable register (group `catalog`, name
// `index_rules`) beside the pool catalog: the same coordinator swap and
// journal (registers.ts), so every replica agrees on the rules and they
// survive the coordinator losing its state. A change swaps the whole list
// from the version it read and starts again if it lost the race, so two
// clients adding the same rule at once cannot both succeed.

import { goQuote } from '../../formats/zson/gotext';
import { conflict, notFound } from '../errors';
import { Ksuid } from '../ksuid';
import { Registers, Version } from '../registers';
import { decodeRules, encodeRules, equivalent, IndexRule, sortRules } from './rules';

const GROUP = 'catalog';
const NAME = 'index_rules';

export class IndexRuleStore {
  /** The last list decoded, by its register version. */
  private decoded: { raw: string | null; rules: IndexRule[] } = { raw: null, rules: [] };

  constructor(private registers: Registers) {}

  private async read(): Promise<{ version: Version; rules: IndexRule[] }> {
    const version = await this.registers.get(GROUP, NAME);
    if (version.raw !== this.decoded.raw)
      this.decoded = { raw: version.raw, rules: decodeRules(version.value) };
    return { version, rules: this.decoded.rules };
  }

  private async swap(version: Version, next: IndexRule[]): Promise<boolean> {
    return (await this.registers.swap(GROUP, NAME, version, encodeRules(next))) === 'swapped';
  }

  /** Every rule, by name then creation time. */
  async list(): Promise<IndexRule[]> {
    return sortRules((await this.read()).rules);
  }

  /**
   * Adds the rules, all or none: a rule whose ID is taken, or that repeats
   * a rule of the same name (an equivalent one), fails the whole request.
   */
  async add(rules: readonly IndexRule[]): Promise<void> {
    for (;;) {
      const { version, rules: have } = await this.read();
      const next = [...have];
      for (const r of rules) {
        if (next.some((x) => x.id.equals(r.id)))
          throw conflict(`rule ${goQuote(r.id.toString())}: ID in use`);
        if (next.some((x) => x.name === r.name && equivalent(x, r)))
          throw conflict('index rule already exists');
        next.push(r);
      }
      if (await this.swap(version, next)) return;
    }
  }

  /** Drops the rules with these IDs, all or none; returns them. */
  async drop(ids: readonly Ksuid[]): Promise<IndexRule[]> {
    for (;;) {
      const { version, rules: have } = await this.read();
      const dropped: IndexRule[] = [];
      for (const id of ids) {
        if (dropped.some((r) => r.id.equals(id))) continue;
        const r = have.find((x) => x.id.equals(id));
        if (!r) throw notFound(`index ${id} not found`);
        dropped.push(r);
      }
      const next = have.filter((x) => !dropped.includes(x));
      if (dropped.length === 0 || (await this.swap(version, next))) return dropped;
    }
  }

  /**
   * The rules each reference names: a rule name (every rule of that name)
   * or a rule ID in either form. Each rule once, in the order named.
   */
  async lookup(refs: readonly string[]): Promise<IndexRule[]> {
    const { rules } = await this.read();
    const out: IndexRule[] = [];
    for (const ref of refs) {
      const id = Ksuid.parse(ref);
      const found = rules.filter((r) => r.name === ref || (id !== undefined && r.id.equals(id)));
      if (found.length === 0) throw notFound(`rule ${goQuote(id ? id.toString() : ref)} not found`);
      for (const r of sortRules(found)) if (!out.includes(r)) out.push(r);
    }
    return out;
  }
}
