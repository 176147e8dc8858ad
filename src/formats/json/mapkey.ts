// The text of a map key that is not a string, plain primitive or enum: the
// reference writes it as the value's ZSON, decorated with its type where
// ZSON would not imply it, so that |{0:1,0(uint64):2}| keeps two keys.

import { Type } from '../../zed/types';
import { Value } from '../../zed/value';
import { formatValue } from '../zson';

/** zson.MustFormatValue of the value (t, buf[off, off+len)). */
export function formatValueForKey(t: Type, buf: Buffer, off: number, len: number): string {
  return formatValue(new Value(t, buf, off, len));
}
