// The lake client against a real zlake service on loopback: each endpoint
// method, the reference client's error translations, and transport errors.

import {
  ClientError,
  LakeClient,
  MediaType,
  RequestError,
  ResponseError,
  urlPath,
} from '../../src/client';
import { BufferSink, sinkToWritable } from '../../src/formats/io';
import { parseValues } from '../../src/formats/zson';
import { ZngWriter } from '../../src/formats/zng';
import { Ksuid } from '../../src/lake/ksuid';
import { TypeContext } from '../../src/zed/context';
import { Served, serveInProcess } from './helpers';

let srv: Served;
let client: LakeClient;

beforeAll(async () => {
  srv = await serveInProcess();
  client = new LakeClient(srv.url);
});

afterAll(async () => {
  client.close();
  await srv.close();
});

const layout = { order: 'desc' as const, keys: [['ts']] };

async function newPool(name: string) {
  return client.createPool({ name, layout, seekStride: 65536, thresh: 524288000 });
}

/** ZNG bytes of the ZSON text. */
async function zng(text: string): Promise<Buffer> {
  const sink = new BufferSink();
  const w = new ZngWriter(sink);
  await w.write(parseValues(new TypeContext(), text));
  await w.close();
  return sink.bytes();
}

describe('service information', () => {
  test('version and ping', async () => {
    expect(await client.version()).toMatch(/^v\d+\.\d+/);
    expect(await client.ping()).toBeGreaterThan(0);
  });

  test('auth method says auth is off (an empty kind)', async () => {
    expect((await client.authMethod()).kind).toBe('');
  });
});

describe('pools and branches', () => {
  test('create pool returns the pool and its main branch', async () => {
    const { pool, branch } = await newPool('create1');
    expect(pool.name).toBe('create1');
    expect(pool.id.toString()).toMatch(/^\w{27}$/);
    expect(pool.layout).toEqual(layout);
    expect(pool.seekStride).toBe(65536);
    expect(pool.threshold).toBe(524288000);
    expect(branch.name).toBe('main');
    expect(branch.commit.bytes.equals(Ksuid.nil.bytes)).toBe(true);
  });

  test('a duplicate pool is "pool exists", as the reference client says', async () => {
    await newPool('dup1');
    const err = await newPool('dup1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect((err as Error).message).toBe('pool exists');
    expect(((err as Error).cause as ResponseError).status).toBe(409);
  });

  test('branches: get, create, duplicate, delete, missing', async () => {
    const { pool } = await newPool('br1');
    const id = pool.id.toString();
    const load = await client.load(id, 'main', '{x:1}', { contentType: MediaType.ZSON });
    const tip = await client.branchGet('br1', 'main');
    expect(tip.commit.toString()).toBe(load.commit.toString());
    const b = await client.createBranch(id, 'dev', tip.commit.toString());
    expect(b.name).toBe('dev');
    expect(b.commit.toString()).toBe(tip.commit.toString());
    expect((await client.branchGet(id, 'dev')).commit.toString()).toBe(tip.commit.toString());
    await expect(client.createBranch(id, 'dev', tip.commit.toString())).rejects.toThrow(
      /^branch exists$/,
    );
    await client.deleteBranch(id, 'dev');
    await expect(client.branchGet(id, 'dev')).rejects.toThrow(/^branch not found$/);
    await expect(client.deleteBranch(id, 'dev')).rejects.toThrow(/^status code 404: /);
  });

  test('rename and remove', async () => {
    const { pool } = await newPool('ren1');
    await client.renamePool(pool.id.toString(), 'ren2');
    expect((await client.branchGet('ren2', 'main')).commit.bytes.equals(Ksuid.nil.bytes)).toBe(
      true,
    );
    await expect(client.branchGet('ren1', 'main')).rejects.toThrow('branch not found');
    await client.removePool('ren2');
    await expect(client.removePool('ren2')).rejects.toThrow(/^pool not found$/);
  });

  test('pool stats', async () => {
    const { pool } = await newPool('stats1');
    await client.load(pool.id.toString(), 'main', '{ts:1}{ts:2}', { contentType: MediaType.ZSON });
    const stats = await client.poolStats('stats1');
    expect(stats.size).toBeGreaterThan(0);
    await expect(client.poolStats('nosuchpool')).rejects.toThrow(/^pool not found$/);
  });
});

describe('load', () => {
  test('bodies: text with a type, detected, ZNG streamed by a writer', async () => {
    const { pool } = await newPool('load1');
    const id = pool.id.toString();
    const a = await client.load(id, 'main', '{"a":1}\n', { contentType: MediaType.JSON });
    const b = await client.load(id, 'main', Buffer.from('{b:2}'));
    const bytes = await zng('{c:3} {c:4}');
    const c = await client.load(
      id,
      'main',
      async (out) => {
        // In two pieces, to be sure the body streams.
        await sinkToWritable(out, false).write(bytes.subarray(0, 3));
        await sinkToWritable(out, false).write(bytes.subarray(3));
      },
      { contentType: MediaType.ZNG },
    );
    const ids = [a, b, c].map((r) => r.commit.toString());
    expect(new Set(ids).size).toBe(3);
    expect((await client.branchGet(id, 'main')).commit.toString()).toBe(ids[2]);
  });

  test('errors: empty body, missing pool, garbage, bad CSV delimiter', async () => {
    const { pool } = await newPool('load2');
    const id = pool.id.toString();
    await expect(client.load(id, 'main', '')).rejects.toThrow(
      'status code 400: no records in request',
    );
    await expect(client.load('nosuch', 'main', '{a:1}')).rejects.toThrow(
      /^status code 404: .*nosuch/,
    );
    await expect(client.load(id, 'main', 'This has no records.\n')).rejects.toThrow(
      /^status code 400: .*format detection error/,
    );
    await expect(
      client.load(id, 'main', 'a,b\n1,2\n', { contentType: 'text/csv', csvDelim: '::' }),
    ).rejects.toThrow(/^status code 400: /);
    const ok = await client.load(id, 'main', 'a;b\n1;2\n', {
      contentType: 'text/csv',
      csvDelim: ';',
    });
    expect(ok.commit.toString()).toMatch(/^\w{27}$/);
  });

  test('a body writer that fails aborts the load with its own error', async () => {
    const { pool } = await newPool('load3');
    const err = await client
      .load(pool.id.toString(), 'main', async (out) => {
        await sinkToWritable(out, false).write(await zng('{x:1}'));
        throw new Error('reading input failed');
      })
      .catch((e: Error) => e);
    expect(err).toEqual(new Error('reading input failed'));
    // Nothing was committed.
    expect(
      (await client.branchGet(pool.id.toString(), 'main')).commit.bytes.equals(Ksuid.nil.bytes),
    ).toBe(true);
  });
});

describe('commits', () => {
  test('merge, revert and vacuum', async () => {
    const { pool } = await newPool('commits1');
    const id = pool.id.toString();
    const first = await client.load(id, 'main', '{a:1}');
    await client.createBranch(id, 'child', first.commit.toString());
    const second = await client.load(id, 'child', '{b:1}');
    const merged = await client.mergeBranch(id, 'child', 'main', { author: 'me', body: 'merging' });
    expect((await client.branchGet(id, 'main')).commit.toString()).toBe(merged.commit.toString());
    const reverted = await client.revert(id, 'main', second.commit.toString());
    expect(reverted.commit.toString()).not.toBe(merged.commit.toString());
    const would = await client.vacuum(id, 'main', true);
    expect(would).toHaveLength(0); // child still holds b's object
    await client.deleteBranch(id, 'child');
    const again = await client.vacuum(id, 'main', true);
    expect(again).toHaveLength(1);
    expect(await client.vacuum(id, 'main', false)).toHaveLength(1);
    expect(await client.vacuum(id, 'main', true)).toHaveLength(0);
    await expect(client.revert(id, 'main', Ksuid.generate().toString())).rejects.toThrow(
      /^status code 404: /,
    );
  });

  test('delete by ID: an unknown object is an error', async () => {
    const { pool } = await newPool('del1');
    const id = pool.id.toString();
    await client.load(id, 'main', '{a:1}');
    await expect(client.delete(id, 'main', ['27aaaaaaaaaaaaaaaaaaaaaaaaa'])).rejects.toThrow(
      /^status code 404: 27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found$/,
    );
  });
});

describe('events', () => {
  test('pool-new and pool-commit arrive as JSON', async () => {
    const events = client.events();
    const first = events.next();
    // Give the subscription a moment to be registered.
    await new Promise((r) => setTimeout(r, 100));
    const { pool } = await newPool('events1');
    const a = (await first).value!;
    expect(a.type).toBe('pool-new');
    expect(a.data).toEqual({ pool_id: '0x' + pool.id.bytes.toString('hex') });
    const commit = await client.load(pool.id.toString(), 'main', '{x:1}');
    const seen: string[] = [];
    for (;;) {
      const e = (await events.next()).value!;
      seen.push(e.type);
      if (e.type === 'pool-commit') {
        expect(e.data).toEqual({
          pool_id: '0x' + pool.id.bytes.toString('hex'),
          commit_id: '0x' + commit.commit.bytes.toString('hex'),
        });
        break;
      }
    }
    await events.return(undefined);
  });
});

describe('transport', () => {
  test('connection refused reads as Go reports it', async () => {
    const c = new LakeClient('http://127.0.0.1:1');
    const err = await c.version().catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(RequestError);
    expect((err as Error).message).toBe(
      'Get "http://127.0.0.1:1/version": dial tcp 127.0.0.1:1: connect: connection refused',
    );
  });

  test('a trailing slash on the URL is dropped', () => {
    const c = new LakeClient(srv.url + '//');
    expect(c.url).toBe(srv.url);
    c.close();
  });

  test('path elements are escaped as Go escapes them', () => {
    expect(urlPath('pool', 'a b/c', 'x:y@z', "it's!")).toBe('/pool/a%20b%2Fc/x:y@z/it%27s%21');
    expect(urlPath('héllo')).toBe('/h%C3%A9llo');
  });

  test('pool names with spaces and slashes work end to end', async () => {
    const { pool } = await newPool('my pool/1');
    await client.load('my pool/1', 'main', '{x:1}');
    expect(
      (await client.branchGet(pool.id.toString(), 'main')).commit.bytes.equals(Ksuid.nil.bytes),
    ).toBe(false);
  });
});
