// The reference's tsv ztests, ported as fixtures (see ztests.json for each
// case's source).

import cases from './ztests.json';
import { runZTest, ZTest } from '../zeek/support';

describe('tsv ztests', () => {
  for (const t of cases as ZTest[]) {
    it(t.name, () => runZTest(t));
    it(`${t.name} (3-byte chunks)`, () => runZTest(t, 3));
  }
});
