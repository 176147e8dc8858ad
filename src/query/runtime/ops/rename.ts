// rename: renames fields within their own record (`rename id.src:=id.orig_h`);
// only the type changes, the bytes are shared. Renames apply left to
// right, each seeing the previous ones.

import { DuplicateFieldError, TypeContext } from '../../../zed/context';
import { TypeRecord } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { wrapError } from '../../expr/errors';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { Applier } from './apply';

export interface RenameArg {
  src: string[];
  dst: string[];
}

export class Renamer {
  private readonly types = new Map<TypeRecord, TypeRecord | string>();

  constructor(
    private readonly zctx: TypeContext,
    readonly args: RenameArg[],
  ) {}

  private dstType(t: TypeRecord, src: string[], dst: string[]): TypeRecord {
    const c = t.indexOf(src[0]);
    if (c < 0) return t;
    let inner = t.fields[c].type;
    if (src.length > 1) {
      if (!(inner instanceof TypeRecord)) return t;
      inner = this.dstType(inner, src.slice(1), dst.slice(1));
    }
    const fields = t.fields.slice();
    fields[c] = { name: dst[0], type: inner };
    return this.zctx.lookupTypeRecord(fields);
  }

  /** The renamed type, or an error message. */
  typeOf(rt: TypeRecord): TypeRecord | string {
    let t = this.types.get(rt);
    if (t === undefined) {
      try {
        let x = rt;
        for (const a of this.args) x = this.dstType(x, a.src, a.dst);
        t = x;
      } catch (e) {
        if (!(e instanceof DuplicateFieldError)) throw e;
        t = `rename: ${e.message}`;
      }
      this.types.set(rt, t);
    }
    return t;
  }

  apply(v: Value): Value {
    const rt = v.type.under;
    if (!(rt instanceof TypeRecord)) return v;
    const t = this.typeOf(rt);
    if (typeof t === 'string') return wrapError(this.zctx, t, v);
    return new Value(t, v.buf, v.off, v.len);
  }
}

export class Rename extends Applier {
  private readonly renamer: Renamer;

  constructor(ctx: QueryContext, parent: Operator, args: RenameArg[]) {
    super(ctx, parent);
    this.renamer = new Renamer(ctx.zctx, args);
  }

  protected apply(v: Value): Value {
    const r = this.renamer.apply(v);
    if (r !== v && r.buf === v.buf) this.built = r;
    return r;
  }
}
