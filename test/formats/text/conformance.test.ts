// The reference's ztests with text output (the conformance cases that
// need -f text), run through the query entry point.

import cases from './conformance.json';
import { runZTest, ZTest } from './support';

describe('text ztests', () => {
  for (const t of cases as ZTest[]) it(t.name, () => runZTest(t, 'text'));
});
