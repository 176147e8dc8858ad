// The reference's ztests with table output (the conformance cases that
// need -f table), run through the query entry point.

import cases from './conformance.json';
import { runZTest, ZTest } from '../text/support';

describe('table ztests', () => {
  for (const t of cases as ZTest[]) it(t.name, () => runZTest(t, 'table'));
});
