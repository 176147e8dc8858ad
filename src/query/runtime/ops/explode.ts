// The explode operator: `explode args by <type> [as name]`. For each input
// value and each argument it walks the argument's value (through records,
// arrays, sets, maps, unions, named types and errors) and emits a record
// {<name>:<v>} for every non-null v of exactly the given type, without
// looking inside it. An argument that is an error is emitted as is, unless
// it is error("missing").

import { decodeInt } from '../../../zed/primitive';
import {
  innerType,
  Type,
  TypeArray,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../../zed/types';
import { Value } from '../../../zed/value';
import { readUvarint, uv } from '../../../zed/zcode';
import { isError, isMissing } from '../../expr/errors';
import { Expr } from '../../expr/expr';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { Operator } from '../operator';

export class Explode implements Operator {
  private readonly outType: TypeRecord;
  private readonly arena = new ValueArena();

  /** Output records have the one field `as` (the reference's default is "value"). */
  constructor(
    private readonly ctx: QueryContext,
    private readonly parent: Operator,
    private readonly args: Expr[],
    private readonly type: Type,
    as: string,
  ) {
    this.outType = ctx.zctx.lookupTypeRecord([{ name: as, type }]);
  }

  async pull(): Promise<Value[] | null> {
    for (;;) {
      this.ctx.checkCancelled();
      const batch = await this.parent.pull();
      if (batch === null) return null;
      const out: Value[] = [];
      for (const self of batch) {
        for (const arg of this.args) {
          const v = arg.eval(self);
          if (isError(v)) {
            if (!isMissing(v)) out.push(this.arena.copy(v));
            continue;
          }
          this.walk(v.type, v.buf, v.off, v.len, out);
        }
      }
      this.arena.seal();
      if (out.length > 0) return out;
    }
  }

  private walk(t: Type, buf: Buffer, off: number, len: number, out: Value[]): void {
    if (t === this.type) {
      if (len >= 0) {
        const a = this.arena;
        a.begin();
        a.b.append(buf, off, len);
        out.push(a.end(this.outType));
        return;
      }
    }
    if (t instanceof TypeNamed || t instanceof TypeErr) {
      this.walk(t.type, buf, off, len, out);
      return;
    }
    if (len < 0) return;
    const end = off + len;
    if (t instanceof TypeRecord) {
      for (const f of t.fields) {
        if (off >= end) return;
        off = this.child(f.type, buf, off, end, out);
      }
    } else if (t instanceof TypeArray || t instanceof TypeSet) {
      const inner = t instanceof TypeSet ? innerType(t)!.under : t.type;
      while (off < end) off = this.child(inner, buf, off, end, out);
    } else if (t instanceof TypeMap) {
      const kt = t.keyType.under;
      const vt = t.valType.under;
      while (off < end) {
        off = this.child(kt, buf, off, end, out);
        off = this.child(vt, buf, off, end, out);
      }
    } else if (t instanceof TypeUnion) {
      const ttag = readUvarint(buf, off, end);
      if (ttag <= 0) return;
      const tag = decodeInt(buf, uv.end, ttag - 1);
      const inner = t.types[tag];
      if (!inner) return;
      const p = uv.end + ttag - 1;
      const vtag = readUvarint(buf, p, end);
      if (vtag < 0) return;
      this.walk(inner, buf, uv.end, vtag - 1, out);
    }
  }

  /** Walks the tagged child at off; returns the offset after it. */
  private child(t: Type, buf: Buffer, off: number, end: number, out: Value[]): number {
    const tag = readUvarint(buf, off, end);
    if (tag < 0) return end;
    const start = uv.end;
    const len = tag - 1;
    this.walk(t, buf, start, len, out);
    return start + (len > 0 ? len : 0);
  }

  async close(): Promise<void> {
    await this.parent.close();
  }
}
