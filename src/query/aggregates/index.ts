// The aggregate functions. Each lives in its own file and is listed here,
// which registers it; see agg.ts for the interfaces.

import { AggDef, registerAggregate } from './agg';
import { any } from './any';
import { count } from './count';
import { sum } from './sum';

const all: AggDef[] = [any, count, sum];
for (const def of all) registerAggregate(def);

export {
  AggregateError,
  Aggregator,
  aggregateNames,
  isAggregate,
  lookupAggregate,
  newAggregatorExpr,
  newColumn,
  newFunction,
  registerAggregate,
} from './agg';
export type { AggColumn, AggDef, AggFunction } from './agg';
