// The fuse operator: reads its whole input, computes the fused type of all
// the input types (src/query/aggregates/schema.ts), then emits every value
// shaped to it: record fields filled with nulls and ordered like the fused
// record, values put into unions where the fused type has one. As in the
// reference, values are shaped with cast, fill and order (the expression
// shaper), so values the fused type cannot take in (e.g. a record when the
// fused type is a union holding a different record) pass unchanged, and
// error values pass as they are.
//
// Input is buffered in memory up to QueryContext.memoryLimit bytes; past
// that everything goes to a temporary ZNG file that is read back at the
// end.

import { Type } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { Schema } from '../../aggregates/schema';
import { This } from '../../expr/path';
import { Cast, ConstShaper, Fill, Order } from '../../expr/shaper';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { BufferingOperator } from './spill';

export class Fuse extends BufferingOperator {
  private readonly types = new Set<Type>();
  private readonly schema: Schema;
  private shaper: ConstShaper | null = null;
  private readonly arena = new ValueArena();

  constructor(ctx: QueryContext, parent: Operator) {
    super(ctx, parent);
    this.schema = new Schema(ctx.zctx);
  }

  protected observe(batch: Value[]): void {
    for (const v of batch) {
      if (!this.types.has(v.type)) {
        this.types.add(v.type);
        this.schema.mixin(v.type);
      }
    }
  }

  protected prepare(): void {
    const t = this.schema.type();
    if (t) this.shaper = new ConstShaper(this.ctx.zctx, new This(), t, Cast | Fill | Order);
  }

  protected transform(batch: Value[]): Value[] {
    const shaper = this.shaper!;
    const out = batch.map((v) => {
      const r = shaper.shape(v);
      // Unchanged values pass as they are, unchanged bodies are shared, and
      // new ones are copied out of the shaper.
      if (r.buf === v.buf) {
        if (r.type === v.type && r.off === v.off && r.len === v.len) return v;
        return new Value(r.type, v.buf, v.off, v.len);
      }
      return this.arena.copy(r);
    });
    this.arena.seal();
    return out;
  }
}
