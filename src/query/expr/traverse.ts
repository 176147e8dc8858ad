// The values `over` yields for a value: the elements of an array or set,
// {key,value} records for the entries of a map, {key:[name],value}
// records for the fields of a record, and any other value itself (names
// and union wrappers removed). A null container and error("missing")
// yield nothing.

import { TypeContext } from '../../zed/context';
import {
  Type,
  TypeArray,
  TypeMap,
  TypeNull,
  TypeRecord,
  TypeSet,
  TypeString,
} from '../../zed/types';
import { EMPTY, Value } from '../../zed/value';
import { readUvarint, uv } from '../../zed/zcode';
import { ValueArena } from '../runtime/arena';
import { isMissing } from './errors';
import { underValue } from './path';
import { appendTagged } from './recordbuilder';

export class Traversal {
  private readonly under = new Value(TypeNull, EMPTY, 0, -1);
  private readonly elem = new Value(TypeNull, EMPTY, 0, -1);
  private readonly mapTypes = new Map<Type, TypeRecord>();
  private readonly fieldTypes = new Map<Type, TypeRecord>();

  constructor(private readonly zctx: TypeContext) {}

  /**
   * Appends what v traverses to: arena copies, but for an array's or set's
   * elements where v lies in stable (a buffer that outlives them: an input
   * value's), which are views of their bytes there.
   */
  traverse(v0: Value, arena: ValueArena, out: Value[], stable: Uint8Array | null = null): void {
    if (isMissing(v0)) return;
    const v = underValue(v0, this.under);
    const t = v.type;
    if (!(
      t instanceof TypeArray ||
      t instanceof TypeSet ||
      t instanceof TypeMap ||
      t instanceof TypeRecord
    )) {
      out.push(arena.copy(v));
      return;
    }
    if (v.len < 0) return;
    const buf = v.buf;
    const end = v.off + v.len;
    let off = v.off;
    let start = 0;
    let len = 0;
    const next = () => {
      const tag = readUvarint(buf, off, end);
      start = uv.end;
      len = tag - 1;
      off = start + (len > 0 ? len : 0);
    };
    if (t instanceof TypeArray || t instanceof TypeSet) {
      const view = buf === stable;
      while (off < end) {
        next();
        const e = underValue(this.elem.set(t.type, buf, start, len), this.under);
        out.push(view ? new Value(e.type, e.buf, e.off, e.len) : arena.copy(e));
      }
    } else if (t instanceof TypeMap) {
      let rt = this.mapTypes.get(t);
      if (!rt) {
        rt = this.zctx.lookupTypeRecord([
          { name: 'key', type: t.keyType },
          { name: 'value', type: t.valType },
        ]);
        this.mapTypes.set(t, rt);
      }
      while (off < end) {
        arena.begin();
        next();
        appendTagged(arena.b, buf, start, len);
        next();
        appendTagged(arena.b, buf, start, len);
        out.push(arena.end(rt));
      }
    } else {
      for (const f of t.fields) {
        if (off >= end) break;
        next();
        let rt = this.fieldTypes.get(f.type);
        if (!rt) {
          rt = this.zctx.lookupTypeRecord([
            { name: 'key', type: this.zctx.lookupTypeArray(TypeString) },
            { name: 'value', type: f.type },
          ]);
          this.fieldTypes.set(f.type, rt);
        }
        arena.begin();
        arena.b.beginContainer();
        arena.b.appendBytes(Buffer.from(f.name, 'utf8'));
        arena.b.endContainer();
        appendTagged(arena.b, buf, start, len);
        out.push(arena.end(rt));
      }
    }
  }
}
