import { readValues } from './zng';
import { call, createPool, errorOf, load, postJSON, startService, TestService } from './helpers';
import { formatValue } from '../../src/formats/zson';

let t: TestService;
beforeAll(async () => {
  t = await startService();
});
afterAll(async () => {
  await t.close();
});

const hex40 = /^0x[0-9a-f]{40}$/;

describe('POST /pool', () => {
  test('creates a pool and its main branch, in the reference shape (JSON)', async () => {
    const r = await postJSON(t.base, '/pool', {
      name: 'create-json',
      layout: { order: 'desc', keys: [['ts']] },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text.endsWith('}\n')).toBe(true);
    const j = r.json() as {
      pool: Record<string, unknown>;
      branch: Record<string, unknown>;
    };
    expect(Object.keys(j)).toEqual(['pool', 'branch']);
    expect(Object.keys(j.pool)).toEqual(['ts', 'name', 'id', 'layout', 'seek_stride', 'threshold']);
    expect(j.pool.name).toBe('create-json');
    expect(j.pool.id).toMatch(hex40);
    expect(j.pool.ts).toMatch(/^\d{4}-\d\d-\d\dT[0-9:.]+Z$/);
    expect(j.pool.layout).toEqual({ order: 'desc', keys: [['ts']] });
    expect(j.pool.seek_stride).toBe(65536);
    expect(j.pool.threshold).toBe(524288000);
    expect(j.branch).toEqual({
      ts: expect.any(String),
      name: 'main',
      commit: '0x0000000000000000000000000000000000000000',
    });
  });

  test('answers in ZSON by default, with the reference type names', async () => {
    const r = await call(t.base, 'POST', '/pool', { body: '{name:"create-zson"}' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/x-zson');
    expect(r.text).toMatch(
      /^\{pool:\{ts:[^,]+,name:"create-zson",id:0x[0-9a-f]{40}\(=ksuid\.KSUID\),layout:\{order:"asc"\(=order\.Which\),keys:\[\["ts"\]\(=field\.Path\)\]\(=field\.List\)\}\(=order\.SortKey\),seek_stride:65536,threshold:524288000\}\(=pools\.Config\),branch:\{ts:[^,]+,name:"main",commit:0x0{40}\(ksuid\.KSUID\)\}\(=branches\.Config\)\}\(=lake\.BranchMeta\)\n$/,
    );
  });

  test('answers in ZNG when asked', async () => {
    const r = await call(t.base, 'POST', '/pool', {
      body: '{name:"create-zng"}',
      headers: { Accept: 'application/x-zng' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/x-zng');
    const vals = await readValues('zng', r.body);
    expect(vals).toHaveLength(1);
    expect(formatValue(vals[0])).toContain('name:"create-zng"');
  });

  test('seek_stride and thresh are honoured', async () => {
    const r = await postJSON(t.base, '/pool', { name: 'sized', seek_stride: 2048, thresh: 4096 });
    const j = r.json() as { pool: { seek_stride: number; threshold: number } };
    expect([j.pool.seek_stride, j.pool.threshold]).toEqual([2048, 4096]);
  });

  test('a duplicate name is a conflict (409)', async () => {
    await createPool(t.base, 'dup');
    const r = await postJSON(t.base, '/pool', { name: 'dup' });
    expect(r.status).toBe(409);
    expect(errorOf(r)).toEqual({
      type: 'Error',
      kind: 'conflict with pending operation',
      error: 'dup: pool already exists',
    });
  });

  test('bad JSON, wrong field types, HEAD and a bad order are invalid (400)', async () => {
    for (const [body, text] of [
      ['{"name": ', /./],
      ['{"name": 1}', /name/],
      ['{"name": "HEAD"}', /pool cannot be named "HEAD"/],
      ['{"name": "o", "layout": {"order": "sideways"}}', /unknown order: sideways/],
      ['{"name": "k", "layout": {"keys": "ts"}}', /keys/],
      ['[1,2]', /record/],
    ] as const) {
      const r = await call(t.base, 'POST', '/pool', {
        body,
        headers: { 'Content-Type': 'application/json' },
      });
      expect([body, r.status]).toEqual([body, 400]);
      const e = errorOf(r);
      expect(e.kind).toBe('invalid operation');
      expect(e.error).toMatch(text);
    }
  });

  test('an unsupported Content-Type or Accept is invalid (400)', async () => {
    let r = await call(t.base, 'POST', '/pool', {
      body: '{"name":"x"}',
      headers: { 'Content-Type': 'unsupported' },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('unsupported MIME type: unsupported');
    r = await call(t.base, 'POST', '/pool', {
      body: '{"name":"x"}',
      headers: { Accept: 'application/xml, text/css' },
    });
    expect(r.status).toBe(400);
    expect(r.text).toBe(
      '{"type":"Error","kind":"invalid operation","error":"could not find supported MIME type in Accept header"}\n',
    );
  });

  test('the first usable type in Accept wins', async () => {
    const r = await call(t.base, 'POST', '/pool', {
      body: '{name:"accept-list"}',
      headers: { Accept: 'text/plain, application/json' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
  });

  test('gzip Content-Encoding on a request body', async () => {
    const { gzipSync } = await import('node:zlib');
    const r = await call(t.base, 'POST', '/pool', {
      body: gzipSync('{"name":"gzipped"}'),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(r.status).toBe(200);
    expect(r.text).toContain('name:"gzipped"');
    const bad = await call(t.base, 'POST', '/pool', {
      body: '{"name":"z"}',
      headers: { 'Content-Encoding': 'compress' },
    });
    expect(bad.status).toBe(415);
    expect(errorOf(bad).error).toBe('unsupported Content-Encoding: compress');
  });
});

describe('pools by name or ID', () => {
  test('GET, rename (PUT) and delete', async () => {
    const id = await createPool(t.base, 'renameme');
    let r = await call(t.base, 'GET', `/pool/${id}`, { headers: { Accept: 'application/json' } });
    expect((r.json() as { name: string }).name).toBe('renameme');
    r = await call(t.base, 'PUT', '/pool/renameme', { body: '{"name":"renamed"}' });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    r = await call(t.base, 'GET', '/pool/renamed', { headers: { Accept: 'application/json' } });
    expect((r.json() as { id: string }).id).toBe(id);
    await createPool(t.base, 'taken');
    r = await call(t.base, 'PUT', `/pool/${id}`, { body: '{"name":"taken"}' });
    expect(r.status).toBe(409);
    expect(errorOf(r).error).toBe('taken: pool already exists');
    r = await call(t.base, 'DELETE', '/pool/renamed');
    expect(r.status).toBe(204);
    r = await call(t.base, 'DELETE', '/pool/renamed');
    expect(r.status).toBe(404);
    expect(errorOf(r)).toEqual({
      type: 'Error',
      kind: 'item does not exist',
      error: 'renamed: pool not found',
    });
    r = await call(t.base, 'PUT', `/pool/${id}`, { body: '{"name":"again"}' });
    expect(r.status).toBe(404);
  });

  test('an unknown pool is 404 on every pool route', async () => {
    for (const [method, p] of [
      ['GET', '/pool/nope/branch/main'],
      ['POST', '/pool/nope/branch/main'],
      ['DELETE', '/pool/nope/branch/main'],
      ['POST', '/pool/nope/branch/main/delete'],
      ['POST', '/pool/nope/branch/main/merge/x'],
      ['POST', '/pool/nope/branch/main/revert/0x0000000000000000000000000000000000000000'],
      ['POST', '/pool/nope/revision/main/vacuum'],
      ['GET', '/pool/nope/stats'],
      ['POST', '/pool/nope'],
    ]) {
      const r = await call(t.base, method, p, { body: method === 'POST' ? '{x:1}' : undefined });
      expect([method, p, r.status]).toEqual([method, p, 404]);
      expect(errorOf(r).error).toBe('nope: pool not found');
    }
  });
});

describe('branches', () => {
  test('create (POST /pool/{pool}), get, delete', async () => {
    await createPool(t.base, 'br');
    const c1 = await load(t.base, 'br', '{a:1}');
    let r = await call(t.base, 'POST', '/pool/br', {
      body: JSON.stringify({ name: 'dev', commit: c1 }),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ ts: expect.any(String), name: 'dev', commit: c1 });
    r = await call(t.base, 'POST', '/pool/br', { body: `{name:"zsonbranch",commit:"${c1}"}` });
    expect(r.text).toMatch(
      /^\{ts:.*,name:"zsonbranch",commit:0x[0-9a-f]{40}\(=ksuid\.KSUID\)\}\(=branches\.Config\)\n$/,
    );
    r = await call(t.base, 'GET', '/pool/br/branch/dev', {
      headers: { Accept: 'application/json' },
    });
    expect(r.json()).toEqual({ commit: c1, warnings: null });
    r = await call(t.base, 'GET', '/pool/br/branch/dev');
    expect(r.text).toBe(
      `{commit:${c1}(=ksuid.KSUID),warnings:null([string])}(=api.CommitResponse)\n`,
    );
    r = await call(t.base, 'POST', '/pool/br', {
      body: JSON.stringify({ name: 'dev', commit: c1 }),
    });
    expect(r.status).toBe(409);
    r = await call(t.base, 'POST', '/pool/br', { body: '{name:"x",commit:"junk"}' });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('invalid commit object: junk');
    r = await call(t.base, 'POST', '/pool/br', {
      body: '{name:"x",commit:"0x0123456789012345678901234567890123456789"}',
    });
    expect(r.status).toBe(404);
    r = await call(t.base, 'DELETE', '/pool/br/branch/dev');
    expect(r.status).toBe(204);
    r = await call(t.base, 'GET', '/pool/br/branch/dev');
    expect(r.status).toBe(404);
    expect(errorOf(r).error).toBe('"dev": branch not found');
    r = await call(t.base, 'DELETE', '/pool/br/branch/dev');
    expect(r.status).toBe(404);
  });
});

describe('GET /pool/{pool}/stats', () => {
  test('no content before the first commit; size and time span after', async () => {
    await createPool(t.base, 'stats');
    let r = await call(t.base, 'GET', '/pool/stats/stats');
    expect(r.status).toBe(204);
    await load(
      t.base,
      'stats',
      '{ts:2020-04-21T22:40:30.06852324Z,x:1}\n{ts:2020-04-21T22:40:31Z,x:2}\n',
    );
    r = await call(t.base, 'GET', '/pool/stats/stats');
    expect(r.status).toBe(200);
    expect(r.text).toMatch(
      /^\{size:\d+,span:\{ts:2020-04-21T22:40:30\.06852324Z,dur:931476761\(=nano\.Duration\)\}\(=nano\.Span\)\}\(=exec\.PoolStats\)\n$/,
    );
    await createPool(t.base, 'stats-x', { keys: [['x']] });
    await load(t.base, 'stats-x', '{x:1}');
    r = await call(t.base, 'GET', '/pool/stats-x/stats', {
      headers: { Accept: 'application/json' },
    });
    expect(r.json()).toEqual({ size: expect.any(Number), span: null });
  });
});

describe('service routes', () => {
  test('/status, /version, /auth/method, /auth/identity, /', async () => {
    let r = await call(t.base, 'GET', '/status');
    expect([r.status, r.text]).toEqual([200, 'ok']);
    r = await call(t.base, 'GET', '/version');
    expect(r.json()).toEqual({ version: expect.stringMatching(/^v\d+\.\d+\.\d+/) });
    r = await call(t.base, 'GET', '/auth/method', { headers: { Accept: 'application/json' } });
    expect(r.json()).toEqual({ kind: '', auth0: null });
    r = await call(t.base, 'GET', '/auth/method');
    expect(r.text).toMatch(/^\{kind:""\(=api\.AuthMethod\),auth0:null\(/);
    r = await call(t.base, 'GET', '/auth/identity', { headers: { Accept: 'application/json' } });
    // Without authentication, the reference's anonymous identity.
    expect(r.json()).toEqual({
      tenant_id: 'tenant_000000000000000000000000001',
      user_id: 'user_000000000000000000000000001',
    });
    r = await call(t.base, 'GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
  });

  test('trailing and doubled slashes are ignored', async () => {
    let r = await call(t.base, 'POST', '/pool/', { body: '{name:"slash"}' });
    expect(r.status).toBe(200);
    r = await call(t.base, 'GET', '//pool/slash/branch/main/', {
      headers: { Accept: 'application/json' },
    });
    expect(r.status).toBe(200);
  });

  test('request IDs are echoed or made', async () => {
    let r = await call(t.base, 'GET', '/auth/method', { headers: { 'X-Request-Id': 'abc123' } });
    expect(r.headers.get('x-request-id')).toBe('abc123');
    r = await call(t.base, 'GET', '/auth/method');
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9A-Za-z]{27}$/);
  });

  test('unknown routes are 404, wrong methods 405', async () => {
    let r = await call(t.base, 'GET', '/nothing/here');
    expect(r.status).toBe(404);
    errorOf(r);
    r = await call(t.base, 'PATCH', '/pool');
    expect(r.status).toBe(405);
    r = await call(t.base, 'GET', '/index');
    expect(r.status).toBe(405);
    r = await call(t.base, 'POST', '/index', { body: '{}' });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('no index rules given');
  });

  test('/metrics speaks Prometheus', async () => {
    const r = await call(t.base, 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^# HELP zlake_http_requests_total/m);
    expect(r.text).toMatch(
      /zlake_http_requests_total\{method="POST",route="\/pool",status="200"\} \d+/,
    );
    expect(r.text).toMatch(/zlake_http_request_duration_seconds_bucket/);
  });
});

describe('access log', () => {
  test('one JSON line per request with method, path, status, duration and request ID', async () => {
    const { Logger } = await import('../../src/service/log');
    const lines: string[] = [];
    const s = await startService({ logger: new Logger({ write: (l) => lines.push(l) }, 'info') });
    try {
      await call(s.base, 'POST', '/pool', {
        body: '{name:"logged"}',
        headers: { 'X-Request-Id': 'r1' },
      });
      await call(s.base, 'GET', '/pool/nope/branch/main', { headers: { 'X-Request-Id': 'r2' } });
      const access = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.logger === 'http.access');
      expect(access).toHaveLength(2);
      expect(access[0]).toMatchObject({
        level: 'info',
        msg: 'Request completed',
        request_id: 'r1',
        method: 'POST',
        path: '/pool',
        status: 200,
        completed: true,
      });
      expect(access[0].elapsed).toEqual(expect.any(Number));
      expect(access[0].response_content_length).toBeGreaterThan(100);
      expect(access[1]).toMatchObject({
        request_id: 'r2',
        status: 404,
        route: '/pool/:pool/branch/:branch',
        pool: 'nope',
        branch: 'main',
      });
      expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    } finally {
      await s.close();
    }
  });
});
