// Durable registers: the pool catalog and the branch heads. This file is
// the lake's commit point; docs/architecture.md ("The commit protocol")
// argues why it is safe, step by step.
//
// A register is a sequence of versions 1, 2, 3, ...; version n holds a
// value (text) or a tombstone. Two places hold it:
//
//   - the coordinator (Redis, or memory for the embedded lake) holds the
//     current version and changes it by compare-and-swap: this is how
//     replicas agree quickly and serialise writers;
//   - the object store (S3, or the lake directory) holds the journal: one
//     immutable object per version, `<group>/<hex name>/<seq>`, created
//     only if absent. The journal is the truth: a coordinator that lost
//     its state is reloaded from it.
//
// A swap from version n to n+1 is acknowledged only when both hold n+1,
// and a version is built on only once the journal holds it. So the
// journal's versions of a register always form one chain, every
// acknowledged version is in it, and a reload from it never brings back
// a version that lost.

import { trace } from '@opentelemetry/api';
import { Coordinator, isGroupNotLoaded } from '../coord/coord';
import { ObjectStore } from '../storage/storage';

/** One version of a register. seq 0 (value null) is "never written". */
export interface Version {
  seq: number;
  /** The register's value; null when absent or deleted. */
  value: string | null;
  /** The version's encoding, as both the coordinator and the journal hold it. */
  raw: string | null;
}

export const ABSENT: Version = { seq: 0, value: null, raw: null };

/**
 * How a swap ended: `swapped` (durable and current), `lost` (the register
 * was not at the expected version; nobody saw the new one), or `overruled`
 * (the coordinator took it, then the journal held another version: readers
 * may have seen it for a moment, but nothing builds on it).
 */
export type SwapResult = 'swapped' | 'lost' | 'overruled';

const SEQ_DIGITS = 16;
const tracer = trace.getTracer('zlake');

export function encodeVersion(seq: number, value: string | null): string {
  return JSON.stringify({ seq, value });
}

export function decodeVersion(raw: string | null): Version {
  if (raw === null) return ABSENT;
  const j = JSON.parse(raw) as { seq: number; value: string | null };
  if (!Number.isSafeInteger(j.seq) || j.seq < 1) throw new Error(`corrupt register: ${raw}`);
  return { seq: j.seq, value: j.value ?? null, raw };
}

/** Storage key prefix of a register's journal. */
export function journalPrefix(group: string, name: string): string {
  return `${group}/${Buffer.from(name, 'utf8').toString('hex')}/`;
}

export function journalKey(group: string, name: string, seq: number): string {
  return journalPrefix(group, name) + String(seq).padStart(SEQ_DIGITS, '0');
}

export class Registers {
  /** Versions known to be in the journal (so building on them needs no read). */
  private journaled = new Map<string, string>();
  /** Journal writes under way, by register and version text. */
  private journaling = new Map<string, Promise<boolean>>();
  private recovering = new Map<string, Promise<void>>();

  constructor(
    private store: ObjectStore,
    private coord: Coordinator,
  ) {}

  /** The register's current version. */
  get(group: string, name: string): Promise<Version> {
    return this.loaded(group, async () => decodeVersion(await this.coord.get(group, name)));
  }

  /** The group's live registers (tombstones left out). */
  list(group: string): Promise<Map<string, Version>> {
    return this.loaded(group, async () => {
      const out = new Map<string, Version>();
      for (const [name, raw] of await this.coord.list(group)) {
        const v = decodeVersion(raw);
        if (v.value !== null) out.set(name, v);
      }
      return out;
    });
  }

  /**
   * Moves the register from `expected` to a new version holding `next`
   * (null: delete), publishing `events` with the swap. Unless it resolves
   * `swapped`, the caller rereads the register and decides again.
   */
  swap(
    group: string,
    name: string,
    expected: Version,
    next: string | null,
    events?: string[],
    onSwapped?: () => void,
  ): Promise<SwapResult> {
    return tracer.startActiveSpan('registers.swap', async (span) => {
      span.setAttribute('zlake.register', `${group}/${name}`);
      span.setAttribute('zlake.register.seq', expected.seq + 1);
      try {
        return await this.swapVersion(group, name, expected, next, events, onSwapped);
      } finally {
        span.end();
      }
    });
  }

  private async swapVersion(
    group: string,
    name: string,
    expected: Version,
    next: string | null,
    events: string[] | undefined,
    onSwapped: (() => void) | undefined,
  ): Promise<SwapResult> {
    // 1. Build only on a journaled version: a version the coordinator got
    // from a writer that died, or that lost in the journal after the
    // coordinator forgot its state, must not gain a successor.
    if (!(await this.ensureJournaled(group, name, expected))) return 'lost';
    // 2. The coordinator's swap serialises writers.
    const raw = encodeVersion(expected.seq + 1, next);
    let swapped: boolean;
    try {
      swapped = await this.coord.compareAndSwap(group, name, expected.raw, raw, events);
    } catch (e) {
      if (!isGroupNotLoaded(e)) throw e;
      await this.recover(group);
      return 'lost';
    }
    if (!swapped) return 'lost';
    // 3. The journal decides: the version is ours only if we created it or
    // someone (a writer building on it) wrote exactly it for us. A writer
    // of this process building on it meanwhile waits for this write
    // (ensureJournaled) rather than racing it.
    const written = this.journal(group, name, expected.seq + 1, raw);
    onSwapped?.();
    if (!(await written)) {
      await this.resync(group, name);
      return 'overruled';
    }
    // 4. If the coordinator forgot its state since step 2, it may hold an
    // older version; bring it forward so readers see what we acknowledge.
    await this.advance(group, name, decodeVersion(raw));
    return 'swapped';
  }

  /** True when the journal holds v (writing it there if nobody has). */
  private async ensureJournaled(group: string, name: string, v: Version): Promise<boolean> {
    if (v.raw === null) return true;
    if (this.journaled.get(`${group}\0${name}`) === v.raw) return true;
    if (await this.journal(group, name, v.seq, v.raw)) return true;
    await this.resync(group, name);
    return false;
  }

  /**
   * Creates version seq's journal entry with raw unless it exists: true
   * when the journal then holds raw, false when it holds another version.
   */
  private journal(group: string, name: string, seq: number, raw: string): Promise<boolean> {
    const ck = `${group}\0${name}`;
    const wk = `${ck}\0${raw}`;
    let p = this.journaling.get(wk);
    if (!p) {
      p = (async () => {
        const key = journalKey(group, name, seq);
        const ok =
          (await this.store.putIfAbsent(key, Buffer.from(raw))) ||
          (await this.store.get(key)).toString('utf8') === raw;
        if (ok) this.journaled.set(ck, raw);
        return ok;
      })().finally(() => this.journaling.delete(wk));
      this.journaling.set(wk, p);
    }
    return p;
  }

  /** Makes the coordinator hold at least version v (which is journaled). */
  private async advance(group: string, name: string, v: Version): Promise<void> {
    for (;;) {
      let cur: Version;
      try {
        cur = decodeVersion(await this.coord.get(group, name));
        if (cur.seq > v.seq || cur.raw === v.raw) return;
        if (await this.coord.compareAndSwap(group, name, cur.raw, v.raw!)) return;
      } catch (e) {
        if (!isGroupNotLoaded(e)) throw e;
        await this.recover(group);
      }
    }
  }

  /**
   * After the journal contradicted the coordinator: sets the coordinator to
   * the journal's latest version of the register, unless the coordinator is
   * already past it (a swap whose journal write is still under way).
   */
  private async resync(group: string, name: string): Promise<void> {
    const latest = await this.latestInJournal(group, name);
    if (latest) await this.advance(group, name, latest);
  }

  private async latestInJournal(group: string, name: string): Promise<Version | null> {
    const keys = await this.store.list(journalPrefix(group, name));
    if (keys.length === 0) return null;
    const raw = (await this.store.get(keys[keys.length - 1])).toString('utf8');
    return decodeVersion(raw);
  }

  /** Runs op, reloading the group from the journal first when the coordinator lacks it. */
  private async loaded<T>(group: string, op: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await op();
      } catch (e) {
        if (!isGroupNotLoaded(e) || attempt > 8) throw e;
        await this.recover(group);
      }
    }
  }

  /** Loads the group into the coordinator from the journal (once per process at a time). */
  recover(group: string): Promise<void> {
    let p = this.recovering.get(group);
    if (!p) {
      p = this.reload(group).finally(() => this.recovering.delete(group));
      this.recovering.set(group, p);
    }
    return p;
  }

  private async reload(group: string): Promise<void> {
    // Keys sort by name then sequence, so the last key of each name is its
    // latest version.
    const latest = new Map<string, string>();
    const prefix = `${group}/`;
    for (const key of await this.store.list(prefix)) {
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) continue;
      latest.set(rest.slice(0, slash), key);
    }
    const registers = new Map<string, string>();
    await Promise.all(
      [...latest].map(async ([hex, key]) => {
        const raw = (await this.store.get(key)).toString('utf8');
        decodeVersion(raw);
        registers.set(Buffer.from(hex, 'hex').toString('utf8'), raw);
      }),
    );
    await this.coord.load(group, registers);
  }

  /** Removes a group's registers and their journal (a dropped pool's branches). */
  async destroy(group: string): Promise<void> {
    await this.store.deleteByPrefix(`${group}/`);
    for (const k of this.journaled.keys()) if (k.startsWith(`${group}\0`)) this.journaled.delete(k);
    await this.coord.dropGroup(group);
  }
}
