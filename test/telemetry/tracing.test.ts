// Traces from a real `zlake serve` process to a real OTLP/HTTP receiver
// (a loopback server in the test that decodes what it is sent): the span
// tree of one load and one query, parented by the client's traceparent.

import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { tracingWanted } from '../../src/telemetry/tracing';
import { call, createPool, postJSON, serveChild, sleep } from '../service/helpers';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP (JSON) trace receiver: every span it is sent. */
function receiver(): Promise<{ url: string; spans: Span[]; close(): void }> {
  const spans: Span[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && /json/.test(req.headers['content-type'] ?? '')) {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
        for (const rs of body.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        spans,
        close: () => server.close(),
      }),
    ),
  );
}

test('tracing is off unless the OTEL_* environment asks for it', () => {
  expect(tracingWanted({})).toBe(false);
  expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' })).toBe(true);
  expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
  expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'x' })).toBe(
    false,
  );
  expect(tracingWanted({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
});

test('a load and a query each make a span tree under the caller’s trace', async () => {
  const rx = await receiver();
  const dir = mkdtempSync(path.join(tmpdir(), 'zlake-trace-'));
  let child: ChildProcess | undefined;
  try {
    const served = await serveChild(
      // No scan cache: the query reads storage, so its reads show.
      ['-lake', path.join(dir, 'lake'), '-cache.size', '0'],
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: rx.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'zlake-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    );
    child = served.child;
    const base = served.base;
    await createPool(base, 'p');

    const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const loadParent = '00f067aa0ba902b7';
    const queryParent = '00f067aa0ba902b8';
    const loaded = await call(base, 'POST', '/pool/p/branch/main', {
      body: '{ts:2024-01-01T00:00:00Z,x:1}',
      headers: {
        'Content-Type': 'application/x-zson',
        traceparent: `00-${trace}-${loadParent}-01`,
      },
    });
    expect(loaded.status).toBe(200);
    const q = await postJSON(
      base,
      '/query',
      { query: 'from p | count() where true' },
      { traceparent: `00-${trace}-${queryParent}-01` },
    );
    expect(q.status).toBe(200);

    const ours = () => rx.spans.filter((s) => s.traceId === trace);
    const children = (id: string) => ours().filter((s) => s.parentSpanId === id);
    const byParent = (p: string) => ours().find((s) => s.parentSpanId === p);
    for (let i = 0; i < 100; i++) {
      const l = byParent(loadParent);
      const qs = byParent(queryParent);
      if (l && qs && children(l.spanId).length > 0 && children(qs.spanId).length >= 2) break;
      await sleep(100);
    }
    // The load: a server span under the caller's, the commit under it, and
    // the commit's register swap and object writes under that.
    const loadSpan = byParent(loadParent)!;
    expect(loadSpan.name).toBe('POST /pool/:pool/branch/:branch');
    const commit = children(loadSpan.spanId).find((s) => s.name === 'lake.commit');
    expect(commit).toBeDefined();
    const underCommit = children(commit!.spanId).map((s) => s.name);
    expect(underCommit).toContain('registers.swap');
    expect(underCommit).toContain('storage.put');
    const swap = children(commit!.spanId).find((s) => s.name === 'registers.swap')!;
    expect(children(swap.spanId).map((s) => s.name)).toEqual(
      expect.arrayContaining(['coord.compareAndSwap', 'storage.putIfAbsent']),
    );
    expect(children(loadSpan.spanId).map((s) => s.name)).toContain('storage.create');
    // The query: compile and run under the server span, storage reads under run.
    const querySpan = byParent(queryParent)!;
    expect(querySpan.name).toBe('POST /query');
    const qc = children(querySpan.spanId).map((s) => s.name);
    expect(qc).toEqual(expect.arrayContaining(['query.compile', 'query.run']));
    const run = children(querySpan.spanId).find((s) => s.name === 'query.run')!;
    expect(children(run.spanId).map((s) => s.name)).toContain('storage.getRange');
  } finally {
    child?.kill('SIGKILL');
    rx.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60000);
