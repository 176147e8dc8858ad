// Query output: held back until the status is certain, streamed with
// back-pressure after that, cancelled when the client goes away.

import * as http from 'node:http';
import { call, createPool, load, sleep, startService, TestService } from './helpers';

const RECURSE = 'func f(n): ( n > 0 ? f(n+1) : n ) from deep | yield f(n)';

async function deepPool(t: TestService): Promise<void> {
  await createPool(t.base, 'deep', { keys: [['nokey']] });
  await load(t.base, 'deep', '{n:-1}\n'.repeat(40000) + '{n:1}\n');
}

describe('errors after the head of the output', () => {
  let t: TestService;
  beforeAll(async () => {
    // Commit after 64 bytes, so the error comes after the status went out.
    t = await startService({ queryOutput: { limit: 64, delayMs: 0 } });
    await deepPool(t);
  });
  afterAll(async () => {
    await t.close();
  });

  test('with ctrl=T the error is a QueryError message', async () => {
    const r = await call(t.base, 'POST', '/query?ctrl=T', {
      body: JSON.stringify({ query: RECURSE }),
      headers: { Accept: 'application/x-zjson' },
    });
    expect(r.status).toBe(200);
    const lines = r.text.trim().split('\n');
    expect(lines.filter((l) => l.includes('"value":"-1"')).length).toBeGreaterThan(0);
    expect(lines[lines.length - 1]).toBe(
      '{"type":"QueryError","value":{"error":"stack overflow"}}',
    );
  });

  test('without ctrl the response is cut short, and /query/status says why', async () => {
    await expect(
      call(t.base, 'POST', '/query', {
        body: JSON.stringify({ query: RECURSE }),
        headers: { Accept: 'application/x-ndjson', 'X-Request-Id': 'cut' },
      }),
    ).rejects.toThrow();
    const r = await call(t.base, 'GET', '/query/status/cut', {
      headers: { Accept: 'application/json' },
    });
    expect(r.json()).toEqual({ error: 'stack overflow' });
  });
});

describe('the default hold', () => {
  test('an error within the first MiB is a 400', async () => {
    const t = await startService();
    try {
      await deepPool(t);
      const r = await call(t.base, 'POST', '/query', { body: JSON.stringify({ query: RECURSE }) });
      expect(r.status).toBe(400);
      expect(r.json()).toEqual({
        type: 'Error',
        kind: 'invalid operation',
        error: 'stack overflow',
      });
    } finally {
      await t.close();
    }
  });
});

describe('streaming', () => {
  let t: TestService;
  const N = 300000;
  beforeAll(async () => {
    t = await startService();
    await createPool(t.base, 'big', { keys: [['k']] });
    const body = Array.from({ length: N }, (_, k) => `{"k":${k},"s":"value number ${k}"}`).join(
      '\n',
    );
    await load(t.base, 'big', body, { contentType: 'application/json' });
  });
  afterAll(async () => {
    await t.close();
  });

  function open(id: string): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${t.base}/query`, {
        method: 'POST',
        headers: { Accept: 'application/x-ndjson', 'X-Request-Id': id },
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end(JSON.stringify({ query: 'from big' }));
    });
  }

  async function status(id: string, ms: number): Promise<string | 'running'> {
    try {
      const r = await fetch(`${t.base}/query/status/${id}`, {
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(ms),
      });
      return ((await r.json()) as { error: string }).error;
    } catch {
      return 'running';
    }
  }

  test('a client that stops reading pauses the query; reading again finishes it', async () => {
    const res = await open('paused');
    res.pause();
    await sleep(300);
    // The result (~13 MB) does not fit in the socket buffers: the query waits.
    expect(await status('paused', 500)).toBe('running');
    let lines = 0;
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      for (let i = c.indexOf('\n'); i >= 0; i = c.indexOf('\n', i + 1)) lines++;
    });
    res.resume();
    await new Promise((resolve) => res.on('end', resolve));
    expect(lines).toBe(N);
    expect(await status('paused', 2000)).toBe('');
  });

  test('a client that goes away cancels the query', async () => {
    const res = await open('gone');
    await new Promise((resolve) => res.once('data', resolve));
    res.destroy();
    expect(await status('gone', 5000)).toBe('client disconnected');
    const m = await call(t.base, 'GET', '/metrics');
    expect(m.text).toMatch(/zlake_queries_total\{outcome="cancelled"\} [1-9]/);
  });
});
