// Round trips of random values through the Arrow IPC stream format, over
// the Zed types Arrow carries without change (ip, net and type values
// become strings, sets become lists, and names other than arrow_* are
// dropped, as in the reference, so those are left out here).

import { arrowsFormat } from '../../../src/formats/arrow';
import { checkRoundTrip, exactPrimitives } from './carry';

test('random records round-trip through Arrow IPC exactly', async () => {
  await checkRoundTrip(arrowsFormat, exactPrimitives, ['record', 'array', 'map', 'union'], 300);
});
