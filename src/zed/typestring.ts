// The ZSON text of a type, as the reference's zson.FormatType writes it:
// a named type is written `name=<type>` where it is first bound and by name
// after that (depth-first, left to right).

import { quotedName, quotedTypeName } from './names';
import {
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
} from './types';

export function formatType(t: Type): string {
  if (t instanceof TypePrimitive) return t.name;
  const parts: string[] = [];
  writeType(parts, new Map(), t);
  return parts.join('');
}

function writeType(out: string[], defs: Map<string, TypeNamed>, t: Type): void {
  if (t instanceof TypePrimitive) {
    out.push(t.name);
  } else if (t instanceof TypeNamed) {
    out.push(quotedTypeName(t.name));
    if (defs.get(t.name) !== t) {
      out.push('=');
      writeType(out, defs, t.type);
      // Bind after the children so the depth-first binding order holds.
      defs.set(t.name, t);
    }
  } else if (t instanceof TypeRecord) {
    out.push('{');
    t.fields.forEach((f, i) => {
      if (i > 0) out.push(',');
      out.push(quotedName(f.name), ':');
      writeType(out, defs, f.type);
    });
    out.push('}');
  } else if (t instanceof TypeArray) {
    out.push('[');
    writeType(out, defs, t.type);
    out.push(']');
  } else if (t instanceof TypeSet) {
    out.push('|[');
    writeType(out, defs, t.type);
    out.push(']|');
  } else if (t instanceof TypeMap) {
    out.push('|{');
    writeType(out, defs, t.keyType);
    out.push(':');
    writeType(out, defs, t.valType);
    out.push('}|');
  } else if (t instanceof TypeUnion) {
    out.push('(');
    t.types.forEach((u, i) => {
      if (i > 0) out.push(',');
      writeType(out, defs, u);
    });
    out.push(')');
  } else if (t instanceof TypeEnum) {
    out.push('enum(', t.symbols.map(quotedName).join(','), ')');
  } else if (t instanceof TypeErr) {
    out.push('error(');
    writeType(out, defs, t.type);
    out.push(')');
  } else {
    throw new Error('formatType: unknown type');
  }
}
