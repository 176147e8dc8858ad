// map(v, f): f applied to each element of array or set v (a function of the
// reference's later releases). f names a built-in function of one argument,
// a primitive type (for a cast) or a user function of one parameter (whose
// call f(this) the compiler makes); the results form an array (or a
// normalized set) whose element type is the union of the results' types
// when they differ.

import { TypeContext } from '../../zed/context';
import {
  compareTypes,
  innerType,
  lookupPrimitive,
  Type,
  TypeSet,
  TypeType,
  TypeUnion,
} from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { Builder, readUvarint, uv } from '../../zed/zcode';
import { normalizeChildren } from '../expr/containers';
import { isError, wrapError } from '../expr/errors';
import { Expr } from '../expr/expr';
import { Literal } from '../expr/literal';
import { fieldPath, pathOf, This } from '../expr/path';
import { newShaper, Cast } from '../expr/shaper';
import { Scratch } from '../expr/scratch';
import { UserCall } from '../expr/vars';
import { CompileError } from '../compiler/errors';
import { checkArity, FunctionEnv, lookupFunction, registerFunction } from './registry';

/** The evaluator of f(this) for the function argument of map, or a compile error. */
function innerCall(fn: Expr, env: FunctionEnv): Expr {
  // A user function: the compiler has made the call f(this) already.
  if (fn instanceof UserCall) return fn;
  if (fn instanceof Literal && fn.value.type === TypeType) {
    // A type: map(a, int64) casts each element.
    return newShaper(env.zctx, new This(), fn, Cast, fn.value);
  }
  const path = pathOf(fn);
  if (path === null || path.length !== 1) {
    throw new CompileError('map(): second argument must be the identifier of a function');
  }
  const name = path[0];
  const prim = lookupPrimitive(name);
  if (prim !== undefined) {
    const tv = env.zctx.typeValueOf(prim);
    return newShaper(env.zctx, new This(), new Literal(tv), Cast, tv);
  }
  const def = lookupFunction(name);
  if (def === undefined) throw new CompileError(`${name}(): no such function`);
  const bad = checkArity(def, 1);
  if (bad !== null) throw new CompileError(`${name}(): ${bad}`);
  const args: Expr[] = [new This()];
  if (def.path !== undefined) args.unshift(fieldPath(env.zctx, def.path));
  return def.build(args, env);
}

class MapCall implements Expr {
  private readonly tmp = new Builder(256);
  private readonly b = new Builder(256);
  private readonly out = new Scratch();
  private readonly elem = new Value(TypeType, EMPTY, 0, -1);
  private types: Type[] = [];

  constructor(
    private readonly zctx: TypeContext,
    readonly operand: Expr,
    readonly inner: Expr,
  ) {}

  eval(self: Value): Value {
    const v = this.operand.eval(self);
    if (isError(v)) return v;
    const et = innerType(v.type);
    if (et === undefined)
      return wrapError(this.zctx, 'expected container type, got primitive', self);
    const end = v.off + Math.max(v.len, 0);
    if (v.off >= end) return v;
    // Results are copied out as they come (each is valid only until the
    // next evaluation), then tagged if their types differ.
    const tmp = this.tmp;
    tmp.reset();
    const types = this.types;
    let n = 0;
    let mixed = false;
    for (let p = v.off; p < end; n++) {
      const tag = readUvarint(v.buf, p, end);
      const eoff = uv.end;
      const elen = tag - 1;
      p = eoff + (elen > 0 ? elen : 0);
      const r = this.inner.eval(this.elem.set(et, v.buf, eoff, elen));
      tmp.append(r.buf, r.off, r.len);
      types[n] = r.type;
      if (n > 0 && r.type !== types[0]) mixed = true;
    }
    let elemType: Type = types[0];
    let body: Builder = tmp;
    if (mixed) {
      const unique = [...new Set(types.slice(0, n))].sort(compareTypes);
      const union = this.zctx.lookupTypeUnion(unique);
      elemType = union;
      body = this.b;
      body.reset();
      tagAll(tmp, body, union, types);
    }
    const isSet = v.type.under instanceof TypeSet;
    if (isSet) normalizeChildren(body, 0, 1);
    const t = isSet ? this.zctx.lookupTypeSet(elemType) : this.zctx.lookupTypeArray(elemType);
    return this.out.view(t, body.buf, 0, body.len);
  }
}

/** Copies the elements of src into dst as members of union. */
function tagAll(src: Builder, dst: Builder, union: TypeUnion, types: Type[]): void {
  let i = 0;
  for (let p = 0; p < src.len; i++) {
    const tag = readUvarint(src.buf, p, src.len);
    const off = uv.end;
    const len = tag - 1;
    p = off + (len > 0 ? len : 0);
    if (len < 0) {
      dst.appendNull();
      continue;
    }
    dst.beginContainer();
    dst.appendInt(union.tagOf(types[i]));
    dst.append(src.buf, off, len);
    dst.endContainer();
  }
}

registerFunction('map', {
  minArgs: 2,
  maxArgs: 2,
  build: ([operand, fn], env) => new MapCall(env.zctx, operand, innerCall(fn, env)),
});
