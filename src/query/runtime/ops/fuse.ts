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
  private shaper: ConstShaper | null = null;
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
      const shaper = this.shaper!;
      const out = batch.map((v) => {
        const r = shaper.shape(v);
        // Unchanged bodies are shared; new ones are copied out of the shaper.
        return r.buf === v.buf ? new Value(r.type, v.buf, v.off, v.len) : this.arena.copy(r);
      });
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
    if (t) this.shaper = new ConstShaper(this.ctx.zctx, new This(), t, Cast | Fill | Order);
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
