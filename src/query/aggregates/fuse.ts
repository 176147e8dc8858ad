// fuse(any): the fused type of the values' types (see schema.ts), as a
// type value; null(type) when no value came. Types are mixed in the order
// they first appeared, after the types of any partials. Its partial is
// the result.

import { TypeContext } from '../../zed/context';
import { Type, TypeType } from '../../zed/types';
import { Value } from '../../zed/value';
import { Scratch } from '../expr/scratch';
import { AggDef, AggFunction } from './agg';
import { Schema } from './schema';

const out = new Scratch();

class Fuse implements AggFunction {
  /** Distinct types in order of first appearance. */
  private shapes = new Set<Type>();
  private partials: Type[] = [];
  private partialsCtx: TypeContext | null = null;
  private partialBytes: Buffer[] = [];

  consume(v: Value): void {
    this.shapes.add(v.type);
  }

  consumePartial(v: Value): void {
    if (v.type !== TypeType) throw new Error('fuse: partial not a type value');
    if (v.len < 0) return;
    // Decoded when the result is built (in the context it is built in).
    this.partialBytes.push(Buffer.from(v.buf.subarray(v.off, v.off + v.len)));
  }

  result(zctx: TypeContext): Value {
    if (this.shapes.size === 0 && this.partialBytes.length === 0) return out.null(TypeType);
    const schema = new Schema(zctx);
    for (const t of this.partialTypes(zctx)) schema.mixin(t);
    for (const t of this.shapes) schema.mixin(t);
    const tv = zctx.typeValue(schema.type()!);
    return out.view(TypeType, tv, 0, tv.length);
  }

  private partialTypes(zctx: TypeContext): Type[] {
    if (this.partialsCtx !== zctx || this.partials.length !== this.partialBytes.length) {
      this.partials = this.partialBytes.map((b) => {
        try {
          return zctx.lookupByValue(b);
        } catch (e) {
          throw new Error(`fuse: invalid partial value: ${(e as Error).message}`);
        }
      });
      this.partialsCtx = zctx;
    }
    return this.partials;
  }

  resultPartial(zctx: TypeContext): Value {
    return this.result(zctx);
  }
}

export const fuse: AggDef = {
  name: 'fuse',
  needsArg: true,
  create: () => new Fuse(),
};
