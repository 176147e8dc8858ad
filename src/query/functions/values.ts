// Functions on values of any type: len, under, coalesce, compare,
// has_error and parse_zson.

import { parseValues } from '../../formats/zson';
import { goQuote } from '../../formats/zson/gotext';
import { TypeContext } from '../../zed/context';
import { compare } from '../../zed/compare';
import { decodeInt } from '../../zed/primitive';
import {
  ID,
  Type,
  TypeArray,
  TypeBool,
  TypeEnum,
  TypeErr,
  TypeInt64,
  TypeMap,
  TypeNamed,
  TypeNull,
  TypeRecord,
  TypeSet,
  TypeType,
  TypeUnion,
} from '../../zed/types';
import { formatType as formatTypeText } from '../../zed/typestring';
import { Value } from '../../zed/value';
import { countChildren, readUvarint, uv } from '../../zed/zcode';
import { isMissing, isQuiet, newError, wrapError } from '../expr/errors';
import { FALSE, NULL, TRUE } from '../expr/expr';
import { untag } from '../expr/path';
import { Scratch } from '../expr/scratch';
import { isString } from './strings';
import { registerFunction, valueFunction } from './registry';

/** The length the reference's len() gives a type value's type. */
function typeLength(t: Type): number {
  if (t instanceof TypeNamed) return typeLength(t.type);
  if (t instanceof TypeRecord) return t.fields.length;
  if (t instanceof TypeUnion) return t.types.length;
  if (t instanceof TypeArray || t instanceof TypeSet) return typeLength(t.type);
  if (t instanceof TypeEnum) return t.symbols.length;
  if (t instanceof TypeMap) return typeLength(t.valType);
  if (t instanceof TypeErr) return typeLength(t.type);
  return 1;
}

/** Decodes a type value, or returns the decoder's error text. */
export function typeOfValue(zctx: TypeContext, v: Value): Type | string {
  try {
    return zctx.lookupByValue(v.buf, v.off, Math.max(v.len, 0));
  } catch (e) {
    return (e as Error).message;
  }
}

registerFunction(
  'len',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return ([v]) => {
      const t = v.type.under;
      let n: number;
      switch (t.kind) {
        case 1: // record
          n = (t as TypeRecord).fields.length;
          break;
        case 2: // array
        case 3: // set
          n = v.len <= 0 ? 0 : countChildren(v.buf, v.off, v.off + v.len);
          break;
        case 4: // map
          n = v.len <= 0 ? 0 : countChildren(v.buf, v.off, v.off + v.len) >> 1;
          break;
        case 7: // error
          return wrapError(zctx, 'len()', v);
        default:
          switch (t.id) {
            case ID.Null:
              n = 0;
              break;
            case ID.Bytes:
            case ID.String:
            case ID.IP:
            case ID.Net:
              n = Math.max(v.len, 0);
              break;
            case ID.Type: {
              const tt = typeOfValue(zctx, v);
              if (typeof tt === 'string') return newError(zctx, tt);
              n = typeLength(tt);
              break;
            }
            default:
              return newError(zctx, `len: bad type: ${formatTypeText(t)}`);
          }
      }
      return out.int(TypeInt64, n);
    };
  }),
);

registerFunction(
  'under',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    const tmp = new Value(TypeNull, Buffer.alloc(0), 0, -1);
    return ([v]) => {
      const t = v.type;
      if (t instanceof TypeNamed || t instanceof TypeErr)
        return out.view(t.type, v.buf, v.off, v.len);
      if (t instanceof TypeUnion) {
        if (!untag(t, v, tmp)) return newError(zctx, 'under: bad union value');
        return out.view(tmp.type, tmp.buf, tmp.off, tmp.len);
      }
      if (t === TypeType) {
        const tt = typeOfValue(zctx, v);
        if (typeof tt === 'string') return newError(zctx, tt);
        return zctx.typeValueOf(tt.under);
      }
      return v;
    };
  }),
);

registerFunction(
  'coalesce',
  valueFunction(1, -1, () => (args) => {
    for (const v of args) {
      if (v.len >= 0 && !isMissing(v) && !isQuiet(v)) return v;
    }
    return NULL;
  }),
);

registerFunction(
  'compare',
  valueFunction(2, 3, ({ zctx }) => {
    const out = new Scratch();
    return (args) => {
      let nullsMax = true;
      if (args.length === 3) {
        const n = args[2];
        if (n.type.under !== TypeBool) {
          return wrapError(zctx, 'compare: nullsMax arg is not bool', n);
        }
        nullsMax = n.len > 0 && n.buf[n.off] !== 0;
      }
      return out.int(TypeInt64, compare(args[0], args[1], nullsMax));
    };
  }),
);

/**
 * has_error: whether a value is or holds an error. Types that cannot hold
 * one (no error type anywhere inside) answer at once.
 */
class ErrorFinder {
  private readonly mayHold = new Map<Type, boolean>();

  /** True when a value of type t can contain an error value. */
  private canHold(t: Type): boolean {
    let r = this.mayHold.get(t);
    if (r === undefined) {
      this.mayHold.set(t, false); // (types are not recursive; guard anyway)
      const u = t.under;
      if (u instanceof TypeErr) r = true;
      else if (u instanceof TypeRecord) r = u.fields.some((f) => this.canHold(f.type));
      else if (u instanceof TypeArray || u instanceof TypeSet) r = this.canHold(u.type);
      else if (u instanceof TypeMap) r = this.canHold(u.keyType) || this.canHold(u.valType);
      else if (u instanceof TypeUnion) r = u.types.some((m) => this.canHold(m));
      else r = false;
      this.mayHold.set(t, r);
    }
    return r;
  }

  has(t: Type, buf: Buffer, off: number, len: number): boolean {
    const u = t.under;
    if (u instanceof TypeErr) return true;
    if (len < 0 || !this.canHold(t)) return false;
    const end = off + len;
    if (u instanceof TypeRecord) {
      let p = off;
      for (const f of u.fields) {
        const tag = readUvarint(buf, p, end);
        const foff = uv.end;
        p = foff + (tag > 0 ? tag - 1 : 0);
        if (this.has(f.type, buf, foff, tag - 1)) return true;
      }
      return false;
    }
    if (u instanceof TypeArray || u instanceof TypeSet || u instanceof TypeMap) {
      const types = u instanceof TypeMap ? [u.keyType, u.valType] : [u.type];
      let p = off;
      for (let i = 0; p < end; i++) {
        const tag = readUvarint(buf, p, end);
        const eoff = uv.end;
        p = eoff + (tag > 0 ? tag - 1 : 0);
        if (this.has(types[i % types.length], buf, eoff, tag - 1)) return true;
      }
      return false;
    }
    if (u instanceof TypeUnion) {
      const ttag = readUvarint(buf, off, end);
      const tag = decodeInt(buf, uv.end, ttag - 1);
      const vtag = readUvarint(buf, uv.end + ttag - 1, end);
      const m = u.types[tag];
      return m !== undefined && this.has(m, buf, uv.end, vtag - 1);
    }
    return false;
  }
}

registerFunction(
  'has_error',
  valueFunction(
    1,
    1,
    () => {
      const f = new ErrorFinder();
      return ([v]) => (f.has(v.type, v.buf, v.off, v.len) ? TRUE : FALSE);
    },
    { boolResult: true },
  ),
);

registerFunction(
  'parse_zson',
  valueFunction(1, 1, ({ zctx }) => (args) => {
    const v = args[0];
    if (!isString(v)) return newError(zctx, 'parse_zson: string arg required');
    if (v.len < 0) return NULL;
    const s = v.buf.toString('utf8', v.off, v.off + v.len);
    let vals: Value[];
    try {
      vals = parseValues(zctx, s);
    } catch (e) {
      return newError(zctx, `parse_zson: parse error: ${(e as Error).message} (${goQuote(s)})`);
    }
    return vals.length === 0 ? NULL : vals[0];
  }),
);
