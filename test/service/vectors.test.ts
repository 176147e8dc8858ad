// Columnar copies of data objects over HTTP: written by loads by default
// (a pool option turns that off), listed by `:vectors`, added and deleted
// with POST .../vectors[/delete], carried by compaction, delete-where,
// revert and merge, and removed by vacuum and pool drop, on either backend.

import { VngReader } from '../../src/formats/vng';
import { sourceFromBuffer } from '../../src/formats/io';
import { formatValue } from '../../src/formats/zson';
import { Ksuid } from '../../src/lake/ksuid';
import { TypeContext } from '../../src/zed/context';
import {
  call,
  contents,
  createPool,
  errorOf,
  load,
  postJSON,
  startService,
  TestService,
} from './helpers';

let t: TestService;
beforeAll(async () => {
  t = await startService();
});
afterAll(async () => {
  await t.close();
});

const json = { Accept: 'application/json' };

async function zson(query: string): Promise<string[]> {
  const r = await postJSON(t.base, '/query', { query }, { Accept: 'application/x-zson' });
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.text.split('\n').filter((l) => l !== '');
}

/** IDs (base62) of the objects listed by a meta-query. */
async function ids(pool: string, meta: 'objects' | 'vectors', rev = 'main'): Promise<string[]> {
  return (await zson(`from ${pool}@${rev}:${meta} | yield ksuid(id)`)).map((l) => JSON.parse(l));
}

/** The storage keys of a pool's data directory, by suffix. */
async function keys(pool: string): Promise<{ zng: number; vng: string[] }> {
  const p = await t.lake.lookupPool(pool);
  const all = await t.lake.storage.list(`${p.id}/data/`);
  return {
    zng: all.filter((k) => /\/[0-9A-Za-z]{27}\.zng$/.test(k)).length,
    vng: all.filter((k) => k.endsWith('.vng')).map((k) => k.slice(k.lastIndexOf('/') + 1, -4)),
  };
}

/** The values of an object's columnar copy, as ZSON, read from storage. */
async function copyValues(pool: string, id: string): Promise<string[]> {
  const p = await t.lake.lookupPool(pool);
  const buf = await t.lake.storage.get(`${p.id}/data/${id}.vng`);
  const r = new VngReader(sourceFromBuffer(buf), new TypeContext());
  const out: string[] = [];
  for (let b = await r.read(); b; b = await r.read()) for (const v of b) out.push(formatValue(v));
  return out;
}

describe('loads', () => {
  test('write a copy of each object, listed by :vectors, holding the same values', async () => {
    await createPool(t.base, 'ld', { keys: [['k']] });
    await load(t.base, 'ld', '{k:2,s:"b"} {k:1,s:"a",a:[1,2]} {k:3}');
    await load(t.base, 'ld', '{k:4,t:2020-01-01T00:00:00Z}');
    const objs = await ids('ld', 'objects');
    expect(objs).toHaveLength(2);
    expect(await ids('ld', 'vectors')).toEqual(objs);
    const k = await keys('ld');
    expect(k.zng).toBe(2);
    expect(k.vng).toHaveLength(2);
    const first = objs[0];
    expect(await copyValues('ld', first)).toEqual(['{k:1,s:"a",a:[1,2]}', '{k:2,s:"b"}', '{k:3}']);
    // The lake format of the log shows no vector actions, as the reference's.
    const log = await zson('from ld@main:rawlog | yield nameof(this)');
    expect(log).toEqual([
      '"commits.Commit"',
      '"commits.Add"',
      '"commits.AddVector"',
      '"commits.Commit"',
      '"commits.Add"',
      '"commits.AddVector"',
    ]);
  });

  test('write none when the pool says so; vector add then makes them', async () => {
    const r = await postJSON(t.base, '/pool', {
      name: 'nov',
      layout: { keys: [['k']] },
      vectors: false,
    });
    expect(r.status).toBe(200);
    await load(t.base, 'nov', '{k:1} {k:2}');
    expect(await ids('nov', 'vectors')).toEqual([]);
    expect((await keys('nov')).vng).toEqual([]);
    const [obj] = await ids('nov', 'objects');
    const add = await postJSON(
      t.base,
      '/pool/nov/branch/main/vectors',
      { object_ids: [obj] },
      json,
    );
    expect(add.status).toBe(200);
    const { commit } = add.json() as { commit: string };
    expect((await t.lake.lookupBranch('nov', 'main')).commit.toHex()).toBe(commit);
    expect(await ids('nov', 'vectors')).toEqual([obj]);
    expect(await copyValues('nov', obj)).toEqual(['{k:1}', '{k:2}']);
    const msg = await zson(`from nov@main:log | has(message) | head 1 | yield message`);
    expect(msg).toEqual([JSON.stringify(`vector add\n\n    ${obj}\n`)]);
    // The option is kept with the pool (the catalog), not shown in its record.
    expect(await zson('from :pools | has(vectors) | count()')).toEqual([]);
  });

  test('a bad vectors option is 400', async () => {
    const r = await postJSON(t.base, '/pool', { name: 'badv', vectors: 'no' });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('field "vectors": expected a boolean, got string');
  });
});

describe('vector add and delete', () => {
  test('delete drops a copy from :vectors; errors name the object', async () => {
    await createPool(t.base, 'vd', { keys: [['k']] });
    await load(t.base, 'vd', '{k:1}');
    const [obj] = await ids('vd', 'objects');
    const del = await postJSON(
      t.base,
      '/pool/vd/branch/main/vectors/delete',
      { object_ids: [obj] },
      json,
    );
    expect(del.status).toBe(200);
    expect(await ids('vd', 'vectors')).toEqual([]);
    // The copy stays in storage for time travel.
    expect((await keys('vd')).vng).toHaveLength(1);
    const again = await postJSON(t.base, '/pool/vd/branch/main/vectors/delete', {
      object_ids: [obj],
    });
    expect(again.status).toBe(400);
    const id = obj;
    expect(errorOf(again).error).toBe(
      `vector ${id} does not exist: vector delete operation aborted`,
    );
    const nosuch = '0x' + '11'.repeat(20);
    const bad = await postJSON(t.base, '/pool/vd/branch/main/vectors', { object_ids: [nosuch] });
    expect(bad.status).toBe(404);
    expect(errorOf(bad).error).toBe(
      `non-existent object ${Ksuid.mustParse(nosuch).toString()}: vector add operation aborted`,
    );
    const empty = await postJSON(t.base, '/pool/vd/branch/main/vectors', { object_ids: [] });
    expect(empty.status).toBe(400);
    expect(errorOf(empty).error).toBe('empty transaction');
    // Added back; adding again changes nothing.
    const add = await postJSON(t.base, '/pool/vd/branch/main/vectors', { object_ids: [obj] }, json);
    expect(add.status).toBe(200);
    const tip = (add.json() as { commit: string }).commit;
    const noop = await postJSON(
      t.base,
      '/pool/vd/branch/main/vectors',
      { object_ids: [obj] },
      json,
    );
    expect((noop.json() as { commit: string }).commit).toBe(tip);
    expect(await ids('vd', 'vectors')).toEqual([obj]);
  });

  test("revert undoes a vector commit; merge brings a child branch's copies", async () => {
    await createPool(t.base, 'vr', { keys: [['k']] });
    await load(t.base, 'vr', '{k:1}');
    const [obj] = await ids('vr', 'objects');
    const del = await postJSON(
      t.base,
      '/pool/vr/branch/main/vectors/delete',
      { object_ids: [obj] },
      json,
    );
    const { commit } = del.json() as { commit: string };
    const rev = await call(t.base, 'POST', `/pool/vr/branch/main/revert/${commit}`, {
      headers: json,
    });
    expect(rev.status).toBe(200);
    expect(await ids('vr', 'vectors')).toEqual([obj]);
    // A child branch's load brings its copy along when merged.
    const tip = (await t.lake.lookupBranch('vr', 'main')).commit.toHex();
    await call(t.base, 'POST', '/pool/vr', {
      body: JSON.stringify({ name: 'child', commit: tip }),
    });
    await load(t.base, 'vr', '{k:2}', { branch: 'child' });
    const m = await call(t.base, 'POST', '/pool/vr/branch/main/merge/child', { headers: json });
    expect(m.status).toBe(200);
    expect(await ids('vr', 'vectors')).toEqual(await ids('vr', 'objects'));
    expect(await ids('vr', 'vectors')).toHaveLength(2);
  });
});

/**
 * Runs body with two services, each on a lake of its own with pool loaded
 * (each of loads a commit): columns forced on, and the row path alone.
 */
async function onAndOff(
  pool: string,
  loads: string[],
  body: (on: TestService, off: TestService) => Promise<void>,
): Promise<void> {
  const on = await startService({}, { vectorScan: 'on' });
  const off = await startService({}, { vectorScan: 'off' });
  try {
    for (const s of [on, off]) {
      await createPool(s.base, pool, { keys: [['ts']] });
      for (const data of loads) await load(s.base, pool, data);
    }
    await body(on, off);
  } finally {
    await on.close();
    await off.close();
  }
}

describe('queries', () => {
  test('read the copies by ranged reads and answer as rows do (on S3 too)', async () => {
    const data = Array.from(
      { length: 300 },
      (_, i) => `{ts:${i % 50},s:"v${i % 7}",n:${i},a:[${i}],o:{x:${i % 3}}}`,
    ).join('\n');
    const loads = [data, data.split('\n').slice(0, 40).join('\n')];
    await onAndOff('q', loads, async (on, off) => {
      const stats = async (s: TestService, q: string) => {
        const r = await postJSON(
          s.base,
          '/query?ctrl=T',
          { query: q },
          { Accept: 'application/x-zjson' },
        );
        const lines = r.text.split('\n').filter((l) => l !== '');
        const values = lines.filter((l) => !l.includes('"QueryStats"'));
        const st = lines
          .map((l) => JSON.parse(l))
          .filter((m) => m.type === 'QueryStats')
          .pop();
        return { values, bytes: st.value.bytes_read as number };
      };
      for (const q of [
        'from q | count() by s | sort s',
        'from q | cut ts,s | tail 5',
        'from q | s=="v3" | head 4',
        'from q | summarize sum(n), max(o.x) by s | sort s',
      ]) {
        const a = await stats(on, q);
        const b = await stats(off, q);
        expect({ q, v: a.values }).toEqual({ q, v: b.values });
        expect(a.bytes).toBeLessThan(b.bytes);
      }
    });
  });
});

describe('output', () => {
  test('rows built from columns batch after batch in reused memory: the same ZNG as the row path', async () => {
    // ZNG output lets the vector engine build each batch's rows in the
    // memory of the batch before (the writer copies them out first).
    const data = Array.from(
      { length: 6000 },
      (_, i) => `{ts:${i},s:"${'v'.repeat(i % 40)}${i}",n:${i * 7},b:${i % 2 === 0}}`,
    ).join('\n');
    await onAndOff('big', [data], async (on, off) => {
      for (const q of [
        'from big | cut s',
        'from big | cut ts,s',
        'from big | cut s,n,b',
        'from big | n > 100 | cut s,ts',
        'from big',
      ]) {
        const zng = async (s: TestService) => {
          const r = await postJSON(s.base, '/query', { query: q }, { Accept: 'application/x-zng' });
          expect(r.status).toBe(200);
          return r.body;
        };
        const a = await zng(on);
        expect({ q, same: a.equals(await zng(off)) }).toEqual({ q, same: true });
        expect(a.length).toBeGreaterThan(20000);
      }
    });
  });
});

describe('removal', () => {
  test('delete, compaction and delete-where: the new objects have copies, the old leave :vectors', async () => {
    await createPool(t.base, 'rm', { keys: [['k']] });
    await load(t.base, 'rm', '{k:1} {k:3}');
    await load(t.base, 'rm', '{k:2} {k:4}');
    const objs = await ids('rm', 'objects');
    const c = await postJSON(t.base, '/pool/rm/branch/main/compact', { object_ids: objs }, json);
    expect(c.status).toBe(200);
    const compacted = await ids('rm', 'objects');
    expect(compacted).toHaveLength(1);
    expect(await ids('rm', 'vectors')).toEqual(compacted);
    const d = await postJSON(t.base, '/pool/rm/branch/main/delete', { where: 'k==2' }, json);
    expect(d.status).toBe(200);
    const rewritten = await ids('rm', 'objects');
    expect(await ids('rm', 'vectors')).toEqual(rewritten);
    expect(await copyValues('rm', rewritten[0])).toEqual(['{k:1}', '{k:3}', '{k:4}']);
    expect(await contents(t.lake, 'rm')).toEqual(['{k:1}', '{k:3}', '{k:4}']);
    const gone = await postJSON(
      t.base,
      '/pool/rm/branch/main/delete',
      { object_ids: rewritten },
      json,
    );
    expect(gone.status).toBe(200);
    expect(await ids('rm', 'vectors')).toEqual([]);
  });

  test('vacuum removes the copies of the objects it removes; drop removes the rest', async () => {
    await createPool(t.base, 'vac', { keys: [['k']] });
    await load(t.base, 'vac', '{k:1}');
    await load(t.base, 'vac', '{k:2}');
    const [keep, drop] = await ids('vac', 'objects');
    await postJSON(t.base, '/pool/vac/branch/main/delete', { object_ids: [drop] }, json);
    expect((await keys('vac')).vng).toHaveLength(2);
    const r = await call(t.base, 'POST', '/pool/vac/revision/main/vacuum', { headers: json });
    expect(r.json()).toEqual({ object_ids: [Ksuid.mustParse(drop).toHex()] });
    expect((await keys('vac')).vng).toEqual([keep]);
    const p = await t.lake.lookupPool('vac');
    const dr = await call(t.base, 'DELETE', '/pool/vac');
    expect(dr.status).toBe(204);
    expect(await t.lake.storage.list(`${p.id}/`)).toEqual([]);
  });
});
