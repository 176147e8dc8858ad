// The uniq operator: drops values equal to the one before them. As in the
// reference, "equal" means the same body bytes whatever the types (and a
// null equals an empty body). With -c each run is emitted as
// {value:<first of the run>,count:<length of the run>(uint64)}.

import { TypeUint64, TypeRecord, Type } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { bytesEqual } from '../../../zed/primitive';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { ValueArena } from '../arena';

export class Uniq implements Operator {
  private last: Value | null = null;
  private count = 0;
  private done = false;
  private readonly arena = new ValueArena();
  private readonly types = new Map<Type, TypeRecord>();

  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: Operator,
    private readonly cflag: boolean,
  ) {}

  async pull(): Promise<Value[] | null> {
    while (!this.done) {
      this.ctx.checkCancelled();
      const batch = await this.parent.pull();
      if (batch === null) {
        this.done = true;
        break;
      }
      const out: Value[] = [];
      for (let i = 0; i < batch.length; i++) {
        const v = batch[i];
        const last = this.last;
        if (last !== null && same(v, last)) {
          this.count++;
          continue;
        }
        if (last !== null) out.push(this.wrap(last));
        this.last = v.copy();
        this.count = 1;
      }
      this.arena.seal();
      if (out.length > 0) return out;
    }
    if (this.last === null) return null;
    const v = this.wrap(this.last);
    this.arena.seal();
    this.last = null;
    return [v];
  }

  private wrap(v: Value): Value {
    if (!this.cflag) return v;
    let rt = this.types.get(v.type);
    if (!rt) {
      rt = this.ctx.zctx.lookupTypeRecord([
        { name: 'value', type: v.type },
        { name: 'count', type: TypeUint64 },
      ]);
      this.types.set(v.type, rt);
    }
    const a = this.arena;
    a.begin();
    a.b.append(v.buf, v.off, v.len);
    a.b.appendUint(this.count);
    return a.end(rt);
  }

  async close(): Promise<void> {
    this.done = true;
    this.last = null;
    await this.parent.close();
  }
}

function same(a: Value, b: Value): boolean {
  return bytesEqual(a.buf, a.off, a.len < 0 ? 0 : a.len, b.buf, b.off, b.len < 0 ? 0 : b.len);
}
