// map(|{any:any}|): the entries of the map values in one map; a key seen
// again takes the newer value. Keys and values of union types are stored
// as their member values (the reference's Value.Under: untagged, names
// stripped), other keys and values keep their (named) types; mixed key or
// value types make a map of unions. Non-map values and nulls are skipped;
// no entries: null. Its partial is the map.

import { TypeContext } from '../../zed/context';
import { Type, TypeMap, TypeUnion } from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { Builder, ZIter } from '../../zed/zcode';
import { normalizeChildren } from '../expr/containers';
import { NULL } from '../expr/expr';
import { underValue, untag } from '../expr/path';
import { AggDef, AggFunction } from './agg';
import { appendElement, elementType, uniqueTypes } from './values';

const builder = new Builder();
const out = new Value(NULL.type, EMPTY, 0, -1);
const key = new Value(NULL.type, EMPTY, 0, -1);
const val = new Value(NULL.type, EMPTY, 0, -1);
const keyUnder = new Value(NULL.type, EMPTY, 0, -1);
const valUnder = new Value(NULL.type, EMPTY, 0, -1);
const it = new ZIter();

interface Entry {
  key: Value;
  val: Value;
}

/** The member of a map key or value (see the file comment), in v or under. */
function member(v: Value, under: Value, partial: boolean): Value {
  const t = v.type;
  if (!(t.under instanceof TypeUnion)) return v;
  // A partial's unions are the ones the result built for mixed types:
  // untag once, keeping the member's type as it was consumed.
  if (partial && t instanceof TypeUnion) {
    untag(t, v, v);
    return v;
  }
  return underValue(v, under);
}

class MapAgg implements AggFunction {
  /** Entries by key type and body. */
  private entries = new Map<string, Entry>();
  private ids = new Map<Type, number>();

  consume(v: Value): void {
    this.addAll(v, false);
  }

  consumePartial(v: Value): void {
    this.addAll(v, true);
  }

  private addAll(v: Value, partial: boolean): void {
    if (v.len < 0) return;
    const mt = v.type.under;
    if (!(mt instanceof TypeMap)) return;
    it.reset(v.buf, v.off, v.off + v.len);
    while (!it.done()) {
      it.next();
      const k = member(key.set(mt.keyType, v.buf, it.off, it.len), keyUnder, partial);
      if (it.done()) break;
      it.next();
      const x = member(val.set(mt.valType, v.buf, it.off, it.len), valUnder, partial);
      const id = this.typeId(k.type);
      const body = k.len < 0 ? '-' : '+' + k.buf.toString('latin1', k.off, k.off + k.len);
      this.entries.set(id + body, { key: k.copy(), val: x.copy() });
    }
  }

  /** A small number per distinct type, for entry keys. */
  private typeId(t: Type): number {
    let id = this.ids.get(t);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(t, id);
    }
    return id;
  }

  result(zctx: TypeContext): Value {
    if (this.entries.size === 0) return NULL;
    const entries = Array.from(this.entries.values());
    const kt = elementType(zctx, uniqueTypes(entries.map((e) => e.key.type)));
    const vt = elementType(zctx, uniqueTypes(entries.map((e) => e.val.type)));
    const b = builder;
    b.reset();
    for (const { key: k, val: x } of entries) {
      appendElement(b, kt.union, k.type, k.buf, k.off, k.len);
      appendElement(b, vt.union, x.type, x.buf, x.off, x.len);
    }
    normalizeChildren(b, 0, 2);
    const mt = zctx.lookupTypeMap(kt.type, vt.type);
    return out.set(mt, b.buf, 0, b.len);
  }

  resultPartial(zctx: TypeContext): Value {
    return this.result(zctx);
  }
}

export const map: AggDef = {
  name: 'map',
  needsArg: true,
  create: () => new MapAgg(),
};
