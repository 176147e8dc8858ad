// Flattening of nested records into dotted leaf columns ({a:{b:1}} has the
// column "a.b"), as the reference's Zeek and CSV writers see records.
//
// A layout is computed once per record type and interned by its columns,
// so two record types with the same flat shape share one layout object
// and writers can detect a change of shape by identity. Leaves are then
// located in a record body without copying it.

import { DuplicateFieldError } from '../../zed/context';
import { Type, TypeRecord } from '../../zed/types';
import { readUvarint, uv, ZcodeError } from '../../zed/zcode';

/** The flat columns of a record type. */
export interface FlatLayout {
  readonly names: readonly string[];
  readonly types: readonly Type[];
}

export class Flattener {
  private byType = new Map<Type, FlatLayout>();
  private byKey = new Map<string, FlatLayout>();
  private keyIds = new Map<Type, number>();
  /** Leaf positions filled by locate(): body offset and length (-1 null). */
  offs = new Int32Array(16);
  lens = new Int32Array(16);

  /** The layout of a record type (named records included). */
  layout(t: Type): FlatLayout {
    let l = this.byType.get(t);
    if (l) return l;
    const names: string[] = [];
    const types: Type[] = [];
    collect(t.under as TypeRecord, '', names, types);
    // {"a.b":1,a:{b:2}} flattens to a repeated column, which the reference
    // cannot represent either.
    if (new Set(names).size !== names.length) {
      const seen = new Set<string>();
      for (const name of names) {
        if (seen.has(name)) throw new DuplicateFieldError(name);
        seen.add(name);
      }
    }
    // Leaf types are interned by the caller's context, so an identity
    // number per type object makes an exact key.
    let key = '';
    for (let i = 0; i < names.length; i++) {
      let id = this.keyIds.get(types[i]);
      if (id === undefined) {
        id = this.keyIds.size;
        this.keyIds.set(types[i], id);
      }
      key += names[i].length + ':' + names[i] + '=' + id + ';';
    }
    l = this.byKey.get(key);
    if (!l) {
      l = { names, types };
      this.byKey.set(key, l);
    }
    this.byType.set(t, l);
    if (this.offs.length < names.length) {
      this.offs = new Int32Array(names.length * 2);
      this.lens = new Int32Array(names.length * 2);
    }
    return l;
  }

  /**
   * Fills offs/lens with the leaf values of the record body buf[off, off+len)
   * of type t (len -1 for a null record: every leaf null). Returns the
   * number of leaves.
   */
  locate(t: Type, buf: Uint8Array, off: number, len: number): number {
    this.layout(t);
    return fill(t.under as TypeRecord, buf, off, len, this.offs, this.lens, 0);
  }
}

function collect(rt: TypeRecord, prefix: string, names: string[], types: Type[]): void {
  for (const f of rt.fields) {
    const u = f.type.under;
    if (u instanceof TypeRecord) collect(u, prefix + f.name + '.', names, types);
    else {
      names.push(prefix + f.name);
      types.push(f.type);
    }
  }
}

function fill(
  rt: TypeRecord,
  buf: Uint8Array,
  off: number,
  len: number,
  offs: Int32Array,
  lens: Int32Array,
  k: number,
): number {
  const end = off + len;
  for (const f of rt.fields) {
    let fo = 0;
    let fl = -1;
    if (len >= 0) {
      const tag = readUvarint(buf, off, end);
      if (tag < 0) throw new ZcodeError('truncated record');
      fo = uv.end;
      fl = tag - 1;
      off = fo + (fl < 0 ? 0 : fl);
      if (off > end) throw new ZcodeError('field exceeds record');
    }
    const u = f.type.under;
    if (u instanceof TypeRecord) {
      k = fill(u, buf, fo, fl, offs, lens, k);
    } else {
      offs[k] = fo;
      lens[k] = fl;
      k++;
    }
  }
  return k;
}
