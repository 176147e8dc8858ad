// Comparisons: `==`, `!=`, `<`, `<=`, `>`, `>=` and `in`.
//
// Two paths, as in the reference. A comparison against a constant (the
// common filter `x == "foo"`, `n > 10`) compiles to a predicate specialised
// for the constant's type that tests the operand's bytes in place (no
// decoding, no allocation); values of other types simply fail it. Other
// comparisons coerce both operands at run time (see coerce.ts).

import { TypeContext } from '../../zed/context';
import {
  bytesCompare,
  bytesEqual,
  compareIntBytes,
  decodeBool,
  decodeFloat,
  decodeInt,
  decodeIntBig,
  decodeUint,
  decodeUintBig,
} from '../../zed/primitive';
import { ID, isFloat, isNumber, isSigned, Type } from '../../zed/types';
import { Value } from '../../zed/value';
import { putUvarint, uvarintSize } from '../../zed/zcode';
import {
  coercionType,
  ERR_OVERFLOW,
  floatBitsEqual,
  INCOMPATIBLE,
  intEqual,
  Operands,
  OVERFLOW,
} from './coerce';
import { isError, newError } from './errors';
import { Expr, FALSE, TRUE } from './expr';
import { Walker } from './walk';

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** A test of a value's type and bytes. */
export type Predicate = (t: Type, buf: Buffer, off: number, len: number) => boolean;

function relation(op: CompareOp): (c: number) => boolean {
  switch (op) {
    case '==':
      return (c) => c === 0;
    case '!=':
      return (c) => c !== 0;
    case '<':
      return (c) => c < 0;
    case '<=':
      return (c) => c <= 0;
    case '>':
      return (c) => c > 0;
    case '>=':
      return (c) => c >= 0;
  }
}

function floatRelation(op: CompareOp): (a: number, b: number) => boolean {
  switch (op) {
    case '==':
      return (a, b) => a === b;
    case '!=':
      return (a, b) => a !== b;
    case '<':
      return (a, b) => a < b;
    case '<=':
      return (a, b) => a <= b;
    case '>':
      return (a, b) => a > b;
    case '>=':
      return (a, b) => a >= b;
  }
}

const MAX_INT64 = 2n ** 63n - 1n;

/** netip.Addr.Compare: 4-byte addresses before 16-byte ones, then bytes. */
function compareIP(a: Buffer, ao: number, al: number, b: Buffer, bo: number, bl: number): number {
  if (al !== bl) return al < bl ? -1 : 1;
  return bytesCompare(a, ao, al, b, bo, bl);
}

/**
 * The predicate `v <op> lit` for a constant lit, with the reference's
 * rules for each constant type (expr.Comparison), or null when the
 * constant's type has no such predicate (the caller then compares
 * generically).
 */
export function comparison(op: CompareOp, lit: Value): Predicate | null {
  const lt = lit.type.under;
  const lb = lit.buf;
  const lo = lit.off;
  const ll = lit.len;
  switch (lt.id) {
    case ID.Null:
      if (op === '==') return (_t, _b, _o, len) => len < 0;
      if (op === '!=') return (_t, _b, _o, len) => len >= 0;
      return null;
    case ID.IP: {
      const rel = relation(op);
      return (t, buf, off, len) =>
        t.under.id === ID.IP && rel(compareIP(buf, off, Math.max(len, 0), lb, lo, ll));
    }
    case ID.Bool: {
      const pattern = decodeBool(lb, lo, ll) ? 1 : 0;
      const rel = relation(op);
      return (t, buf, off, len) =>
        t.under.id === ID.Bool && rel((decodeBool(buf, off, len) ? 1 : 0) - pattern);
    }
    case ID.Float64: {
      const pattern = decodeFloat(lb, lo, ll);
      const rel = floatRelation(op);
      return (t, buf, off, len) => {
        const id = t.under.id;
        if (isFloat(id)) return rel(decodeFloat(buf, off, len), pattern);
        if (id <= ID.Time) {
          const n = isSigned(id) ? decodeInt(buf, off, len) : decodeUint(buf, off, len);
          return rel(n, pattern);
        }
        return false;
      };
    }
    case ID.String: {
      if (op === '==')
        return (t, buf, off, len) =>
          t.under.id === ID.String && bytesEqual(buf, off, Math.max(len, 0), lb, lo, ll);
      if (op === '!=')
        return (t, buf, off, len) =>
          t.under.id === ID.String && !bytesEqual(buf, off, Math.max(len, 0), lb, lo, ll);
      const rel = relation(op);
      return (t, buf, off, len) =>
        t.under.id === ID.String && rel(bytesCompare(buf, off, Math.max(len, 0), lb, lo, ll));
    }
    case ID.Bytes:
    case ID.Type: {
      const rel = relation(op);
      return (t, buf, off, len) => {
        const id = t.under.id;
        return (
          (id === ID.Bytes || id === ID.Type) &&
          rel(bytesCompare(buf, off, Math.max(len, 0), lb, lo, ll))
        );
      };
    }
    case ID.Int64:
    case ID.Time:
    case ID.Duration:
      return intComparison(op, lit);
    default:
      return null;
  }
}

/** Integer-constant comparison: ints, uints up to int64, floats, times, durations. */
function intComparison(op: CompareOp, lit: Value): Predicate {
  const rel = relation(op);
  const frel = floatRelation(op);
  const lb = lit.buf;
  const lo = lit.off;
  const ll = Math.max(lit.len, 0);
  const big = decodeIntBig(lb, lo, ll);
  const pf = Number(big);
  const safe = Number.isSafeInteger(pf);
  return (t, buf, off, len) => {
    const id = t.under.id;
    if (len < 0) len = 0;
    if (isFloat(id)) return frel(decodeFloat(buf, off, len), pf);
    if (id > ID.Time) return false;
    if (isSigned(id)) return rel(compareIntBytes(buf, off, len, lb, lo, ll));
    if (len <= 6 && safe) {
      const u = decodeUint(buf, off, len);
      return rel(u < pf ? -1 : u > pf ? 1 : 0);
    }
    const u = decodeUintBig(buf, off, len);
    if (u > MAX_INT64) return false;
    return rel(u < big ? -1 : u > big ? 1 : 0);
  };
}

/**
 * `operand <op> const`: the operand's error passes through, anything
 * else is tested with the predicate.
 */
export class PredicateExpr implements Expr {
  constructor(
    readonly operand: Expr,
    readonly pred: Predicate,
    /**
     * For `operand == <string constant>`: the constant's tagged bytes. The
     * predicate can hold only for a value of the same tagged length (the
     * vector engine's filters skip the rest without calling it).
     */
    readonly stringEq: Buffer | null = null,
  ) {}

  eval(self: Value): Value {
    const v = this.operand.eval(self);
    if (isError(v)) return v;
    return this.pred(v.type, v.buf, v.off, v.len) ? TRUE : FALSE;
  }
}

/** A value's body with its zcode tag before it (null: the tag 0 alone), as a column stores it. */
export function taggedBytes(v: Value): Buffer {
  if (v.len < 0) return Buffer.from([0]);
  const out = Buffer.allocUnsafe(uvarintSize(v.len + 1) + v.len);
  const o = putUvarint(out, 0, v.len + 1);
  v.buf.copy(out, o, v.off, v.off + v.len);
  return out;
}

/** A predicate that holds when any value inside (or the value itself) passes pred. */
export function contains(pred: Predicate): Predicate {
  const w = new Walker();
  return (t, buf, off, len) => w.walk(t, buf, off, len, pred);
}

/**
 * Equality of two values as the reference's coercing comparison: true,
 * false, or OVERFLOW when mixed-sign integers cannot meet.
 */
function equalCoerced(
  ops: Operands,
  a: Value,
  b: Value,
): boolean | typeof OVERFLOW | typeof INCOMPATIBLE {
  const at = coercionType(a.type);
  const bt = coercionType(b.type);
  const id = ops.coerce(at, a, bt, b);
  if (id < 0) return id as typeof OVERFLOW | typeof INCOMPATIBLE;
  if (ops.aNull || ops.bNull) return ops.aNull && ops.bNull;
  if (isNumber(id)) {
    if (isFloat(id)) {
      // Same-width floats compare as bytes; mixed ones as float64 bits.
      return at === bt
        ? bytesEqual(a.buf, a.off, a.len, b.buf, b.off, b.len)
        : floatBitsEqual(ops.fa, ops.fb);
    }
    return intEqual(ops.ia, ops.ib);
  }
  return bytesEqual(a.buf, a.off, a.len, b.buf, b.off, b.len);
}

/** `a == b`, `a != b` with coercion. */
export class Equal implements Expr {
  private readonly ops = new Operands();

  constructor(
    readonly lhs: Expr,
    readonly rhs: Expr,
    private readonly equality: boolean,
  ) {}

  eval(self: Value): Value {
    const a = this.lhs.eval(self);
    if (isError(a)) return a;
    const b = this.rhs.eval(self);
    if (isError(b)) return b;
    const r = equalCoerced(this.ops, a, b);
    if (r === INCOMPATIBLE) return FALSE;
    if (r === OVERFLOW) return this.equality ? FALSE : TRUE;
    return r === this.equality ? TRUE : FALSE;
  }
}

/** `<`, `<=`, `>`, `>=` with coercion. */
export class Compare implements Expr {
  private readonly ops = new Operands();
  private readonly rel: (c: number) => boolean;

  constructor(
    private readonly zctx: TypeContext,
    readonly lhs: Expr,
    readonly rhs: Expr,
    op: CompareOp,
  ) {
    this.rel = relation(op);
  }

  eval(self: Value): Value {
    const a = this.lhs.eval(self);
    if (isError(a)) return a;
    const b = this.rhs.eval(self);
    if (isError(b)) return b;
    const ops = this.ops;
    const at = coercionType(a.type);
    const id = ops.coerce(at, a, coercionType(b.type), b);
    if (id === OVERFLOW) return this.rel(isSigned(at.id) ? -1 : 1) ? TRUE : FALSE;
    if (id < 0) return FALSE;
    const eq = equalCoerced(ops, a, b);
    let c = 0;
    if (eq !== true) {
      if (ops.aNull || ops.bNull) return FALSE;
      if (isFloat(id)) c = ops.fa < ops.fb ? -1 : 1;
      else if (isNumber(id)) c = ops.ia < ops.ib ? -1 : 1;
      else if (id === ID.String)
        c = bytesCompare(a.buf, a.off, a.len, b.buf, b.off, b.len) < 0 ? -1 : 1;
      else return newError(this.zctx, `bad comparison type ID: ${id}`);
    }
    return this.rel(c) ? TRUE : FALSE;
  }
}

/** `elem in container`: elem equals the container or any value inside it. */
export class In implements Expr {
  private readonly ops = new Operands();
  private readonly walker = new Walker();
  private readonly cand = new Value(Value.null().type, Buffer.alloc(0), 0, -1);
  private readonly elemCopy = new Value(Value.null().type, Buffer.alloc(0), 0, -1);
  private elem: Value = this.cand;
  private overflow = false;
  private readonly visit = (t: Type, buf: Buffer, off: number, len: number): boolean => {
    const r = equalCoerced(this.ops, this.elem, this.cand.set(t, buf, off, len));
    if (r === OVERFLOW) {
      this.overflow = true;
      return true;
    }
    return r === true;
  };

  constructor(
    private readonly zctx: TypeContext,
    readonly lhs: Expr,
    readonly rhs: Expr,
  ) {}

  eval(self: Value): Value {
    const e = this.lhs.eval(self);
    if (isError(e)) return e;
    // Keep elem's coordinates apart from the Value object lhs returned.
    const elem = this.elemCopy.assign(e);
    const c = this.rhs.eval(self);
    if (isError(c)) return c;
    this.elem = elem;
    this.overflow = false;
    const hit = this.walker.walk(c.type, c.buf, c.off, c.len, this.visit);
    if (this.overflow) return newError(this.zctx, ERR_OVERFLOW);
    return hit ? TRUE : FALSE;
  }
}
