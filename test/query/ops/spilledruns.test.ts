// SpilledRuns: how spilled runs are merged as they pile up. Runs here are
// labelled stand-ins (no files): a merge joins its runs' labels in order
// and counts the values it rewrites, which is the work a spill does.

import { BatchSource, FAN_IN, SpilledRuns } from '../../../src/query/runtime/ops/spill';
import { TypeNull } from '../../../src/zed/types';
import { EMPTY, Value } from '../../../src/zed/value';

/** A stand-in run: the spill numbers of the runs it holds, in order. */
class Run implements BatchSource {
  closed = false;
  constructor(readonly ids: number[]) {}
  async read(): Promise<Value[] | null> {
    return null;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A held run's values: one a spill, its number in the value's offset. */
function held(i: number): Value[] {
  return [new Value(TypeNull, EMPTY, i, -1)];
}

/** The spill numbers in a run, whichever kind it is. */
async function idsOf(r: BatchSource): Promise<number[]> {
  if (r instanceof Run) return r.ids;
  const ids: number[] = [];
  for (let b = await r.read(); b !== null; b = await r.read()) for (const v of b) ids.push(v.off);
  return ids;
}

async function allIds(rs: BatchSource[]): Promise<number[]> {
  const ids: number[] = [];
  for (const r of rs) ids.push(...(await idsOf(r)));
  return ids;
}

function stack(holdBytes = 0) {
  const merges: number[] = [];
  let rewritten = 0;
  const runs = new SpilledRuns(async (rs) => {
    const ids = await allIds(rs);
    merges.push(rs.length);
    rewritten += ids.length;
    for (const r of rs) await r.close();
    return new Run(ids);
  }, holdBytes);
  return { runs, merges, rewritten: () => rewritten };
}

describe('SpilledRuns', () => {
  test('merges by levels: each run is rewritten once a level, and order is kept', async () => {
    // FAN_IN² + 5 runs: two levels of merges. Merging each new batch of
    // runs into the first run (the old way) rewrote about N²/(2·FAN_IN)
    // runs: over 130 thousand here.
    const n = FAN_IN * FAN_IN + 5;
    const s = stack();
    for (let i = 0; i < n; i++) await s.runs.push(new Run([i]));
    expect(s.rewritten()).toBe(2 * FAN_IN * FAN_IN);
    expect(s.merges.every((k) => k === FAN_IN)).toBe(true);
    expect(s.runs.length).toBe(6);
    const left = await s.runs.take(FAN_IN);
    expect(await allIds(left)).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  test('take() merges the last runs until at most max are left, keeping order', async () => {
    const s = stack();
    const n = 3 * FAN_IN - 3; // levels: two runs of FAN_IN, then FAN_IN - 3 single runs
    for (let i = 0; i < n; i++) await s.runs.push(new Run([i]));
    expect(s.runs.length).toBe(2 + FAN_IN - 3);
    const left = await s.runs.take(10);
    expect(left.length).toBeLessThanOrEqual(10);
    expect(await allIds(left)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(s.runs.length).toBe(0);
  });

  test('small runs are held in memory and written out together', async () => {
    // Each held run of one value counts VALUE_OVERHEAD (64) bytes: 1000
    // bytes hold 15 of them.
    const s = stack(1000);
    for (let i = 0; i < 15; i++) {
      expect(s.runs.canHold(64)).toBe(true);
      await s.runs.hold(held(i), 64);
    }
    expect(s.merges).toEqual([]);
    await s.runs.hold(held(15), 64);
    // Past the budget: the sixteen held runs became one written run.
    expect(s.merges).toEqual([16]);
    expect(s.runs.length).toBe(1);
    for (let i = 16; i < 20; i++) await s.runs.hold(held(i), 64);
    expect(s.runs.canHold(1001)).toBe(false);
    const left = await s.runs.take(FAN_IN);
    expect(left.length).toBe(5);
    expect(await allIds(left)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  test('a run in a file after held runs: the held ones are written out first, as one', async () => {
    const s = stack(1000);
    for (let i = 0; i < 3; i++) await s.runs.hold(held(i), 64);
    await s.runs.push(new Run([3]));
    expect(s.merges).toEqual([3]);
    // Held runs after it are held again, and the bytes counted are theirs.
    await s.runs.hold(held(4), 64);
    expect(s.merges).toEqual([3]);
    expect(s.runs.memory.bytes).toBe(64);
    expect(await allIds(await s.runs.take(FAN_IN))).toEqual([0, 1, 2, 3, 4]);
  });

  test('memory counts held runs until they are closed, after take() too', async () => {
    const s = stack(10_000);
    for (let i = 0; i < 5; i++) await s.runs.hold(held(i), 100);
    expect(s.runs.memory.bytes).toBe(500);
    const runs = await s.runs.take(FAN_IN);
    expect(s.runs.memory.bytes).toBe(500);
    for (const r of runs) {
      await r.close();
      await r.close();
    }
    expect(s.runs.memory.bytes).toBe(0);
    // Merged runs let their memory go: 64 held runs become one file.
    for (let i = 0; i < FAN_IN; i++) await s.runs.hold(held(i), 100);
    expect(s.merges).toEqual([FAN_IN]);
    expect(s.runs.memory.bytes).toBe(0);
  });

  test('levels never rise along the list, whatever the mix of held and written runs', async () => {
    // Rising levels stop the merges at the end of the list (they look for
    // FAN_IN runs of one level there), and a held run written out right
    // after a run in a file used to rise above it.
    const s = stack(1000);
    const n = 20_000;
    const rising = (l: readonly number[]) => l.some((x, i) => i > 0 && x > l[i - 1]);
    let rose = 0;
    for (let i = 0; i < n; i++) {
      if (i % 7 === 0) await s.runs.push(new Run([i]));
      else await s.runs.hold(held(i), 300);
      if (rising(s.runs.levelList)) rose++;
    }
    expect(rose).toBe(0);
    expect(s.runs.length).toBeLessThan(3 * FAN_IN);
    expect(await allIds(await s.runs.take(FAN_IN))).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  test('close() during a merge closes the merged run and keeps nothing', async () => {
    let release: () => void = () => undefined;
    const merged = new Run([0, 1]);
    const runs = new SpilledRuns(async (rs) => {
      await new Promise<void>((r) => (release = r));
      for (const r of rs) await r.close();
      return merged;
    }, 1000);
    await runs.hold(held(0), 600);
    const pending = runs.hold(held(1), 600);
    await new Promise((r) => setImmediate(r));
    await runs.close();
    release();
    await pending;
    expect(merged.closed).toBe(true);
    expect(runs.length).toBe(0);
    expect(runs.memory.bytes).toBe(0);
  });

  test('close() closes the runs still held', async () => {
    const s = stack();
    const rs = [new Run([0]), new Run([1])];
    for (const r of rs) await s.runs.push(r);
    await s.runs.close();
    expect(rs.every((r) => r.closed)).toBe(true);
    expect(s.runs.length).toBe(0);
  });
});
