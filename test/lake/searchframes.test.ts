// A keyword search over a pool skips the frames that cannot hold a match
// (ScanOptions.frames, the search's frame test) and answers as the same
// search run after the scan: needles in strings of any case, in nested
// fields and arrays, and in field names, an IP address as a value and as
// text, a search after a comparison of a field (which outputs an error the
// field holds), glob and regexp searches, with the scan cache on and off.

import { openLake } from '../../src/backend/open';
import { arrayReader } from '../../src/query/runtime/ops/scan';
import { parseValues } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed/context';
import { run, tempLakes } from './vectordata';

const lakes = tempLakes();

/** 3000 records; a few hold "Needle-7" somewhere: a string, a nested one, an array's, a field name. */
function records(): string {
  return Array.from({ length: 3000 }, (_, i) => {
    const s = i === 100 ? 'xNEEDLE-7y' : i === 2200 ? 'to 10.9.9.9:53' : `host${i % 50}.example`;
    const h = i === 1200 ? '10.9.9.9' : `10.0.0.${i % 200}`;
    const inner = i === 1700 ? '{n:"needle-7"}' : `{n:"n${i % 9}"}`;
    const tags = i === 2500 ? '["a","Needle-7!"]' : '["a","b"]';
    const extra = i === 2900 ? ',"needle-7x":1' : '';
    const x = i === 600 ? 'error("boom")' : i === 2500 ? '1' : `${i % 4}`;
    return `{ts:${i},x:${x},s:"${s}",h:${h},inner:${inner},tags:${tags}${extra}}`;
  }).join('\n');
}

test.each([0, 16 << 20])(
  'a search skips frames without its term, cache size %d',
  async (cacheSize) => {
    const lake = await openLake({ lake: `${lakes.dir}/l`, vectorScan: 'off', cacheSize });
    lakes.open.push(lake);
    // Small streams: many frames.
    await lake.createPool('p', { layout: { keys: [['ts']] }, seekStride: 400 });
    await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), records())));
    for (const pass of ['first', 'again']) {
      for (const q of [
        '"needle-7"',
        'grep("NEEDLE-7")',
        '"needle-7" and ts > 1000',
        '"needle-7" or "host3.example"',
        '"eedle-7x"',
        '"zzzz-99"',
        // An address, or a string holding its text.
        '10.9.9.9',
        // A comparison of a field first: an error it holds is output.
        'x == 1 and "needle-7"',
        '(x < 1 or not x > 2) and "needle-7"',
        // Patterns: a literal their matches hold, or a field name they match.
        '/needle-[0-9]/',
        '/(?i)NEEDLE-7/',
        'grep(/needle-7x?$/)',
        'Needle*',
        '/needle-7x/',
        '/eedle-7|zzzz/',
      ]) {
        const got = await run(lake, `from p | ${q} | yield ts`);
        // The same search after the scan (a head first: no frame test).
        const want = await run(lake, `from p | head 100000 | ${q} | yield ts`);
        expect({ q, pass, out: got.out }).toEqual({ q, pass, out: want.out });
        expect(want.stats.recordsRead).toBe(3000);
        if (q === '"needle-7"') expect(got.out).toEqual(['100', '1700', '2500', '2900']);
        if (q === '10.9.9.9') expect(got.out).toEqual(['1200', '2200']);
        if (q.startsWith('x == 1')) expect(got.out).toEqual(['error("missing")', '2500']);
        if (q === '/needle-[0-9]/') expect(got.out).toEqual(['1700', '2900']);
        if (q === '/(?i)NEEDLE-7/') expect(got.out).toEqual(['100', '1700', '2500', '2900']);
        if (!q.includes(' or '))
          expect({ q, pass, skipped: got.stats.recordsRead < 1000 }).toEqual({
            q,
            pass,
            skipped: true,
          });
      }
    }
  },
);
