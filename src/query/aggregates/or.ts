// or(bool): the logical OR of the boolean values (null when none came).

import { AggDef } from './agg';
import { LogicalColumn } from './logical';

export const or: AggDef = {
  name: 'or',
  needsArg: true,
  column: () => new LogicalColumn('or', false),
};
