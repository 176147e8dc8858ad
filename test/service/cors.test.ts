import * as http from 'node:http';
import { call, startService, TestService } from './helpers';

/** The CORS header lines in the order the server wrote them (fetch sorts them). */
function rawAllowLines(base: string, method: string, headers: Record<string, string>) {
  return new Promise<string[]>((resolve, reject) => {
    const req = http.request(new URL('/query', base), { method, headers }, (res) => {
      res.resume();
      const out: string[] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2)
        if (/^access-control-allow/i.test(res.rawHeaders[i]))
          out.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
      resolve(out);
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{"query":"from :pools"}' : undefined);
  });
}

function allowHeaders(h: Headers): string[] {
  const out: string[] = [];
  h.forEach((v, k) => {
    if (k.startsWith('access-control-allow')) out.push(`${k}: ${v}`);
  });
  return out.sort();
}

describe('CORS with -cors.origin', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startService({ corsOrigins: ['http://a', 'http://*.b'] });
  });
  afterAll(async () => {
    await t.close();
  });

  const preflight = (origin: string) =>
    call(t.base, 'OPTIONS', '/query', {
      headers: {
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type, authorization',
        Origin: origin,
      },
    });

  test('a preflight from an allowed origin', async () => {
    const r = await preflight('http://a');
    expect(r.status).toBe(204);
    expect(allowHeaders(r.headers)).toEqual([
      'access-control-allow-credentials: true',
      'access-control-allow-headers: Content-Type, Authorization',
      'access-control-allow-methods: POST',
      'access-control-allow-origin: http://a',
    ]);
  });

  test('the headers come in the reference’s order, sorted by name (curl-cors.yaml)', async () => {
    expect(
      await rawAllowLines(t.base, 'OPTIONS', {
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type, authorization',
        Origin: 'http://a',
      }),
    ).toEqual([
      'Access-Control-Allow-Credentials: true',
      'Access-Control-Allow-Headers: Content-Type, Authorization',
      'Access-Control-Allow-Methods: POST',
      'Access-Control-Allow-Origin: http://a',
    ]);
    expect(
      await rawAllowLines(t.base, 'POST', {
        Origin: 'http://wildcard.b',
        Accept: 'application/json',
      }),
    ).toEqual([
      'Access-Control-Allow-Credentials: true',
      'Access-Control-Allow-Origin: http://wildcard.b',
    ]);
  });

  test('a preflight from another origin gets no CORS headers', async () => {
    const r = await preflight('http://not-a');
    expect(allowHeaders(r.headers)).toEqual([]);
  });

  test('requests from wildcard-matching origins', async () => {
    let r = await call(t.base, 'GET', '/auth/method', { headers: { Origin: 'http://wildcard.b' } });
    expect(r.status).toBe(200);
    expect(allowHeaders(r.headers)).toEqual([
      'access-control-allow-credentials: true',
      'access-control-allow-origin: http://wildcard.b',
    ]);
    r = await call(t.base, 'GET', '/auth/method', { headers: { Origin: 'http://wildcard.not-b' } });
    expect(allowHeaders(r.headers)).toEqual([]);
  });
});

describe('CORS without -cors.origin', () => {
  test('every origin is allowed, with "*"', async () => {
    const t = await startService();
    try {
      const r = await call(t.base, 'GET', '/auth/method', { headers: { Origin: 'http://x' } });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await t.close();
    }
  });
});
