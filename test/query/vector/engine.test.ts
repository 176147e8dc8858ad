// The vector engine against the row engine: the same queries over the same
// random records must give the same output, byte for byte (as ZSON), with
// the vector engine forced on and off, and with summarize spilling.

import fc from 'fast-check';
import { QueryContext } from '../../../src/query';
import { Combos, FieldVars } from '../../../src/query/vector/fieldvars';
import { VecCompute } from '../../../src/query/vector/compute';
import { VecFilter } from '../../../src/query/vector/filter';
import { asideConfig, asideLeased } from '../../../src/query/aggregates/dcountaside';
import { VecSort } from '../../../src/query/vector/sort';
import {
  chunkedFrom,
  denseCombos,
  groupByDictAfter,
  VecSummarize,
} from '../../../src/query/vector/summarize';
import { codeChunk } from '../../../src/query/aggregates/metrowasm';
import { parseValues } from '../../../src/formats/zson';
import { arrayReader } from '../../../src/query/runtime/ops/scan';
import { zq } from '../helpers';

/** A random field value as ZSON, or undefined for a missing field. */
const scalar = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 5 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('9007199254740993', '-9223372036854775808', '0') },
  {
    weight: 2,
    arbitrary: fc.double({ min: -10, max: 10, noNaN: true }).map((f) => f.toExponential()),
  },
  { weight: 1, arbitrary: fc.constantFrom('NaN', '+Inf', '-Inf', '-0.') },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 0, max: 300 })
      .map((n) => `${n}(uint8)`.replace(/^(\d{3,})\(uint8\)$/, '$1(uint16)')),
  },
  { weight: 2, arbitrary: fc.constantFrom('"a"', '"b"', '"ab"', '"B"', '""', '"a b"') },
  { weight: 1, arbitrary: fc.constantFrom('null', 'null(int64)', 'null(string)', 'true', 'false') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('1s', '2ms', '2024-01-01T00:00:00Z', '10.0.0.1', '[1,2]'),
  },
  { weight: 1, arbitrary: fc.constantFrom('error("boom")', 'error("missing")') },
);

const strings = fc.constantFrom('"a"', '"b"', '"c"', '"ab"', 'null(string)', '"a"', '"a"', '"A"');

/** Records of a few fields; some columns keep one type, others mix. */
const record = fc
  .record({
    a: fc.option(scalar, { nil: undefined }),
    s: fc.option(strings, { nil: undefined }),
    i: fc.option(fc.integer({ min: -3, max: 20 }).map(String), { nil: undefined, freq: 8 }),
    n: fc.option(
      fc.oneof(
        fc.constant('null({b:int64})'),
        fc
          .option(fc.integer({ min: 0, max: 3 }), { nil: null })
          .map((b) => (b === null ? '{b:null(int64)}' : `{b:${b}}`)),
        fc.constant('"not a record"'),
      ),
      { nil: undefined },
    ),
  })
  .map((r) => {
    const fields = Object.entries(r)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}:${v}`);
    return `{${fields.join(',')}}`;
  });

const values = fc.array(
  fc.oneof(
    { weight: 20, arbitrary: record },
    {
      weight: 1,
      arbitrary: fc.constantFrom('1', '"x"', 'null', 'null({s:string,i:int64})', 'error("e")'),
    },
  ),
  {
    minLength: 0,
    maxLength: 40,
  },
);

const queries = [
  'count()',
  'count() by s',
  'count() by s, i',
  'count(), sum(i), min(i), max(i), avg(i) by s',
  'sum(a), min(a), max(a), avg(a), dcount(a), count(a) by s',
  'sum(a) by a',
  'count() by n.b',
  'dcount(s), sum(n.b) by i',
  'collect(s), any(a), union(i) by s',
  'i > 3 | count() by s',
  's=="a" | cut i, a',
  's=="a" or i < 2 | cut s, i',
  'not (s=="a") and i >= 0 | sum(i)',
  'a > 1 | cut a',
  'a == "a" or a > 0 | count()',
  'grep("a", s) | cut s',
  'len(s) > 1 | cut s',
  'n.b == 1 | cut n',
  'i > 5 | head 3 | cut i, s',
  'tail 4 | cut s',
  'head 5 | count() by s',
  'i > 2 | tail 2 | yield i',
  'cut s, i | sort i',
  'sort i | cut i, s',
  // A sort that a head cuts short runs on columns.
  'sort a | head 30 | cut a',
  'sort -r a, i | head 4 | cut a, i, s',
  'sort -nulls first s, a | head 6 | cut s, a',
  'sort -r -nulls first a | head 3 | cut a',
  'i > 2 | sort -r s | head 3 | cut s, i',
  'sort n.b | head 2 | cut n',
  'sort a | head 5 | yield a',
  'sort -r i | tail 3 | cut i',
  'yield i',
  'a | count()',
  'i % 2 == 0 | cut i',
  'count() by s | sort s',
  'i >= 0 | i <= 10 | count() by s',
  'where s | cut s',
  // Keys and arguments computed from one field (VecCompute).
  'count() by lower(s)',
  'count() by len(s), i',
  'sum(i*2), avg(a+1), max(-a) by s',
  'min(len(s)), dcount(lower(s)) by upper(s)',
  'count() by x:=1',
  'count() by n.b+1',
  'i > 2 | count() by lower(s)',
  'count() by a % 2',
  'count() by k:=s[0:1], typeof(a)',
  'i > 0 | sum(a*a) by bucket(i, 5)',
  // Expressions of several fields, bound row by row (FieldVars).
  'i > a | cut i, a',
  'a == i or n.b > i | count() by s',
  's == "a" and i < n.b + 1 | cut s, n',
  'not (a < i) | count()',
  'sum(i+a), max(i*n.b) by s',
  'count() by k:=[s, i]',
  'count() by len(s)+i, a',
  'i > 1 | dcount(s+"-"+lower(s)) by n.b',
  'count() by c:=(i > 3 ? s : a)',
  'count() by string(i), cast(a, <int64>)',
  'string(i) == s or int64(a) == i | count()',
  // Aggregates' where clauses, as filters on columns.
  'count() where i > 2',
  'sum(a) where s == "a", count() where a > i by s',
  'count(), dcount(s) where i > 1 by i',
  'avg(a) where a > 0, min(a) where not (a > 0)',
  'count() where s, count() where a',
  'max(i) where n.b == i by s',
  'i > 0 | count() where len(s) > 1 by n.b',
  // Fields put assigns, computed as columns for a summarize.
  'put x:=i*2 | sum(x) by s',
  'put s:=upper(s), j:=s | count() by s, j',
  'i > 1 | put k:=a+i | count() by k',
  'put x:=quiet(a) | count() by x',
  'put a:=quiet(s) | sum(i) by a',
  'put n:=n.b | count() by n',
  'put x:=1 | put y:=x+i | sum(y) by x',
  'put x:=i | count() where x > 2 by s',
  'put i:=i+1 | dcount(i) by i',
  // Filters of what puts assign: rows the row engine decides (errors it
  // outputs) see the puts' fields.
  'put x:=i*2 | x > 4 | count() by s',
  'put s:=upper(s) | s=="A" or i > 2 | sum(i) by s',
  'put x:=i | x > 1 | put y:=x+1 | y > 3 | count() by y',
  'put x:=a | where x | count() by x',
  'put x:=a | where x > 0 or x | count(), sum(i) by s',
  'put i:=a | where i | count() by i, s',
  'where a | put x:=i | where x | count() by s',
  // A cut of fields after puts: its records made from the columns, or
  // by the puts and the cut on rows where the batch's rows differ.
  'put x:=i | cut x',
  'put x:=i*2 | cut x, s',
  'put x:=quiet(a) | cut x, a, s',
  'put s:=upper(s), j:=s | cut j, s, i',
  'i > 1 | put k:=a+i | cut k, i | head 3',
  'put x:=n.b | cut x, n | tail 2',
  'put x:=i | where x > 2 or x | put y:=x+1 | cut y, x, s',
  'put x:=a | cut x, nosuch',
  // ... and on rows where no summarize or cut follows, or it reads into one.
  'put x:=i | sort x | cut x',
  'put x.y:=i | count() by x.y',
  'put x:={a:i} | count() by x.a',
];

/** Records whose s is always a string (a column of one type): the filters' byte paths. */
const uniform = fc.array(
  fc
    .record({
      s: fc.constantFrom('"a"', '"b"', '""', 'null(string)', '"ab"', '"a"', '"A"'),
      i: fc.integer({ min: 0, max: 9 }),
    })
    .map(({ s, i }) => `{s:${s},i:${i}}`),
  { maxLength: 40 },
);

const uniformQueries = [
  's=="a" | cut i',
  's=="" | cut s, i',
  // The second leaf on the same column finds its constant in the dictionary.
  's=="a" or s=="" | cut s, i',
  's=="ab" or s=="b" or s=="zz" | cut s',
  'not s=="" | cut s',
  's=="zz" | count()',
  's=="b" and i > 4 | count() by s',
  's > "a" | cut s',
  's != "a" | cut s',
  'i == 3 | cut s',
  // Grouped by a one-type column's dictionary, batch after batch.
  'count(), sum(i) by s',
  'count() by i | sort i',
  // By several one-type columns: their dictionaries' codes combined.
  'count(), sum(i) by s, i',
  'count() by i, s, k:=i',
  's != "a" | count() by s, i | sort s, i',
  // dcount's codes of a one-type column, hashed in WebAssembly.
  'dcount(s) by i | sort i',
  'count(), dcount(i) by s',
  'i > 4 | dcount(s) by i | sort i',
  's != "a" | dcount(i), dcount(s) by s',
  // A filter the row engine decides for some rows (a string is not a
  // bool), after a filter and a put: the rows it keeps keep their columns.
  'i > 4 | put x:=s | where x=="a" or x | count() by x, i',
  // Computed by distinct value of s, with a dictionary of their own.
  'count(), sum(i*2) by lower(s)',
  'count() by upper(s), i % 3',
  's != "a" | count() by len(s)',
  'i > 4 | dcount(upper(s)) by s[0:1]',
  'count() where s == "a", sum(i) where i > 4 by s',
  'dcount(s) where i > 2, count() where s > "a"',
];

async function both(q: string, input: string, ctx?: () => QueryContext): Promise<void> {
  const run = async (vector: 'on' | 'off') => {
    try {
      return await zq(q, input, { vector, ...(ctx ? { ctx: ctx() } : {}) });
    } catch (e) {
      return `error: ${(e as Error).message}`;
    }
  };
  const off = await run('off');
  const on = await run('on');
  expect({ q, input, out: on }).toEqual({ q, input, out: off });
  // Grouping by dictionaries from the first use (as when a cache shares the columns).
  const after = groupByDictAfter.uses;
  groupByDictAfter.uses = 0;
  const chunked = { ...chunkedFrom };
  try {
    const dict = await run('on');
    expect({ q, input, dict: true, out: dict }).toEqual({ q, input, dict: true, out: off });
    // Several keys' codes renumbered pair by pair, not multiplied out.
    const dense = { ...denseCombos };
    Object.assign(denseCombos, { min: 0, perRow: 0 });
    try {
      const pairs = await run('on');
      expect({ q, input, pairs: true, out: pairs }).toEqual({ q, input, pairs: true, out: off });
    } finally {
      Object.assign(denseCombos, dense);
    }
    // Its distinct values looked up two at a time, as into a table past the cache.
    Object.assign(chunkedFrom, { groups: 0, values: 2 });
    const dictChunks = await run('on');
    expect({ q, input, dictChunks: true, out: dictChunks }).toEqual({
      q,
      input,
      dictChunks: true,
      out: off,
    });
  } finally {
    groupByDictAfter.uses = after;
    Object.assign(chunkedFrom, chunked);
  }
  // Grouping a chunk of rows at a time (keys hashed, then the table touched) from the first group.
  const from = chunkedFrom.groups;
  chunkedFrom.groups = 0;
  try {
    const chunked = await run('on');
    expect({ q, input, chunked: true, out: chunked }).toEqual({
      q,
      input,
      chunked: true,
      out: off,
    });
  } finally {
    chunkedFrom.groups = from;
  }
  // dcount's codes a few rows and bytes at a time (zq's batches are of 3
  // rows), hashed in JavaScript where the rows are sparse in their span.
  const chunk = { ...codeChunk };
  for (const setting of [
    { rows: 2, bytes: 8, slack: 0 },
    { slack: -Infinity }, // selected rows all in JavaScript
  ]) {
    Object.assign(codeChunk, setting);
    try {
      const few = await run('on');
      expect({ q, input, setting, out: few }).toEqual({ q, input, setting, out: off });
    } finally {
      Object.assign(codeChunk, chunk);
    }
  }
  // dcount on a worker thread from the first batch, handed two rows' codes at a time.
  if (q.includes('dcount')) {
    const aside = { ...asideConfig };
    Object.assign(asideConfig, { workers: 1, minRows: 1, rows: 2 });
    try {
      const away = await run('on');
      expect({ q, input, aside: true, out: away }).toEqual({ q, input, aside: true, out: off });
      expect(asideLeased()).toBe(0);
    } finally {
      Object.assign(asideConfig, aside);
    }
  }
}

test('random records: every query answers the same on columns as on rows', async () => {
  await fc.assert(
    fc.asyncProperty(values, fc.constantFrom(...queries), async (vals, q) => {
      await both(q, vals.join('\n'));
    }),
    { numRuns: 600 },
  );
});

test('the same with summarize spilling its groups', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(values, uniform),
      fc.constantFrom(
        ...[...queries, ...uniformQueries].filter((q) => /count|sum|min|dcount|collect/.test(q)),
      ),
      async (vals, q) => {
        await both(q, vals.join('\n'), () => new QueryContext({ memoryLimit: 1 }));
      },
    ),
    { numRuns: 150 },
  );
});

test('the same with sort past its memory limit (the row sort, spilling)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(values, uniform),
      fc.constantFrom(...queries.filter((q) => /sort/.test(q))),
      async (vals, q) => {
        await both(q, vals.join('\n'), () => new QueryContext({ memoryLimit: 1 }));
      },
    ),
    { numRuns: 100 },
  );
});

test('dcount of a column of a named type hashes its underlying type, as the row engine does', async () => {
  const input = Array.from({ length: 40 }, (_, i) => `{s:"v${i % 9}"(=name),i:${i % 4}}`);
  for (const q of ['dcount(s) by i | sort i', 'i > 0 | dcount(s) by i | sort i'])
    await both(q, input.join('\n'));
});

test('filters comparing one-type columns with constants answer as the row engine', async () => {
  await fc.assert(
    fc.asyncProperty(uniform, fc.constantFrom(...uniformQueries), async (vals, q) => {
      await both(q, vals.join('\n'));
    }),
    { numRuns: 300 },
  );
});

test('a sort by fields that a head cuts short runs on columns and builds only the rows it outputs', async () => {
  const next = jest.spyOn(VecSort.prototype as unknown as { next(): unknown }, 'next');
  try {
    const input = Array.from({ length: 3000 }, (_, i) => `{s:"v${i % 7}",i:${(i * 37) % 3000}}`);
    const out = await zq('sort -r i | head 2 | cut i', input.join('\n'), { vector: 'on' });
    expect(out).toEqual(['{i:2999}', '{i:2998}']);
    // One chunk of rows built, not the 3 that hold all 3000.
    expect(next).toHaveBeenCalledTimes(1);
    next.mockClear();
    await zq('sort -r i | head 2 | cut i', input.join('\n'), { vector: 'off' });
    expect(next).not.toHaveBeenCalled();
    // A sort whose rows are all wanted stays on rows (as fast or faster).
    expect(await zq('sort -r i | cut i', input.join('\n'), { vector: 'on' })).toHaveLength(3000);
    expect(next).not.toHaveBeenCalled();
  } finally {
    next.mockRestore();
  }
});

test('the vector operators run where the query allows', async () => {
  const filter = jest.spyOn(VecFilter.prototype, 'pull');
  const summ = jest.spyOn(
    VecSummarize.prototype as unknown as { feed(): Promise<boolean> },
    'feed',
  );
  try {
    const input = '{s:"a",i:1} {s:"b",i:2} {s:"a",i:3}';
    expect(await zq('i > 1 | count() by s', input, { vector: 'on' })).toEqual([
      '{s:"b",count:1(uint64)}',
      '{s:"a",count:1(uint64)}',
    ]);
    expect(filter).toHaveBeenCalled();
    expect(summ).toHaveBeenCalled();
    filter.mockClear();
    summ.mockClear();
    await zq('i > 1 | count() by s', input, { vector: 'off' });
    expect(filter).not.toHaveBeenCalled();
    expect(summ).not.toHaveBeenCalled();
    // Expressions of several fields, bound row by row.
    const several = '{s:"a",i:1,j:2} {s:"b",i:2,j:1} {s:"a",i:3,j:0} {s:"b",j:9}';
    const q = 'i < j or s == "b" | count() by k:=s+":"+string(i+j) | sort k';
    const rows = await zq(q, several, { vector: 'off' });
    expect(rows).toEqual([
      '{k:"a:3",count:1(uint64)}',
      '{k:"b:3",count:1(uint64)}',
      '{k:error("missing"),count:1(uint64)}',
    ]);
    expect(filter).not.toHaveBeenCalled();
    expect(await zq(q, several, { vector: 'on' })).toEqual(rows);
    expect(filter).toHaveBeenCalled();
    expect(summ).toHaveBeenCalled();
    // Fields put assigns, summarized.
    summ.mockClear();
    expect(
      await zq('put k:=i*j, s:=upper(s) | sum(k) by s | sort s', several, { vector: 'on' }),
    ).toEqual(['{s:"A",sum:2}', '{s:"B",sum:2}']);
    expect(summ).toHaveBeenCalled();
    // A filter of a field put assigns, then a summarize.
    summ.mockClear();
    filter.mockClear();
    const kq = 'put k:=i*j | where k > 1 or k | count() by s | sort s';
    const kRows = await zq(kq, several, { vector: 'off' });
    expect(filter).not.toHaveBeenCalled();
    // {s:"a",i:3,j:0}'s k, 0, is not a bool: the filter outputs an error, whose s is missing.
    expect(kRows).toEqual([
      '{s:"a",count:1(uint64)}',
      '{s:"b",count:1(uint64)}',
      '{s:error("missing"),count:1(uint64)}',
    ]);
    expect(await zq(kq, several, { vector: 'on' })).toEqual(kRows);
    expect(filter).toHaveBeenCalled();
    expect(summ).toHaveBeenCalled();
    // A cut after puts.
    const compute = jest.spyOn(VecCompute.prototype, 'pull');
    try {
      const cq = 'put k:=i*j, s:=upper(s) | cut s, k';
      const cRows = await zq(cq, several, { vector: 'off' });
      expect(compute).not.toHaveBeenCalled();
      expect(cRows).toEqual([
        '{s:"A",k:2}',
        '{s:"B",k:2}',
        '{s:"A",k:0}',
        '{s:"B",k:error("missing")}',
      ]);
      expect(await zq(cq, several, { vector: 'on' })).toEqual(cRows);
      expect(compute).toHaveBeenCalled();
      // A head of a few rows after it takes them on rows.
      compute.mockClear();
      expect(await zq(`${cq} | head 2`, several, { vector: 'on' })).toEqual(cRows.slice(0, 2));
      expect(compute).not.toHaveBeenCalled();
    } finally {
      compute.mockRestore();
    }
    // An aggregate's where clause.
    summ.mockClear();
    expect(await zq('count() where i < j by s | sort s', several, { vector: 'on' })).toEqual([
      '{s:"a",count:1(uint64)}',
      '{s:"b",count:0(uint64)}',
    ]);
    expect(summ).toHaveBeenCalled();
  } finally {
    filter.mockRestore();
    summ.mockRestore();
  }
});

/** q's output on input in batches of 500 rows (zq's are of 3, whose values rarely repeat). */
function inBatches(
  q: string,
  input: string[],
  vector: 'on' | 'off',
  rows = 500,
  ctx = new QueryContext(),
): Promise<string[]> {
  const inputs = [arrayReader(parseValues(ctx.zctx, input.join('\n')), rows)];
  return zq(q, '', { vector, ctx, inputs });
}

test('keys and arguments computed from one field run on columns, by distinct value where it repeats', async () => {
  const summ = jest.spyOn(
    VecSummarize.prototype as unknown as { feed(): Promise<boolean> },
    'feed',
  );
  const byDict = jest.spyOn(
    VecSummarize.prototype as unknown as { groupByDict(): number },
    'groupByDict',
  );
  try {
    const names = ['"a"', '"A"', '"b"', '"B"', 'null(string)', '"ab"', '"b"'];
    const input = Array.from({ length: 3000 }, (_, i) => `{s:${names[i % 7]},i:${i % 11}}`);
    const q = 'count(), sum(i*2) by lower(s) | sort this';
    const run = (vector: 'on' | 'off') => inBatches(q, input, vector);
    const rows = await run('off');
    expect(rows).toEqual([
      '{lower:null(string),count:428(uint64),sum:4274}',
      '{lower:"a",count:858(uint64),sum:8580}',
      '{lower:"b",count:1286(uint64),sum:12850}',
      '{lower:"ab",count:428(uint64),sum:4272}',
    ]);
    expect(summ).not.toHaveBeenCalled();
    expect(await run('on')).toEqual(rows);
    expect(summ).toHaveBeenCalled();
    // The computed column came with a dictionary of its own.
    expect(byDict).toHaveBeenCalled();
  } finally {
    summ.mockRestore();
    byDict.mockRestore();
  }
});

test('an expression of several string fields is evaluated once per combination of their values', async () => {
  const combos = jest.spyOn(FieldVars.prototype, 'combos');
  try {
    const s = ['"a"', '"A"', '"b"', 'null(string)', '"ab"'];
    const t = ['"a"', '"b"', '"B"'];
    const input = Array.from(
      { length: 3000 },
      (_, i) => `{s:${s[i % 5]},t:${t[(i * 7) % 3]},i:${i % 4}}`,
    );
    const run = (q: string, vector: 'on' | 'off') => inBatches(q, input, vector);
    for (const q of [
      'count() by k:=s+t | sort this',
      'lower(s) == lower(t) | count() by s, t | sort this',
      'count(), sum(i) by k:=t+":"+s, i | sort this',
    ]) {
      const rows = await run(q, 'off');
      expect(rows.length).toBeGreaterThan(3);
      combos.mockClear();
      expect({ q, out: await run(q, 'on') }).toEqual({ q, out: rows });
      // Five values of s by three of t: 15 combinations in a batch of 500.
      expect(combos.mock.results.some((r) => (r.value as Combos | null)?.rows.length === 15)).toBe(
        true,
      );
    }
  } finally {
    combos.mockRestore();
  }
});

test('several keys group by their dictionaries combined, or key by key without them', async () => {
  type Private = Record<'groupByDicts' | 'groupKeysOneType' | 'groupEach', () => number>;
  const proto = VecSummarize.prototype as unknown as Private;
  const spies = {
    dicts: jest.spyOn(proto, 'groupByDicts'),
    keys: jest.spyOn(proto, 'groupKeysOneType'),
    each: jest.spyOn(proto, 'groupEach'),
  };
  const called = () =>
    Object.entries(spies)
      .filter(([, f]) => f.mock.calls.length > 0)
      .map(([k]) => k);
  // s has 2500 distinct values in 3000 rows (no dictionary on a first
  // use), t 5 and i 7; u is a string or a number.
  const input = Array.from(
    { length: 6000 },
    (_, r) =>
      `{s:"v${(r * 7919) % 2500}",t:"t${r % 5}",i:${(r * 31) % 7},u:${r % 3 ? r % 4 : '"x"'}}`,
  );
  const cases: [string, string[]][] = [
    ['count() by t, i', ['dicts']],
    ['count(), sum(i) by s, t', ['keys']],
    ['i > 2 | count() by i, s, t', ['keys']],
    ['count() by t, u', ['each']],
  ];
  const dense = { ...denseCombos };
  const chunked = { ...chunkedFrom };
  const after = groupByDictAfter.uses;
  try {
    for (const [q, paths] of cases) {
      const check = async (how: string, want: string[], memoryLimit?: number) => {
        const ctx = () => new QueryContext(memoryLimit ? { memoryLimit } : {});
        const off = await inBatches(q, input, 'off', 3000, ctx());
        expect(off.length).toBeGreaterThan(1);
        for (const f of Object.values(spies)) f.mockClear();
        expect({ q, how, out: await inBatches(q, input, 'on', 3000, ctx()) }).toEqual({
          q,
          how,
          out: off,
        });
        expect({ q, how, paths: called() }).toEqual({ q, how, paths: want });
      };
      await check('first use', paths);
      // Into a table past the cache: keys hashed a chunk at a time, the table touched.
      chunkedFrom.groups = 0;
      await check('chunked', paths);
      Object.assign(chunkedFrom, chunked);
      // Spilling part way through a batch: the groups of combinations start afresh.
      await check('spilling', paths, 20000);
      // Every key's dictionary (as a cache sharing the columns), the
      // codes multiplied out and renumbered pair by pair.
      groupByDictAfter.uses = 0;
      const byDicts = paths[0] === 'each' ? paths : ['dicts'];
      await check('dictionaries', byDicts);
      Object.assign(denseCombos, { min: 0, perRow: 0 });
      await check('pairs', byDicts);
      await check('pairs, spilling', byDicts, 20000);
      Object.assign(denseCombos, dense);
      groupByDictAfter.uses = after;
    }
  } finally {
    Object.assign(denseCombos, dense);
    Object.assign(chunkedFrom, chunked);
    groupByDictAfter.uses = after;
    for (const f of Object.values(spies)) f.mockRestore();
  }
});

test('every(d), which reads ts itself, answers the same on columns', async () => {
  const ts = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -20000, max: 20000 }).map((s) => `${s}`) },
    { weight: 1, arbitrary: fc.constantFrom('null(time)', '"x"', '1s', 'missing') },
  );
  const rows = fc.array(
    fc.tuple(ts, fc.integer({ min: 0, max: 3 })).map(([t, i]) => {
      if (t === 'missing') return `{i:${i}}`;
      const v = /^-?\d+$/.test(t) ? new Date(Number(t) * 1000).toISOString() : t;
      return `{ts:${v},i:${i}}`;
    }),
    { maxLength: 40 },
  );
  const everyQueries = [
    'count() by every(1h)',
    'sum(i) by every(10m), i',
    'count() by bucket(ts, 1h)',
    'every(1h) == 1970-01-01T01:00:00Z | count()',
    'i > 1 | count() by every(2h)',
    'count() by every(1)',
    // every's own field and another, bound row by row.
    'every(1h) > ts - i*1h | count()',
    'count() by k:=every(1h) + i*1m',
  ];
  await fc.assert(
    fc.asyncProperty(rows, fc.constantFrom(...everyQueries), async (vals, q) => {
      await both(q, vals.join('\n'));
    }),
    { numRuns: 200 },
  );
});
