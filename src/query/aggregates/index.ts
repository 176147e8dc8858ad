// The aggregate functions. Each lives in its own file and is listed here,
// which registers it; see agg.ts for the interfaces.

import { AggDef, registerAggregate } from './agg';
import { and } from './and';
import { any } from './any';
import { avg } from './avg';
import { collect } from './collect';
import { count } from './count';
import { dcount } from './dcount';
import { fuse } from './fuse';
import { map } from './map';
import { max } from './max';
import { min } from './min';
import { or } from './or';
import { sum } from './sum';
import { union } from './union';

const all: AggDef[] = [and, any, avg, collect, count, dcount, fuse, map, max, min, or, sum, union];
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
