// Bad input never gets a 500, a crash or a hang: garbage bodies, types and
// encodings on every route, and the service still answers afterwards.

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { call, createPool, load, startService, TestService } from './helpers';

let t: TestService;
beforeAll(async () => {
  t = await startService();
  await createPool(t.base, 'r');
  await load(t.base, 'r', '{ts:1,x:"a"}');
});
afterAll(async () => {
  await t.close();
});

const routes: [string, string][] = [
  ['POST', '/pool'],
  ['PUT', '/pool/r'],
  ['POST', '/pool/r'],
  ['POST', '/pool/r/branch/main'],
  ['POST', '/pool/r/branch/main/delete'],
  ['POST', '/pool/r/branch/main/merge/main'],
  ['POST', '/pool/r/branch/main/revert/zzz'],
  ['POST', '/pool/r/revision/main/vacuum?dryrun=T'],
  ['POST', '/query'],
  ['POST', '/query?ctrl=T'],
];

function bodies(): [string, Buffer | string][] {
  return [
    ['random bytes', randomBytes(2000)],
    ['deep JSON', '['.repeat(100000)],
    ['deep ZSON record', '{a:'.repeat(50000)],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
    ['truncated gzip', gzipSync('{"name":"x"}'.repeat(100)).subarray(0, 30)],
    ['NUL bytes', Buffer.alloc(1000)],
    ['wrong types', '{"name":[1,2],"query":{"a":1},"where":5,"object_ids":"x","head":"y"}'],
    ['huge string', JSON.stringify({ name: 'n'.repeat(1 << 20), query: 'x'.repeat(1 << 20) })],
  ];
}

const contentTypes = [
  undefined,
  'application/json',
  'application/x-zson',
  'application/x-zng',
  'application/x-zjson',
  'text/csv',
  'application/x-parquet',
  'application/x-vng',
  'application/vnd.apache.arrow.stream',
  'application/x-zeek',
  'application/x-line',
  'bogus/type',
  ';;;',
];

test('garbage on every route: always an answer below 500', async () => {
  const bad: string[] = [];
  for (const [method, path] of routes) {
    for (const [name, body] of bodies()) {
      for (const ct of contentTypes) {
        const headers: Record<string, string> = {};
        if (ct) headers['Content-Type'] = ct;
        let r;
        try {
          r = await call(t.base, method, path, { body, headers });
        } catch (e) {
          bad.push(
            `${method} ${path} ${name} ${ct}: ${(e as Error).message} ${(e as { cause?: Error }).cause?.message}`,
          );
          continue;
        }
        if (r.status >= 500)
          bad.push(`${method} ${path} ${name} ${ct}: ${r.status} ${r.text.slice(0, 200)}`);
      }
    }
  }
  expect(bad).toEqual([]);
  expect((await call(t.base, 'GET', '/status')).text).toBe('ok');
}, 300000);

/**
 * Random bytes that are not a compressed stream. (About one random body
 * in 25 is a valid brotli stream, and about one in 13 a valid but
 * truncated one: as the reference does, a load commits what a truncated
 * body holds and warns "unexpected EOF", so neither is garbage.)
 */
function undecodable(decompress: (b: Buffer) => Buffer): Buffer {
  for (;;) {
    const b = randomBytes(500);
    try {
      decompress(b);
    } catch (e) {
      if ((e as { code?: string }).code !== 'Z_BUF_ERROR') return b;
    }
  }
}

test('garbage Content-Encoding bodies are refused cleanly', async () => {
  const decoders = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync };
  for (const [enc, decompress] of Object.entries(decoders)) {
    const r = await call(t.base, 'POST', '/pool/r/branch/main', {
      body: undecodable(decompress),
      headers: { 'Content-Encoding': enc },
    });
    expect([enc, r.status]).toEqual([enc, 400]);
  }
});

test("a truncated compressed body loads what it holds, with the reference's warning", async () => {
  await createPool(t.base, 'trunc');
  let text = '';
  for (let i = 0; i < 5000; i++) text += `{a:${i}}\n`;
  const whole = gzipSync(Buffer.from(text));
  const r = await call(t.base, 'POST', '/pool/trunc/branch/main', {
    body: whole.subarray(0, whole.length >> 1),
    headers: { 'Content-Encoding': 'gzip', Accept: 'application/json' },
  });
  expect(r.status).toBe(200);
  expect(JSON.parse(r.text).warnings).toEqual(['unexpected EOF']);
  const q = await call(t.base, 'POST', '/query', {
    body: '{"query":"from trunc | count()"}',
    headers: { Accept: 'application/x-zson' },
  });
  const n = Number(/^(\d+)/.exec(q.text)![1]);
  expect(n).toBeGreaterThan(0);
  expect(n).toBeLessThan(5000);
});

test('odd Accept headers', async () => {
  for (const accept of [
    '',
    '*/*',
    'garbage',
    ',,,',
    'application/json;q=0.1, */*',
    'text/event-stream',
  ]) {
    const r = await call(t.base, 'POST', '/query', {
      body: '{"query":"from r"}',
      headers: accept ? { Accept: accept } : {},
    });
    expect([accept, r.status < 500]).toEqual([accept, true]);
  }
});

test("idle keep-alive connections outlive a proxy's (65 s, not Node's 5 s)", async () => {
  // nginx's upstream keep-alives idle out at 60 s: a server that closes
  // one first races the proxy's next request on it.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const keepAlive = await new Promise<string | undefined>((resolve, reject) => {
      http
        .get(`${t.base}/status`, { agent }, (r) => {
          r.resume();
          r.on('end', () => resolve(r.headers['keep-alive'] as string | undefined));
        })
        .on('error', reject);
    });
    expect(keepAlive).toBe('timeout=65');
  } finally {
    agent.destroy();
  }
});
