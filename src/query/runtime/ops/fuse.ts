// The fuse operator: reads its whole input, computes the fused type of all
// the input types (src/query/aggregates/schema.ts), then emits every value
// shaped to it: record fields filled with nulls and ordered like the fused
// record, values put into unions where the fused type has one. Values the
// fused type cannot take in (e.g. a record when the fused type is a union
// holding a different record) pass unchanged, and error values pass as
// they are; as in the reference, whose fuse shapes with cast, fill and
// order.
//
// Input is buffered in memory up to QueryContext.memoryLimit bytes; past
// that everything goes to a temporary ZNG file that is read back at the
// end.

import { TypeContext } from '../../../zed/context';
import { decodeInt } from '../../../zed/primitive';
import { formatType } from '../../../zed/typestring';
import {
  Field,
  innerType,
  Kind,
  Type,
  TypeArray,
  TypeMap,
  TypeNull,
  TypePrimitive,
  TypeRecord,
  TypeUnion,
} from '../../../zed/types';
import { Value } from '../../../zed/value';
import { Builder, readUvarint, uv } from '../../../zed/zcode';
import { Schema } from '../../aggregates/schema';
import { isError } from '../../expr/errors';
import { normalizeChildren } from '../../expr/containers';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { BATCH_SIZE, Operator } from '../operator';
import { VALUE_OVERHEAD } from './sort';
import { SpillDir, SpillFile } from './spill';

export class Fuse implements Operator {
  private started = false;
  private closed = false;
  private vals: Value[] = [];
  private pos = 0;
  private bytes = 0;
  private spill: SpillDir | null = null;
  private file: SpillFile | null = null;
  private readonly types = new Set<Type>();
  private readonly schema: Schema;
  private shaper: FuseShaper | null = null;
  private readonly arena = new ValueArena();

  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: Operator,
  ) {
    this.schema = new Schema(ctx.zctx);
  }

  async pull(): Promise<Value[] | null> {
    if (this.closed) return null;
    try {
      if (!this.started) {
        this.started = true;
        await this.consume();
      }
      this.ctx.checkCancelled();
      let batch: Value[] | null;
      if (this.file) {
        batch = await this.file.read();
      } else {
        batch =
          this.pos < this.vals.length ? this.vals.slice(this.pos, this.pos + BATCH_SIZE) : null;
        this.pos += BATCH_SIZE;
      }
      if (batch === null) {
        await this.finish();
        return null;
      }
      const out = batch.map((v) => this.shaper!.shape(v, this.arena));
      this.arena.seal();
      return out;
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  private async consume(): Promise<void> {
    for (;;) {
      this.ctx.checkCancelled();
      const batch = await this.parent.pull();
      if (batch === null) break;
      for (const v of batch) {
        if (!this.types.has(v.type)) {
          this.types.add(v.type);
          this.schema.mixin(v.type);
        }
      }
      if (this.file) {
        await this.file.write(batch);
        continue;
      }
      for (const v of batch) {
        this.vals.push(v);
        this.bytes += (v.len > 0 ? v.len : 0) + VALUE_OVERHEAD;
      }
      if (this.bytes >= this.ctx.memoryLimit) {
        this.spill = await SpillDir.create(this.ctx);
        this.file = await this.spill.newFile();
        for (let i = 0; i < this.vals.length; i += BATCH_SIZE) {
          await this.file.write(this.vals.slice(i, i + BATCH_SIZE));
        }
        this.vals = [];
      }
    }
    if (this.file) await this.file.rewind();
    const t = this.schema.type();
    if (t) this.shaper = new FuseShaper(this.ctx.zctx, t);
  }

  /** True when the input was spilled to disk (for tests). */
  get spilled(): boolean {
    return this.spill !== null;
  }

  private async finish(): Promise<void> {
    this.vals = [];
    this.file = null;
    if (this.spill) {
      await this.spill.remove();
      this.spill = null;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.finish();
    await this.parent.close();
  }
}

/** Thrown while planning a shape: becomes the value's error. */
class ShapeError extends Error {}

const enum Op {
  Copy,
  Null,
  FromUnion,
  ToUnion,
  Array,
  Set,
  Record,
}

/** How to build a value of toType from a value of some input type. */
interface Step {
  op: Op;
  toType: Type;
  /** Record children: the input field each output field comes from. */
  from: number;
  /** ToUnion: the tag. */
  tag: number;
  /** Record: one per output field; Array/Set: the element; FromUnion: one per member. */
  children: Step[];
}

interface Plan {
  type: Type;
  step: Step | null;
  error: Value | null;
}

/**
 * Shapes values to a fused type as the reference's shaper does with the
 * cast, fill and order transforms, for the conversions fusion needs
 * (records, arrays, sets, unions, nulls). Plans are made once per input
 * type (per underlying type, as the reference keys them by type ID).
 */
export class FuseShaper {
  private readonly plans = new Map<Type, Plan>();
  private readonly b = new Builder(256);

  constructor(
    private readonly zctx: TypeContext,
    private readonly target: Type,
  ) {}

  shape(v: Value, arena: ValueArena): Value {
    if (isError(v)) return v;
    const key = v.type.under;
    let plan = this.plans.get(key);
    if (!plan) {
      plan = this.plan(v.type);
      this.plans.set(key, plan);
    }
    if (plan.error) return plan.error;
    if (plan.type.under === key) return new Value(plan.type, v.buf, v.off, v.len);
    const b = this.b;
    b.reset();
    const t = this.build(plan.step!, v.buf, v.off, v.len, b);
    const body = b.body();
    arena.begin();
    if (body.len >= 0) arena.b.appendRaw(body.buf, body.off, body.len);
    const out = arena.end(t);
    if (body.len < 0) out.len = -1;
    return out;
  }

  private plan(in_: Type): Plan {
    try {
      const type = this.shapedType(in_, this.target);
      return { type, step: this.newStep(in_, type), error: null };
    } catch (e) {
      if (!(e instanceof ShapeError)) throw e;
      return { type: in_, step: null, error: this.zctx.newError(e.message) };
    }
  }

  /** The reference's shaperType for cast|fill|order. */
  private shapedType(in_: Type, out: Type): Type {
    const inU = in_.under;
    const outU = out.under;
    if (inU === outU || inU === TypeNull) return out;
    if (outU instanceof TypeMap)
      throw new ShapeError('cannot yet use maps in shaping functions (issue #2894)');
    if (inU instanceof TypePrimitive && outU instanceof TypePrimitive) return out;
    if (inU instanceof TypeUnion) {
      for (const t of inU.types) {
        try {
          this.shapedType(t, out);
        } catch {
          throw new ShapeError(
            `cannot cast union ${JSON.stringify(formatType(inU))} to ${JSON.stringify(formatType(out))} due to ${JSON.stringify(formatType(t))}`,
          );
        }
      }
      return out;
    }
    if (bestUnionTag(in_, outU) >= 0) return out;
    if (inU instanceof TypeRecord && outU instanceof TypeRecord) {
      const fields = this.shapedFields(inU, outU);
      if (sameFields(fields, outU.fields)) return out;
      return this.zctx.lookupTypeRecord(fields);
    }
    const inInner = innerType(inU);
    const outInner = innerType(outU);
    if (inInner && outInner) {
      const t = this.shapedType(inInner, outInner);
      if (t === outInner) return out;
      return outU instanceof TypeArray ? this.zctx.lookupTypeArray(t) : this.zctx.lookupTypeSet(t);
    }
    return in_;
  }

  private shapedFields(in_: TypeRecord, out: TypeRecord): Field[] {
    const fields: Field[] = [];
    for (const f of out.fields) {
      const i = in_.indexOf(f.name);
      if (i >= 0) fields.push({ name: f.name, type: this.shapedType(in_.fields[i].type, f.type) });
      else fields.push(f);
    }
    const rest = in_.fields.filter((f) => out.indexOf(f.name) < 0);
    rest.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return fields.concat(rest);
  }

  private newStep(in_: Type, out: Type): Step {
    const step = (op: Op, children: Step[] = [], tag = 0): Step => ({
      op,
      toType: out,
      from: 0,
      tag,
      children,
    });
    const inU = in_.under;
    const outU = out.under;
    if (inU === TypeNull) return step(Op.Null);
    if (inU === outU) return step(Op.Copy);
    if (inU instanceof TypeRecord && outU instanceof TypeRecord) {
      const children = outU.fields.map((f) => {
        const i = inU.indexOf(f.name);
        if (i < 0) return { op: Op.Null, toType: f.type, from: 0, tag: 0, children: [] };
        const c = this.newStep(inU.fields[i].type, f.type);
        c.from = i;
        return c;
      });
      return step(Op.Record, children);
    }
    if (inU instanceof TypePrimitive && outU instanceof TypePrimitive) {
      throw new ShapeError(`cast to ${formatType(out)} not implemented`);
    }
    const inner = innerType(inU);
    if (inner && (out.kind === Kind.Array || out.kind === Kind.Set)) {
      return step(out.kind === Kind.Array ? Op.Array : Op.Set, [
        this.newStep(inner, innerType(outU)!),
      ]);
    }
    if (inU instanceof TypeUnion) {
      try {
        return step(
          Op.FromUnion,
          inU.types.map((t) => this.newStep(t, out)),
        );
      } catch (e) {
        if (!(e instanceof ShapeError)) throw e;
      }
    }
    const tag = bestUnionTag(in_, out);
    if (tag >= 0) return step(Op.ToUnion, [], tag);
    throw new ShapeError(
      `createStep: incompatible types ${formatType(in_)} and ${formatType(out)}`,
    );
  }

  /** Appends the shaped value as a child of b; returns its type. */
  private build(s: Step, buf: Buffer, off: number, len: number, b: Builder): Type {
    if (len < 0 || s.op === Op.Copy || s.op === Op.Null) {
      if (s.op === Op.Null) b.appendNull();
      else b.append(buf, off, len);
      return s.toType;
    }
    const end = off + len;
    switch (s.op) {
      case Op.ToUnion:
        b.beginContainer();
        b.appendInt(s.tag);
        b.append(buf, off, len);
        b.endContainer();
        return s.toType;
      case Op.FromUnion: {
        const ttag = readUvarint(buf, off, end);
        const tag = decodeInt(buf, uv.end, ttag - 1);
        const p = uv.end + ttag - 1;
        const vtag = readUvarint(buf, p, end);
        return this.build(s.children[tag], buf, uv.end, vtag - 1, b);
      }
      case Op.Record: {
        b.beginContainer();
        const types: Type[] = [];
        let changed = false;
        for (const c of s.children) {
          if (c.op === Op.Null) {
            b.appendNull();
            types.push(c.toType);
            continue;
          }
          let o = off;
          for (let k = 0; k < c.from; k++) {
            const tag = readUvarint(buf, o, end);
            o = uv.end + (tag > 0 ? tag - 1 : 0);
          }
          const tag = readUvarint(buf, o, end);
          let t = this.build(c, buf, uv.end, tag - 1, b);
          if (t.under === c.toType.under) t = c.toType;
          else changed = true;
          types.push(t);
        }
        b.endContainer();
        if (!changed) return s.toType;
        const fields = (s.toType.under as TypeRecord).fields.map((f, i) => ({
          name: f.name,
          type: types[i],
        }));
        return this.zctx.lookupTypeRecord(fields);
      }
      case Op.Array:
      case Op.Set: {
        b.beginContainer();
        const start = b.len;
        const elem = s.children[0];
        let t: Type | null = null;
        let mixed = false;
        for (let o = off; o < end;) {
          const tag = readUvarint(buf, o, end);
          const start = uv.end;
          const clen = tag - 1;
          o = start + (clen > 0 ? clen : 0);
          const et = this.build(elem, buf, start, clen, b);
          if (t === null) t = et;
          else if (t !== et) mixed = true;
        }
        if (mixed) throw new Error('fuse: container elements of differing shaped types');
        if (s.op === Op.Set) normalizeChildren(b, start, 1);
        b.endContainer();
        const outInner = innerType(s.toType)!;
        if (t === null || t.under === outInner.under) return s.toType;
        return s.op === Op.Set ? this.zctx.lookupTypeSet(t) : this.zctx.lookupTypeArray(t);
      }
    }
    throw new Error('fuse: bad shaping step');
  }
}

function sameFields(a: readonly Field[], b: readonly Field[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++)
    if (a[i].name !== b[i].name || a[i].type !== b[i].type) return false;
  return true;
}

/**
 * The tag of the member of union out that best takes a value of type in:
 * in itself, else in's underlying type, else the first member with in's
 * underlying type; -1 when none (or out is not a union).
 */
function bestUnionTag(in_: Type, out: Type): number {
  const u = out.under;
  if (!(u instanceof TypeUnion)) return -1;
  const under = in_.under;
  let underlying = -1;
  let compatible = -1;
  for (let i = 0; i < u.types.length; i++) {
    const t = u.types[i];
    if (t === in_) return i;
    if (t === under && underlying < 0) underlying = i;
    if (t.under === under && compatible < 0) compatible = i;
  }
  return underlying >= 0 ? underlying : compatible;
}
