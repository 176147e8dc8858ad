// cut: records of the given fields (paths may be nested: `cut a, b.c`),
// each from its expression. A field whose expression is error("quiet") is
// left out; a record left with no fields is dropped.

import { TypeContext } from '../../../zed/context';
import { Type, TypeNull } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { isQuiet } from '../../expr/errors';
import { Expr } from '../../expr/expr';
import { RecordBuilder } from '../../expr/recordbuilder';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { Applier } from './apply';

export interface CutField {
  lhs: string[];
  rhs: Expr;
  /** Set when rhs is the top-level field of this name (`cut a` is a:=this.a). */
  from?: string;
}

export class Cutter {
  private readonly all: RecordBuilder;
  private readonly subsets = new Map<string, { rb: RecordBuilder; keep: number[] }>();
  private readonly vals: Value[] = [];
  private readonly types: Type[] = [];
  /** Every field is the input's own top-level field of its name. */
  private readonly plain: boolean;

  /** Throws for a duplicate or non-adjacent field (the reference's errors). */
  constructor(
    private readonly zctx: TypeContext,
    readonly fields: CutField[],
  ) {
    this.all = new RecordBuilder(
      zctx,
      fields.map((f) => f.lhs),
    );
    this.plain = fields.every((f) => f.lhs.length === 1 && f.from === f.lhs[0]);
  }

  /** The cut record of v built in the arena, or null when every field was quiet. */
  apply(v: Value, arena: ValueArena): Value | null {
    const fields = this.fields;
    const vals = this.vals;
    let quiet = '';
    for (let i = 0; i < fields.length; i++) {
      const r = fields[i].rhs.eval(v);
      vals[i] = r;
      if (r.type.kind === 7 && isQuiet(r)) quiet += i + ',';
    }
    if (quiet === '') {
      const types = this.types;
      for (let i = 0; i < fields.length; i++) types[i] = vals[i].type;
      const rt = this.all.type(types);
      // A record that already is its own cut (same fields, order and
      // types, as a column read delivers) is passed on, not rebuilt.
      if (this.plain && rt === v.type) return v;
      arena.begin();
      this.all.into(arena.b);
      for (let i = 0; i < fields.length; i++)
        this.all.append(vals[i].buf, vals[i].off, vals[i].len);
      return arena.end(rt);
    }
    let sub = this.subsets.get(quiet);
    if (sub === undefined) {
      const skip = new Set(
        quiet
          .split(',')
          .filter((x) => x !== '')
          .map(Number),
      );
      const keep = fields.map((_, i) => i).filter((i) => !skip.has(i));
      sub = {
        rb: new RecordBuilder(
          this.zctx,
          keep.map((i) => fields[i].lhs),
        ),
        keep,
      };
      this.subsets.set(quiet, sub);
    }
    if (sub.keep.length === 0) return null;
    const types = sub.keep.map((i) => vals[i].type);
    const rt = sub.rb.type(types.length > 0 ? types : [TypeNull]);
    arena.begin();
    sub.rb.into(arena.b);
    for (const i of sub.keep) sub.rb.append(vals[i].buf, vals[i].off, vals[i].len);
    return arena.end(rt);
  }
}

export class Cut extends Applier {
  private readonly cutter: Cutter;

  constructor(ctx: QueryContext, parent: Operator, fields: CutField[]) {
    super(ctx, parent);
    this.cutter = new Cutter(ctx.zctx, fields);
  }

  protected apply(v: Value): Value {
    const r = this.cutter.apply(v, this.arena);
    if (r === null) return this.ctx.zctx.quiet();
    this.built = r;
    return r;
  }
}
