// A test of a whole frame of values for a keyword search, before its
// values are searched one by one (the reference's BufferFilter). A string
// search term matches a string value that contains it, ASCII case folded,
// or a leaf field name that does (search.ts). A frame can hold such a
// value only if its decompressed payload contains the term's bytes (a
// string's bytes are in the payload as they are) or one of its values'
// types has such a field name; a frame with neither is skipped whole,
// which for a rare term is nearly every frame. An IP literal's search
// matches the address and strings holding its text, so its frames are
// those holding either.

import { Type, TypeErr } from '../../zed/types';
import { BytesTest, innerTypeTest, TypeTest } from './termfind';

/**
 * A frame test: false when no value of the frame can pass the filter.
 * 'errors' passes a frame holding an error value (an error a filter's
 * comparison of a field gives back, which the filter outputs) as well as
 * the frames its operand passes.
 */
export type FrameFilter =
  | { kind: 'term'; term: BytesTest }
  | { kind: 'and' | 'or'; lhs: FrameFilter; rhs: FrameFilter }
  | { kind: 'errors'; operand: FrameFilter; errors: TypeTest };

/** Per type: whether a value of it may hold an error value. */
export function errorTypes(): TypeTest {
  return innerTypeTest((u) => u instanceof TypeErr);
}

/** Whether a frame whose payload is buf[start, end), of values of types, may pass f. */
export function framePasses(
  f: FrameFilter,
  buf: Uint8Array,
  start: number,
  end: number,
  types: readonly Type[],
): boolean {
  switch (f.kind) {
    case 'term':
      return f.term.test(buf, start, end, types);
    case 'and':
      return (
        framePasses(f.lhs, buf, start, end, types) && framePasses(f.rhs, buf, start, end, types)
      );
    case 'or':
      return (
        framePasses(f.lhs, buf, start, end, types) || framePasses(f.rhs, buf, start, end, types)
      );
    case 'errors':
      return types.some((t) => f.errors.holds(t)) || framePasses(f.operand, buf, start, end, types);
  }
}
