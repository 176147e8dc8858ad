// Field access: `this`, `x.y` and `x["y"]` paths, and the helpers that see
// through named types and unions (the reference's Value.Under).

import { TypeContext } from '../../zed/context';
import { decodeInt } from '../../zed/primitive';
import {
  Type,
  TypeMap,
  TypeNamed,
  TypeRecord,
  TypeString,
  TypeType,
  TypeUnion,
} from '../../zed/types';
import { Value } from '../../zed/value';
import { readUvarint, uv } from '../../zed/zcode';
import { Expr } from './expr';
import { lookupMapKey } from './index-expr';

/** `this`: the input value itself. */
export class This implements Expr {
  eval(self: Value): Value {
    return self;
  }
}

/**
 * Points out at the member of a union value (type and body); false when
 * the body is malformed. A null union stays null (of the union type).
 */
export function untag(u: TypeUnion, v: Value, out: Value): boolean {
  if (v.len < 0) {
    out.set(u, v.buf, v.off, -1);
    return true;
  }
  const buf = v.buf;
  const end = v.off + v.len;
  const ttag = readUvarint(buf, v.off, end);
  if (ttag <= 0) return false;
  const tag = decodeInt(buf, uv.end, ttag - 1);
  const p = uv.end + ttag - 1;
  const inner = u.types[tag];
  if (inner === undefined) return false;
  const vtag = readUvarint(buf, p, end);
  if (vtag < 0) return false;
  out.set(inner, buf, uv.end, vtag - 1);
  return true;
}

/**
 * The value with names stripped and unions untagged (into out when the
 * body changes); v itself when it is neither named nor a union.
 */
export function underValue(v: Value, out: Value): Value {
  let t = v.type;
  if (!(t instanceof TypeNamed) && !(t instanceof TypeUnion)) return v;
  out.assign(v);
  for (;;) {
    t = t.under;
    if (!(t instanceof TypeUnion) || out.len < 0) {
      out.type = t;
      return out;
    }
    if (!untag(t, out, out)) return out;
    t = out.type;
  }
}

/** Points out at field i of a record body, walking tags (one-byte tags inline). */
function seekField(buf: Buffer, off: number, end: number, i: number, out: Value, t: Type): void {
  for (let k = 0; k < i; k++) {
    const b = buf[off];
    if (b < 0x80) {
      off += b === 0 ? 1 : b;
      continue;
    }
    const tag = readUvarint(buf, off, end);
    off = uv.end + (tag <= 0 ? 0 : tag - 1);
  }
  const b = buf[off];
  if (b < 0x80) {
    out.set(t, buf, off + 1, b - 1);
    return;
  }
  const tag = readUvarint(buf, off, end);
  out.set(t, buf, uv.end, tag - 1);
}

/**
 * `lhs.name`: a field of a record (a null record gives a null of the
 * field's type), an entry of a map with string keys, the type of a field
 * of a record type value, and error("missing") otherwise.
 */
export class DotExpr implements Expr {
  private readonly out = new Value(TypeString, Buffer.alloc(0), 0, -1);
  private readonly tmp = new Value(TypeString, Buffer.alloc(0), 0, -1);
  private cacheType: Type | null = null;
  private cacheIndex = -1;
  private cacheField: Type | null = null;
  private readonly key: Value;

  constructor(
    private readonly zctx: TypeContext,
    readonly lhs: Expr,
    readonly name: string,
  ) {
    this.key = Value.fromBytes(TypeString, Buffer.from(name, 'utf8'));
  }

  eval(self: Value): Value {
    const v = this.lhs.eval(self);
    const t = v.type;
    // Fast path: a record type seen last time (named records included).
    if (t !== this.cacheType) {
      const u = t.under;
      if (!(u instanceof TypeRecord)) return this.slow(v);
      const i = u.indexOf(this.name);
      this.cacheType = t;
      this.cacheIndex = i;
      this.cacheField = i >= 0 ? u.fields[i].type : null;
    }
    if (this.cacheIndex < 0) return this.zctx.missing();
    if (v.len < 0) return this.out.set(this.cacheField!, v.buf, 0, -1);
    seekField(v.buf, v.off, v.off + v.len, this.cacheIndex, this.out, this.cacheField!);
    return this.out;
  }

  private slow(v0: Value): Value {
    const v = underValue(v0, this.tmp);
    const t = v.type;
    if (t === TypeType) return this.typeField(v);
    if (t instanceof TypeMap) return lookupMapKey(this.zctx, t, v, this.key, this.out);
    if (!(t instanceof TypeRecord)) return this.zctx.missing();
    const i = t.indexOf(this.name);
    if (i < 0) return this.zctx.missing();
    const ft = t.fields[i].type;
    if (v.len < 0) return this.out.set(ft, v.buf, 0, -1);
    seekField(v.buf, v.off, v.off + v.len, i, this.out, ft);
    return this.out;
  }

  private typeField(v: Value): Value {
    if (v.len < 0) return this.zctx.missing();
    let t: Type;
    try {
      t = this.zctx.lookupByValue(v.buf, v.off, v.len);
    } catch {
      return this.zctx.missing();
    }
    const u = t.under;
    if (u instanceof TypeRecord) {
      const i = u.indexOf(this.name);
      if (i >= 0) return this.zctx.typeValueOf(u.fields[i].type);
    }
    return this.zctx.missing();
  }
}

/** The expression for a path of field names from `this` (empty: `this`). */
export function fieldPath(zctx: TypeContext, path: readonly string[]): Expr {
  let e: Expr = new This();
  for (const name of path) e = new DotExpr(zctx, e, name);
  return e;
}

/** The field path of an expression built by fieldPath, or null. */
export function pathOf(e: Expr): string[] | null {
  if (e instanceof This) return [];
  if (e instanceof DotExpr) {
    const p = pathOf(e.lhs);
    if (p === null) return null;
    p.push(e.name);
    return p;
  }
  return null;
}
