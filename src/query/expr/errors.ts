// Error values as data: the tests the runtime makes on them and the ways
// expressions build them (the reference's zctx.NewErrorf and WrapError).

import { TypeContext } from '../../zed/context';
import { Kind, TypeErr, TypeString } from '../../zed/types';
import { Value } from '../../zed/value';
import { Builder } from '../../zed/zcode';

/** True for a value of an error type (named or not). */
export function isError(v: Value): boolean {
  return v.type.kind === Kind.Error;
}

function isStringError(v: Value, text: Uint8Array): boolean {
  const t = v.type;
  if (!(t instanceof TypeErr) || t.type !== TypeString || v.len !== text.length) return false;
  const buf = v.buf;
  for (let i = 0; i < text.length; i++) if (buf[v.off + i] !== text[i]) return false;
  return true;
}

const MISSING = Buffer.from('missing');
const QUIET = Buffer.from('quiet');

/** True for error("missing"), the value of a reference to something absent. */
export function isMissing(v: Value): boolean {
  return isStringError(v, MISSING);
}

/** True for error("quiet"), which operators drop silently. */
export function isQuiet(v: Value): boolean {
  return isStringError(v, QUIET);
}

/** error("<message>"). Allocates: errors are off the hot path. */
export function newError(zctx: TypeContext, message: string): Value {
  return zctx.newError(message);
}

/** error({message:"<message>",on:<v>}): an error that carries the value it is about. */
export function wrapError(zctx: TypeContext, message: string, v: Value): Value {
  const rt = zctx.lookupTypeRecord([
    { name: 'message', type: TypeString },
    { name: 'on', type: v.type },
  ]);
  const et = zctx.lookupTypeError(rt);
  const b = new Builder(v.len + message.length + 16);
  b.appendBytes(Buffer.from(message, 'utf8'));
  b.append(v.buf, v.off, v.len);
  return Value.fromBytes(et, b.copy());
}
