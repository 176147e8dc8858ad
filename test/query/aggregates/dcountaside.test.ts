import fc from 'fast-check';
import { formatValue } from '../../../src/formats/zson';
import { codeOf, DCountColumn } from '../../../src/query/aggregates/dcount';
import { asideConfig, asideLeased, DCountAside } from '../../../src/query/aggregates/dcountaside';
import { TypeContext } from '../../../src/zed/context';
import { TypeBytes, TypeInt64, TypeString } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';

const zctx = new TypeContext();
const saved = { ...asideConfig };

/** Columns leased by a test, cleared after it (a failed test gives its workers back). */
const leased: DCountAside[] = [];

function leaseOne(): DCountAside {
  const c = DCountAside.lease();
  if (c === null) throw new Error('no dcount worker free');
  leased.push(c);
  return c;
}

beforeEach(() => Object.assign(asideConfig, { workers: 1, rows: 3 }));
afterEach(() => {
  for (const c of leased.splice(0)) c.clear();
  Object.assign(asideConfig, saved);
});

function str(s: string): Value {
  const b = Buffer.from(s);
  return new Value(TypeString, b, 0, b.length);
}

function int(n: number): Value {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(BigInt(n));
  return new Value(TypeInt64, b, 0, 8);
}

/** A column's results (and partials) for every group, as text. */
function results(c: DCountColumn | DCountAside): string[] {
  const out: string[] = [];
  for (let g = 0; g < c.size; g++) out.push(formatValue(c.result(g, zctx)));
  for (let g = 0; g < c.size; g++) out.push(formatValue(c.resultPartial(g, zctx)));
  return out;
}

type Op =
  | { op: 'add' }
  | { op: 'code'; g: number; k: number }
  | { op: 'value'; g: number; v: number }
  | { op: 'partial'; g: number; from: number[] }
  | { op: 'results' }
  | { op: 'keep'; pick: boolean[] }
  | { op: 'clear' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ op: 'add' as const }) },
  {
    weight: 10,
    arbitrary: fc.record({
      op: fc.constant('code' as const),
      g: fc.nat(),
      k: fc.integer({ min: 0, max: 0xffffffff }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('value' as const), g: fc.nat(), v: fc.nat(40) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('partial' as const),
      g: fc.nat(),
      from: fc.array(fc.nat(200), { maxLength: 30 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ op: 'results' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('keep' as const), pick: fc.array(fc.boolean()) }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
);

/** A partial: the marshaled sketch of the values given. */
function partialOf(from: number[]): Value {
  const c = new DCountColumn();
  c.add();
  for (const v of from) c.consume(0, int(v));
  return c.resultPartial(0, zctx).copy();
}

test('a column aside answers as the column in-thread, whatever is done to it', () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
      const aside = leaseOne();
      expect(aside).not.toBeNull();
      const here = new DCountColumn();
      try {
        for (const o of ops) {
          switch (o.op) {
            case 'add':
              aside.add();
              here.add();
              break;
            case 'code':
            case 'value':
            case 'partial': {
              if (here.size === 0) break;
              const g = o.g % here.size;
              if (o.op === 'code') {
                aside.consumeCode(g, o.k);
                here.consumeCode(g, o.k);
              } else if (o.op === 'value') {
                const v = o.v % 2 ? int(o.v) : str(`s${o.v}`);
                aside.consume(g, v);
                here.consume(g, v);
              } else {
                const p = partialOf(o.from);
                aside.consumePartial(g, p);
                here.consumePartial(g, p);
              }
              break;
            }
            case 'results':
              expect(results(aside)).toEqual(results(here));
              break;
            case 'keep': {
              const kept: number[] = [];
              for (let g = 0; g < here.size; g++)
                if (o.pick[g % (o.pick.length || 1)]) kept.push(g);
              aside.keep(kept);
              here.keep(kept);
              break;
            }
            case 'clear':
              aside.clear();
              here.clear();
              break;
          }
          expect(aside.size).toBe(here.size);
        }
        expect(results(aside)).toEqual(results(here));
      } finally {
        aside.clear();
      }
      expect(asideLeased()).toBe(0);
    }),
    { numRuns: 150 },
  );
});

test('codes handed over in bulk, a few at a time, give the same estimates', () => {
  asideConfig.rows = 1000;
  const aside = leaseOne();
  const here = new DCountColumn();
  const groups = 2000;
  for (let g = 0; g < groups; g++) {
    aside.add();
    here.add();
  }
  const n = 100_000;
  const grp = new Int32Array(n);
  const codes = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    // Some rows without a group (-1); five groups of many distinct values
    // (past the inline codes, the pending block and the sparse sketch),
    // and many groups of a few.
    if (i % 17 === 0) grp[i] = -1;
    else if (i % 3 === 0) grp[i] = i % 5;
    else grp[i] = (i * 7919) % groups;
    codes[i] = codeOf(int(i % 3 === 0 ? i : i % (1 + (i % 7))));
  }
  for (let from = 0; from < n; from += 4096) {
    const to = Math.min(n, from + 4096);
    aside.consumeCodes(grp, from, to, codes.subarray(from, to));
    here.consumeCodes(grp, from, to, codes.subarray(from, to));
  }
  const est = results(aside);
  expect(est).toEqual(results(here));
  const counts = est.slice(0, groups).map((e) => Number(e.replace('(uint64)', '')));
  for (let g = 0; g < 5; g++) expect(counts[g]).toBeGreaterThan(5000);
  expect(Math.min(...counts.slice(5))).toBeLessThan(8);
  aside.clear();
});

test('a bad partial fails the next result with the in-thread error', () => {
  const aside = leaseOne();
  const here = new DCountColumn();
  aside.add();
  here.add();
  const bad = new Value(TypeBytes, Buffer.from([1, 2, 3]), 0, 3);
  let want = '';
  try {
    here.consumePartial(0, bad);
  } catch (e) {
    want = (e as Error).message;
  }
  expect(want).toMatch(/^dcount: unmarshaling partial/);
  aside.consumePartial(0, bad);
  expect(() => aside.result(0, zctx)).toThrow(want);
  aside.clear();
  // The worker goes back clean: the next column's answers are right.
  const next = leaseOne();
  next.add();
  next.consume(0, str('a'));
  expect(formatValue(next.result(0, zctx))).toBe('1(uint64)');
  next.clear();
});

test('columns lease at most asideConfig.workers threads, and give them back when cleared', () => {
  asideConfig.workers = 2;
  const a = leaseOne();
  const b = leaseOne();
  expect(DCountAside.lease()).toBeNull();
  expect(asideLeased()).toBe(2);
  a.add();
  a.consume(0, str('x'));
  a.clear();
  expect(asideLeased()).toBe(1);
  // A cleared column goes on in-thread.
  a.add();
  a.consume(0, str('y'));
  a.consume(0, str('z'));
  expect(formatValue(a.result(0, zctx))).toBe('2(uint64)');
  expect(asideLeased()).toBe(1);
  const c = leaseOne();
  expect(c).not.toBeNull();
  b.clear();
  c.clear();
  expect(asideLeased()).toBe(0);
  asideConfig.workers = 0;
  expect(DCountAside.lease()).toBeNull();
});

test('a column cleared before reading every estimate leaves nothing for the next one', () => {
  // More groups than one answer holds (8192), of which only the first is read.
  const a = leaseOne();
  for (let g = 0; g < 20_000; g++) {
    a.add();
    a.consume(g, int(g));
  }
  expect(formatValue(a.result(0, zctx))).toBe('1(uint64)');
  a.clear();
  const b = leaseOne();
  const here = new DCountColumn();
  for (let g = 0; g < 10; g++) {
    b.add();
    here.add();
    for (let v = 0; v <= g; v++) {
      b.consume(g, int(v));
      here.consume(g, int(v));
    }
  }
  expect(results(b)).toEqual(results(here));
});

test('results and partials read after prepare() are the in-thread ones', async () => {
  const a = leaseOne();
  const here = new DCountColumn();
  for (let g = 0; g < 9000; g++) {
    a.add();
    here.add();
    a.consume(g, str(`v${g % 7}`));
    here.consume(g, str(`v${g % 7}`));
  }
  await a.prepare(false);
  expect(results(a)).toEqual(results(here));
  await a.prepare(true);
  expect(results(a)).toEqual(results(here));
});

test('a worker that dies fails the query, and its lease comes back', async () => {
  asideConfig.waitMs = 2000;
  const a = leaseOne();
  a.add();
  a.consume(0, str('x'));
  await a.killWorker();
  // Awaited: the worker's exit rejects at once.
  const t0 = Date.now();
  await expect(a.room()).rejects.toThrow('dcount: its worker thread stopped');
  await expect(a.prepare(false)).rejects.toThrow('dcount: its worker thread stopped');
  expect(() => a.result(0, zctx)).toThrow(/dcount: its worker thread/);
  expect(Date.now() - t0).toBeLessThan(1500);
  a.clear();
  expect(asideLeased()).toBe(0);
  // The next column gets a new thread.
  const b = leaseOne();
  b.add();
  b.consume(0, str('y'));
  expect(formatValue(b.result(0, zctx))).toBe('1(uint64)');
});

test('room() waits, without blocking, while four chunks are not applied', async () => {
  asideConfig.rows = 1;
  const a = leaseOne();
  a.add();
  // Many one-pair chunks: the worker lags, and room() lets the sender wait.
  for (let i = 0; i < 2000; i++) {
    await a.room();
    a.consumeCode(0, (i * 2654435761) >>> 0);
  }
  const here = new DCountColumn();
  here.add();
  for (let i = 0; i < 2000; i++) here.consumeCode(0, (i * 2654435761) >>> 0);
  await a.prepare(false);
  expect(results(a)).toEqual(results(here));
});
