// bucket() remembers the last bin of non-negative times and durations and
// answers values in it without bigint arithmetic; it must agree with int64
// arithmetic everywhere, which this checks against BigInt on sequences of
// random and clustered times and bins through one evaluator.

import fc from 'fast-check';
import { TypeContext } from '../../../src/zed/context';
import { newDuration, newTime } from '../../../src/zed/make';
import { decodeIntBig } from '../../../src/zed/primitive';
import { TypeDuration, TypeTime } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import '../../../src/query/functions';
import { lookupFunction } from '../../../src/query/functions';
import { Expr } from '../../../src/query/expr/expr';

test('bucket agrees with int64 division', () => {
  const zctx = new TypeContext();
  let t: Value = newTime(0);
  let bin: Value = newDuration(1);
  const env = { zctx, constant: () => undefined };
  const args: Expr[] = [{ eval: () => t }, { eval: () => bin }];
  const bucket = lookupFunction('bucket')!.build(args, env);
  const time = fc.oneof(
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.bigInt({ min: 1_600_000_000_000_000_000n, max: 1_600_000_100_000_000_000n }),
  );
  const span = fc.oneof(
    fc.bigInt({ min: 1n, max: 2n ** 62n }),
    fc.constantFrom(1n, 1000n, 3_600_000_000_000n, 86_400_000_000_000n),
  );
  fc.assert(
    fc.property(
      fc.array(fc.tuple(time, span, fc.boolean()), { minLength: 1, maxLength: 20 }),
      (steps) => {
        for (const [ns, width, asDuration] of steps) {
          t = asDuration ? newDuration(ns) : newTime(ns);
          bin = newDuration(width);
          const r = bucket.eval(t);
          expect(r.type).toBe(asDuration ? TypeDuration : TypeTime);
          expect(decodeIntBig(r.buf, r.off, r.len)).toBe(BigInt.asIntN(64, (ns / width) * width));
        }
      },
    ),
    { numRuns: 2000 },
  );
});

test('bucket at bin edges, one evaluator', () => {
  const zctx = new TypeContext();
  let t: Value = newTime(0);
  const hour = 3_600_000_000_000n;
  const args: Expr[] = [{ eval: () => t }, { eval: () => newDuration(hour) }];
  const bucket = lookupFunction('bucket')!.build(args, { zctx, constant: () => undefined });
  const start = 1_700_000_000_000_000_000n - (1_700_000_000_000_000_000n % hour);
  for (const ns of [
    start,
    start + hour - 1n,
    start + hour,
    start - 1n,
    start,
    start + 2n * hour - 1n,
  ]) {
    t = newTime(ns);
    const r = bucket.eval(t);
    expect(decodeIntBig(r.buf, r.off, r.len)).toBe((ns / hour) * hour);
  }
});
