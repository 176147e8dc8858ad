// Type fusion: the smallest type that values of every mixed-in type can be
// shaped to without loss, as the reference's fuse operator and aggregate
// compute it. Records merge field by field (new fields appended in order of
// appearance), arrays and sets merge their element types (an array with a
// set gives an array), maps merge keys and values, and anything else that
// differs becomes a union (with all of its record members merged into one).

import { compareTypes } from '../../zed/compare';
import { TypeContext } from '../../zed/context';
import {
  Field,
  Type,
  TypeArray,
  TypeMap,
  TypeNull,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';

export class Schema {
  private t: Type | null = null;

  constructor(private readonly zctx: TypeContext) {}

  /** Mixes t into the fused type. */
  mixin(t: Type): void {
    this.t = this.t === null ? t : fuseTypes(this.zctx, this.t, t);
  }

  /** The fused type, or null before any mixin. */
  type(): Type | null {
    return this.t;
  }
}

/** The fusion of two types. */
export function fuseTypes(zctx: TypeContext, a: Type, b: Type): Type {
  const au = a.under;
  if (au === TypeNull) return b;
  const bu = b.under;
  if (bu === TypeNull) return a;
  if (au instanceof TypeRecord && bu instanceof TypeRecord) {
    const fields: Field[] = au.fields.slice();
    for (const f of bu.fields) {
      const i = fields.findIndex((g) => g.name === f.name);
      if (i < 0) fields.push(f);
      else if (fields[i].type !== f.type) {
        fields[i] = { name: f.name, type: fuseTypes(zctx, fields[i].type, f.type) };
      }
    }
    return zctx.lookupTypeRecord(fields);
  }
  if (au instanceof TypeArray || au instanceof TypeSet) {
    if (bu instanceof TypeArray || bu instanceof TypeSet) {
      const inner = fuseTypes(zctx, au.type, bu.type);
      return au instanceof TypeSet && bu instanceof TypeSet
        ? zctx.lookupTypeSet(inner)
        : zctx.lookupTypeArray(inner);
    }
  }
  if (au instanceof TypeMap && bu instanceof TypeMap) {
    return zctx.lookupTypeMap(
      fuseTypes(zctx, au.keyType, bu.keyType),
      fuseTypes(zctx, au.valType, bu.valType),
    );
  }
  if (au instanceof TypeUnion) {
    const types = au.types.slice();
    const add = (t: Type) => {
      if (!types.includes(t)) types.push(t);
    };
    if (bu instanceof TypeUnion) bu.types.forEach(add);
    else add(b);
    const merged = mergeRecords(zctx, types);
    return merged.length === 1 ? merged[0] : unionOf(zctx, merged);
  }
  if (bu instanceof TypeUnion) return fuseTypes(zctx, b, a);
  return unionOf(zctx, [a, b]);
}

/** The union of types, its members in the reference's type order. */
function unionOf(zctx: TypeContext, types: Type[]): Type {
  return zctx.lookupTypeUnion(types.slice().sort(compareTypes));
}

/** Merges all record types of a union's member list into the first one. */
function mergeRecords(zctx: TypeContext, types: Type[]): Type[] {
  const out: Type[] = [];
  let rec = -1;
  for (const t of types) {
    if (t.under instanceof TypeRecord) {
      if (rec < 0) rec = out.length;
      else {
        out[rec] = fuseTypes(zctx, out[rec], t);
        continue;
      }
    }
    out.push(t);
  }
  return out;
}
