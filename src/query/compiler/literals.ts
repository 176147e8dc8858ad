// Literal text and type syntax from the parser turned into values and
// types of the query's type context (the reference's zson.ParsePrimitive
// and zson.TranslateType).

import * as ast from '../ast';
import { parseValue } from '../../formats/zson';
import { compareTypes } from '../../zed/compare';
import { TypeContext } from '../../zed/context';
import { lookupPrimitive, Type, TypeNull, TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { CompileError, goQuoted } from './errors';

/** The value of a primitive literal. Throws CompileError (e.g. time overflow). */
export function primitiveValue(zctx: TypeContext, p: ast.Primitive): Value {
  if (p.type === 'string') return Value.fromBytes(TypeString, Buffer.from(p.text, 'utf8'));
  if (p.type === 'null') return Value.null(TypeNull);
  let v: Value;
  try {
    v = parseValue(zctx, p.text);
  } catch (e) {
    throw new CompileError((e as Error).message);
  }
  const want = lookupPrimitive(p.type)!;
  if (v.type !== want) throw new CompileError(`cannot parse ${goQuoted(p.text)} as ${p.type}`);
  return v;
}

/**
 * The type written in a query. Type definitions (`name=T`) bind the name
 * in the context, so later references to it resolve.
 */
export function translateType(
  zctx: TypeContext,
  t: ast.Type,
  local = new Map<string, Type>(),
): Type {
  switch (t.kind) {
    case 'TypePrimitive': {
      const p = lookupPrimitive(t.name);
      if (!p) throw new CompileError(`no such primitive type: ${goQuoted(t.name)}`);
      return p;
    }
    case 'TypeDef': {
      const inner = translateType(zctx, t.type, local);
      if (/^[0-9]*$/.test(t.name)) {
        local.set(t.name, inner);
        return inner;
      }
      let named: Type;
      try {
        named = zctx.lookupTypeNamed(t.name, inner);
      } catch (e) {
        throw new CompileError((e as Error).message);
      }
      local.set(t.name, named);
      return named;
    }
    case 'TypeName': {
      const l = local.get(t.name);
      if (l) return l;
      const named = zctx.lookupTypeDef(t.name);
      if (!named) throw new CompileError(`no such type name: ${goQuoted(t.name)}`);
      return named;
    }
    case 'TypeRecord': {
      const fields = t.fields.map((f) => ({
        name: f.name,
        type: translateType(zctx, f.type, local),
      }));
      try {
        return zctx.lookupTypeRecord(fields);
      } catch (e) {
        throw new CompileError((e as Error).message);
      }
    }
    case 'TypeArray':
      return zctx.lookupTypeArray(translateType(zctx, t.type, local));
    case 'TypeSet':
      return zctx.lookupTypeSet(translateType(zctx, t.type, local));
    case 'TypeMap':
      return zctx.lookupTypeMap(
        translateType(zctx, t.keyType, local),
        translateType(zctx, t.valType, local),
      );
    case 'TypeUnion': {
      const types = t.types.map((u) => translateType(zctx, u, local));
      return zctx.lookupTypeUnion(sortTypes(types));
    }
    case 'TypeValue':
      return translateType(zctx, t.value, local);
  }
}

/** Types in the reference's union order (a stable sort by type order). */
export function sortTypes(types: Type[]): Type[] {
  return types.slice().sort(compareTypes);
}
