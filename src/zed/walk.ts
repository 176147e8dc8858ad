// Depth-first traversal of a value and everything inside it, as the
// reference's zed.Walk: the value itself first, then record fields, array
// and set elements, map keys and values, union members and error payloads.
// Used by search, `in` and containment predicates, and by the lake's type
// indexes (src/lake/index). Reuses one iterator per
// depth, so walking allocates nothing once warm.

import { decodeInt } from './primitive';
import {
  Type,
  TypeArray,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from './types';
import { readUvarint, uv, ZIter } from './zcode';

/** Return true to stop the walk (a match). */
export type Visit = (t: Type, buf: Buffer, off: number, len: number) => boolean;

export class Walker {
  private iters: ZIter[] = [];

  private iter(depth: number, buf: Buffer, off: number, end: number): ZIter {
    let it = this.iters[depth];
    if (!it) it = this.iters[depth] = new ZIter();
    return it.reset(buf, off, end);
  }

  /** Walks the value; true when visit stopped it. */
  walk(t: Type, buf: Buffer, off: number, len: number, visit: Visit, depth = 0): boolean {
    if (visit(t, buf, off, len)) return true;
    return this.children(t, buf, off, len, visit, depth);
  }

  private children(
    t: Type,
    buf: Buffer,
    off: number,
    len: number,
    visit: Visit,
    depth: number,
  ): boolean {
    if (t instanceof TypeNamed) return this.walk(t.type, buf, off, len, visit, depth);
    if (t instanceof TypeErr) return this.walk(t.type, buf, off, len, visit, depth);
    if (len < 0) return false;
    if (t instanceof TypeRecord) {
      const it = this.iter(depth, buf, off, off + len);
      for (const f of t.fields) {
        if (it.done()) return false;
        it.next();
        if (this.walk(f.type, buf, it.off, it.len, visit, depth + 1)) return true;
      }
      return false;
    }
    if (t instanceof TypeArray || t instanceof TypeSet) {
      const inner = t instanceof TypeSet ? t.type.under : t.type;
      const it = this.iter(depth, buf, off, off + len);
      while (!it.done()) {
        it.next();
        if (this.walk(inner, buf, it.off, it.len, visit, depth + 1)) return true;
      }
      return false;
    }
    if (t instanceof TypeMap) {
      const kt = t.keyType.under;
      const vt = t.valType.under;
      const it = this.iter(depth, buf, off, off + len);
      while (!it.done()) {
        it.next();
        if (this.walk(kt, buf, it.off, it.len, visit, depth + 1)) return true;
        if (it.done()) return false;
        it.next();
        if (this.walk(vt, buf, it.off, it.len, visit, depth + 1)) return true;
      }
      return false;
    }
    if (t instanceof TypeUnion) {
      if (len === 0) return false;
      const end = off + len;
      const ttag = readUvarint(buf, off, end);
      if (ttag <= 0) return false;
      const tag = decodeInt(buf, uv.end, ttag - 1);
      const p = uv.end + ttag - 1;
      const inner = t.types[tag];
      if (inner === undefined) return false;
      const vtag = readUvarint(buf, p, end);
      if (vtag < 0) return false;
      return this.walk(inner, buf, uv.end, vtag - 1, visit, depth + 1);
    }
    return false;
  }
}
