import { ZngReader } from '../../src/formats/zng';
import { sourceFromBuffer } from '../../src/formats/io';
import { formatValue } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed/context';
import { call, createPool, errorOf, load, postJSON, startService, TestService } from './helpers';
import { readValues } from './zng';

let t: TestService;
beforeAll(async () => {
  t = await startService();
});
afterAll(async () => {
  await t.close();
});

function query(q: string, accept = '', extra: Record<string, unknown> = {}, params = '') {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (accept) headers.Accept = accept;
  return call(t.base, 'POST', `/query${params}`, {
    body: JSON.stringify({ query: q, ...extra }),
    headers,
  });
}

async function zsonOf(q: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await query(q, 'application/x-zson', extra);
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.text;
}

const stats = (s: string) =>
  s.replace(/(QueryStats.*?)[0-9]{3,}/g, '$1xxx').replace(/("(sec|ns)":)[0-9]{3,}/g, '$1xxx');

describe('formats (the reference curl-query test)', () => {
  beforeAll(async () => {
    await createPool(t.base, 'q', { keys: [['nokey']] });
    await load(
      t.base,
      'q',
      '{a:"hello",b:{c:"world",d:"goodbye"}}\n{a:"one",b:{c:"two",d:"three"}}\n',
    );
  });

  test.each([
    ['text/csv', 'a,b.c,b.d\nhello,world,goodbye\none,two,three\n'],
    [
      'application/json',
      '[{"a":"hello","b":{"c":"world","d":"goodbye"}},{"a":"one","b":{"c":"two","d":"three"}}]\n',
    ],
    [
      'application/x-ndjson',
      '{"a":"hello","b":{"c":"world","d":"goodbye"}}\n{"a":"one","b":{"c":"two","d":"three"}}\n',
    ],
    [
      'application/x-zeek',
      '#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\ta\tb.c\tb.d\n#types\tstring\tstring\tstring\nhello\tworld\tgoodbye\none\ttwo\tthree\n',
    ],
    [
      'application/x-zson',
      '{a:"hello",b:{c:"world",d:"goodbye"}}\n{a:"one",b:{c:"two",d:"three"}}\n',
    ],
    ['', '{a:"hello",b:{c:"world",d:"goodbye"}}\n{a:"one",b:{c:"two",d:"three"}}\n'],
  ])('%s', async (accept, want) => {
    const r = await query('from q', accept, {}, '?ctrl=true');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(accept || 'application/x-zson');
    expect(r.text).toBe(want);
  });

  test('ZJSON with control messages', async () => {
    const r = await query('from q', 'application/x-zjson', {}, '?ctrl=true');
    // Byte counts are the engine's (the reference counts value bytes: 36).
    const text = stats(r.text)
      .replace(/"bytes_read":\d+/, '"bytes_read":B')
      .replace(/"bytes_matched":\d+/, '"bytes_matched":M');
    expect(r.text).toMatch(/"bytes_read":[1-9]/);
    expect(text).toBe(
      '{"type":"QueryChannelSet","value":{"channel_id":0}}\n' +
        '{"type":{"kind":"record","id":31,"fields":[{"name":"a","type":{"kind":"primitive","name":"string"}},{"name":"b","type":{"kind":"record","id":30,"fields":[{"name":"c","type":{"kind":"primitive","name":"string"}},{"name":"d","type":{"kind":"primitive","name":"string"}}]}}]},"value":["hello",["world","goodbye"]]}\n' +
        '{"type":{"kind":"ref","id":31},"value":["one",["two","three"]]}\n' +
        '{"type":"QueryChannelEnd","value":{"channel_id":0}}\n' +
        '{"type":"QueryStats","value":{"start_time":{"sec":xxx,"ns":xxx},"update_time":{"sec":xxx,"ns":xxx},"bytes_read":B,"bytes_matched":M,"records_read":2,"records_matched":2}}\n',
    );
  });

  test.each(['application/vnd.apache.arrow.stream', 'application/x-parquet', 'application/x-vng'])(
    '%s round-trips',
    async (accept) => {
      const r = await query('from q', accept);
      expect(r.status).toBe(200);
      const fmt = {
        'application/vnd.apache.arrow.stream': 'arrows',
        'application/x-parquet': 'parquet',
        'application/x-vng': 'vng',
      }[accept]!;
      const vals = await readValues(fmt, r.body);
      expect(vals.map((v) => formatValue(v))).toEqual([
        '{a:"hello",b:{c:"world",d:"goodbye"}}',
        '{a:"one",b:{c:"two",d:"three"}}',
      ]);
    },
  );

  test('ZNG with control messages', async () => {
    const r = await query('from q', 'application/x-zng', {}, '?ctrl=T');
    expect(r.status).toBe(200);
    const controls: string[] = [];
    const reader = new ZngReader(sourceFromBuffer(r.body), {
      ctx: new TypeContext(),
      onControl: (_f, body) => {
        controls.push(body.toString('utf8'));
      },
    });
    const vals: string[] = [];
    for (let b = await reader.read(); b; b = await reader.read())
      for (const v of b) vals.push(formatValue(v));
    expect(vals).toHaveLength(2);
    expect(controls[0]).toBe('{channel_id:0}(=QueryChannelSet)\n');
    expect(controls[1]).toBe('{channel_id:0}(=QueryChannelEnd)\n');
    expect(controls[2]).toMatch(
      /^\{start_time:\d{4}-[0-9T:.-]+Z,update_time:\d{4}-[0-9T:.-]+Z,Progress:\{bytes_read:[1-9]\d*,bytes_matched:\d+,records_read:2,records_matched:2\}\(=Progress\)\}\(=QueryStats\)\n$/,
    );
  });

  test('ctrl=F and a bad ctrl value', async () => {
    let r = await query('from q', 'application/x-zjson', {}, '?ctrl=F');
    expect(r.text).not.toContain('Query');
    r = await query('from q', 'application/x-zjson', {}, '?ctrl=Foo');
    expect(r.status).toBe(400);
    expect(r.text).toBe(
      '{"type":"Error","kind":"invalid operation","error":"invalid query param \\"Foo\\": strconv.ParseBool: parsing \\"Foo\\": invalid syntax"}\n',
    );
  });

  test('fork: each channel ends', async () => {
    const r = await query('from q | fork (=>pass =>pass)', 'application/x-zjson', {}, '?ctrl=true');
    const ends = r.text
      .split('\n')
      .filter((l) => l.includes('QueryChannelEnd'))
      .sort();
    expect(ends).toEqual([
      '{"type":"QueryChannelEnd","value":{"channel_id":0}}',
      '{"type":"QueryChannelEnd","value":{"channel_id":1}}',
    ]);
  });

  test('head.pool is the default source', async () => {
    expect(await zsonOf('count()', { head: { pool: 'q' } })).toBe('2(uint64)\n');
    expect(await zsonOf('', { head: { pool: 'q', branch: 'main' } })).toContain('"hello"');
  });
});

describe('query errors', () => {
  test('a parse error is 400 with its offset', async () => {
    const r = await query('from test \\ count()');
    expect(r.status).toBe(400);
    const e = errorOf(r);
    expect(e.kind).toBe('invalid operation');
    expect(e.error).toBe('error parsing Zed at column 11:\nfrom test \\ count()\n      === ^ ===');
    expect(e.info).toEqual({ parse_error_offset: 10 });
  });

  test('unknown pool and branch are 404', async () => {
    await createPool(t.base, 'qe');
    let r = await query('from doesnotexist');
    expect(r.status).toBe(404);
    expect(errorOf(r).error).toBe('doesnotexist: pool not found');
    r = await query('from qe@doesnotexist');
    expect(r.status).toBe(404);
    expect(errorOf(r).error).toBe('"doesnotexist": branch not found');
  });

  test('a query that parses but does not compile is 400', async () => {
    await createPool(t.base, 'qc');
    await load(t.base, 'qc', '{a:1}');
    for (const [q, msg] of [
      ['from qc | count(), count()', 'duplicate field: "count"'],
      ['from qc | cut this:=a', "cannot assign to 'this'"],
      ['from qc | nosuchfunction(a)', /nosuchfunction/],
    ] as const) {
      const r = await query(q);
      expect([q, r.status]).toEqual([q, 400]);
      expect(errorOf(r).error).toMatch(msg);
    }
  });

  test('errors found while running: CSV meeting another shape, stack overflow', async () => {
    await createPool(t.base, 'qr', { keys: [['nokey']] });
    await load(t.base, 'qr', '{a:"hello"}\n{b:123}\n');
    let r = await query('from qr', 'text/csv');
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe(
      "CSV output requires uniform records but multiple types encountered (consider 'fuse')",
    );
    r = await query('func f(n): ( f(n+1) ) from qr | yield f(1)');
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toMatch(/stack overflow/);
  });

  test('an empty pool is an empty result', async () => {
    await createPool(t.base, 'qempty');
    const r = await query('from qempty');
    expect([r.status, r.text]).toEqual([200, '']);
    const j = await query('from qempty', 'application/json');
    expect(j.text).toBe('[]\n');
  });

  test('/query/status tells how a query ended', async () => {
    await createPool(t.base, 'qs', { keys: [['nokey']] });
    await load(t.base, 'qs', '{a:"x"}\n{b:1}\n');
    let r = await call(t.base, 'POST', '/query', {
      body: JSON.stringify({ query: 'from qs' }),
      headers: { 'X-Request-Id': 'status-ok', Accept: 'application/json' },
    });
    expect(r.status).toBe(200);
    r = await call(t.base, 'GET', '/query/status/status-ok', {
      headers: { Accept: 'application/json' },
    });
    expect(r.json()).toEqual({ error: '' });
    await call(t.base, 'POST', '/query', {
      body: JSON.stringify({ query: 'from qs' }),
      headers: { 'X-Request-Id': 'status-bad', Accept: 'text/csv' },
    });
    r = await call(t.base, 'GET', '/query/status/status-bad', {
      headers: { Accept: 'application/json' },
    });
    expect((r.json() as { error: string }).error).toMatch(/CSV output requires uniform records/);
    r = await call(t.base, 'GET', '/query/status/nope');
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('query not found');
  });
});

describe('meta-queries and time travel', () => {
  let c1: string;
  let c2: string;
  let poolId: string;
  beforeAll(async () => {
    poolId = await createPool(t.base, 'tt', { keys: [['k']] });
    c1 = await load(t.base, 'tt', '{k:1}');
    c2 = await load(t.base, 'tt', '{k:2}');
  });

  test(':pools, :branches, :objects, :log in the reference shapes', async () => {
    let r = await query('from :pools | name=="tt" | cut name', 'application/json');
    expect(r.json()).toEqual([{ name: 'tt' }]);
    r = await query('from tt:branches | yield branch.name', 'application/json');
    expect(r.json()).toEqual(['main']);
    r = await query('from tt@main:objects | sort min | yield {min,max,count}');
    expect(r.text).toBe('{min:1,max:1,count:1(uint64)}\n{min:2,max:2,count:1(uint64)}\n');
    r = await query('from tt@main:log | yield typeof(this)', 'application/x-zson');
    expect(r.text.split('\n')[0]).toMatch(/lake\.BranchTip/);
    r = await query('from tt@main:log | has(parent) | yield id', 'application/json');
    const ids = r.json() as string[];
    expect(ids).toEqual([c2, c1]);
    expect(poolId).toMatch(/^0x/);
  });

  test('time travel after delete, merge and revert', async () => {
    const [o1] = (await t.lake.objects('tt', c1)).map((o) => o.id.toHex());
    let r = await postJSON(t.base, '/pool/tt/branch/main/delete', { object_ids: [o1] });
    const afterDelete = (r.json() as { commit: string }).commit;
    expect(await zsonOf('from tt')).toBe('{k:2}\n');
    expect(await zsonOf(`from tt@${c2}`)).toBe('{k:1}\n{k:2}\n');
    expect(await zsonOf(`from tt@${c1}`)).toBe('{k:1}\n');

    await call(t.base, 'POST', '/pool/tt', {
      body: JSON.stringify({ name: 'side', commit: afterDelete }),
    });
    await load(t.base, 'tt', '{k:3}', { branch: 'side' });
    r = await postJSON(t.base, '/pool/tt/branch/main/merge/side', {});
    const afterMerge = (r.json() as { commit: string }).commit;
    expect(await zsonOf('from tt')).toBe('{k:2}\n{k:3}\n');
    expect(await zsonOf(`from tt@${afterDelete}`)).toBe('{k:2}\n');

    r = await postJSON(t.base, `/pool/tt/branch/main/revert/${afterMerge}`, {});
    expect(r.status).toBe(200);
    expect(await zsonOf('from tt')).toBe('{k:2}\n');
    expect(await zsonOf(`from tt@${afterMerge}`)).toBe('{k:2}\n{k:3}\n');
    expect(await zsonOf('from tt@side')).toBe('{k:2}\n{k:3}\n');
  });

  test('vacuum, then query the old commit: a clear 404', async () => {
    await createPool(t.base, 'vq', { keys: [['k']] });
    await load(t.base, 'vq', '{k:1}');
    const old = await load(t.base, 'vq', '{k:2}');
    const ids = (await t.lake.objects('vq', 'main')).map((o) => o.id.toHex());
    await postJSON(t.base, '/pool/vq/branch/main/delete', { object_ids: [ids[1]] });
    const r0 = await call(t.base, 'POST', '/pool/vq/revision/main/vacuum', {
      headers: { Accept: 'application/json' },
    });
    expect((r0.json() as { object_ids: string[] }).object_ids).toEqual([ids[1]]);
    const r = await query(`from vq@${old}`);
    expect(r.status).toBe(404);
    expect(errorOf(r).error).toMatch(/removed by vacuum/);
    expect(await zsonOf('from vq')).toBe('{k:1}\n');
  });
});

describe('delete where', () => {
  test('removes the matching values (the reference curl test)', async () => {
    await createPool(t.base, 'dw', { keys: [['x']] });
    await load(t.base, 'dw', '{x:1}{x:2}{x:3}');
    await load(t.base, 'dw', '{x:3}{x:4}{x:5}');
    await load(t.base, 'dw', '{x:6}{x:7}{x:8}');
    const r = await call(t.base, 'POST', '/pool/dw/branch/main/delete', {
      body: '{where:"x <= 4"}',
    });
    expect(r.text).toMatch(
      /^\{commit:0x[0-9a-f]{40}\(=ksuid\.KSUID\),warnings:null\(\[string\]\)\}\(=api\.CommitResponse\)\n$/,
    );
    expect(await zsonOf('from dw')).toBe('{x:5}\n{x:6}\n{x:7}\n{x:8}\n');
  });

  test.each(['asc', 'desc'])('1000 values, %s: ranges and non-key predicates', async (order) => {
    const pool = `dw${order}`;
    const r0 = await postJSON(t.base, '/pool', {
      name: pool,
      layout: { order, keys: [['ts']] },
      thresh: 1024,
    });
    expect(r0.status).toBe(200);
    const body = Array.from({ length: 1000 }, (_, i) => `{ts:${i},s:"val${i}"}`).join('\n');
    await load(t.base, pool, body);
    let r = await postJSON(t.base, `/pool/${pool}/branch/main/delete`, {
      where: 'ts > 400 and ts <= 500',
    });
    expect(r.status).toBe(200);
    expect(await zsonOf(`from ${pool} | count()`)).toBe('900(uint64)\n');
    r = await postJSON(t.base, `/pool/${pool}/branch/main/delete`, {
      where: 's == "val1" or s == "val999"',
    });
    expect(r.status).toBe(200);
    expect(await zsonOf(`from ${pool} | count()`)).toBe('898(uint64)\n');
  });

  test('errors: not a single filter, nothing matched, bad syntax', async () => {
    await createPool(t.base, 'dwe');
    await load(t.base, 'dwe', '{me:"x"}');
    for (const where of ['me == "hi" | cut me', 'cut that']) {
      const r = await postJSON(t.base, '/pool/dwe/branch/main/delete', { where });
      expect(r.status).toBe(400);
      expect(errorOf(r).error).toBe(
        'invalid delete where query: must be a single filter operation',
      );
    }
    let r = await postJSON(t.base, '/pool/dwe/branch/main/delete', { where: 'me == "nothing"' });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('empty transaction');
    r = await postJSON(t.base, '/pool/dwe/branch/main/delete', { where: 'me ==' });
    expect(r.status).toBe(400);
    expect(errorOf(r).info).toHaveProperty('parse_error_offset');
    expect(await zsonOf('from dwe')).toBe('{me:"x"}\n');
  });
});

describe('-defaultfmt', () => {
  test('ndjson answers when Accept says nothing', async () => {
    const s = await startService({ defaultFormat: 'ndjson' });
    try {
      await createPool(s.base, 'test');
      await call(s.base, 'POST', '/pool/test/branch/main', { body: '{x:1(uint64)}' });
      const r = await call(s.base, 'POST', '/query', { body: '{"query":"from test"}' });
      expect(r.text).toBe('{"x":1}\n');
    } finally {
      await s.close();
    }
  });
});

describe("the reference Go client's wire format (ZNG both ways)", () => {
  async function zng(zson: string): Promise<Buffer> {
    const { parseValues } = await import('../../src/formats/zson');
    const { BufferSink } = await import('../../src/formats/io');
    const { zngFormat } = await import('../../src/formats/zng');
    const sink = new BufferSink();
    const w = zngFormat.newWriter!(sink, {});
    await w.write(parseValues(new TypeContext(), zson));
    await w.close();
    return sink.bytes();
  }
  const zngHeaders = { 'Content-Type': 'application/x-zng', Accept: 'application/x-zng' };

  test('create a pool, load, query', async () => {
    let r = await call(t.base, 'POST', '/pool', {
      body: await zng(
        '{name:"gopool",layout:{order:"desc"(=order.Which),keys:[["ts"](=field.Path)](=field.List)}(=order.SortKey),seek_stride:0,thresh:0}(=api.PoolPostRequest)',
      ),
      headers: zngHeaders,
    });
    expect(r.status).toBe(200);
    let vals = await readValues('zng', r.body);
    expect(formatValue(vals[0])).toMatch(/^\{pool:\{ts:.*,name:"gopool",.*order:"desc"/);
    r = await call(t.base, 'POST', '/pool/gopool/branch/main', {
      body: await zng('{ts:1}\n{ts:2}'),
      headers: { ...zngHeaders, 'Zed-Commit': '{"author":"go","body":"via zng","meta":""}' },
    });
    expect(r.status).toBe(200);
    vals = await readValues('zng', r.body);
    expect(formatValue(vals[0])).toMatch(
      /^\{commit:0x[0-9a-f]{40}\(=ksuid\.KSUID\),warnings:\[\]\(\[string\]\)\}\(=api\.CommitResponse\)$/,
    );
    r = await call(t.base, 'POST', '/query?ctrl=T', {
      body: await zng(
        '{query:"from gopool",head:{pool:"",branch:""}(=lakeparse.Commitish)}(=api.QueryRequest)',
      ),
      headers: zngHeaders,
    });
    expect(r.status).toBe(200);
    vals = await readValues('zng', r.body);
    expect(vals.map((v) => formatValue(v))).toEqual(['{ts:2}', '{ts:1}']);
  });
});
