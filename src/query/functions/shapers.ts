// The shaping functions cast, crop, fill, fit, order and shape (the
// shaper is in expr/shaper.ts), which also serve the cast forms `T(x)`
// and `<T>(x)`. The compiler passes `this` as the value when only a type
// is given.

import { newShaper, shaperTransforms } from '../expr/shaper';
import { registerFunction, SHAPERS } from './registry';

for (const name of SHAPERS) {
  const transforms = shaperTransforms(name);
  registerFunction(name, {
    minArgs: 2,
    maxArgs: 2,
    build: ([operand, typeExpr], env) =>
      newShaper(env.zctx, operand, typeExpr, transforms, env.constant(typeExpr)),
  });
}
