// Functions about types and errors: typeof, typeunder, nameof, typename,
// is, kind, error, is_error, has, missing and quiet. (Casts are shaping
// functions: see shapers.ts.)

import { parseType } from '../../formats/zson';
import { TypeContext } from '../../zed/context';
import { KindNames, Type, TypeBool, TypeNamed, TypeString, TypeType } from '../../zed/types';
import { Value } from '../../zed/value';
import { isError, isMissing, isQuiet, newError } from '../expr/errors';
import { FALSE, TRUE } from '../expr/expr';
import { Scratch } from '../expr/scratch';
import { registerFunction, valueFunction } from './registry';

function typeOfValue(zctx: TypeContext, v: Value): Type | undefined {
  if (v.len < 0) return undefined;
  try {
    return zctx.lookupByValue(v.buf, v.off, v.len);
  } catch {
    return undefined;
  }
}

registerFunction(
  'typeof',
  valueFunction(
    1,
    1,
    ({ zctx }) =>
      (args) =>
        zctx.typeValueOf(args[0].type),
  ),
);

registerFunction(
  'typeunder',
  valueFunction(
    1,
    1,
    ({ zctx }) =>
      (args) =>
        zctx.typeValueOf(args[0].type.under),
  ),
);

registerFunction(
  'nameof',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return (args) => {
      const t = args[0].type;
      return t instanceof TypeNamed ? out.string(TypeString, t.name) : zctx.missing();
    };
  }),
);

registerFunction(
  'typename',
  valueFunction(1, 2, ({ zctx }) => (args) => {
    const a = args[0];
    if (a.type.under !== TypeString) return newError(zctx, 'typename: first argument not a string');
    const name = a.buf.toString('utf8', a.off, a.off + Math.max(a.len, 0));
    if (args.length === 1) {
      const t = zctx.lookupTypeDef(name);
      return t === undefined ? zctx.missing() : zctx.typeValueOf(t);
    }
    const b = args[1];
    if (b.type.under !== TypeType)
      return newError(zctx, 'typename: second argument not a type value');
    const t = typeOfValue(zctx, b);
    if (t === undefined) return newError(zctx, 'typename: bad type value');
    return zctx.typeValueOf(t);
  }),
);

registerFunction(
  'error',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return (args) => {
      const v = args[0];
      return out.view(zctx.lookupTypeError(v.type), v.buf, v.off, v.len);
    };
  }),
);

registerFunction(
  'is_error',
  valueFunction(1, 1, () => (args) => (isError(args[0]) ? TRUE : FALSE), { boolResult: true }),
);

registerFunction(
  'is',
  valueFunction(
    1,
    2,
    ({ zctx }) =>
      (args) => {
        const subject = args.length === 3 ? args[1] : args[0];
        const tv = args.length === 3 ? args[2] : args[1];
        let t: Type | undefined;
        if (tv.type.under === TypeString) {
          try {
            t = parseType(zctx, tv.buf.toString('utf8', tv.off, tv.off + Math.max(tv.len, 0)));
          } catch {
            t = undefined;
          }
        } else {
          t = typeOfValue(zctx, tv);
        }
        return t !== undefined && t === subject.type ? TRUE : FALSE;
      },
    { boolResult: true, path: [] },
  ),
);

registerFunction(
  'kind',
  valueFunction(1, 1, ({ zctx }) => {
    const out = new Scratch();
    return (args) => {
      const v = args[0];
      let t: Type | undefined = v.type;
      if (t.under === TypeType) t = typeOfValue(zctx, v);
      if (t === undefined) return newError(zctx, 'kind: bad type value');
      return out.string(TypeString, KindNames[t.kind]);
    };
  }),
);

function has(args: Value[]): Value {
  for (const v of args) {
    if (isError(v)) return isMissing(v) || isQuiet(v) ? FALSE : v;
  }
  return TRUE;
}

registerFunction(
  'has',
  valueFunction(1, -1, () => has, { boolResult: true }),
);

registerFunction(
  'missing',
  valueFunction(
    1,
    -1,
    () => (args) => {
      const r = has(args);
      if (r.type !== TypeBool) return r;
      return r === TRUE ? FALSE : TRUE;
    },
    { boolResult: true },
  ),
);

registerFunction(
  'quiet',
  valueFunction(
    1,
    1,
    ({ zctx }) =>
      (args) =>
        isMissing(args[0]) ? zctx.quiet() : args[0],
  ),
);
