// drop: removes fields (nested paths too) from records; other values pass
// unchanged, and a record left with no fields is dropped.

import { TypeContext } from '../../../zed/context';
import { Type, TypeRecord } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { Expr } from '../../expr/expr';
import { fieldPath } from '../../expr/path';
import { RecordBuilder } from '../../expr/recordbuilder';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { Applier } from './apply';

interface Plan {
  /** null: the type has none of the fields (pass unchanged). */
  rb: RecordBuilder | null;
  getters: Expr[];
  type: TypeRecord | null;
  /** Every field dropped. */
  empty: boolean;
}

function complement(
  drops: readonly string[][],
  prefix: string[],
  t: TypeRecord,
  paths: string[][],
  types: Type[],
): boolean {
  let match = false;
  for (const f of t.fields) {
    const p = [...prefix, f.name];
    if (drops.some((d) => d.length === p.length && d.every((x, i) => x === p[i]))) {
      match = true;
      continue;
    }
    const u = f.type.under;
    if (u instanceof TypeRecord) {
      const subPaths: string[][] = [];
      const subTypes: Type[] = [];
      if (complement(drops, p, u, subPaths, subTypes)) {
        paths.push(...subPaths);
        types.push(...subTypes);
        match = true;
        continue;
      }
    }
    paths.push(p);
    types.push(f.type);
  }
  return match;
}

export class Dropper {
  private readonly plans = new Map<Type, Plan>();

  constructor(
    private readonly zctx: TypeContext,
    readonly fields: string[][],
  ) {}

  private plan(t: Type, rt: TypeRecord): Plan {
    let p = this.plans.get(t);
    if (p === undefined) {
      const paths: string[][] = [];
      const types: Type[] = [];
      if (!complement(this.fields, [], rt, paths, types))
        p = { rb: null, getters: [], type: null, empty: false };
      else if (paths.length === 0) p = { rb: null, getters: [], type: null, empty: true };
      else {
        const rb = new RecordBuilder(this.zctx, paths);
        p = {
          rb,
          getters: paths.map((q) => fieldPath(this.zctx, q)),
          type: rb.type(types),
          empty: false,
        };
      }
      this.plans.set(t, p);
    }
    return p;
  }

  /** v without the fields (built in the arena), v itself, or null when nothing is left. */
  apply(v: Value, arena: ValueArena): Value | null {
    const rt = v.type.under;
    if (!(rt instanceof TypeRecord)) return v;
    const p = this.plan(v.type, rt);
    if (p.empty) return null;
    if (p.rb === null) return v;
    arena.begin();
    p.rb.into(arena.b);
    for (const g of p.getters) {
      const f = g.eval(v);
      p.rb.append(f.buf, f.off, f.len);
    }
    return arena.end(p.type!);
  }
}

export class Drop extends Applier {
  private readonly dropper: Dropper;

  constructor(ctx: QueryContext, parent: Operator, fields: string[][]) {
    super(ctx, parent);
    this.dropper = new Dropper(ctx.zctx, fields);
  }

  protected apply(v: Value): Value {
    const r = this.dropper.apply(v, this.arena);
    if (r === null) return this.ctx.zctx.quiet();
    if (r !== v) this.built = r;
    return r;
  }
}
