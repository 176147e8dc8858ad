// The text of a map key that is not a plain string or primitive: the
// reference writes it as the ZSON of the value, decorated with its type
// where ZSON would not imply it, so that |{0:1,0(uint64):2}| keeps two keys.

import { quotedTypeName } from '../../zed/names';
import { formatType } from '../../zed/typestring';
import { ID, Kind, Type, TypeNamed } from '../../zed/types';
import { formatPrimitive } from '../zjson/primitive';

// Primitive types whose values ZSON writes without a decoration.
const implied = new Set<number>([
  ID.Int64,
  ID.Duration,
  ID.Time,
  ID.Float64,
  ID.Bool,
  ID.Bytes,
  ID.String,
  ID.IP,
  ID.Net,
  ID.Type,
  ID.Null,
]);

/** zson.MustFormatValue of the value (t, buf[off, off+len)). */
export function formatValueForKey(t: Type, buf: Buffer, off: number, len: number): string {
  if (t.kind !== Kind.Primitive) {
    throw new Error(`JSON writer: map keys of type ${formatType(t)} need the ZSON formatter`);
  }
  const text = formatPrimitive(t.under, buf, off, len);
  if (t instanceof TypeNamed) {
    // A named type is decorated by definition: (=name) when its value
    // implies the underlying type, (name=type) otherwise.
    return implied.has(t.under.id) && len >= 0
      ? `${text}(=${quotedTypeName(t.name)})`
      : `${text}(${formatType(t)})`;
  }
  if (implied.has(t.id) && (len >= 0 || t.id === ID.Null)) return text;
  return `${text}(${formatType(t)})`;
}
