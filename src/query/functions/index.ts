// The function library: importing this module registers every function.
import './types';
import './shapers';
import './strings';
import './math';
import './bytes';
import './network';
import './time';
import './values';
import './records';
import './uri';
import './grok';
import './map';

export {
  lookupFunction,
  registerFunction,
  hasBoolResult,
  checkArity,
  valueFunction,
  CallExpr,
  FunctionError,
  ERR_NO_SUCH_FUNCTION,
  ERR_TOO_FEW,
  ERR_TOO_MANY,
  SHAPERS,
} from './registry';
export type { FunctionDef, FunctionEnv, ValueFn } from './registry';
