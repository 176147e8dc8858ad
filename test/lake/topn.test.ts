// `sort keys | head N` over a pool runs as a TopN (it keeps N values, not
// all of them), and answers as the full sort does: compared with `sort | head 100000 | head`,
// which the compiler leaves as a sort (a head past TOPN_MAX), on a pool of two overlapping loads, with
// the column path forced on and off.

import { openLake } from '../../src/backend/open';
import { VectorScanMode } from '../../src/lake/lake';
import { arrayReader } from '../../src/query/runtime/ops/scan';
import { TopN } from '../../src/query/runtime/ops/topn';
import { parseValues } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed/context';
import { loadDns, run, tempLakes } from './vectordata';

const lakes = tempLakes();

async function lakeWith(mode: VectorScanMode) {
  const l = await openLake({ lake: `${lakes.dir}/${mode}`, vectorScan: mode, cacheSize: 0 });
  lakes.open.push(l);
  return l;
}

/** Queries with a sort and a head, and whether a TopN runs them with the column path off / on. */
const CASES: [string, boolean, boolean][] = [
  ['sort rtt | head 5', true, true],
  ['sort -r rtt | head 5', true, true],
  ['sort -nulls first rtt | head 7', true, true],
  ['sort query, ts | head 10', true, true],
  ['sort -r ts, id.orig_h | head 3', true, true],
  ['sort id | head 4', true, true],
  ['sort qtype_name | head 300', true, true],
  ['qtype_name=="MX" | sort -r query | head 6', true, true],
  ['put x:=rtt*2 | sort x, ts | head 4', true, true],
  ['cut ts, query | sort query | head 5', true, true],
  ['sort extra | head 3', true, true],
  ['head 100 | sort -r rtt | head 2', true, true],
  ['count() by query | sort -r count, query | head 3', true, true],
  ['count() by qtype_name | sort -r count | head 1', true, true],
  ['sum(rtt) by id.orig_h | sort sum | head 2', true, true],
  // Only fields read after it: its input made rows of those fields.
  ['sort rtt | head 5 | cut ts, rtt', true, true],
  ['qtype_name=="MX" | sort -r rtt | head 3 | cut rtt, query', true, true],
  // No head right after, a guessed key, an operator a TopN cannot rebuild.
  ['sort rtt | tail 5', false, false],
  ['sort | head 3', false, false],
  ['uniq | sort rtt | head 3', false, false],
];

test.each(['off', 'on'] as VectorScanMode[])(
  'the same answers as the full sort, column path %s',
  async (mode) => {
    const lake = await lakeWith(mode);
    await loadDns(lake);
    const used = jest.spyOn(TopN.prototype, 'pull');
    try {
      for (const [q, off, on] of CASES) {
        used.mockClear();
        const got = await run(lake, `from dns | ${q}`);
        const topN = used.mock.calls.length > 0;
        const full = await run(lake, `from dns | ${q.replace(/\| head/, '| head 100000 | head')}`);
        used.mockClear();
        expect({ q, out: got.out }).toEqual({ q, out: full.out });
        expect({ q, topN }).toEqual({
          q,
          topN: mode === 'on' ? on : off,
        });
      }
    } finally {
      used.mockRestore();
    }
  },
);

test('keys without a total order start over on the full sort: the same answer, the pool read again', async () => {
  const lake = await lakeWith('off');
  await lake.createPool('p', { layout: { keys: [['ts']] }, threshold: 2000 });
  const recs = Array.from({ length: 300 }, (_, i) => `{ts:${i},v:${(i * 37) % 101}}`);
  recs[250] = '{ts:250,v:NaN}';
  await lake.load('p', 'main', arrayReader(parseValues(new TypeContext(), recs.join('\n'))));
  const seen = new Set<TopN>();
  const pull = TopN.prototype.pull;
  const spy = jest.spyOn(TopN.prototype, 'pull').mockImplementation(function (this: TopN) {
    seen.add(this);
    return pull.call(this);
  });
  try {
    for (const q of ['sort v | head 4', 'sum(v) by g:=ts%7 | sort sum, g | head 3']) {
      seen.clear();
      const got = await run(lake, `from p | ${q}`);
      const full = await run(lake, `from p | ${q.replace('| head', '| head 100000 | head')}`);
      expect(got.out).toEqual(full.out);
      expect([...seen].map((t) => t.restarts)).toEqual([1]);
      // The records were read twice, once by each scan.
      expect(got.stats.recordsRead).toBe(2 * full.stats.recordsRead);
    }
  } finally {
    spy.mockRestore();
  }
});

test('a TopN whose query reads fields takes rows of just those fields from the columns', async () => {
  const lake = await lakeWith('on');
  await loadDns(lake);
  const scan = jest.spyOn(lake, 'scanVectors');
  try {
    const q = 'from dns | qtype_name=="MX" | sort -r rtt | head 3 | cut rtt, query';
    const got = await run(lake, q);
    expect(got.out).toHaveLength(3);
    expect(scan).toHaveBeenCalled();
    const shape = scan.mock.calls[0][2].shape;
    expect([...(shape ?? [])].sort()).toEqual(['qtype_name', 'query', 'rtt']);
  } finally {
    scan.mockRestore();
  }
});
