// The reference's Zeek ztests (zio/zeekio/ztests at v1.8.0), ported as
// fixtures: Zeek in, ZSON out, and ZSON in, Zeek out. Three need the query
// engine (cut/put/count) and are not here.

import cases from './ztests.json';
import { runZTest, ZTest } from './support';

describe('zeek ztests', () => {
  for (const t of cases as ZTest[]) {
    it(t.name, () => runZTest(t));
    // Chunk boundaries must not change anything.
    it(`${t.name} (3-byte chunks)`, () => runZTest(t, 3));
  }
});
