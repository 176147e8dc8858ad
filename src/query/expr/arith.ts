// Arithmetic: `+ - * / %` and unary minus, with the reference's coercion
// (coerce.ts) and results: 64-bit integers wrap around, time - time is a
// duration, `+` concatenates strings, division by zero is an error value.

import { TypeContext } from '../../zed/context';
import { formatType } from '../../zed/typestring';
import { decodeFloat, decodeIntBig, decodeUintBig } from '../../zed/primitive';
import {
  ID,
  isFloat,
  isNumber,
  isSigned,
  primitiveById,
  Type,
  TypeDuration,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
} from '../../zed/types';
import { Value } from '../../zed/value';
import {
  coercionType,
  ERR_INCOMPATIBLE,
  ERR_OVERFLOW,
  Int,
  INCOMPATIBLE,
  Operands,
  OVERFLOW,
} from './coerce';
import { isError, newError, wrapError } from './errors';
import { Expr } from './expr';
import { Scratch } from './scratch';

export type ArithOp = '+' | '-' | '*' | '/' | '%';

const ERR_DIV_ZERO = 'divide by zero';

function signedResult(r: number | bigint): Int {
  if (typeof r === 'number') return r;
  return BigInt.asIntN(64, r);
}

function unsignedResult(r: number | bigint): Int {
  if (typeof r === 'number' && r >= 0) return r;
  return BigInt.asUintN(64, BigInt(r));
}

function big(x: Int): bigint {
  return typeof x === 'bigint' ? x : BigInt(x);
}

/** a op b on exact integers: number arithmetic when exact, else bigint. */
function intOp(op: ArithOp, a: Int, b: Int): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    let r: number;
    switch (op) {
      case '+':
        r = a + b;
        break;
      case '-':
        r = a - b;
        break;
      case '*':
        r = a * b;
        break;
      case '/':
        r = Math.trunc(a / b);
        break;
      case '%':
        r = a % b;
        if (r === 0) r = 0; // no -0
        break;
    }
    if (Number.isSafeInteger(r)) return r;
  }
  switch (op) {
    case '+':
      return big(a) + big(b);
    case '-':
      return big(a) - big(b);
    case '*':
      return big(a) * big(b);
    case '/':
      return big(a) / big(b);
    case '%':
      return big(a) % big(b);
  }
}

export class Arith implements Expr {
  private readonly ops = new Operands();
  private readonly out = new Scratch();

  constructor(
    private readonly zctx: TypeContext,
    readonly op: ArithOp,
    readonly lhs: Expr,
    readonly rhs: Expr,
  ) {}

  eval(self: Value): Value {
    const a = this.lhs.eval(self);
    if (isError(a)) return a;
    const b = this.rhs.eval(self);
    if (isError(b)) return b;
    const ops = this.ops;
    const id = ops.coerce(coercionType(a.type), a, coercionType(b.type), b);
    if (id === INCOMPATIBLE) return newError(this.zctx, ERR_INCOMPATIBLE);
    if (id === OVERFLOW) return newError(this.zctx, ERR_OVERFLOW);
    const typ = primitiveById(id);
    if (typ === undefined) {
      return newError(
        this.zctx,
        id >= ID.FirstComplex ? `type ID too large for primitive: ${id}` : `unknown type ID ${id}`,
      );
    }
    const op = this.op;
    if (op === '%' && (isFloat(id) || !isNumber(id))) {
      return newError(this.zctx, `type ${formatType(typ)} incompatible with '%' operator`);
    }
    if (isFloat(id)) {
      const x = ops.fa;
      const y = ops.fb;
      switch (op) {
        case '+':
          return this.out.float(typ, x + y);
        case '-':
          return this.out.float(typ, x - y);
        case '*':
          return this.out.float(typ, x * y);
        default:
          if (y === 0) return newError(this.zctx, ERR_DIV_ZERO);
          return this.out.float(typ, x / y);
      }
    }
    if (isNumber(id)) {
      if ((op === '/' || op === '%') && (ops.ib === 0 || ops.ib === 0n))
        return newError(this.zctx, ERR_DIV_ZERO);
      if (isSigned(id)) {
        const t: Type = op === '-' && id === ID.Time ? TypeDuration : typ;
        return this.out.int(t, signedResult(intOp(op, ops.ia, ops.ib)));
      }
      return this.out.uint(typ, unsignedResult(intOp(op, ops.ia, ops.ib)));
    }
    if (id === ID.String && op === '+') {
      return this.out.concat(
        typ,
        a.buf,
        a.off,
        Math.max(a.len, 0),
        b.buf,
        b.off,
        Math.max(b.len, 0),
      );
    }
    return newError(this.zctx, `type ${formatType(typ)} incompatible with '${op}' operator`);
  }
}

const MIN_SIGNED: Record<number, bigint> = {
  [ID.Int8]: -(2n ** 7n),
  [ID.Int16]: -(2n ** 15n),
  [ID.Int32]: -(2n ** 31n),
  [ID.Int64]: -(2n ** 63n),
};

const NEGATED_UNSIGNED: Record<number, [Type, bigint]> = {
  [ID.Uint8]: [TypeInt8, 2n ** 7n - 1n],
  [ID.Uint16]: [TypeInt16, 2n ** 15n - 1n],
  [ID.Uint32]: [TypeInt32, 2n ** 31n - 1n],
  [ID.Uint64]: [TypeInt64, 2n ** 63n - 1n],
};

/** Unary minus: floats, signed and unsigned integers (to the signed type of that width). */
export class Negate implements Expr {
  private readonly out = new Scratch();

  constructor(
    private readonly zctx: TypeContext,
    readonly operand: Expr,
  ) {}

  eval(self: Value): Value {
    const v = this.operand.eval(self);
    const t = v.type;
    const id = t.under.id;
    switch (id) {
      case ID.Float16:
      case ID.Float32:
      case ID.Float64:
        if (v.len < 0) return v;
        return this.out.float(t, -decodeFloat(v.buf, v.off, v.len));
      case ID.Int8:
      case ID.Int16:
      case ID.Int32:
      case ID.Int64: {
        if (v.len < 0) return v;
        const x = decodeIntBig(v.buf, v.off, v.len);
        if (x === MIN_SIGNED[id]) {
          return newError(this.zctx, `unary '-' underflow: ${primitiveById(id)!.name}(${x})`);
        }
        return this.out.int(t, -x);
      }
      case ID.Uint8:
      case ID.Uint16:
      case ID.Uint32:
      case ID.Uint64: {
        if (v.len < 0) return v;
        const x = decodeUintBig(v.buf, v.off, v.len);
        const [st, max] = NEGATED_UNSIGNED[id];
        if (x > max)
          return newError(this.zctx, `unary '-' overflow: ${primitiveById(id)!.name}(${x})`);
        return this.out.int(st, -x);
      }
    }
    return wrapError(this.zctx, "type incompatible with unary '-' operator", v);
  }
}
