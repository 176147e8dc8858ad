// Records and queries shared by the tests of scans by columns: a small
// DNS-like pool (nulls, nested records, an optional array field) loaded in
// two commits, and queries over every operator the vector engine runs and
// many it hands to the row engine.

import { parseValues, formatValue } from '../../src/formats/zson';
import { Lake } from '../../src/lake';
import { LakeSource } from '../../src/lake/source';
import { compileQuery, QueryContext } from '../../src/query';
import { arrayReader } from '../../src/query/runtime/ops/scan';
import { TypeContext } from '../../src/zed/context';
import { rmDir, tmpDir } from './helpers';

/** n DNS-like records as ZSON, the ith with ts(i). */
export function dnsRecords(n: number, ts: (i: number) => string): string {
  return Array.from({ length: n }, (_, i) => dnsRecord(i, ts(i))).join('\n');
}

function dnsRecord(i: number, ts: string): string {
  const q = i % 7 === 0 ? 'null' : `"host${i % 13}.example"`;
  const qt = ['"A"', '"AAAA"', '"MX"'][i % 3];
  const rtt = i % 5 === 0 ? 'null' : `${(i % 11) * 0.25}`;
  const extra = i % 9 === 0 ? `,extra:[${i},${i + 1}]` : '';
  return `{ts:${ts},id:{orig_h:10.0.0.${i % 17},orig_p:${i % 3}(port=uint16)},query:${q},qtype_name:${qt},rtt:${rtt}${extra}}`;
}

/**
 * n records of one type (nulls typed, rtt always a float, no extra) with
 * distinct keys: the objects one load cuts them into do not overlap, so
 * every object can be read by columns by the fastest path there is.
 */
export function oneTypeRecords(n: number): string {
  return dnsRecords(n, (i) => `${1_700_000_000 + i}`)
    .split('\n')
    .filter((l) => !l.includes('extra'))
    .join('\n')
    .replace(/query:null/g, 'query:null(string)')
    .replace(/rtt:null/g, 'rtt:null(float64)')
    .replace(/rtt:(\d+)\}/g, 'rtt:$1.0}');
}

export const DATA = dnsRecords(400, (i) => `${1_700_000_000 + (i % 97)}`);

export const QUERIES = [
  'count()',
  'count() by qtype_name',
  'count() by qtype_name, query | sort qtype_name, query',
  'query=="host3.example" | cut ts, query',
  'cut ts,query',
  // Cuts of one-type columns are built from the columns as the cut records.
  'cut ts, qtype_name',
  'cut q:=qtype_name, t:=ts, id',
  'qtype_name=="MX" | cut qtype_name, ts',
  'cut ts, rtt',
  'summarize count(), sum(rtt), dcount(id.orig_h) by query | sort query',
  'summarize avg(rtt), min(rtt), max(rtt), minq:=min(query), maxts:=max(ts) by qtype_name | sort qtype_name',
  'rtt > 1 | count() by id.orig_h | sort id',
  'sort rtt, ts | head 5 | yield {q:query, r:rtt}',
  // Sorts by fields that a head cuts short order on columns and build
  // only the rows they output.
  'sort -r query | head 9 | cut query, ts',
  'sort -nulls first rtt | head 7 | cut ts, rtt',
  'sort id.orig_h, qtype_name | head 6 | cut id, ts',
  'qtype_name=="MX" | sort -r ts | head 3 | cut ts',
  'sort extra | head 5 | cut ts, extra',
  'sort -r rtt | cut ts, rtt',
  'tail 3 | yield id.orig_p',
  'yield extra[0]',
  'has(extra) | cut extra',
  'every(10s) | count()',
  'count() by every(10s) | sort ts',
  'cut missingfield',
  'yield typeof(query)',
  'yield typeof(this)',
  'query=="host3.example"',
  'query=="nosuch"',
  'rtt > 2',
  'id.orig_h==10.0.0.3 | head 3',
  'ts > 1700000050 and qtype_name=="MX" | tail 4',
  'query=="host3.example" or extra[0]==9',
  // A running aggregate in a filter sees every value, in order.
  'rtt > 1 and count() < 5',
  'where count() < 3',
  'head 2',
  'sort this | head 1',
  'grep(/host1/) | count()',
  // A rename reads its source and destination fields (whether they are
  // there decides what it does), the rest only what follows reads.
  'rename q:=query | count() by q | sort q',
  'rename ts:=rtt | count() by typeof(query) | sort this',
  'rename e:=extra | cut e, extra | sort e | head 5',
  'rename id.src:=id.orig_h | count() by id.src | sort this',
  // A put reads its expressions' fields and its destinations' top-level
  // fields; what follows, the fields it reads.
  'put x:=rtt*2 | cut x, query | sort x, query | head 5',
  'put query:=qtype_name | count() by query | sort query',
  'put id.src:=id.orig_h | count() by id.src | sort this',
  'put qtype_name.x:=1 | count() by typeof(qtype_name) | sort this',
  'put e:=extra[1] | e > 100 | cut ts, e | sort ts, e',
  'put rtt:=query, q:=rtt | sort q, rtt | head 4 | yield {q, rtt}',
  // A cut of fields after puts is made from the columns they computed.
  'put x:=rtt*2 | cut x, query',
  'rtt > 1 | put x:=rtt+1, query:=lower(qtype_name) | cut query, x, ts | head 8',
  'put e:=extra[0] | cut ts, e | tail 4',
  'put r:=quiet(rtt) | cut ts, r, rtt | head 12',
  'put rtt:=quiet(extra[0]) | cut rtt, ts',
  'put x:=rtt | put y:=x*x | cut y, x | head 3',
  'put x:=id.orig_h | cut x, id | count() by x | sort x',
  // A yield of a record of fields is made as a cut of them would be, where
  // each column has one type, and else as the yield makes it.
  'yield {t:ts, qtype_name}',
  'yield {q:query, r:rtt}',
  'yield {e:extra, ts} | head 12',
  'qtype_name=="MX" | yield {n:qtype_name, t:ts} | tail 4',
  'ts/0 > 1 | yield {ts, q:qtype_name} | head 5',
  'yield {ts, id} | count() by typeof(this) | sort this',
  // Its expressions of fields are computed as columns, as a put's are.
  'yield {n:lower(qtype_name), t:ts}',
  'yield {r:rtt*2, q:query} | sort q, r',
  'yield {r:rtt*2, q:query} | head 3',
  'yield {e:extra[0], ts, s:quiet(extra[1])} | tail 20',
  'qtype_name=="MX" | yield {query:upper(query), t:ts, q:query}',
  'yield {p:id.orig_p+1, h:id.orig_h} | count() by typeof(this) | sort this',
];

/** Loads records into pool dns of each lake in one commit, cut into objects at threshold bytes. */
export async function loadDnsObjects(
  threshold: number,
  records: string,
  ...lakes: Lake[]
): Promise<void> {
  for (const lake of lakes) {
    await lake.createPool('dns', { layout: { keys: [['ts']] }, threshold });
    await lake.load('dns', 'main', arrayReader(parseValues(new TypeContext(), records)));
  }
}

/** Loads DATA into pool dns of each lake in two commits (objects that overlap). */
export async function loadDns(...lakes: Lake[]): Promise<void> {
  for (const lake of lakes) {
    await lake.createPool('dns', { layout: { keys: [['ts']] }, threshold: 6000 });
    const ctx = new TypeContext();
    const vals = parseValues(ctx, DATA);
    await lake.load('dns', 'main', arrayReader(vals.slice(0, 250)));
    await lake.load('dns', 'main', arrayReader(vals.slice(250)));
  }
}

/** A query's output as ZSON lines, and its stats. */
export async function run(lake: Lake, query: string) {
  const ctx = new QueryContext();
  const q = await compileQuery(query, { ctx, source: new LakeSource(lake) });
  const out = (await q.all()).map((v) => formatValue(v));
  return { out, stats: ctx.stats };
}

/** A fresh directory per test for lakes, and the lakes opened there (closed after each test). */
export function tempLakes(): { dir: string; open: Lake[] } {
  const t = { dir: '', open: [] as Lake[] };
  beforeEach(() => {
    t.dir = tmpDir();
  });
  afterEach(async () => {
    for (const l of t.open.splice(0)) await l.close();
    rmDir(t.dir);
  });
  return t;
}
