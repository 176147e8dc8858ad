// Shaping: the cast, crop, fill, fit, order and shape functions and the
// `shape` operator (docs/language/overview.md, "Shaping").
//
// A shaper combines transforms (bit flags): Cast converts leaf values to
// the target's types, Crop drops record fields the target lacks, Fill adds
// the target's missing fields as nulls, and Order puts fields in the
// target's order (extra ones after, sorted by name). For each input type
// the shaper works out the output type once, and a tree of steps that
// builds an output value from an input body; values of that input type
// then only run the steps. This follows the reference's runtime/expr
// shaper, including the error texts and its quirks (see ConstShaper).

import { goQuote } from '../../formats/zson/gotext';
import { formatValue } from '../../formats/zson';
import { TypeContext } from '../../zed/context';
import { decodeInt } from '../../zed/primitive';
import {
  compareTypes,
  Field,
  innerType,
  isContainer,
  Kind,
  Type,
  TypeArray,
  TypeMap,
  TypeNull,
  TypeRecord,
  TypeString,
  TypeType,
  TypeUnion,
} from '../../zed/types';
import { formatType } from '../../zed/typestring';
import { EMPTY, Value } from '../../zed/value';
import { Builder, readUvarint, uv } from '../../zed/zcode';
import { Caster, primitiveCaster } from './cast';
import { normalizeChildren } from './containers';
import { isError } from './errors';
import { Expr } from './expr';
import { Scratch } from './scratch';

export const Cast = 1;
export const Crop = 2;
export const Fill = 4;
export const Order = 8;

/** The transforms of a shaping function by name (0 for other names). */
export function shaperTransforms(name: string): number {
  switch (name) {
    case 'cast':
      return Cast;
    case 'crop':
      return Crop;
    case 'fill':
      return Fill;
    case 'fit':
      return Crop | Fill;
    case 'order':
      return Order;
    case 'shape':
      return Cast | Fill | Order;
    default:
      return 0;
  }
}

/** A shape that cannot be made; its message becomes an error value. */
export class ShapeError extends Error {}

/** A container type (record, array, set, map or union), names seen through. */
function isPrimitiveLike(t: Type): boolean {
  return !isContainer(t);
}

function hasField(r: TypeRecord, name: string): boolean {
  return r.indexOf(name) >= 0;
}

function sameFields(a: readonly Field[], b: readonly Field[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i].name !== b[i].name || a[i].type !== b[i].type) return false;
  }
  return true;
}

/**
 * The tag of the member of union type out that a value of type t goes to:
 * t itself, else t's underlying type, else the first member with t's
 * underlying type; -1 when out is not a union or has none of these.
 */
export function bestUnionTag(t: Type, out: Type): number {
  const u = out.under;
  if (!(u instanceof TypeUnion)) return -1;
  const under = t.under;
  let underlying = -1;
  let compatible = -1;
  for (let i = 0; i < u.types.length; i++) {
    const m = u.types[i];
    if (m === t) return i;
    if (m === under && underlying < 0) underlying = i;
    if (m.under === under && compatible < 0) compatible = i;
  }
  return underlying >= 0 ? underlying : compatible;
}

/** The output type of shaping a value of type input to type out. */
export function shaperType(zctx: TypeContext, tf: number, input: Type, out: Type): Type {
  const inU = input.under;
  const outU = out.under;
  if (tf & Cast) {
    if (inU === outU || inU === TypeNull) return out;
    if (outU instanceof TypeMap) {
      throw new ShapeError('cannot yet use maps in shaping functions (issue #2894)');
    }
    if (isPrimitiveLike(inU) && isPrimitiveLike(outU)) {
      if (primitiveCaster(zctx, outU) === null) {
        throw new ShapeError(`cast to ${formatType(out)} not implemented`);
      }
      return out;
    }
    if (inU instanceof TypeUnion) {
      for (const t of inU.types) {
        try {
          shaperType(zctx, tf, t, out);
        } catch (e) {
          if (!(e instanceof ShapeError)) throw e;
          throw new ShapeError(
            `cannot cast union ${goQuote(formatType(inU))} to ${goQuote(formatType(out))} due to ${goQuote(formatType(t))}`,
          );
        }
      }
      return out;
    }
    if (bestUnionTag(input, outU) > -1) return out;
  } else if (inU === outU) {
    return input;
  }
  if (inU instanceof TypeRecord && outU instanceof TypeRecord) {
    const fields = shaperFields(zctx, tf, inU, outU);
    if (tf & Cast) {
      if (sameFields(fields, outU.fields)) return out;
    } else if (sameFields(fields, inU.fields)) {
      return input;
    }
    return zctx.lookupTypeRecord(fields);
  }
  const inInner = innerType(inU);
  const outInner = innerType(outU);
  if (
    inInner !== undefined &&
    outInner !== undefined &&
    (tf & Cast || inU instanceof TypeArray === outU instanceof TypeArray)
  ) {
    const t = shaperType(zctx, tf, inInner, outInner);
    if (tf & Cast) {
      if (t === outInner) return out;
    } else if (t === inInner) {
      return input;
    }
    return outU instanceof TypeArray ? zctx.lookupTypeArray(t) : zctx.lookupTypeSet(t);
  }
  return input;
}

/** The fields of the record type that shaping a record of type input to out yields. */
function shaperFields(zctx: TypeContext, tf: number, input: TypeRecord, out: TypeRecord): Field[] {
  let crop = (tf & Crop) !== 0;
  let fill = (tf & Fill) !== 0;
  const order = (tf & Order) !== 0;
  // Without Order the input's field order is kept: walk the input's
  // fields instead of the target's, with the meanings of crop and fill
  // exchanged accordingly.
  let walk = out;
  let other = input;
  if (!order) {
    [crop, fill] = [!fill, !crop];
    walk = input;
    other = out;
  }
  const fields: Field[] = [];
  for (const f of walk.fields) {
    const i = other.indexOf(f.name);
    if (i >= 0) {
      const otherType = other.fields[i].type;
      const t = order
        ? shaperType(zctx, tf, otherType, f.type)
        : shaperType(zctx, tf, f.type, otherType);
      fields.push({ name: f.name, type: t });
    } else if (fill) {
      fields.push(f);
    }
  }
  if (!crop) {
    let rest = other.fields;
    if (order) rest = rest.slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const f of rest) if (!hasField(walk, f.name)) fields.push(f);
  }
  return fields;
}

const enum Op {
  Copy,
  CastPrimitive,
  CastFromUnion,
  CastToUnion,
  Null,
  Array,
  Set,
  Record,
}

/**
 * One node of the tree that builds an output value from an input body.
 * Scratch memory lives in the step, so building allocates nothing once
 * warm unless a primitive cast fails or a vector's element types change.
 */
class Step {
  fromIndex = 0;
  toTag = 0;
  caster: Caster | null = null;
  fromType: Type = TypeNull;
  children: Step[] = [];
  // Scratch for building.
  private types: Type[] = [];
  private readonly in = new Value(TypeNull, EMPTY, 0, -1);
  private out: Scratch | null = null;
  private tmp: Buffer | null = null;

  constructor(
    readonly op: Op,
    readonly toType: Type,
  ) {}

  /** Casts a primitive body, returning the cast value (or an error). */
  castValue(buf: Buffer, off: number, len: number): Value {
    const out = (this.out ??= new Scratch());
    return this.caster!(this.in.set(this.fromType, buf, off, len), out);
  }

  /**
   * Appends the output built from the input body (len -1: null) to b and
   * returns its type: usually toType, but a failed cast yields an error
   * type and vectors may change their element type.
   */
  build(zctx: TypeContext, buf: Buffer, off: number, len: number, b: Builder): Type {
    if (len < 0 || this.op === Op.Copy) {
      b.append(buf, off, len);
      return this.toType;
    }
    switch (this.op) {
      case Op.CastPrimitive: {
        const v = this.castValue(buf, off, len);
        b.append(v.buf, v.off, v.len);
        return v.type.under === this.toType.under ? this.toType : v.type;
      }
      case Op.CastFromUnion: {
        const end = off + len;
        const ttag = readUvarint(buf, off, end);
        const tag = decodeInt(buf, uv.end, ttag - 1);
        const vtag = readUvarint(buf, uv.end + ttag - 1, end);
        const child = this.children[tag];
        if (child === undefined || vtag < 0) throw new ShapeError('bad union tag');
        return child.build(zctx, buf, uv.end, vtag - 1, b);
      }
      case Op.CastToUnion:
        b.beginContainer();
        b.appendInt(this.toTag);
        b.append(buf, off, len);
        b.endContainer();
        return this.toType;
      case Op.Array:
      case Op.Set:
        return this.buildVector(zctx, buf, off, len, b);
      case Op.Record:
        return this.buildRecord(zctx, buf, off, len, b);
      default:
        b.appendNull();
        return this.toType;
    }
  }

  private buildVector(zctx: TypeContext, buf: Buffer, off: number, len: number, b: Builder): Type {
    b.beginContainer();
    const start = b.len;
    const child = this.children[0];
    const types = this.types;
    let n = 0;
    const end = off + len;
    let p = off;
    let first: Type | null = null;
    let mixed = false;
    while (p < end) {
      const tag = readUvarint(buf, p, end);
      const eoff = uv.end;
      const elen = tag - 1;
      p = eoff + (elen > 0 ? elen : 0);
      const t = child.build(zctx, buf, eoff, elen, b);
      types[n++] = t;
      if (first === null) first = t;
      else if (t !== first) mixed = true;
    }
    let inner: Type;
    if (first === null) {
      b.endContainer();
      return this.toType;
    }
    if (!mixed) {
      inner = first;
    } else {
      const unique = uniqueTypes(types, n);
      const union = zctx.lookupTypeUnion(unique);
      this.tagElements(b, start, union, n);
      inner = union;
    }
    if (this.op === Op.Set) normalizeChildren(b, start, 1);
    b.endContainer();
    const want = innerType(this.toType);
    if (want !== undefined && inner.under === want.under) return this.toType;
    return this.op === Op.Set ? zctx.lookupTypeSet(inner) : zctx.lookupTypeArray(inner);
  }

  /** Rewrites the n elements built from b.buf[start] as members of union. */
  private tagElements(b: Builder, start: number, union: TypeUnion, n: number): void {
    const size = b.len - start;
    if (this.tmp === null || this.tmp.length < size)
      this.tmp = Buffer.allocUnsafe(Math.max(size, 64));
    const tmp = this.tmp;
    b.buf.copy(tmp, 0, start, b.len);
    b.len = start;
    let p = 0;
    for (let i = 0; i < n; i++) {
      const tag = readUvarint(tmp, p, size);
      const eoff = uv.end;
      const elen = tag - 1;
      p = eoff + (elen > 0 ? elen : 0);
      if (elen < 0) {
        b.appendNull();
        continue;
      }
      b.beginContainer();
      b.appendInt(union.tagOf(this.types[i]));
      b.append(tmp, eoff, elen);
      b.endContainer();
    }
  }

  private buildRecord(zctx: TypeContext, buf: Buffer, off: number, len: number, b: Builder): Type {
    b.beginContainer();
    const types = this.types;
    let changed = false;
    const children = this.children;
    const end = off + len;
    let at = 0;
    let p = off;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child.op === Op.Null) {
        b.appendNull();
        types[i] = child.toType;
        continue;
      }
      // Seek the input field: onward from the last one when the fields
      // come in input order, else from the start.
      if (child.fromIndex < at) {
        at = 0;
        p = off;
      }
      for (; at < child.fromIndex; at++) {
        const tag = readUvarint(buf, p, end);
        p = uv.end + (tag > 0 ? tag - 1 : 0);
      }
      const tag = readUvarint(buf, p, end);
      let t = child.build(zctx, buf, uv.end, tag - 1, b);
      if (t.under === child.toType.under) t = child.toType;
      else changed = true;
      types[i] = t;
    }
    b.endContainer();
    if (!changed) return this.toType;
    const fields = (this.toType.under as TypeRecord).fields.map((f, i) => ({
      name: f.name,
      type: types[i],
    }));
    return zctx.lookupTypeRecord(fields);
  }
}

/** The distinct types of types[0, n) in the reference's type order. */
function uniqueTypes(types: Type[], n: number): Type[] {
  const out: Type[] = [];
  for (let i = 0; i < n; i++) if (!out.includes(types[i])) out.push(types[i]);
  return out.sort(compareTypes);
}

function newStep(zctx: TypeContext, input: Type, out: Type): Step {
  const inU = input.under;
  const outU = out.under;
  if (inU === TypeNull) return new Step(Op.Null, out);
  if (inU === outU) return new Step(Op.Copy, out);
  if (inU instanceof TypeRecord && outU instanceof TypeRecord) return newRecordStep(zctx, inU, out);
  if (isPrimitiveLike(inU) && isPrimitiveLike(outU)) {
    const s = new Step(Op.CastPrimitive, out);
    s.caster = primitiveCaster(zctx, outU);
    if (s.caster === null) throw new ShapeError(`cast to ${formatType(out)} not implemented`);
    s.fromType = input;
    return s;
  }
  const inner = innerType(inU);
  if (inner !== undefined) {
    if (out.kind === Kind.Array || out.kind === Kind.Set) {
      const s = new Step(out.kind === Kind.Array ? Op.Array : Op.Set, out);
      s.children = [newStep(zctx, inner, innerType(out)!)];
      return s;
    }
  } else if (inU instanceof TypeUnion) {
    const children: Step[] = [];
    let ok = true;
    for (const t of inU.types) {
      try {
        children.push(newStep(zctx, t, out));
      } catch (e) {
        if (!(e instanceof ShapeError)) throw e;
        ok = false;
        break;
      }
    }
    if (ok) {
      const s = new Step(Op.CastFromUnion, out);
      s.children = children;
      return s;
    }
  }
  const tag = bestUnionTag(input, out);
  if (tag >= 0) {
    const s = new Step(Op.CastToUnion, out);
    s.toTag = tag;
    s.fromType = input;
    return s;
  }
  throw new ShapeError(
    `createStep: incompatible types ${formatType(input)} and ${formatType(out)}`,
  );
}

function newRecordStep(zctx: TypeContext, input: TypeRecord, out: Type): Step {
  const s = new Step(Op.Record, out);
  for (const f of (out.under as TypeRecord).fields) {
    const i = input.indexOf(f.name);
    if (i < 0) {
      s.children.push(new Step(Op.Null, f.type));
      continue;
    }
    const child = newStep(zctx, input.fields[i].type, f.type);
    child.fromIndex = i;
    s.children.push(child);
  }
  return s;
}

/** What shaping values of one input type does: retype, build, or fail. */
class Plan {
  constructor(
    readonly type: Type,
    readonly step: Step | null,
    readonly error: Value | null,
  ) {}
}

function newPlan(zctx: TypeContext, tf: number, input: Type, out: Type): Plan {
  try {
    const t = shaperType(zctx, tf, input, out);
    const step = newStep(zctx, input, t);
    return new Plan(t, step, null);
  } catch (e) {
    if (!(e instanceof ShapeError)) throw e;
    return new Plan(TypeNull, null, zctx.newError(e.message));
  }
}

/**
 * Shapes the values of an expression to one type. Plans are kept per input
 * type. As in the reference, they are keyed by the input's underlying
 * type, so the first named type seen stands for its underlying type.
 */
export class ConstShaper implements Expr {
  private readonly plans = new Map<Type, Plan>();
  private lastType: Type | null = null;
  private lastPlan: Plan | null = null;
  private readonly b = new Builder(256);
  private readonly out = new Scratch();

  constructor(
    private readonly zctx: TypeContext,
    readonly operand: Expr,
    readonly to: Type,
    readonly transforms: number,
  ) {}

  eval(self: Value): Value {
    return this.shape(this.operand.eval(self));
  }

  /** The shaped value (valid until the next call). */
  shape(v: Value): Value {
    if (isError(v)) return v;
    const key = v.type.under;
    let plan = this.lastPlan;
    if (key !== this.lastType || plan === null) {
      plan = this.plans.get(key) ?? null;
      if (plan === null) {
        plan = newPlan(this.zctx, this.transforms, v.type, this.to);
        this.plans.set(key, plan);
      }
      this.lastType = key;
      this.lastPlan = plan;
    }
    if (plan.error !== null) return plan.error;
    const out = this.out;
    if (plan.type.under === key) return out.view(plan.type, v.buf, v.off, v.len);
    const step = plan.step!;
    if (v.len < 0) return out.null(step.toType);
    if (step.op === Op.CastPrimitive) {
      // A top-level primitive cast needs no builder.
      const r = step.castValue(v.buf, v.off, v.len);
      return r.type.under === step.toType.under ? out.view(step.toType, r.buf, r.off, r.len) : r;
    }
    const b = this.b;
    b.reset();
    const t = step.build(this.zctx, v.buf, v.off, v.len, b);
    // The one value built, without its tag.
    const tag = readUvarint(b.buf, 0, b.len);
    return out.view(t, b.buf, uv.end, tag - 1);
  }
}

/**
 * A shaping function whose type argument is computed per value: a type
 * value, or a string naming the type of `this` (which then becomes a
 * named type; the first argument is not used, as in the reference).
 */
export class Shaper implements Expr {
  private readonly shapers = new Map<Type, ConstShaper>();
  private readonly out = new Scratch();

  constructor(
    private readonly zctx: TypeContext,
    readonly operand: Expr,
    readonly typeExpr: Expr,
    readonly transforms: number,
  ) {}

  eval(self: Value): Value {
    const tv = this.typeExpr.eval(self);
    if (isError(tv)) return tv;
    const zctx = this.zctx;
    if (tv.type === TypeString) {
      const name = tv.buf.toString('utf8', tv.off, tv.off + Math.max(tv.len, 0));
      let t: Type;
      try {
        t = zctx.lookupTypeNamed(name, self.type);
      } catch (e) {
        return zctx.newError((e as Error).message);
      }
      return this.out.view(t, self.buf, self.off, self.len);
    }
    if (tv.type !== TypeType) {
      return zctx.newError(`shaper type argument is not a type: ${formatValue(tv)}`);
    }
    let to: Type;
    try {
      to = zctx.lookupByValue(tv.buf, tv.off, Math.max(tv.len, 0));
    } catch (e) {
      return zctx.newError((e as Error).message);
    }
    let s = this.shapers.get(to);
    if (s === undefined) {
      s = new ConstShaper(zctx, this.operand, to, this.transforms);
      this.shapers.set(to, s);
    }
    return s.eval(self);
  }
}

/**
 * The evaluator of a shaping call: a ConstShaper when the type argument
 * is a constant type value, else a Shaper.
 */
export function newShaper(
  zctx: TypeContext,
  operand: Expr,
  typeExpr: Expr,
  transforms: number,
  constant?: Value,
): Expr {
  if (constant !== undefined && constant.type === TypeType && constant.len >= 0) {
    try {
      const to = zctx.lookupByValue(constant.buf, constant.off, constant.len);
      return new ConstShaper(zctx, operand, to, transforms);
    } catch {
      // Fall through: the dynamic shaper reports the bad type value.
    }
  }
  return new Shaper(zctx, operand, typeExpr, transforms);
}

/** Shapes a value to type `to` with the given transforms (for operators and tests). */
export function shapeValue(zctx: TypeContext, v: Value, to: Type, transforms: number): Value {
  const s = new ConstShaper(zctx, { eval: (x: Value) => x }, to, transforms);
  return s.shape(v).copy();
}
