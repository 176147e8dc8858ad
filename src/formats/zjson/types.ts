// ZJSON type objects (docs/formats/zjson.md §2.1): writing them with each
// complex type defined in full once per stream and referred to by
// {"kind":"ref","id":N} after that, and reading them back into a context.

import { compareTypes } from '../../zed/compare';
import { TypeContext } from '../../zed/context';
import {
  lookupPrimitive,
  Type,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypeNamed,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeUnion,
} from '../../zed/types';
import { quoteJSON } from '../json/text';
import { TextBuffer } from '../textbuffer';

/**
 * Writes type objects. Types must belong to one context (the writer's own),
 * whose IDs are the ZJSON IDs.
 */
export class TypeEncoder {
  private sent = new Set<Type>();

  /** Appends the type object of t: its definition the first time, a ref after. */
  encode(out: TextBuffer, t: Type): void {
    if (t instanceof TypePrimitive) {
      out.ascii('{"kind":"primitive","name":"' + t.name + '"}');
      return;
    }
    if (this.sent.has(t)) {
      out.ascii('{"kind":"ref","id":' + t.id + '}');
      return;
    }
    this.define(out, t);
    // Marked after its children: a definition never refers to itself.
    this.sent.add(t);
  }

  private define(out: TextBuffer, t: Type): void {
    if (t instanceof TypeNamed) {
      out.ascii('{"kind":"named","id":' + t.id + ',"name":');
      quoteJSON(out, t.name, true);
      out.ascii(',"type":');
      this.encode(out, t.type);
    } else if (t instanceof TypeRecord) {
      out.ascii('{"kind":"record","id":' + t.id + ',"fields":');
      if (t.fields.length === 0) {
        // Go marshals the nil slice of an empty record type as null.
        out.ascii('null');
      } else {
        t.fields.forEach((f, i) => {
          out.ascii(i === 0 ? '[{"name":' : ',{"name":');
          quoteJSON(out, f.name, true);
          out.ascii(',"type":');
          this.encode(out, f.type);
          out.byte(0x7d);
        });
        out.byte(0x5d);
      }
    } else if (t instanceof TypeArray || t instanceof TypeSet || t instanceof TypeErr) {
      const kind = t instanceof TypeArray ? 'array' : t instanceof TypeSet ? 'set' : 'error';
      out.ascii('{"kind":"' + kind + '","id":' + t.id + ',"type":');
      this.encode(out, t.type);
    } else if (t instanceof TypeMap) {
      out.ascii('{"kind":"map","id":' + t.id + ',"key_type":');
      this.encode(out, t.keyType);
      out.ascii(',"val_type":');
      this.encode(out, t.valType);
    } else if (t instanceof TypeUnion) {
      out.ascii('{"kind":"union","id":' + t.id + ',"types":[');
      t.types.forEach((u, i) => {
        if (i > 0) out.byte(0x2c);
        this.encode(out, u);
      });
      out.byte(0x5d);
    } else if (t instanceof TypeEnum) {
      out.ascii('{"kind":"enum","id":' + t.id + ',"symbols":[');
      t.symbols.forEach((s, i) => {
        if (i > 0) out.byte(0x2c);
        quoteJSON(out, s, true);
      });
      out.byte(0x5d);
    } else {
      throw new Error('ZJSON: unknown type');
    }
    out.byte(0x7d);
  }
}

/** A malformed type object; message is the reference's where it has one. */
export class TypeDecodeError extends Error {}

type JSONObject = { [k: string]: unknown };

function isObject(v: unknown): v is JSONObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads type objects into a context, remembering IDs for refs. */
export class TypeDecoder {
  private byId = new Map<number, Type>();

  constructor(private ctx: TypeContext) {}

  decode(obj: unknown, depth = 0): Type {
    if (depth > 1000) throw new TypeDecodeError('ZJSON type nested too deeply');
    if (!isObject(obj)) throw new TypeDecodeError(`ZJSON unknown type: ${describe(obj)}`);
    const kind = obj.kind;
    const ctx = this.ctx;
    let t: Type;
    switch (kind) {
      case 'primitive': {
        const name = str(obj.name, 'name');
        const p = lookupPrimitive(name);
        if (!p) throw new TypeDecodeError('ZJSON unknown type: ' + name);
        return p;
      }
      case 'ref': {
        const id = num(obj.id);
        const r = this.byId.get(id);
        if (!r) throw new TypeDecodeError(`ZJSON unknown type reference: ${id}`);
        return r;
      }
      case 'record': {
        const fields = obj.fields;
        if (fields !== null && fields !== undefined && !Array.isArray(fields)) {
          throw new TypeDecodeError('ZJSON record type fields must be an array');
        }
        const list: unknown[] = Array.isArray(fields) ? fields : [];
        const fs = list.map((f) => {
          if (!isObject(f)) throw new TypeDecodeError('ZJSON record type field must be an object');
          return { name: str(f.name, 'name'), type: this.decode(f.type, depth + 1) };
        });
        try {
          t = ctx.lookupTypeRecord(fs);
        } catch (e) {
          throw new TypeDecodeError((e as Error).message);
        }
        break;
      }
      case 'array':
        t = ctx.lookupTypeArray(this.decode(obj.type, depth + 1));
        break;
      case 'set':
        t = ctx.lookupTypeSet(this.decode(obj.type, depth + 1));
        break;
      case 'error':
        t = ctx.lookupTypeError(this.decode(obj.type, depth + 1));
        break;
      case 'map': {
        const k = this.decode(obj.key_type, depth + 1);
        t = ctx.lookupTypeMap(k, this.decode(obj.val_type, depth + 1));
        break;
      }
      case 'union': {
        if (!Array.isArray(obj.types) || obj.types.length === 0) {
          throw new TypeDecodeError('ZJSON union type must list its types');
        }
        // The reference's context puts a union's types in its type order
        // (value tags then index that order).
        const types = obj.types.map((u: unknown) => this.decode(u, depth + 1));
        t = ctx.lookupTypeUnion(types.sort(compareTypes));
        break;
      }
      case 'enum': {
        const syms = obj.symbols ?? [];
        if (!Array.isArray(syms) || !syms.every((s) => typeof s === 'string')) {
          throw new TypeDecodeError('ZJSON enum symbols must be an array of strings');
        }
        t = ctx.lookupTypeEnum(syms as string[]);
        break;
      }
      case 'named': {
        const name = str(obj.name, 'name');
        const inner = this.decode(obj.type, depth + 1);
        try {
          t = ctx.lookupTypeNamed(name, inner);
        } catch (e) {
          throw new TypeDecodeError((e as Error).message);
        }
        break;
      }
      default:
        throw new TypeDecodeError(`ZJSON unknown type kind: ${describe(kind)}`);
    }
    this.byId.set(num(obj.id), t);
    return t;
  }
}

function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new TypeDecodeError(`ZJSON type ${what} must be a string`);
  return v;
}

function num(v: unknown): number {
  // Go unmarshals a missing id as 0.
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new TypeDecodeError('ZJSON type id must be an integer');
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return '<nil>';
  return JSON.stringify(v);
}
