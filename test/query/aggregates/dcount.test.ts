import { formatValue, parseValues } from '../../../src/formats/zson';
import { lookupAggregate, newColumn, newFunction } from '../../../src/query/aggregates';
import { encodeHash, Sketch } from '../../../src/query/aggregates/hyperloglog';
import { hash, hash64 } from '../../../src/query/aggregates/metro';
import { TypeContext } from '../../../src/zed/context';
import { agg, agg1, zq } from './run';

describe('MetroHash64', () => {
  test("the algorithm's published test vectors", () => {
    const key = Buffer.from('012345678901234567890123456789012345678901234567890123456789012');
    hash64(key, 0, key.length, 0);
    expect([hash.hi, hash.lo]).toEqual([0xad4b7006, 0xae3d756b]);
    hash64(key, 0, key.length, 1);
    expect([hash.hi, hash.lo]).toEqual([0xdfb8b9f4, 0x1c480d3b]);
  });
  test('every tail length hashes differently and deterministically', () => {
    const buf = Buffer.from('abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz');
    const seen = new Set<string>();
    for (let n = 0; n <= buf.length; n++) {
      hash64(buf, 0, n, 1337);
      const h = `${hash.hi},${hash.lo}`;
      hash64(Buffer.concat([Buffer.from('xx'), buf]), 2, n, 1337);
      expect(`${hash.hi},${hash.lo}`).toBe(h);
      seen.add(h);
    }
    expect(seen.size).toBe(buf.length + 1);
  });
});

describe('the HyperLogLog sketch', () => {
  /** A sketch fed the 64-bit hashes directly (as the reference's tests do with an identity hash). */
  function sketchOf(hashes: bigint[]): Sketch {
    const sk = new Sketch();
    for (const x of hashes) sk.insertCode(encodeHash(Number(x >> 32n), Number(x & 0xffffffffn)));
    return sk;
  }
  test('sparse estimates count distinct registers of the 25-bit encoding', () => {
    const xs = [0x00010fffffffffffn, 0x00020fffffffffffn, 0x00030fffffffffffn];
    const sk = sketchOf([...xs, 0x00040fffffffffffn, 0x00050fffffffffffn, 0x00050fffffffffffn]);
    expect(sk.estimate()).toBe(5);
    expect(sk.estimate()).toBe(5);
    sk.insertCode(encodeHash(0x00060fff, 0xffffffff));
    expect(sk.estimate()).toBe(6);
  });
  test('estimates stay within 2% (about 2.5 standard errors) of distinct counts', () => {
    const sk = new Sketch();
    let worst = 0;
    for (let i = 1; i <= 200000; i++) {
      const b = Buffer.from(`flow-${i}`);
      sk.insert(b, 0, b.length);
      if (i % 20000 === 0) worst = Math.max(worst, Math.abs(sk.estimate() - i) / i);
    }
    expect(sk.sparse).toBe(false);
    expect(worst).toBeLessThan(0.02);
    expect(worst).toBeGreaterThan(0);
  });
  test('marshal/unmarshal round trips, and merging gives the union', () => {
    const a = new Sketch();
    const b = new Sketch();
    for (let i = 0; i < 30000; i++) {
      const x = Buffer.from(`v${i}`);
      (i % 2 ? a : b).insert(x, 0, x.length);
    }
    const both = new Sketch();
    for (let i = 0; i < 30000; i++) {
      const x = Buffer.from(`v${i}`);
      both.insert(x, 0, x.length);
    }
    const ma = a.marshal();
    const a2 = Sketch.unmarshal(ma, 0, ma.length);
    expect(a2.marshal()).toEqual(ma);
    expect(a2.estimate()).toBe(a.estimate());
    const mb = b.marshal();
    a2.merge(Sketch.unmarshal(mb, 0, mb.length));
    expect(a2.estimate()).toBe(both.estimate());
    expect(Math.abs(both.estimate() - 30000)).toBeLessThan(600);
  });
  test('malformed binary forms are errors', () => {
    expect(() => Sketch.unmarshal(Buffer.from([1, 14, 0]), 0, 3)).toThrow('too short binary');
    expect(() => Sketch.unmarshal(Buffer.from([1, 2, 0, 1, 0, 0, 0, 0]), 0, 8)).toThrow(
      'p has to be >= 4 and <= 18',
    );
    expect(() => Sketch.unmarshal(Buffer.from([1, 14, 0, 1, 0, 0, 0, 9]), 0, 8)).toThrow(
      'too short binary',
    );
  });
});

describe('dcount', () => {
  test('documented examples', async () => {
    expect(await agg1('dcount(this)', '1 2 2 3')).toBe('3(uint64)');
    expect(await zq('yield dcount(this)', '1 2 2 3')).toEqual([
      '1(uint64)',
      '2(uint64)',
      '2(uint64)',
      '3(uint64)',
    ]);
    expect(await zq('yield dcount(this)', '1 "foo" 10.0.0.1')).toEqual([
      '1(uint64)',
      '2(uint64)',
      '3(uint64)',
    ]);
  });
  test('the type counts: equal bytes of other types and nulls of other types are distinct', async () => {
    expect(
      await agg1('dcount(this)', '1 1(int32) 1(uint8) null(int64) null(string) null(int64)'),
    ).toBe('5(uint64)');
    // Named types count as their underlying type (the reference hashes the type ID).
    expect(await agg1('dcount(this)', '1 1(=myint)')).toBe('1(uint64)');
  });
  test('missing is skipped, errors count, no values: 0', async () => {
    expect(await agg1('dcount(x)', '{y:1} {x:error("e")} {x:error("e")}')).toBe('1(uint64)');
    expect(await agg1('dcount(x) where false', '{x:1}')).toBe('0(uint64)');
  });
  test('the reference math ztest through partials', async () => {
    const n = '{n:0(int32)} {n:5(int32)} {n:10(int32)}';
    expect(await agg1('dcount(n) with -limit 1', `${n} ${n}`)).toBe('3(uint64)');
  });
  // Inputs are sorted by key, so that spilling (at each new group when
  // memory is short) writes one run per group, not one per value.
  test('grouped: small groups (inline codes) and large ones (sketches), spilled or not', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(`{k:"big",x:${i}}`);
    for (let s = 0; s < 7; s++) for (let i = 0; i < 20; i++) lines.push(`{k:"s${s}",x:${i % 5}}`);
    const input = lines.join('\n');
    const want = [
      '{k:"big",d:3000(uint64)}',
      ...[0, 1, 2, 3, 4, 5, 6].map((s) => `{k:"s${s}",d:5(uint64)}`),
    ];
    expect(await agg('d:=dcount(x) by k | sort k', input)).toEqual(want);
    expect(await agg('d:=dcount(x) by k with -limit 3 | sort k', input)).toEqual(want);
  });
  test('large groups estimate within the error, through partials too', async () => {
    const lines: string[] = [];
    for (let k = 0; k < 2; k++) for (let i = 0; i < 20000; i++) lines.push(`{k:${k},x:${i}}`);
    // Group 0 again: its result merges a dense sketch with a sparse one.
    for (let i = 20000; i < 20100; i++) lines.push(`{k:0,x:${i}}`);
    const input = lines.join(' ');
    for (const q of ['dcount(x) by k | sort k', 'dcount(x) by k with -limit 1 | sort k']) {
      const out = await zq(q, input);
      expect(out.length).toBe(2);
      for (const line of out) {
        const est = Number(/dcount:(\d+)/.exec(line)![1]);
        expect(Math.abs(est - 20050)).toBeLessThan(450);
      }
    }
  });
  test('column and function give the same estimates and partials', () => {
    const zctx = new TypeContext();
    const def = lookupAggregate('dcount')!;
    const col = newColumn(def);
    const fn = newFunction(def);
    col.add();
    // Ten distinct values: more than a column group keeps inline.
    const vals = parseValues(zctx, '1 2 3 "a" 1 4 5 6 7 8 9');
    for (const v of vals) {
      col.consume(0, v);
      fn.consume(v);
    }
    expect(formatValue(col.result(0, zctx))).toBe('10(uint64)');
    expect(formatValue(fn.result(zctx))).toBe('10(uint64)');
    // A partial of few values is a sparse sketch holding their codes.
    const col2 = newColumn(def);
    col2.add();
    col2.consume(0, vals[0]);
    const p = col2.resultPartial(0, zctx).copy();
    expect(formatValue(p).startsWith('0x010e000100000001')).toBe(true);
    fn.consumePartial(p);
    expect(formatValue(fn.result(zctx))).toBe('10(uint64)');
    col2.consumePartial(0, fn.resultPartial(zctx).copy());
    expect(formatValue(col2.result(0, zctx))).toBe('10(uint64)');
  });
  test('column groups of every size match a lone sketch: estimates and partials, byte for byte', () => {
    // Sizes around the inline limit, the sketch's pending limit (82 codes
    // merge), its multiples, and past the switch to dense registers; the
    // values repeat so that some codes arrive again after being merged.
    const zctx = new TypeContext();
    const def = lookupAggregate('dcount')!;
    const sizes = [1, 4, 5, 81, 82, 83, 164, 165, 400, 3000, 9000];
    const col = newColumn(def);
    const fns = sizes.map(() => newFunction(def));
    for (let g = 0; g < sizes.length; g++) col.add();
    const vals = parseValues(zctx, Array.from({ length: 9000 }, (_, i) => `"host-${i}"`).join(' '));
    // Interleave the groups, each getting its values twice over.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 9000; i++) {
        for (let g = 0; g < sizes.length; g++) {
          if (i >= sizes[g]) continue;
          const v = vals[(i * 7 + round * 3) % sizes[g]];
          col.consume(g, v);
          fns[g].consume(v);
        }
      }
    }
    // Partials first: an estimate merges a sketch's pending codes (as the reference's does).
    for (let g = 0; g < sizes.length; g++)
      expect(formatValue(col.resultPartial(g, zctx))).toBe(formatValue(fns[g].resultPartial(zctx)));
    const results = sizes.map((_, g) => formatValue(col.result(g, zctx)));
    for (let g = 0; g < sizes.length; g++)
      expect(results[g]).toBe(formatValue(fns[g].result(zctx)));
    // Exact below a few thousand; the largest is dense (its partial is the registers).
    expect(results.slice(0, 9)).toEqual(sizes.slice(0, 9).map((n) => `${n}(uint64)`));
    expect(formatValue(col.resultPartial(10, zctx)).length).toBeGreaterThan(2 * 8192);
  });
  test('a column that keeps some groups gives each kept group its own state (dcount and sum)', () => {
    // keep() renumbers groups when a summarize on sorted input emits the
    // finished ones. Groups here: no value, a few values (inline), many
    // (a sketch; for sum an integer, a float or a bigint state), so that
    // kept and dropped groups of each kind sit side by side.
    const zctx = new TypeContext();
    const n = 40;
    for (const name of ['dcount', 'sum']) {
      const def = lookupAggregate(name)!;
      const col = newColumn(def);
      const fns = Array.from({ length: n }, () => newFunction(def));
      for (let g = 0; g < n; g++) col.add();
      for (let g = 0; g < n; g++) {
        const count = g % 4 === 0 ? 0 : g % 4 === 1 ? 3 : 120 + g;
        const text = Array.from({ length: count }, (_, i) =>
          g % 3 === 0
            ? `${i + g}.5`
            : g % 5 === 0
              ? `${i}(uint64)`
              : g % 7 === 0
                ? '9223372036854775000'
                : `${i * g}`,
        ).join(' ');
        for (const v of parseValues(zctx, text)) {
          col.consume(g, v);
          fns[g].consume(v);
        }
      }
      const kept = Array.from({ length: n }, (_, g) => g).filter((g) => g % 3 !== 1);
      col.keep(kept);
      kept.forEach((g, i) =>
        expect(`${name} ${g}: ${formatValue(col.result(i, zctx))}`).toBe(
          `${name} ${g}: ${formatValue(fns[g].result(zctx))}`,
        ),
      );
      // The column goes on: a new group after the kept ones starts empty.
      col.add();
      const fresh = newFunction(def);
      for (const v of parseValues(zctx, '1 2 3 4 5 6')) {
        col.consume(kept.length, v);
        fresh.consume(v);
      }
      expect(formatValue(col.result(kept.length, zctx))).toBe(formatValue(fresh.result(zctx)));
    }
  });
  test('bad partials are the reference errors', () => {
    const zctx = new TypeContext();
    const fn = newFunction(lookupAggregate('dcount')!);
    expect(() => fn.consumePartial(parseValues(zctx, '"x"')[0])).toThrow(
      'dcount: partial has bad type: "x"',
    );
    expect(() => fn.consumePartial(parseValues(zctx, '0x0102')[0])).toThrow(
      'dcount: unmarshaling partial: too short binary',
    );
  });
});
