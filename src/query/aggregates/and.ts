// and(bool): the logical AND of the boolean values (null when none came).

import { AggDef } from './agg';
import { LogicalColumn } from './logical';

export const and: AggDef = {
  name: 'and',
  needsArg: true,
  column: () => new LogicalColumn('and', true),
};
