import * as http from 'node:http';
import * as net from 'node:net';
import {
  call,
  createPool,
  errorOf,
  load,
  postJSON,
  sleep,
  startService,
  TestService,
} from './helpers';

/** An SSE client collecting the raw stream and the events in it. */
class Subscriber {
  text = '';
  status = 0;
  contentType = '';
  ready: Promise<void>;
  private parsed: [string, string][] = [];
  private rest = '';
  private req: http.ClientRequest | undefined;

  constructor(
    base: string,
    headers: Record<string, string> = {},
    private keepText = true,
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.req = http.get(`${base}/events`, { headers }, (res) => {
        this.status = res.statusCode ?? 0;
        this.contentType = String(res.headers['content-type']);
        res.setEncoding('utf8');
        res.on('data', (c: string) => this.take(c));
        resolve();
      });
      this.req.on('error', reject);
    });
  }

  private take(chunk: string): void {
    if (this.keepText) this.text += chunk;
    this.rest += chunk;
    let i: number;
    while ((i = this.rest.indexOf('\n\n')) >= 0) {
      const block = this.rest.slice(0, i);
      this.rest = this.rest.slice(i + 2);
      const lines = block.split('\n').filter((l) => l !== '' && !l.startsWith(':'));
      if (lines.length === 0) continue;
      const name = lines.find((l) => l.startsWith('event: '))!.slice(7);
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      this.parsed.push([name, data]);
    }
  }

  /** Parsed events so far: [name, data]. */
  events(): [string, string][] {
    return this.parsed;
  }

  async waitFor(pred: (ev: [string, string][]) => boolean, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred(this.events())) {
      if (Date.now() > end) {
        const names = this.parsed.map((e) => e[0]).slice(-20);
        throw new Error(`timed out with ${this.parsed.length} events; last: ${names.join(' ')}`);
      }
      await sleep(10);
    }
  }

  close(): void {
    this.req?.destroy();
  }
}

describe('GET /events', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startService({ keepAliveMs: 100, maxEventBacklog: 64 * 1024 });
  });
  afterAll(async () => {
    await t.close();
  });

  test('two subscribers see every event in order, each in its own format', async () => {
    const zson = new Subscriber(t.base);
    const js = new Subscriber(t.base, { Accept: 'application/json' });
    await Promise.all([zson.ready, js.ready]);
    expect([zson.status, zson.contentType]).toEqual([200, 'text/event-stream']);
    await sleep(50);

    const poolId = await createPool(t.base, 'ev');
    const commit = await load(t.base, 'ev', '{x:1}');
    let r = await call(t.base, 'POST', '/pool/ev', {
      body: JSON.stringify({ name: 'dev', commit }),
    });
    expect(r.status).toBe(200);
    r = await call(t.base, 'PUT', '/pool/ev', { body: '{"name":"ev2"}' });
    expect(r.status).toBe(204);
    r = await call(t.base, 'DELETE', '/pool/ev2/branch/dev');
    expect(r.status).toBe(204);
    r = await call(t.base, 'DELETE', '/pool/ev2');
    expect(r.status).toBe(204);

    const names = [
      'pool-new',
      'branch-commit',
      'pool-commit',
      'branch-update',
      'pool-update',
      'branch-delete',
      'pool-delete',
    ];
    for (const s of [zson, js]) await s.waitFor((ev) => ev.length >= names.length);
    expect(zson.events().map((e) => e[0])).toEqual(names);
    expect(js.events().map((e) => e[0])).toEqual(names);

    const id = poolId.slice(2);
    const [, poolNew] = zson.events()[0];
    expect(poolNew).toBe(`{pool_id:0x${id}(=KSUID)}(=EventPool)`);
    // The reference's framing: the data line, then its newline and a blank line.
    expect(zson.text).toContain(
      `event: pool-new\ndata: {pool_id:0x${id}(=KSUID)}(=EventPool)\n\n\n`,
    );
    expect(JSON.parse(js.events()[1][1])).toEqual({
      commit_id: commit,
      pool_id: poolId,
      branch: 'main',
      parent: '',
    });
    expect(JSON.parse(js.events()[2][1])).toEqual({ pool_id: poolId, commit_id: commit });
    expect(JSON.parse(js.events()[3][1])).toEqual({ pool_id: poolId, branch: 'dev' });
    expect(zson.events()[1][1]).toBe(
      `{commit_id:${commit}(=KSUID),pool_id:0x${id}(KSUID),branch:"main",parent:""}(=EventBranchCommit)`,
    );
    // Keep-alive comments arrive while idle.
    await sleep(250);
    expect(zson.text).toMatch(/^: keep-alive$/m);
    zson.close();
    js.close();
  });

  test('merge announces the child and the parent, as the reference does', async () => {
    const s = new Subscriber(t.base, { Accept: 'application/json' });
    await s.ready;
    await sleep(50);
    await createPool(t.base, 'evm');
    const c = await load(t.base, 'evm', '{x:1}');
    await call(t.base, 'POST', '/pool/evm', { body: JSON.stringify({ name: 'kid', commit: c }) });
    await load(t.base, 'evm', '{x:2}', { branch: 'kid' });
    const r = await postJSON(t.base, '/pool/evm/branch/main/merge/kid', {});
    expect(r.status).toBe(200);
    await s.waitFor((ev) => ev.filter((e) => e[0] === 'branch-commit').length === 3);
    const last = s.events().filter((e) => e[0] === 'branch-commit')[2];
    expect(JSON.parse(last[1])).toMatchObject({ branch: 'kid', parent: 'main' });
    s.close();
  });

  test('a compaction is a branch commit like any other', async () => {
    const s = new Subscriber(t.base, { Accept: 'application/json' });
    await s.ready;
    await sleep(50);
    const poolId = await createPool(t.base, 'evc');
    await load(t.base, 'evc', '{x:1}');
    await load(t.base, 'evc', '{x:2}');
    const ids = (await t.lake.objects('evc', 'main')).map((o) => o.id.toString());
    const r = await postJSON(t.base, '/pool/evc/branch/main/compact', { object_ids: ids });
    expect(r.status).toBe(200);
    const { commit } = r.json() as { commit: string };
    await s.waitFor((ev) => ev.filter((e) => e[0] === 'branch-commit').length === 3);
    const last = s.events().filter((e) => e[0] === 'branch-commit')[2];
    expect(JSON.parse(last[1])).toMatchObject({
      commit_id: commit,
      pool_id: poolId,
      branch: 'main',
    });
    s.close();
  });

  test('a subscriber that stops reading does not hold up writers and is dropped', async () => {
    // A raw client that asks for events and then never reads its socket.
    const sock = net.connect(t.port, '127.0.0.1');
    await new Promise((resolve) => sock.once('connect', resolve));
    sock.write('GET /events HTTP/1.1\r\nHost: x\r\n\r\n');
    sock.pause();
    await sleep(100);
    expect(t.service.hub.subscribers).toBeGreaterThanOrEqual(1);
    const reader = new Subscriber(t.base, { Accept: 'application/json' }, false);
    await reader.ready;
    const poolId = await createPool(t.base, 'evslow', { keys: [['k']] });
    // Much lake activity: 20 MB of events, far more than the stalled
    // socket's buffers and its 64 KiB backlog allowance hold.
    const big = 'b'.repeat(10000);
    const pid = poolId;
    for (let i = 0; i < 2000; i++) {
      await t.lake.coord.publish(
        JSON.stringify({ name: 'branch-update', pool_id: pid, branch: `${big}${i}` }),
      );
      // Paced, with I/O turns between, as real activity is: a reading
      // client keeps up, a stalled one cannot.
      if (i % 4 === 3) await new Promise((resolve) => setImmediate(resolve));
    }
    // Writers through HTTP go on at their usual pace.
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const r = await call(t.base, 'POST', '/pool/evslow/branch/main', { body: `{k:${i}}` });
      expect(r.status).toBe(200);
    }
    expect(Date.now() - started).toBeLessThan(10000);
    await reader.waitFor((ev) => ev.filter((e) => e[0] === 'branch-commit').length >= 20, 20000);
    expect(reader.events().filter((e) => e[0] === 'branch-update')).toHaveLength(2000);
    expect(t.service.hub.subscribers).toBe(1);
    const metrics = await call(t.base, 'GET', '/metrics');
    expect(metrics.text).toMatch(/zlake_event_subscribers_dropped_total [1-9]/);
    sock.destroy();
    reader.close();
  });

  test("a browser's EventSource Accept (text/event-stream) gets ZSON", async () => {
    const s = new Subscriber(t.base, { Accept: 'text/event-stream' });
    await s.ready;
    expect(s.status).toBe(200);
    await sleep(50);
    const id = await createPool(t.base, 'evbrowser');
    await s.waitFor((ev) => ev.some((e) => e[0] === 'pool-new' && e[1].includes(id.slice(2))));
    s.close();
  });

  test('binary formats are refused for events', async () => {
    const r = await call(t.base, 'GET', '/events', { headers: { Accept: 'application/x-zng' } });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toMatch(/events cannot be sent as zng/);
  });
});
