// The durable register protocol (src/lake/registers.ts) under the
// interleavings that matter: replicas sharing a store and a coordinator
// that forgets its state (as Redis may) at the worst moments. Each case is
// forced deterministically by a coordinator that runs a step of another
// replica right after a swap.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Coordinator, StreamEvent } from '../../src/coord/coord';
import { LocalCoordinator } from '../../src/coord/local';
import { ABSENT, encodeVersion, journalKey, Registers } from '../../src/lake/registers';
import { LocalStore } from '../../src/storage/local';

/** A coordinator that runs `afterSwap` once, right after a successful swap. */
class Interleaving implements Coordinator {
  readonly location = 'interleaving';
  afterSwap: (() => Promise<void>) | null = null;
  constructor(private c: Coordinator) {}
  get(g: string, n: string) {
    return this.c.get(g, n);
  }
  list(g: string) {
    return this.c.list(g);
  }
  async compareAndSwap(g: string, n: string, e: string | null, next: string, ev?: string[]) {
    const ok = await this.c.compareAndSwap(g, n, e, next, ev);
    const hook = this.afterSwap;
    if (ok && hook) {
      this.afterSwap = null;
      await hook();
    }
    return ok;
  }
  load(g: string, r: Map<string, string>) {
    return this.c.load(g, r);
  }
  dropGroup(g: string) {
    return this.c.dropGroup(g);
  }
  publish(m: string) {
    return this.c.publish(m);
  }
  subscribe(h: (e: StreamEvent) => void, after?: string) {
    return this.c.subscribe(h, after);
  }
  ping() {
    return this.c.ping();
  }
  close() {
    return this.c.close();
  }
}

let dir: string;
let store: LocalStore;
let coord: LocalCoordinator;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'zlake-registers-'));
  store = new LocalStore(dir);
  coord = LocalCoordinator.memory();
});

afterEach(async () => {
  await coord.close();
  rmSync(dir, { recursive: true, force: true });
});

async function journal(seq: number): Promise<string | null> {
  try {
    return JSON.parse((await store.get(journalKey('g', 'r', seq))).toString()).value;
  } catch {
    return null;
  }
}

test('swaps are journaled; a coordinator that forgot everything is reloaded from the journal', async () => {
  const a = new Registers(store, coord);
  expect(await a.swap('g', 'r', await a.get('g', 'r'), 'one')).toBe('swapped');
  const v1 = await a.get('g', 'r');
  expect(await a.swap('g', 'r', v1, 'two')).toBe('swapped');
  expect(await a.swap('g', 'r', v1, 'stale')).toBe('lost');
  coord.forgetAll();
  const b = new Registers(store, coord);
  expect(await b.get('g', 'r')).toMatchObject({ seq: 2, value: 'two' });
  expect([await journal(1), await journal(2), await journal(3)]).toEqual(['one', 'two', null]);
});

test("a dead writer's unjournaled version is journaled before anything builds on it", async () => {
  const a = new Registers(store, coord);
  expect(await a.swap('g', 'r', await a.get('g', 'r'), 'one')).toBe('swapped');
  // A writer swapped the coordinator to version 2 and died before its journal write.
  await coord.compareAndSwap('g', 'r', encodeVersion(1, 'one'), encodeVersion(2, 'dead'));
  const b = new Registers(store, coord);
  const v2 = await b.get('g', 'r');
  expect(v2.value).toBe('dead');
  expect(await b.swap('g', 'r', v2, 'three')).toBe('swapped');
  expect([await journal(2), await journal(3)]).toEqual(['dead', 'three']);
  coord.forgetAll();
  expect((await new Registers(store, coord).get('g', 'r')).value).toBe('three');
});

test('a writer whose swap the coordinator forgot, and whose version another took, is overruled', async () => {
  const hooked = new Interleaving(coord);
  const x = new Registers(store, hooked);
  const b = new Registers(store, coord);
  expect(await b.swap('g', 'r', await b.get('g', 'r'), 'one')).toBe('swapped');
  const v1 = await x.get('g', 'r');
  // Between X's swap and its journal write, Redis loses everything and B
  // commits on the reloaded version 1.
  hooked.afterSwap = async () => {
    coord.forgetAll();
    const w = await b.get('g', 'r');
    expect(w.seq).toBe(1);
    expect(await b.swap('g', 'r', w, 'b')).toBe('swapped');
  };
  expect(await x.swap('g', 'r', v1, 'x')).toBe('overruled');
  expect(await journal(2)).toBe('b');
  expect((await x.get('g', 'r')).value).toBe('b');
  coord.forgetAll();
  expect((await b.get('g', 'r')).value).toBe('b');
});

test('a writer that reaches the journal first wins, and the coordinator is brought forward', async () => {
  const hooked = new Interleaving(coord);
  const x = new Registers(store, hooked);
  const b = new Registers(store, coord);
  expect(await b.swap('g', 'r', await b.get('g', 'r'), 'one')).toBe('swapped');
  const v1 = await x.get('g', 'r');
  let staleB = ABSENT;
  hooked.afterSwap = async () => {
    coord.forgetAll();
    // B reloads before X's journal write: it sees version 1.
    staleB = await b.get('g', 'r');
  };
  expect(await x.swap('g', 'r', v1, 'x')).toBe('swapped');
  expect(staleB.seq).toBe(1);
  // X's acknowledged version is what every reader sees now...
  expect((await b.get('g', 'r')).value).toBe('x');
  // ...and B, building on what it read before, loses.
  expect(await b.swap('g', 'r', staleB, 'b')).toBe('lost');
  expect([await journal(2), await journal(3)]).toEqual(['x', null]);
});
