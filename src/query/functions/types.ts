// Functions about types and errors that the compiler relies on: casts
// (cast() and the T(x) forms), typeof, typeunder, nameof, typename, is,
// kind, error, is_error, has, missing and quiet.

import { formatValue, parseType } from '../../formats/zson';
import { TypeContext } from '../../zed/context';
import { KindNames, ID, Type, TypeBool, TypeNamed, TypeString, TypeType } from '../../zed/types';
import { formatType } from '../../zed/typestring';
import { Value } from '../../zed/value';
import { PrimitiveCast } from '../expr/cast';
import { isError, isMissing, isQuiet, newError } from '../expr/errors';
import { Expr, FALSE, TRUE } from '../expr/expr';
import { Scratch } from '../expr/scratch';
import { registerFunction, valueFunction } from './registry';

function typeOfValue(zctx: TypeContext, v: Value): Type | undefined {
  if (v.len < 0) return undefined;
  try {
    return zctx.lookupByValue(v.buf, v.off, v.len);
  } catch {
    return undefined;
  }
}

/**
 * cast(x, T) for a type value T: errors pass through; a null becomes a
 * null of T; a value whose underlying type is T's is retyped (a cast to a
 * named type); primitives convert with the primitive casters. A string T
 * names the type of `this`, as in the reference.
 */
export class CastExpr implements Expr {
  private readonly casts = new Map<Type, Expr>();
  private readonly out = new Scratch();
  private readonly self = new Value(TypeString, Buffer.alloc(0), 0, -1);

  constructor(
    private readonly zctx: TypeContext,
    readonly operand: Expr,
    readonly typeExpr: Expr,
  ) {}

  /** The evaluator for a constant target type. */
  static forType(zctx: TypeContext, operand: Expr, to: Type): Expr {
    if (to.under.id < ID.FirstComplex && to.under.id !== ID.Null)
      return new PrimitiveCast(zctx, operand, to);
    return new ComplexCast(zctx, operand, to);
  }

  eval(self: Value): Value {
    const tv = this.typeExpr.eval(self);
    if (isError(tv)) return tv;
    if (tv.type === TypeString) {
      const name = tv.buf.toString('utf8', tv.off, tv.off + Math.max(tv.len, 0));
      let t: Type;
      try {
        t = this.zctx.lookupTypeNamed(name, self.type);
      } catch (e) {
        return newError(this.zctx, (e as Error).message);
      }
      return this.out.view(t, self.buf, self.off, self.len);
    }
    if (tv.type !== TypeType) {
      return newError(this.zctx, `shaper type argument is not a type: ${formatValue(tv)}`);
    }
    const to = typeOfValue(this.zctx, tv);
    if (to === undefined) return newError(this.zctx, 'shaper type argument is not a type');
    let c = this.casts.get(to);
    if (c === undefined) {
      c = CastExpr.forType(this.zctx, { eval: () => this.self }, to);
      this.casts.set(to, c);
    }
    this.self.assign(this.operand.eval(self));
    return c.eval(self);
  }
}

/**
 * A cast to a complex type. Only the cases that need no reshaping are
 * done here: null, and values whose underlying type already is the
 * target's (casts to named types); reshaping is the shaper's.
 */
class ComplexCast implements Expr {
  private readonly out = new Scratch();
  constructor(
    private readonly zctx: TypeContext,
    readonly operand: Expr,
    readonly to: Type,
  ) {}

  eval(self: Value): Value {
    const v = this.operand.eval(self);
    if (isError(v)) return v;
    if (v.type.under.id === ID.Null) return this.out.null(this.to);
    if (v.type.under === this.to.under) return this.out.view(this.to, v.buf, v.off, v.len);
    return newError(this.zctx, `cannot cast ${formatType(v.type)} to ${formatType(this.to)}`);
  }
}

registerFunction('cast', {
  minArgs: 2,
  maxArgs: 2,
  build: ([operand, typeExpr], env) => {
    const tv = env.constant(typeExpr);
    if (tv !== undefined && tv.type === TypeType) {
      const to = typeOfValue(env.zctx, tv);
      if (to !== undefined) return CastExpr.forType(env.zctx, operand, to);
    }
    return new CastExpr(env.zctx, operand, typeExpr);
  },
});

registerFunction(
  'typeof',
  valueFunction(
    1,
    1,
    ({ zctx }) =>
      (args) =>
        zctx.typeValueOf(args[0].type),
  ),
);

registerFunction(
  'typeunder',
  valueFunction(
    1,
    1,
    ({ zctx }) =>
      (args) =>
        zctx.typeValueOf(args[0].type.under),
  ),
);

registerFunction(
  'nameof',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return (args) => {
      const t = args[0].type;
      return t instanceof TypeNamed ? out.string(TypeString, t.name) : zctx.missing();
    };
  }),
);

registerFunction(
  'typename',
  valueFunction(1, 2, ({ zctx }) => (args) => {
    const a = args[0];
    if (a.type.under !== TypeString) return newError(zctx, 'typename: first argument not a string');
    const name = a.buf.toString('utf8', a.off, a.off + Math.max(a.len, 0));
    if (args.length === 1) {
      const t = zctx.lookupTypeDef(name);
      return t === undefined ? zctx.missing() : zctx.typeValueOf(t);
    }
    const b = args[1];
    if (b.type.under !== TypeType)
      return newError(zctx, 'typename: second argument not a type value');
    const t = typeOfValue(zctx, b);
    if (t === undefined) return newError(zctx, 'typename: bad type value');
    return zctx.typeValueOf(t);
  }),
);

registerFunction(
  'error',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return (args) => {
      const v = args[0];
      return out.view(zctx.lookupTypeError(v.type), v.buf, v.off, v.len);
    };
  }),
);

registerFunction(
  'is_error',
  valueFunction(1, 1, () => (args) => (isError(args[0]) ? TRUE : FALSE), { boolResult: true }),
);

registerFunction(
  'is',
  valueFunction(
    1,
    2,
    ({ zctx }) =>
      (args) => {
        const subject = args.length === 3 ? args[1] : args[0];
        const tv = args.length === 3 ? args[2] : args[1];
        let t: Type | undefined;
        if (tv.type.under === TypeString) {
          try {
            t = parseType(zctx, tv.buf.toString('utf8', tv.off, tv.off + Math.max(tv.len, 0)));
          } catch {
            t = undefined;
          }
        } else {
          t = typeOfValue(zctx, tv);
        }
        return t !== undefined && t === subject.type ? TRUE : FALSE;
      },
    { boolResult: true, path: [] },
  ),
);

registerFunction(
  'kind',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return (args) => {
      const v = args[0];
      let t: Type | undefined = v.type;
      if (t.under === TypeType) t = typeOfValue(zctx, v);
      if (t === undefined) return newError(zctx, 'kind: bad type value');
      return out.string(TypeString, KindNames[t.kind]);
    };
  }),
);

function has(args: Value[]): Value {
  for (const v of args) {
    if (isError(v)) return isMissing(v) || isQuiet(v) ? FALSE : v;
  }
  return TRUE;
}

registerFunction(
  'has',
  valueFunction(1, -1, () => has, { boolResult: true }),
);

registerFunction(
  'missing',
  valueFunction(
    1,
    -1,
    () => (args) => {
      const r = has(args);
      if (r.type !== TypeBool) return r;
      return r === TRUE ? FALSE : TRUE;
    },
    { boolResult: true },
  ),
);

registerFunction(
  'quiet',
  valueFunction(
    1,
    1,
    ({ zctx }) =>
      (args) =>
        isMissing(args[0]) ? zctx.quiet() : args[0],
  ),
);
