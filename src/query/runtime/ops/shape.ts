// The shape operator (the reference's record "anchoring"): reads its whole
// input, groups record types that have the same field names in the same
// order and agree on field types except where one side is null, merges
// each group into one record type (null fields take the other side's
// type), and emits every record as its group's type. A field whose values
// (over the whole input) are all integers, nulls, or floats with integral
// values is retyped int64 (or uint64), the floats converted; as in the
// reference, a non-float64 field that would be retyped (e.g. an int32) is
// an error: "shape: can't recode from non float64".
//
// Values that are not records pass through unchanged. Input beyond
// QueryContext.memoryLimit is spilled to a temporary file.

import { decodeFloat } from '../../../zed/primitive';
import {
  Field,
  ID,
  Type,
  TypeFloat64,
  TypeInt64,
  TypeNull,
  TypeRecord,
  TypeUint64,
} from '../../../zed/types';
import { Value } from '../../../zed/value';
import { readUvarint, uv } from '../../../zed/zcode';
import { ValueArena } from '../arena';
import { QueryContext } from '../context';
import { Operator } from '../operator';
import { BufferingOperator } from './spill';

interface IntFlags {
  signed: boolean;
  unsigned: boolean;
}

class Anchor {
  typ: TypeRecord | null = null;
  readonly ints: IntFlags[];
  /** The recoded type, once computed (null: no recoding). */
  recoded: TypeRecord | null | undefined = undefined;

  constructor(
    readonly fields: Field[],
    public next: Anchor | null,
  ) {
    this.ints = fields.map(() => ({ signed: true, unsigned: true }));
  }

  match(fields: readonly Field[]): boolean {
    if (fields.length !== this.fields.length) return false;
    for (let k = 0; k < fields.length; k++) {
      const a = this.fields[k].type;
      const b = fields[k].type;
      if (a !== b && a.under !== TypeNull && b.under !== TypeNull) return false;
    }
    return true;
  }

  mixIn(fields: readonly Field[]): void {
    for (let k = 0; k < this.fields.length; k++) {
      if (this.fields[k].type.under === TypeNull)
        this.fields[k] = { name: this.fields[k].name, type: fields[k].type };
    }
  }

  updateInts(rt: TypeRecord, v: Value): void {
    const buf = v.buf;
    let off = v.off;
    const end = v.off + v.len;
    for (let k = 0; k < rt.fields.length; k++) {
      let body = -1;
      let len = -1;
      if (v.len >= 0 && off < end) {
        const tag = readUvarint(buf, off, end);
        body = uv.end;
        len = tag - 1;
        off = body + (len > 0 ? len : 0);
      }
      const id = rt.fields[k].type.under.id;
      if (id <= ID.Int256 || id === ID.Null) continue;
      const flags = this.ints[k];
      if (id < ID.Float16 || id > ID.Float256) {
        flags.signed = false;
        flags.unsigned = false;
        continue;
      }
      const f = len === 8 ? decodeFloat(buf, body, len) : 0;
      if (flags.signed && !(Number.isInteger(f) && f >= -(2 ** 63) && f < 2 ** 63))
        flags.signed = false;
      if (flags.unsigned && !(Number.isInteger(f) && f >= 0 && f < 2 ** 64)) flags.unsigned = false;
    }
  }
}

export class Shape extends BufferingOperator {
  private readonly anchors = new Map<string, Anchor>();
  private readonly typeAnchor = new Map<Type, Anchor>();
  private readonly arena = new ValueArena();

  constructor(ctx: QueryContext, parent: Operator) {
    super(ctx, parent);
  }

  protected observe(batch: Value[]): void {
    for (const v of batch) this.update(v);
  }

  protected prepare(): void {}

  protected transform(batch: Value[]): Value[] {
    const out = batch.map((v) => this.shape(v));
    this.arena.seal();
    return out;
  }

  private update(v: Value): void {
    const rt = v.type.under;
    if (!(rt instanceof TypeRecord)) return;
    let a = this.typeAnchor.get(v.type);
    if (!a) {
      const fields = rt.fields;
      // The reference hashes the names run together.
      const key = fields.map((f) => f.name).join('');
      for (let c = this.anchors.get(key) ?? null; c; c = c.next) {
        if (c.match(fields)) {
          a = c;
          break;
        }
      }
      if (a) a.mixIn(fields);
      else {
        a = new Anchor(fields.slice(), this.anchors.get(key) ?? null);
        this.anchors.set(key, a);
      }
      this.typeAnchor.set(v.type, a);
    }
    a.updateInts(rt, v);
  }

  private shape(v: Value): Value {
    const a = this.typeAnchor.get(v.type);
    if (!a) return v;
    const zctx = this.ctx.zctx;
    const typ = (a.typ ??= zctx.lookupTypeRecord(a.fields));
    if (a.recoded === undefined) {
      a.recoded = a.ints.some((f) => f.signed || f.unsigned)
        ? zctx.lookupTypeRecord(
            typ.fields.map((f, k) => ({
              name: f.name,
              type: a.ints[k].signed ? TypeInt64 : a.ints[k].unsigned ? TypeUint64 : f.type,
            })),
          )
        : null;
    }
    const to = a.recoded;
    if (!to) return new Value(typ, v.buf, v.off, v.len);
    return this.recode(typ, to, v);
  }

  private recode(from: TypeRecord, to: TypeRecord, v: Value): Value {
    const arena = this.arena;
    const b = arena.b;
    arena.begin();
    const buf = v.buf;
    const end = v.off + v.len;
    let off = v.off;
    for (let k = 0; k < from.fields.length; k++) {
      let body = 0;
      let len = -1;
      if (v.len >= 0 && off < end) {
        const tag = readUvarint(buf, off, end);
        body = uv.end;
        len = tag - 1;
        off = body + (len > 0 ? len : 0);
      }
      const ft = from.fields[k].type;
      const tt = to.fields[k].type;
      if (ft === tt || len < 0) {
        b.append(buf, body, len);
        continue;
      }
      if (ft !== TypeFloat64) throw new Error("shape: can't recode from non float64");
      const f = decodeFloat(buf, body, len);
      if (tt === TypeInt64) b.appendInt(Math.trunc(f));
      else b.appendUint(Math.trunc(f));
    }
    return arena.end(to);
  }
}
