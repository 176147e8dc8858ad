import * as http from 'node:http';
import { gzipSync } from 'node:zlib';
import { BufferSink, ValueWriter } from '../../src/formats/io';
import { formatByName } from '../../src/formats/registry';
import { formatValue, parseValues } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed/context';
import { call, contents, createPool, errorOf, load, startService, TestService } from './helpers';

let t: TestService;
beforeAll(async () => {
  t = await startService();
});
afterAll(async () => {
  await t.close();
});

/** ZSON text re-encoded in another format by zlake's writers. */
async function encode(format: string, zson: string): Promise<Buffer> {
  const sink = new BufferSink();
  const w: ValueWriter = formatByName(format)!.newWriter!(sink, {});
  await w.write(parseValues(new TypeContext(), zson));
  await w.close();
  return sink.bytes();
}

function post(
  pool: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
  query = '',
) {
  return call(t.base, 'POST', `/pool/${pool}/branch/main${query}`, { body, headers });
}

describe('load formats', () => {
  const cases: [string, string, () => Promise<string | Buffer>, string[]][] = [
    ['zson', 'application/x-zson', async () => '{x:1}\n{x:2}', ['{x:1}', '{x:2}']],
    ['json', 'application/json', async () => '{"x":1} {"x":2}\n', ['{x:1}', '{x:2}']],
    ['ndjson', 'application/x-ndjson', async () => '', []],
    ['csv', 'text/csv', async () => 'a,b\n1,2\n', ['{a:1.,b:2.}']],
    [
      'zeek',
      'application/x-zeek',
      async () =>
        '#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tx\n#types\tint\n1\n',
      ['{x:1}'],
    ],
    [
      'line',
      'application/x-line',
      async () => 'hello world\ngoodbye everyone\n',
      ['"hello world"', '"goodbye everyone"'],
    ],
    ['zjson', 'application/x-zjson', () => encode('zjson', '{x:1}'), ['{x:1}']],
    ['zng', 'application/x-zng', () => encode('zng', '{x:1,s:"a"}'), ['{x:1,s:"a"}']],
    ['arrows', 'application/vnd.apache.arrow.stream', () => encode('arrows', '{x:1}'), ['{x:1}']],
    ['parquet', 'application/x-parquet', () => encode('parquet', '{x:1}'), ['{x:1}']],
    ['vng', 'application/x-vng', () => encode('vng', '{x:1}'), ['{x:1}']],
  ];
  for (const [name, mime, body, want] of cases) {
    if (want.length === 0) continue;
    test(`${name} (${mime})`, async () => {
      const pool = `load-${name}`;
      await createPool(t.base, pool, { keys: [['nokey']] });
      const r = await post(pool, await body(), {
        'Content-Type': mime,
        Accept: 'application/json',
      });
      expect([r.status, r.text]).toEqual([200, expect.any(String)]);
      expect(r.json()).toEqual({ commit: expect.stringMatching(/^0x[0-9a-f]{40}$/), warnings: [] });
      expect(await contents(t.lake, pool)).toEqual(want);
    });
  }

  test('the default answer is the reference ZSON', async () => {
    await createPool(t.base, 'load-answer');
    const r = await post('load-answer', '{ts:1}', { 'Content-Type': 'application/x-zson' });
    expect(r.text).toMatch(
      /^\{commit:0x[0-9a-f]{40}\(=ksuid\.KSUID\),warnings:\[\]\(\[string\]\)\}\(=api\.CommitResponse\)\n$/,
    );
  });

  test('csv.delim picks the CSV separator; it must be one character', async () => {
    await createPool(t.base, 'csvdelim', { keys: [['a']] });
    let r = await post('csvdelim', 'a.b\n3.4\n', { 'Content-Type': 'text/csv' }, '?csv.delim=.');
    expect(r.status).toBe(200);
    expect(await contents(t.lake, 'csvdelim')).toEqual(['{a:3.,b:4.}']);
    r = await post('csvdelim', 'a;b\n1;2\n', { 'Content-Type': 'text/csv' }, '?csv.delim=%3B%3B');
    expect(r.status).toBe(400);
    expect(errorOf(r)).toEqual({
      type: 'Error',
      kind: 'invalid operation',
      error: 'invalid query param "csv.delim": must be exactly one character',
    });
  });
});

describe('format detection and compression', () => {
  test('no Content-Type: the format is detected', async () => {
    await createPool(t.base, 'detect', { keys: [['k']] });
    for (const body of [
      '{"k":1,"s":"json"}\n',
      '{k:2,s:"zson"}',
      await encode('zng', '{k:3,s:"zng"}'),
      'k,s\n4,csv\n',
    ]) {
      const r = await post('detect', body, {});
      expect(r.status).toBe(200);
    }
    expect(await contents(t.lake, 'detect')).toEqual([
      '{k:1,s:"json"}',
      '{k:2,s:"zson"}',
      '{k:3,s:"zng"}',
      '{k:4.,s:"csv"}',
    ]);
  });

  test('gzip bodies are detected by their magic bytes, with or without Content-Type', async () => {
    await createPool(t.base, 'gz', { keys: [['x']] });
    let r = await post('gz', gzipSync('{x:1}\n'), {});
    expect(r.status).toBe(200);
    r = await post('gz', gzipSync('{"x":2}\n'), { 'Content-Type': 'application/json' });
    expect(r.status).toBe(200);
    // The reference's own test body: gzip of "{x:1}\n".
    r = await post('gz', Buffer.from('H4sIAMaiGmEAA6uusDKs5QIAaI7+2QYAAAA=', 'base64'), {});
    expect(r.status).toBe(200);
    r = await post('gz', gzipSync('{x:4}'), {
      'Content-Encoding': 'gzip',
      'Content-Type': 'application/x-zson',
    });
    expect(r.status).toBe(200);
    expect(await contents(t.lake, 'gz')).toEqual(['{x:1}', '{x:1}', '{x:2}', '{x:4}']);
  });

  test('undetectable input and unsupported types are invalid (400)', async () => {
    await createPool(t.base, 'undetectable');
    let r = await post('undetectable', 'This is not a detectable format.\n', {});
    expect(r.status).toBe(400);
    const e = errorOf(r);
    expect(e.kind).toBe('invalid operation');
    expect(e.error).toMatch(
      /^format detection error\n\tarrows: .*\n\tcsv: .*\n\tjson: invalid character 'T' looking for beginning of value\n\tline: auto-detection not supported\n\tparquet: auto-detection requires seekable input\n/,
    );
    r = await post('undetectable', '', { 'Content-Type': 'unsupported' });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('unsupported MIME type: unsupported');
    r = await post('undetectable', 'x', { 'Content-Type': 'application/x-ndjson' });
    expect(r.status).toBe(400);
    expect(await contents(t.lake, 'undetectable')).toEqual([]);
  });

  test('a corrupt gzip body is invalid and commits nothing', async () => {
    await createPool(t.base, 'badgz');
    const gz = gzipSync('{x:1}\n'.repeat(1000));
    const r = await post('badgz', Buffer.concat([gz.subarray(0, 40), Buffer.alloc(40, 7)]), {
      'Content-Type': 'application/x-zson',
    });
    expect(r.status).toBe(400);
    expect((await t.lake.lookupBranch('badgz', 'main')).commit.isNil).toBe(true);
  });
});

describe('load errors', () => {
  test('an empty load: 400 "no records in request"', async () => {
    await createPool(t.base, 'empty');
    for (const headers of [
      {} as Record<string, string>,
      { 'Content-Type': 'application/json' },
      { 'Content-Type': 'application/x-zson' },
    ]) {
      const r = await post('empty', '', headers);
      expect(r.status).toBe(400);
      expect(errorOf(r).error).toBe('no records in request');
    }
  });

  test('well-formed input with no values commits nothing and says so', async () => {
    await createPool(t.base, 'headeronly');
    const zeek =
      '#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tx\n#types\tint\n';
    const r = await post('headeronly', zeek, {
      'Content-Type': 'application/x-zeek',
      Accept: 'application/json',
    });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({
      commit: '0x0000000000000000000000000000000000000000',
      warnings: ['no records in request'],
    });
    expect((await t.lake.log('headeronly', 'main')).length).toBe(0);
  });

  test('malformed input after good values: the good ones load, the error is a warning', async () => {
    await createPool(t.base, 'warn', { keys: [['a']] });
    const r = await post('warn', '{a:1}\n{a:2}\n{a:', {
      'Content-Type': 'application/x-zson',
      Accept: 'application/json',
    });
    expect(r.status).toBe(200);
    const j = r.json() as { warnings: string[] };
    expect(j.warnings).toHaveLength(1);
    expect(await contents(t.lake, 'warn')).toEqual(['{a:1}', '{a:2}']);
  });

  test('malformed input with nothing before it: 400, with the reason in info', async () => {
    await createPool(t.base, 'badjson');
    const r = await post('badjson', '{"a": nope}', { 'Content-Type': 'application/json' });
    expect(r.status).toBe(400);
    const e = errorOf(r);
    expect(e.error).toBe('no records in request');
    expect((e.info as { warnings: string[] }).warnings).toEqual([expect.any(String)]);
  });

  test('an unknown branch is 404 and reads nothing', async () => {
    await createPool(t.base, 'nobranch');
    const r2 = await call(t.base, 'POST', '/pool/nobranch/branch/nope', { body: '{a:1}' });
    expect(r2.status).toBe(404);
    expect(errorOf(r2).error).toBe('"nope": branch not found');
  });

  test('a client that goes away mid-load commits nothing', async () => {
    await createPool(t.base, 'aborted');
    const before = (await t.lake.lookupBranch('aborted', 'main')).commit;
    await new Promise<void>((resolve) => {
      const req = http.request(`${t.base}/pool/aborted/branch/main`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-ndjson', 'Transfer-Encoding': 'chunked' },
      });
      req.on('error', () => resolve());
      req.write('{"a":1}\n'.repeat(10000));
      setTimeout(() => {
        req.destroy();
        setTimeout(resolve, 300);
      }, 100);
    });
    const after = (await t.lake.lookupBranch('aborted', 'main')).commit;
    expect(after.equals(before)).toBe(true);
  });
});

describe('Zed-Commit header', () => {
  test('author, body and meta go into the commit', async () => {
    await createPool(t.base, 'commitmsg');
    await load(t.base, 'commitmsg', '{x:1}', {
      headers: {
        'Zed-Commit': JSON.stringify({ author: 'testuser', body: 'my message', meta: '{n:1}' }),
      },
    });
    const [c] = await t.lake.log('commitmsg', 'main');
    expect(c.author).toBe('testuser');
    expect(c.message).toBe('my message');
    expect(formatValue(c.meta)).toBe('{n:1}');
  });

  test('without it the commit says what it loaded', async () => {
    await createPool(t.base, 'nomsg');
    await load(t.base, 'nomsg', '{x:1}');
    const [c] = await t.lake.log('nomsg', 'main');
    expect(c.message).toMatch(/^loaded 1 data object\n\n {2}\w{27} 1 record in \d+ data bytes\n$/);
  });

  test('bad JSON or metadata is invalid (400)', async () => {
    await createPool(t.base, 'badmsg');
    let r = await post('badmsg', '{x:1}', { 'Zed-Commit': '{author' });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toMatch(
      /^load endpoint encountered invalid JSON in Zed-Commit header: /,
    );
    r = await post('badmsg', '{x:1}', { 'Zed-Commit': '{"author":3}' });
    expect(r.status).toBe(400);
    r = await post('badmsg', '{x:1}', { 'Zed-Commit': '{"meta":"{unterminated"}' });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('invalid commit metadata in request');
    expect((await t.lake.lookupBranch('badmsg', 'main')).commit.isNil).toBe(true);
  });
});
