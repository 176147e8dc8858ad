// Record, array, set and map expressions, with spreads. The element type of
// an array, set or map is the union of its elements' distinct non-null
// types (in the reference's type order), or that type when there is one.

import { compareTypes } from '../../zed/compare';
import { TypeContext } from '../../zed/context';
import { bytesCompare } from '../../zed/primitive';
import { Field, innerType, Type, TypeNull, TypeRecord, TypeUnion } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { Builder, readUvarint, uv } from '../../zed/zcode';
import { isMissing } from './errors';
import { Expr } from './expr';

export interface RecordElem {
  /** Field name (for a field), or null for a spread. */
  name: string | null;
  expr: Expr;
}

/** `{a:x, b:y}` without spreads or repeated names. */
export class RecordExpr implements Expr {
  private readonly b = new Builder(256);
  private readonly fields: { name: string; type: Type }[];
  private type: TypeRecord | null = null;
  private readonly out = new Value(TypeNull, EMPTY, 0, -1);

  constructor(
    private readonly zctx: TypeContext,
    readonly names: string[],
    readonly exprs: Expr[],
  ) {
    this.fields = names.map((name) => ({ name, type: TypeNull }));
  }

  eval(self: Value): Value {
    const b = this.b;
    b.reset();
    let changed = this.type === null;
    const fields = this.fields;
    for (let i = 0; i < this.exprs.length; i++) {
      const v = this.exprs[i].eval(self);
      if (fields[i].type !== v.type) {
        fields[i].type = v.type;
        changed = true;
      }
      b.append(v.buf, v.off, v.len);
    }
    if (changed) this.type = this.zctx.lookupTypeRecord(fields);
    return this.out.set(this.type!, b.buf, 0, b.len);
  }
}

/** A record expression with spreads (`{...r, a:1}`) or repeated names: later values win, in the first position. */
export class RecordSpreadExpr implements Expr {
  private readonly b = new Builder(256);
  private readonly out = new Value(TypeNull, EMPTY, 0, -1);
  private readonly index = new Map<string, number>();
  private names: string[] = [];
  private types: Type[] = [];
  private bufs: Buffer[] = [];
  private offs: number[] = [];
  private lens: number[] = [];
  private lastFields: Field[] = [];
  private type: TypeRecord | null = null;

  constructor(
    private readonly zctx: TypeContext,
    readonly elems: RecordElem[],
  ) {}

  private put(name: string, t: Type, buf: Buffer, off: number, len: number): void {
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.index.set(name, i);
      this.names.push(name);
    }
    this.types[i] = t;
    this.bufs[i] = buf;
    this.offs[i] = off;
    this.lens[i] = len;
  }

  eval(self: Value): Value {
    this.index.clear();
    this.names.length = 0;
    for (const el of this.elems) {
      const v = el.expr.eval(self);
      if (el.name !== null) {
        this.put(el.name, v.type, v.buf, v.off, v.len);
        continue;
      }
      if (isMissing(v)) continue;
      const rt = v.type.under;
      if (!(rt instanceof TypeRecord)) continue;
      let p = v.off;
      const end = v.off + Math.max(v.len, 0);
      for (const f of rt.fields) {
        let off = p;
        let len = -1;
        if (v.len >= 0) {
          const tag = readUvarint(v.buf, p, end);
          off = uv.end;
          len = tag - 1;
          p = off + (len > 0 ? len : 0);
        }
        this.put(f.name, f.type, v.buf, off, len);
      }
    }
    const n = this.names.length;
    let same = this.type !== null && this.lastFields.length === n;
    for (let i = 0; same && i < n; i++) {
      if (this.lastFields[i].name !== this.names[i] || this.lastFields[i].type !== this.types[i])
        same = false;
    }
    if (!same) {
      this.lastFields = this.names.map((name, i) => ({ name, type: this.types[i] }));
      this.type = this.zctx.lookupTypeRecord(this.lastFields);
    }
    const b = this.b;
    b.reset();
    for (let i = 0; i < n; i++) b.append(this.bufs[i], this.offs[i], this.lens[i]);
    return this.out.set(this.type!, b.buf, 0, b.len);
  }
}

/** Builds the right record expression for elems. */
export function recordExpr(zctx: TypeContext, elems: RecordElem[]): Expr {
  const names = new Set<string>();
  let simple = true;
  for (const e of elems) {
    if (e.name === null || names.has(e.name)) simple = false;
    else names.add(e.name);
  }
  if (simple) {
    return new RecordExpr(
      zctx,
      elems.map((e) => e.name!),
      elems.map((e) => e.expr),
    );
  }
  return new RecordSpreadExpr(zctx, elems);
}

export interface VectorElem {
  /** True for `...expr`. */
  spread: boolean;
  expr: Expr;
}

/** Collected element types and bodies of a vector or map being built. */
class Collection {
  types: Type[] = [];
  bufs: Buffer[] = [];
  offs: number[] = [];
  lens: number[] = [];
  n = 0;

  reset(): void {
    this.n = 0;
  }

  add(t: Type, buf: Buffer, off: number, len: number): void {
    const i = this.n++;
    this.types[i] = t;
    this.bufs[i] = buf;
    this.offs[i] = off;
    this.lens[i] = len;
  }

  addSpread(v: Value): boolean {
    const inner = innerType(v.type);
    if (inner === undefined) return false;
    const end = v.off + Math.max(v.len, 0);
    let p = v.off;
    while (p < end) {
      const tag = readUvarint(v.buf, p, end);
      const off = uv.end;
      const len = tag - 1;
      p = off + (len > 0 ? len : 0);
      this.add(inner, v.buf, off, len);
    }
    return true;
  }

  /** The element type: TypeNull, the one distinct non-null type, or their union. */
  elemType(zctx: TypeContext, cache: { key: Type[]; type: Type }): Type {
    const distinct: Type[] = [];
    for (let i = 0; i < this.n; i++) {
      const t = this.types[i];
      if (t !== TypeNull && !distinct.includes(t)) distinct.push(t);
    }
    if (distinct.length === 0) return TypeNull;
    if (distinct.length === 1) return distinct[0];
    if (cache.key.length === distinct.length && cache.key.every((t, i) => t === distinct[i]))
      return cache.type;
    const sorted = distinct.slice().sort(compareTypes);
    cache.key = distinct;
    cache.type = zctx.lookupTypeUnion(sorted);
    return cache.type;
  }

  /** Appends element i, tagged when the element type is a union. */
  append(b: Builder, i: number, elem: Type): void {
    const len = this.lens[i];
    if (elem instanceof TypeUnion && this.types[i] !== elem) {
      if (len < 0) {
        b.appendNull();
        return;
      }
      b.beginContainer();
      b.appendInt(elem.tagOf(this.types[i]));
      b.append(this.bufs[i], this.offs[i], len);
      b.endContainer();
      return;
    }
    b.append(this.bufs[i], this.offs[i], len);
  }
}

/**
 * Sorts the tagged children of b.buf[start, b.len) by their bytes, keeping
 * the first of equal ones (the set and map normal form); stride 2 sorts
 * map entries by key.
 */
export function normalizeChildren(b: Builder, start: number, stride: 1 | 2): void {
  const buf = b.buf;
  const spans: number[] = [];
  let off = start;
  while (off < b.len) {
    const s = off;
    let keyEnd = off;
    for (let k = 0; k < stride; k++) {
      const tag = readUvarint(buf, off, b.len);
      off = uv.end + (tag > 0 ? tag - 1 : 0);
      if (k === 0) keyEnd = off;
    }
    spans.push(s, keyEnd, off);
  }
  if (spans.length < 6) return;
  const tmp = Buffer.from(buf.subarray(start, b.len));
  const order: number[] = [];
  for (let i = 0; i < spans.length; i += 3) order.push(i);
  const cmp = (x: number, y: number) =>
    bytesCompare(
      tmp,
      spans[x] - start,
      spans[x + 1] - spans[x],
      tmp,
      spans[y] - start,
      spans[y + 1] - spans[y],
    );
  order.sort(cmp);
  b.len = start;
  let prev = -1;
  for (const x of order) {
    if (prev >= 0 && cmp(prev, x) === 0) continue;
    prev = x;
    b.appendRaw(tmp, spans[x] - start, spans[x + 2] - spans[x]);
  }
}

/** `[a, b, ...c]` and `|[a, b, ...c]|`. */
export class VectorExpr implements Expr {
  private readonly b = new Builder(256);
  private readonly c = new Collection();
  private readonly out = new Value(TypeNull, EMPTY, 0, -1);
  private readonly cache = { key: [] as Type[], type: TypeNull as Type };
  private lastElem: Type | null = null;
  private lastType: Type = TypeNull;

  constructor(
    private readonly zctx: TypeContext,
    readonly elems: VectorElem[],
    readonly set: boolean,
  ) {}

  eval(self: Value): Value {
    const c = this.c;
    c.reset();
    for (const el of this.elems) {
      const v = el.expr.eval(self);
      if (el.spread) c.addSpread(v);
      else c.add(v.type, v.buf, v.off, v.len);
    }
    const elem = c.elemType(this.zctx, this.cache);
    if (elem !== this.lastElem) {
      this.lastElem = elem;
      this.lastType = this.set ? this.zctx.lookupTypeSet(elem) : this.zctx.lookupTypeArray(elem);
    }
    const b = this.b;
    b.reset();
    for (let i = 0; i < c.n; i++) c.append(b, i, elem);
    if (this.set) normalizeChildren(b, 0, 1);
    return this.out.set(this.lastType, b.buf, 0, b.len);
  }
}

/** `|{k: v, ...}|`. */
export class MapExpr implements Expr {
  private readonly b = new Builder(256);
  private readonly keys = new Collection();
  private readonly vals = new Collection();
  private readonly out = new Value(TypeNull, EMPTY, 0, -1);
  private readonly kcache = { key: [] as Type[], type: TypeNull as Type };
  private readonly vcache = { key: [] as Type[], type: TypeNull as Type };

  constructor(
    private readonly zctx: TypeContext,
    readonly entries: { key: Expr; value: Expr }[],
  ) {}

  eval(self: Value): Value {
    const ks = this.keys;
    const vs = this.vals;
    ks.reset();
    vs.reset();
    for (const e of this.entries) {
      const k = e.key.eval(self);
      ks.add(k.type, k.buf, k.off, k.len);
      const v = e.value.eval(self);
      vs.add(v.type, v.buf, v.off, v.len);
    }
    const kt = ks.elemType(this.zctx, this.kcache);
    const vt = vs.elemType(this.zctx, this.vcache);
    const b = this.b;
    b.reset();
    for (let i = 0; i < ks.n; i++) {
      ks.append(b, i, kt);
      vs.append(b, i, vt);
    }
    normalizeChildren(b, 0, 2);
    return this.out.set(this.zctx.lookupTypeMap(kt, vt), b.buf, 0, b.len);
  }
}
