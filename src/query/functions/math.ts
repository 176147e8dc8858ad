// Numeric functions: abs, ceil, floor, round, log, pow, sqrt, and the
// variadic min and max (a call of min/max with one argument is the
// aggregate instead).

import { formatValue } from '../../formats/zson';
import {
  decodeFloat,
  decodeInt,
  decodeIntBig,
  decodeUintBig,
  isMinInt64,
} from '../../zed/primitive';
import {
  ID,
  isFloat,
  isInteger,
  isNumber,
  isSigned,
  Type,
  TypeFloat16,
  TypeFloat32,
  TypeFloat64,
  TypeInt64,
  TypeUint64,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { toFloat, toInt, toUint } from '../expr/coerce';
import { newError } from '../expr/errors';
import { Scratch } from '../expr/scratch';
import { registerFunction, valueFunction } from './registry';

/** The float type of a float type ID (float16/32/64). */
function floatType(id: number): Type {
  return id === ID.Float16 ? TypeFloat16 : id === ID.Float32 ? TypeFloat32 : TypeFloat64;
}

/** Go's math.Round: halves away from zero. */
export function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

registerFunction(
  'abs',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return ([v]) => {
      const id = v.type.under.id;
      if (isFloat(id)) return out.float(floatType(id), Math.abs(decodeFloat(v.buf, v.off, v.len)));
      if (!isInteger(id)) return newError(zctx, `abs: not a number: ${formatValue(v)}`);
      if (!isSigned(id)) return v;
      if (v.len <= 6 && !isMinInt64(v.buf, v.off, v.len))
        return out.int(TypeInt64, Math.abs(decodeInt(v.buf, v.off, Math.max(v.len, 0))));
      const x = decodeIntBig(v.buf, v.off, Math.max(v.len, 0));
      return out.int(TypeInt64, BigInt.asIntN(64, x < 0n ? -x : x));
    };
  }),
);

/** ceil, floor: floats keep their width, integers pass through. */
function rounder(name: string, fn: (x: number) => number) {
  return valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return ([v]) => {
      const id = v.type.under.id;
      if (isFloat(id)) return out.float(floatType(id), fn(decodeFloat(v.buf, v.off, v.len)));
      if (isInteger(id)) return v;
      return newError(zctx, `${name}: not a number`);
    };
  });
}

registerFunction('ceil', rounder('ceil', Math.ceil));
registerFunction('floor', rounder('floor', Math.floor));

registerFunction(
  'round',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return ([v]) => {
      const id = v.type.under.id;
      if (isFloat(id)) return out.float(floatType(id), goRound(decodeFloat(v.buf, v.off, v.len)));
      if (!isNumber(id)) return newError(zctx, `round: not a number: ${formatValue(v)}`);
      return v;
    };
  }),
);

registerFunction(
  'log',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return ([v]) => {
      const x = toFloat(v);
      if (x === undefined) return newError(zctx, 'log: numeric argument required');
      if (x <= 0) return newError(zctx, `log: illegal argument: ${formatValue(v)}`);
      return out.float(TypeFloat64, Math.log(x));
    };
  }),
);

/** Go's math.Pow where it differs from JS's `**` (1 to any power is 1). */
export function goPow(x: number, y: number): number {
  if (x === 1 || y === 0) return 1;
  if (x === -1 && !Number.isFinite(y)) return 1;
  return Math.pow(x, y);
}

registerFunction(
  'pow',
  valueFunction(2, 2, ({ zctx }) => {
    const out = new Scratch();
    return ([a, b]) => {
      const x = toFloat(a);
      if (x === undefined) return newError(zctx, `pow: not a number: ${formatValue(a)}`);
      const y = toFloat(b);
      if (y === undefined) return newError(zctx, `pow: not a number: ${formatValue(b)}`);
      return out.float(TypeFloat64, goPow(x, y));
    };
  }),
);

registerFunction(
  'sqrt',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return ([v]) => {
      const x = toFloat(v);
      if (x === undefined) return newError(zctx, `sqrt: not a number: ${formatValue(v)}`);
      return out.float(TypeFloat64, Math.sqrt(x));
    };
  }),
);

/**
 * min/max of several values, typed by the first: a float first makes a
 * float64 result, a signed integer an int64, an unsigned one a uint64;
 * the others are converted to that kind (the reference's reducer).
 */
function reducer(name: string, less: boolean) {
  return valueFunction(1, -1, ({ zctx }) => {
    const out = new Scratch();
    const bad = (v: Value) => newError(zctx, `${name}: not a number: ${formatValue(v)}`);
    const pick = <T extends number | bigint>(a: T, b: T): T =>
      less ? (a < b ? a : b) : a > b ? a : b;
    return (args) => {
      const v0 = args[0];
      const id = v0.type.under.id;
      if (isFloat(id)) {
        let r = decodeFloat(v0.buf, v0.off, v0.len);
        for (let i = 1; i < args.length; i++) {
          const x = toFloat(args[i]);
          if (x === undefined) return bad(args[i]);
          r = pick(r, x);
        }
        return out.float(TypeFloat64, r);
      }
      if (!isNumber(id)) return bad(v0);
      if (isSigned(id)) {
        let r = decodeIntBig(v0.buf, v0.off, Math.max(v0.len, 0));
        for (let i = 1; i < args.length; i++) {
          const x = toInt(args[i]);
          if (x === undefined) return bad(args[i]);
          r = pick(r, x);
        }
        return out.int(TypeInt64, r);
      }
      let r = decodeUintBig(v0.buf, v0.off, Math.max(v0.len, 0));
      for (let i = 1; i < args.length; i++) {
        const x = toUint(args[i]);
        if (x === undefined) return bad(args[i]);
        r = pick(r, x);
      }
      return out.uint(TypeUint64, r);
    };
  });
}

registerFunction('min', reducer('min', true));
registerFunction('max', reducer('max', false));
