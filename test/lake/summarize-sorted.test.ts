// A summarize grouped by the pool key reads its input as sorted and emits
// groups as they complete; the errors a filter passes on (their key is
// error("missing"), out of the key's order) must land in one group, output
// last, the same with the column path on and off, whatever the objects'
// seek spans (found by fuzzing the two paths against each other).

import { openLake } from '../../src/backend/open';
import { VectorScanMode } from '../../src/lake/lake';
import { arrayReader } from '../../src/query/runtime/ops/scan';
import { parseValues } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed/context';
import { run, tempLakes } from './vectordata';

const lakes = tempLakes();

test.each(['off', 'on'] as VectorScanMode[])(
  'errors passed by a filter are one group, column path %s',
  async (mode) => {
    const lake = await openLake({ lake: `${lakes.dir}/${mode}`, vectorScan: mode, cacheSize: 0 });
    lakes.open.push(lake);
    await lake.createPool('p', { layout: { keys: [['h']] }, seekStride: 500 });
    const recs = Array.from(
      { length: 1500 },
      (_, i) => `{h:"h${String(i).padStart(5, '0')}",m:${i % 2}}`,
    );
    await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs.join('\n'))));
    // 10/0 is an error, which `where` passes on.
    const r = await run(lake, 'from p | where 10/m > 1 | count() by h | count() by typeof(h)');
    expect(r.out.sort()).toEqual([
      '{typeof:<error(string)>,count:1(uint64)}',
      '{typeof:<string>,count:750(uint64)}',
    ]);
    // The errors' group comes last; the others in key order.
    const all = await run(lake, 'from p | where 10/m > 1 | count() by h');
    expect(all.out.slice(0, 2)).toEqual([
      '{h:"h00001",count:1(uint64)}',
      '{h:"h00003",count:1(uint64)}',
    ]);
    expect(all.out.slice(-2)).toEqual([
      '{h:"h01499",count:1(uint64)}',
      '{h:error("missing"),count:750(uint64)}',
    ]);
  },
);
