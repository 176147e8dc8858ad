// drop: removes fields (nested paths too) from records; other values pass
// unchanged, and a record left with no fields is dropped.

import { TypeContext } from '../../../zed/context';
import { Type, TypeRecord } from '../../../zed/types';
import { Value } from '../../../zed/value';
import { Builder, readUvarint, uv } from '../../../zed/zcode';
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
  /** What becomes of each field of the input's record type (see Kept). */
  kept: Kept | null;
}

/**
 * Per field of a record type: dropped, kept (its tagged bytes copied as
 * they lie), or a record kept in part (subs holds what becomes of its
 * fields).
 */
interface Kept {
  how: Uint8Array;
  subs: (Kept | null)[];
  /** Whether a field is kept in part. */
  nested: boolean;
}
const DROPPED = 0;
const KEPT = 1;
const IN_PART = 2;

/** What drops (paths below prefix) make of the fields of t. */
function keptOf(drops: readonly string[][], prefix: string[], t: TypeRecord): Kept {
  const how = new Uint8Array(t.fields.length);
  const subs: (Kept | null)[] = [];
  t.fields.forEach((f, i) => {
    const p = [...prefix, f.name];
    const below = drops.filter((d) => d.length >= p.length && p.every((x, k) => x === d[k]));
    const u = f.type.under;
    let sub: Kept | null = null;
    if (below.some((d) => d.length === p.length)) how[i] = DROPPED;
    else if (below.length === 0 || !(u instanceof TypeRecord)) how[i] = KEPT;
    else {
      sub = keptOf(below, p, u);
      // As complement() has it: a record none of whose fields is dropped
      // is kept whole, and one left with no fields goes.
      if (sub.how.every((h) => h === KEPT)) how[i] = KEPT;
      else how[i] = sub.how.every((h) => h === DROPPED) ? DROPPED : IN_PART;
    }
    subs.push(how[i] === IN_PART ? sub : null);
  });
  return { how, subs, nested: how.includes(IN_PART) };
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
        p = { rb: null, getters: [], type: null, empty: false, kept: null };
      else if (paths.length === 0)
        p = { rb: null, getters: [], type: null, empty: true, kept: null };
      else {
        const rb = new RecordBuilder(this.zctx, paths);
        p = {
          rb,
          getters: paths.map((q) => fieldPath(this.zctx, q)),
          type: rb.type(types),
          empty: false,
          kept: keptOf(this.fields, [], rt),
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
    // Where a record to keep in part is null, the getters say what that makes.
    const kept = p.kept;
    if (
      kept !== null &&
      v.len >= 0 &&
      !(kept.nested && nullPart(v.buf, v.off, v.off + v.len, kept))
    ) {
      arena.begin();
      keepFields(v.buf, v.off, v.off + v.len, kept, arena.b);
      return arena.end(p.type!);
    }
    arena.begin();
    p.rb.into(arena.b);
    for (const g of p.getters) {
      const f = g.eval(v);
      p.rb.append(f.buf, f.off, f.len);
    }
    return arena.end(p.type!);
  }
}

/**
 * Appends the fields kept of the record body buf[off, end): their tagged
 * bytes, in runs as they lie (one pass over it, where a getter per field
 * would seek each from the start), and records kept in part rebuilt.
 */
function keepFields(buf: Buffer, off: number, end: number, kept: Kept, b: Builder): void {
  const how = kept.how;
  let run = -1;
  for (let i = 0; i < how.length && off < end; i++) {
    const at = off;
    const tag = readUvarint(buf, off, end);
    const body = uv.end;
    off = body + (tag > 1 ? tag - 1 : 0);
    if (how[i] === KEPT) {
      if (run < 0) run = at;
      continue;
    }
    if (run >= 0) {
      b.appendRaw(buf, run, at - run);
      run = -1;
    }
    if (how[i] === IN_PART) {
      b.beginContainer();
      keepFields(buf, body, off, kept.subs[i]!, b);
      b.endContainer();
    }
  }
  if (run >= 0) b.appendRaw(buf, run, off - run);
}

/** Whether a record of the body buf[off, end) that kept keeps in part is null. */
function nullPart(buf: Buffer, off: number, end: number, kept: Kept): boolean {
  const how = kept.how;
  for (let i = 0; i < how.length && off < end; i++) {
    const tag = readUvarint(buf, off, end);
    const body = uv.end;
    off = body + (tag > 1 ? tag - 1 : 0);
    if (how[i] !== IN_PART) continue;
    if (tag === 0 || nullPart(buf, body, off, kept.subs[i]!)) return true;
  }
  return false;
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
