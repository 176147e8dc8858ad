// The index endpoints over HTTP (and, in the s3redis project, on S3 and
// Redis): rules added and dropped with the reference's payloads, index
// objects made by "Index Objects" and "Update Index" with the reference's
// fields and the API contract's, the errors of bad input with nothing
// committed, and queries whose QueryStats show what the indexes skipped.

import { call, createPool, errorOf, load, postJSON, startService, TestService } from './helpers';

let t: TestService;
beforeEach(async () => {
  t = await startService();
});
afterEach(async () => {
  await t.close();
});

const json = { Accept: 'application/json' };

/** The values of a query as ZSON lines. */
async function zson(q: string): Promise<string[]> {
  const r = await call(t.base, 'POST', '/query', {
    body: JSON.stringify({ query: q }),
    headers: { 'Content-Type': 'application/json', Accept: 'application/x-zson' },
  });
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.text.split('\n').filter((l) => l !== '');
}

/** A query's QueryStats (records and bytes read). */
async function stats(q: string): Promise<{ records_read: number; bytes_read: number }> {
  const r = await call(t.base, 'POST', '/query?ctrl=T', {
    body: JSON.stringify({ query: q }),
    headers: { 'Content-Type': 'application/json', Accept: 'application/x-zjson' },
  });
  const line = r.text.split('\n').find((l) => l.includes('"QueryStats"'));
  if (!line) throw new Error(`no QueryStats in ${r.text}`);
  return (JSON.parse(line) as { value: { records_read: number; bytes_read: number } }).value;
}

async function addRules(rules: unknown[]): Promise<void> {
  const r = await postJSON(t.base, '/index', { rules });
  if (r.status !== 204) throw new Error(`${r.status} ${r.text}`);
}

async function tip(pool: string, branch = 'main'): Promise<string> {
  const r = await call(t.base, 'GET', `/pool/${pool}/branch/${branch}`, { headers: json });
  return (r.json() as { commit: string }).commit;
}

describe('index rules', () => {
  test('POST /index takes the reference client payload (ZSON, IDs kept) and JSON', async () => {
    const id = '0x1794843d010ea046027b412ab13ea0d62fb560f6';
    const r = await call(t.base, 'POST', '/index', {
      body: `{rules:[{ts:2023-01-01T00:00:00Z,id:${id}(=ksuid.KSUID),name:"IPs",type:"ip"}(=index.TypeRule)]}(=api.IndexRulesAddRequest)`,
      headers: { 'Content-Type': 'application/x-zson' },
    });
    expect(r.status).toBe(204);
    await addRules([
      { name: 'foo.bar', fields: [['foo', 'bar']] },
      { name: 'n', script: 'count()' },
    ]);
    expect(await zson('from :index_rules | drop ts')).toEqual([
      `{id:${id}(=ksuid.KSUID),name:"IPs",type:"ip"}`,
      expect.stringMatching(
        /^\{id:0x[0-9a-f]{40}\(=ksuid\.KSUID\),name:"foo\.bar",fields:\[\["foo","bar"\]\(=field\.Path\)\]\(=field\.List\)\}$/,
      ),
      expect.stringMatching(/^\{id:0x[0-9a-f]{40}\(=ksuid\.KSUID\),name:"n",script:"count\(\)"\}$/),
    ]);
  });

  test('bad rules: the reference texts, nothing added', async () => {
    await addRules([{ name: 'IPs', type: 'ip' }]);
    let r = await postJSON(t.base, '/index', { rules: [{ name: 'IPs', type: 'ip' }] });
    expect(r.status).toBe(409);
    expect(errorOf(r)).toMatchObject({
      kind: 'conflict with pending operation',
      error: 'index rule already exists',
    });
    r = await postJSON(t.base, '/index', {
      rules: [
        { name: 'ok', fields: [['a']] },
        { name: 'bad', script: 'count( by' },
      ],
    });
    expect(r.status).toBe(400);
    r = await postJSON(t.base, '/index', { rules: [{ name: 'bad', type: '{a:' }] });
    expect(r.status).toBe(400);
    r = await postJSON(t.base, '/index', { rules: [{ name: 'bad', fields: [] }] });
    expect(errorOf(r).error).toBe('field index rule requires field(s) argument');
    r = await postJSON(t.base, '/index', { rules: 'x' });
    expect(r.status).toBe(400);
    expect(await zson('from :index_rules | yield name')).toEqual(['"IPs"']);
  });

  test('DELETE /index answers with the rules dropped; an unknown ID drops nothing', async () => {
    await addRules([
      { name: 'IPs', type: 'ip' },
      { name: 'f', fields: [['f']] },
    ]);
    const ids = (await zson('from :index_rules | yield id')).map((l) => l.replace(/\(.*$/, ''));
    let r = await call(t.base, 'DELETE', '/index', {
      body: JSON.stringify({ rule_ids: [ids[0], '27aaaaaaaaaaaaaaaaaaaaaaaaa'] }),
      headers: { 'Content-Type': 'application/json', ...json },
    });
    expect(r.status).toBe(404);
    expect(errorOf(r).error).toBe('index 27aaaaaaaaaaaaaaaaaaaaaaaaa not found');
    r = await call(t.base, 'DELETE', '/index', {
      body: JSON.stringify({ rule_ids: ['nope'] }),
      headers: { 'Content-Type': 'application/json', ...json },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('invalid ID: nope');
    expect(await zson('from :index_rules | count()')).toEqual(['2(uint64)']);
    r = await call(t.base, 'DELETE', '/index', {
      body: JSON.stringify({ rule_ids: [ids[0]] }),
      headers: { 'Content-Type': 'application/json', Accept: 'application/x-zson' },
    });
    expect(r.status).toBe(200);
    expect(r.text).toMatch(
      /^\{rules:\[\{ts:[^,]+,id:0x[0-9a-f]{40}\(=ksuid\.KSUID\),name:"IPs",type:"ip"\}\(=index\.TypeRule\)\]\}\(=api\.IndexRulesDeleteResponse\)\n$/,
    );
    expect(await zson('from :index_rules | yield name')).toEqual(['"f"']);
  });
});

describe('indexing objects', () => {
  test('Index Objects with rule_name and tags (the API contract)', async () => {
    await createPool(t.base, 'p', { keys: [['k']] });
    const c1 = await load(t.base, 'p', '{k:1,v:"a"}');
    const c2 = await load(t.base, 'p', '{k:2,v:"b"}');
    await addRules([{ name: 'values', fields: [['v']] }]);
    // The objects in key order: k:1's first.
    const [first] = (await zson('from p@main:objects | yield id')).map((l) =>
      l.replace(/\(.*$/, ''),
    );
    const r = await postJSON(t.base, '/pool/p/branch/main/index', {
      rule_name: 'values',
      tags: [first],
    });
    expect(r.status).toBe(200);
    const body = r.json() as { commit: string; warnings: null };
    expect(body.warnings).toBeNull();
    expect(await tip('p')).toBe(body.commit);
    expect(await zson('from p@main:indexes | count()')).toEqual(['1(uint64)']);
    // A commit ID stands for the objects it added (the reference's tags):
    // c1 added the object indexed already, so there is nothing to do.
    let again = await postJSON(t.base, '/pool/p/branch/main/index', {
      rules: ['values'],
      tags: [c1],
    });
    expect([again.status, errorOf(again).error]).toEqual([400, 'empty transaction']);
    again = await postJSON(t.base, '/pool/p/branch/main/index', { rules: ['values'], tags: [c2] });
    expect(again.status).toBe(200);
    expect(await zson('from p@main:indexes | count()')).toEqual(['2(uint64)']);
  });

  test('the reference client (rules by ID, curl with no content type)', async () => {
    await createPool(t.base, 'test');
    await addRules([{ name: 'values', fields: [['value']] }]);
    const [ruleid] = await zson('from :index_rules | yield under(id)');
    const commit = await load(t.base, 'test', '{ts:0,value:"v1"}');
    const r = await call(t.base, 'POST', '/pool/test/branch/main/index', {
      body: `{"rules":["${ruleid}"],"tags": ["${commit}"]}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    expect(await zson('from test@main:indexes | count()')).toEqual(['1(uint64)']);
  });

  test('Update Index: named rules (rule_names, rules) or all, each object once', async () => {
    await createPool(t.base, 'p', { keys: [['k']] });
    for (let i = 1; i <= 3; i++) await load(t.base, 'p', `{k:${i},foo:${i},bar:${i}}`);
    await addRules([
      { name: 'foo', fields: [['foo']] },
      { name: 'bar', fields: [['bar']] },
    ]);
    let r = await postJSON(t.base, '/pool/p/branch/main/index/update', { rule_names: ['foo'] });
    expect(r.status).toBe(200);
    expect(await zson('from p@main:indexes | count() by name:=rule.name')).toEqual([
      '{name:"foo",count:3(uint64)}',
    ]);
    r = await postJSON(t.base, '/pool/p/branch/main/index/update', {});
    expect(r.status).toBe(200);
    expect(await zson('from p@main:indexes | count() by name:=rule.name | sort name')).toEqual([
      '{name:"bar",count:3(uint64)}',
      '{name:"foo",count:3(uint64)}',
    ]);
    const before = await tip('p');
    r = await postJSON(t.base, '/pool/p/branch/main/index/update', { rules: ['bar'] });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toMatchObject({ kind: 'invalid operation', error: 'empty transaction' });
    expect(await tip('p')).toBe(before);
    const log = await zson('from p@main:log | head 2 | tail 1 | yield [author, message]');
    expect(log).toEqual(['["indexer","index rules applied: bar,foo"]']);
  });

  test('bad input: the errors, nothing committed', async () => {
    await createPool(t.base, 'p', { keys: [['k']] });
    const c = await load(t.base, 'p', '{k:1,v:"a"}');
    await addRules([{ name: 'values', fields: [['v']] }]);
    const cases: [string, unknown, number, string][] = [
      ['index', { rule_name: 'nope', tags: [c] }, 404, 'rule "nope" not found'],
      [
        'index',
        { rules: ['values'], tags: ['27aaaaaaaaaaaaaaaaaaaaaaaaa'] },
        404,
        '27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found',
      ],
      ['index', { rules: ['values'], tags: ['bad'] }, 400, 'invalid ID: bad'],
      ['index', { rules: ['values'] }, 400, 'no data objects given to index (tags)'],
      ['index', { tags: [c] }, 400, 'no index rules given (rules or rule_name)'],
      ['index/update', { rule_names: ['nope'] }, 404, 'rule "nope" not found'],
    ];
    for (const [path, body, status, error] of cases) {
      const r = await postJSON(t.base, `/pool/p/branch/main/${path}`, body);
      expect([path, r.status, errorOf(r).error]).toEqual([path, status, error]);
    }
    let r = await postJSON(t.base, '/pool/p/branch/nope/index/update', {});
    expect(r.status).toBe(404);
    r = await postJSON(t.base, '/pool/nope/branch/main/index', { rules: ['values'], tags: [c] });
    expect(r.status).toBe(404);
    expect(await tip('p')).toBe(c);
    expect(await zson('from p@main:indexes')).toEqual([]);
  });
});

describe('queries', () => {
  test('an indexed needle reads one object: QueryStats show it', async () => {
    // On the row path: with columns a needle's rows are found before
    // reading them anyway, index or not.
    await t.close();
    t = await startService({}, { vectorScan: 'off' });
    await createPool(t.base, 'p', { keys: [['k']] });
    for (let o = 0; o < 5; o++) {
      let text = '';
      for (let i = 0; i < 40; i++) text += `{k:${o * 40 + i},id:"id-${o * 40 + i}"}`;
      await load(t.base, 'p', text);
    }
    const q = 'from p | id=="id-77"';
    const full = await stats(q);
    expect(full.records_read).toBe(200);
    await addRules([{ name: 'id', fields: [['id']] }]);
    expect((await postJSON(t.base, '/pool/p/branch/main/index/update', {})).status).toBe(200);
    expect(await zson(q)).toEqual(['{k:77,id:"id-77"}']);
    const indexed = await stats(q);
    expect(indexed.records_read).toBe(40);
    expect(indexed.bytes_read).toBeLessThan(full.bytes_read / 4);
    expect((await stats('from p | id=="none"')).records_read).toBe(0);
    // The metrics count what the indexes skipped and what they cost.
    const m = (await call(t.base, 'GET', '/metrics')).text;
    const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(m)?.[1]);
    expect(metric('zlake_scan_objects_pruned_total')).toBeGreaterThanOrEqual(4 + 5);
    expect(metric('zlake_index_bytes_read_total')).toBeGreaterThan(0);
    expect(metric('zlake_scan_bytes_read_total')).toBeGreaterThan(0);
  });
});
