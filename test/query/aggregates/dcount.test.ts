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

  /** MetroHash64 on BigInts, written from the algorithm's description. */
  function metroBig(buf: Uint8Array, seed: bigint): bigint {
    const M = (1n << 64n) - 1n;
    const [k0, k1, k2, k3] = [0xd6d018f5n, 0xa2aa033bn, 0x62992fc1n, 0x30bc5b29n];
    const rotr = (y: bigint, r: bigint) => {
      const x = y & M;
      return ((x >> r) | (x << (64n - r))) & M;
    };
    const read = (p: number, n: number) => {
      let x = 0n;
      for (let i = n - 1; i >= 0; i--) x = (x << 8n) | BigInt(buf[p + i]);
      return x;
    };
    let h = ((seed + k2) * k0) & M;
    let p = 0;
    if (buf.length >= 32) {
      const v = [h, h, h, h];
      const ks = [k0, k1, k2, k3];
      while (buf.length - p >= 32) {
        for (let i = 0; i < 4; i++) {
          v[i] = (v[i] + read(p + 8 * i, 8) * ks[i]) & M;
          v[i] = (rotr(v[i], 29n) + v[(i + 2) % 4]) & M;
        }
        p += 32;
      }
      v[2] ^= (rotr((((v[0] + v[3]) * k0) & M) + v[1], 37n) * k1) & M;
      v[3] ^= (rotr((((v[1] + v[2]) * k1) & M) + v[0], 37n) * k0) & M;
      v[0] ^= (rotr((((v[0] + v[2]) * k0) & M) + v[3], 37n) * k1) & M;
      v[1] ^= (rotr((((v[1] + v[3]) * k1) & M) + v[2], 37n) * k0) & M;
      h = (h + (v[0] ^ v[1])) & M;
    }
    if (buf.length - p >= 16) {
      let v0 = (rotr((h + read(p, 8) * k2) & M, 29n) * k3) & M;
      let v1 = (rotr((h + read(p + 8, 8) * k2) & M, 29n) * k3) & M;
      v0 ^= (rotr((v0 * k0) & M, 21n) + v1) & M;
      v1 ^= (rotr((v1 * k3) & M, 21n) + v0) & M;
      h = (h + v1) & M;
      p += 16;
    }
    for (const [n, r] of [
      [8, 55n],
      [4, 26n],
      [2, 48n],
      [1, 37n],
    ] as const) {
      if (buf.length - p >= n) {
        h = (h + read(p, n) * k3) & M;
        h ^= (rotr(h, r) * k1) & M;
        p += n;
      }
    }
    h ^= rotr(h, 28n);
    h = (h * k0) & M;
    return h ^ rotr(h, 29n);
  }

  test('agrees with a BigInt MetroHash64 on every length to 130 bytes, for 32-bit seeds', () => {
    let x = 12345;
    const bytes = Buffer.alloc(131);
    for (let i = 0; i < bytes.length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) | 0;
      bytes[i] = x >>> 23;
    }
    for (const seed of [0, 1, 1337, 0x7fffffff, 0x9e3779b9]) {
      for (let n = 0; n <= 130; n++) {
        hash64(bytes, 1, n, seed);
        const want = metroBig(bytes.subarray(1, 1 + n), BigInt(seed));
        expect(`${n}:${seed}:${((BigInt(hash.hi) << 32n) | BigInt(hash.lo)).toString(16)}`).toBe(
          `${n}:${seed}:${want.toString(16)}`,
        );
      }
    }
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
    // A second column, fed the same, gives its estimates before any partial.
    const col2 = newColumn(def);
    const fns = sizes.map(() => newFunction(def));
    for (let g = 0; g < sizes.length; g++) col.add();
    for (let g = 0; g < sizes.length; g++) col2.add();
    const vals = parseValues(zctx, Array.from({ length: 9000 }, (_, i) => `"host-${i}"`).join(' '));
    // Interleave the groups, each getting its values twice over.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 9000; i++) {
        for (let g = 0; g < sizes.length; g++) {
          if (i >= sizes[g]) continue;
          const v = vals[(i * 7 + round * 3) % sizes[g]];
          col.consume(g, v);
          col2.consume(g, v);
          fns[g].consume(v);
        }
      }
    }
    const first = sizes.map((_, g) => formatValue(col2.result(g, zctx)));
    // Partials first: an estimate merges a sketch's pending codes (as the reference's does).
    for (let g = 0; g < sizes.length; g++)
      expect(formatValue(col.resultPartial(g, zctx))).toBe(formatValue(fns[g].resultPartial(zctx)));
    const results = sizes.map((_, g) => formatValue(col.result(g, zctx)));
    for (let g = 0; g < sizes.length; g++)
      expect(results[g]).toBe(formatValue(fns[g].result(zctx)));
    expect(first).toEqual(results);
    // Exact below a few thousand; the largest is dense (its partial is the registers).
    expect(results.slice(0, 9)).toEqual(sizes.slice(0, 9).map((n) => `${n}(uint64)`));
    expect(formatValue(col.resultPartial(10, zctx)).length).toBeGreaterThan(2 * 8192);
  });
  test('a group used again after its estimate goes on as a lone sketch does', () => {
    // An estimate merges a sketch's pending codes. A group whose codes the
    // column holds in a block alone is estimated without that merge, and
    // must take the merged state once it is used again: more codes (past
    // the switch to dense registers), a partial, a partial merged in.
    const zctx = new TypeContext();
    const def = lookupAggregate('dcount')!;
    const vals = parseValues(zctx, Array.from({ length: 4000 }, (_, i) => `"h-${i}"`).join(' '));
    for (const size of [3, 5, 19, 81, 82, 200]) {
      for (const then of ['more', 'partial', 'merge']) {
        const what = `${size} codes, then ${then}`;
        const col = newColumn(def);
        col.add();
        const fn = newFunction(def);
        for (const v of vals.slice(0, size)) {
          col.consume(0, v);
          fn.consume(v);
        }
        expect(`${what}: ${formatValue(col.result(0, zctx))}`).toBe(
          `${what}: ${formatValue(fn.result(zctx))}`,
        );
        if (then === 'more') {
          for (const v of vals) {
            col.consume(0, v);
            fn.consume(v);
          }
        } else if (then === 'merge') {
          const other = newFunction(def);
          for (const v of vals.slice(100, 300)) other.consume(v);
          const p = other.resultPartial(zctx).copy();
          col.consumePartial(0, p);
          fn.consumePartial(p);
        }
        expect(`${what}: ${formatValue(col.resultPartial(0, zctx))}`).toBe(
          `${what}: ${formatValue(fn.resultPartial(zctx))}`,
        );
        expect(`${what}: ${formatValue(col.result(0, zctx))}`).toBe(
          `${what}: ${formatValue(fn.result(zctx))}`,
        );
      }
    }
  });
  test('random use of a column: each group answers as a lone sketch fed the same', () => {
    // Values, estimates, partials, merged partials, keep and clear in a
    // seeded random order; some groups pass the switch to dense registers.
    const zctx = new TypeContext();
    const def = lookupAggregate('dcount')!;
    const vals = parseValues(zctx, Array.from({ length: 6000 }, (_, i) => `"v${i}"`).join(' '));
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const pick = (n: number) => Math.floor(rnd() * n);
    for (let round = 0; round < 30; round++) {
      const col = newColumn(def);
      let fns: ReturnType<typeof newFunction>[] = [];
      const same = (g: number, what: string) => {
        const at = `round ${round}, group ${g}, ${what}`;
        const [a, b] =
          what === 'partial'
            ? [col.resultPartial(g, zctx), fns[g].resultPartial(zctx)]
            : [col.result(g, zctx), fns[g].result(zctx)];
        expect(`${at}: ${formatValue(a)}`).toBe(`${at}: ${formatValue(b)}`);
      };
      for (let step = 0; step < 60; step++) {
        if (fns.length === 0 || rnd() < 0.03) {
          col.add();
          fns.push(newFunction(def));
          continue;
        }
        const g = pick(fns.length);
        const r = rnd();
        if (r < 0.55) {
          const n = 1 + pick(rnd() < 0.03 ? 9000 : rnd() < 0.15 ? 200 : 6);
          const span = rnd() < 0.5 ? 100 : vals.length;
          for (let i = 0; i < n; i++) {
            const v = vals[pick(span)];
            col.consume(g, v);
            fns[g].consume(v);
          }
        } else if (r < 0.7) same(g, 'result');
        else if (r < 0.8) same(g, 'partial');
        else if (r < 0.88) {
          const other = newFunction(def);
          for (let i = pick(300); i > 0; i--) other.consume(vals[pick(vals.length)]);
          const p = other.resultPartial(zctx).copy();
          col.consumePartial(g, p);
          fns[g].consumePartial(p);
        } else if (r < 0.97) {
          const kept = fns.map((_, i) => i).filter(() => rnd() < 0.6);
          col.keep(kept);
          fns = kept.map((i) => fns[i]);
        } else {
          col.clear();
          fns = [];
        }
      }
      for (let g = 0; g < fns.length; g++) {
        same(g, 'partial');
        same(g, 'result');
      }
    }
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
