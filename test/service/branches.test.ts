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

async function objectIds(pool: string, rev = 'main'): Promise<string[]> {
  return (await t.lake.objects(pool, rev)).map((o) => o.id.toHex());
}

describe('merge', () => {
  test('brings a child branch into its parent', async () => {
    await createPool(t.base, 'merge', { keys: [['k']] });
    const c1 = await load(t.base, 'merge', '{k:1}');
    await call(t.base, 'POST', '/pool/merge', {
      body: JSON.stringify({ name: 'child', commit: c1 }),
    });
    await load(t.base, 'merge', '{k:2}', { branch: 'child' });
    expect(await contents(t.lake, 'merge')).toEqual(['{k:1}']);
    const r = await call(t.base, 'POST', '/pool/merge/branch/main/merge/child', { headers: json });
    expect(r.status).toBe(200);
    const { commit } = r.json() as { commit: string };
    expect(await contents(t.lake, 'merge')).toEqual(['{k:1}', '{k:2}']);
    expect((await t.lake.lookupBranch('merge', 'main')).commit.toHex()).toBe(commit);
    // Time travel: the commit before the merge still reads as it was.
    expect(await contents(t.lake, 'merge', c1)).toEqual(['{k:1}']);
  });

  test('errors: itself, unknown branches', async () => {
    await createPool(t.base, 'merge-err');
    await load(t.base, 'merge-err', '{k:1}');
    let r = await call(t.base, 'POST', '/pool/merge-err/branch/main/merge/main');
    expect(r.status).toBe(400);
    r = await call(t.base, 'POST', '/pool/merge-err/branch/main/merge/nope');
    expect(r.status).toBe(404);
    expect(errorOf(r).error).toBe('"nope": branch not found');
    r = await call(t.base, 'POST', '/pool/merge-err/branch/nope/merge/main');
    expect(r.status).toBe(404);
  });
});

describe('merge conflicts', () => {
  test('both branches deleted the same object: 409; nothing to merge: 400', async () => {
    await createPool(t.base, 'mconf', { keys: [['k']] });
    const c = await load(t.base, 'mconf', '{k:1}');
    const [id] = await objectIds('mconf');
    await call(t.base, 'POST', '/pool/mconf', { body: JSON.stringify({ name: 'kid', commit: c }) });
    let r = await call(t.base, 'POST', '/pool/mconf/branch/main/merge/kid', { headers: json });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toMatch(/difference is empty/);
    for (const b of ['main', 'kid']) {
      r = await postJSON(t.base, `/pool/mconf/branch/${b}/delete`, { object_ids: [id] });
      expect(r.status).toBe(200);
    }
    r = await call(t.base, 'POST', '/pool/mconf/branch/main/merge/kid', { headers: json });
    expect(r.status).toBe(409);
    expect(errorOf(r)).toEqual({
      type: 'Error',
      kind: 'conflict with pending operation',
      error: expect.stringMatching(/^error merging "kid" into "main": delete conflict: \w{27}$/),
    });
  });
});

describe('revert', () => {
  test('undoes a commit; the reverted state stays readable by commit', async () => {
    await createPool(t.base, 'revert', { keys: [['k']] });
    const a = await load(t.base, 'revert', '{k:1}');
    const b = await load(t.base, 'revert', '{k:2}');
    let r = await call(t.base, 'POST', `/pool/revert/branch/main/revert/${a}`, { headers: json });
    expect(r.status).toBe(200);
    expect(await contents(t.lake, 'revert')).toEqual(['{k:2}']);
    // The base62 form works too.
    const bId = (await t.lake.log('revert', b))[0].id.toString();
    r = await call(t.base, 'POST', `/pool/revert/branch/main/revert/${bId}`, { headers: json });
    expect(r.status).toBe(200);
    expect(await contents(t.lake, 'revert')).toEqual([]);
    expect(await contents(t.lake, 'revert', b)).toEqual(['{k:1}', '{k:2}']);
  });

  test('errors: a bad ID is 400, an unknown commit 404', async () => {
    await createPool(t.base, 'revert-err');
    await load(t.base, 'revert-err', '{k:1}');
    let r = await call(t.base, 'POST', '/pool/revert-err/branch/main/revert/junk');
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('invalid path param "commit": invalid ID: junk');
    r = await call(
      t.base,
      'POST',
      '/pool/revert-err/branch/main/revert/27aaaaaaaaaaaaaaaaaaaaaaaaa',
    );
    expect(r.status).toBe(404);
    expect(errorOf(r).kind).toBe('item does not exist');
  });
});

describe('delete by object IDs', () => {
  test('removes objects from the branch; earlier commits keep them', async () => {
    await createPool(t.base, 'del', { keys: [['x']], order: 'desc' });
    await load(t.base, 'del', '{x:1}');
    const [id1] = await objectIds('del');
    const c2 = await load(t.base, 'del', '{x:2}');
    const r = await postJSON(t.base, '/pool/del/branch/main/delete', { object_ids: [id1] });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ commit: expect.stringMatching(/^0x/), warnings: null });
    expect(await contents(t.lake, 'del')).toEqual(['{x:2}']);
    expect(await contents(t.lake, 'del', c2)).toEqual(['{x:2}', '{x:1}']);
  });

  test('the reference ZSON answer', async () => {
    await createPool(t.base, 'del-zson');
    await load(t.base, 'del-zson', '{x:1}');
    const [id] = await objectIds('del-zson');
    const r = await call(t.base, 'POST', '/pool/del-zson/branch/main/delete', {
      body: `{object_ids:["${id}"]}`,
    });
    expect(r.text).toMatch(
      /^\{commit:0x[0-9a-f]{40}\(=ksuid\.KSUID\),warnings:null\(\[string\]\)\}\(=api\.CommitResponse\)\n$/,
    );
  });

  test('errors', async () => {
    await createPool(t.base, 'del-err');
    await load(t.base, 'del-err', '{x:1}');
    const [id] = await objectIds('del-err');
    let r = await postJSON(t.base, '/pool/del-err/branch/main/delete', {
      object_ids: ['27aaaaaaaaaaaaaaaaaaaaaaaaa'],
    });
    expect(r.status).toBe(404);
    expect(errorOf(r).error).toBe('27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found');
    r = await postJSON(t.base, '/pool/del-err/branch/main/delete', { object_ids: ['junk'] });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('invalid ID: junk');
    r = await postJSON(t.base, '/pool/del-err/branch/main/delete', {
      object_ids: [id],
      where: 'x==1',
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('object_ids and where cannot both be set');
    r = await postJSON(t.base, '/pool/del-err/branch/main/delete', {});
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe('either object_ids or where must be set');
    r = await postJSON(t.base, '/pool/del-err/branch/nope/delete', { object_ids: [id] });
    expect(r.status).toBe(404);
    expect(await contents(t.lake, 'del-err')).toEqual(['{x:1}']);
  });
});

describe('vacuum', () => {
  test('dry run lists, vacuum removes, and the old commit then fails clearly', async () => {
    await createPool(t.base, 'vac', { keys: [['x']] });
    await load(t.base, 'vac', '{x:1}');
    const c2 = await load(t.base, 'vac', '{x:2}');
    const ids = await objectIds('vac');
    const removed = ids.find((id) => !ids.slice(0, 1).includes(id));
    const r0 = await postJSON(t.base, '/pool/vac/branch/main/delete', { object_ids: [removed] });
    expect(r0.status).toBe(200);
    let r = await call(t.base, 'POST', '/pool/vac/revision/main/vacuum?dryrun=T', {
      headers: json,
    });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ object_ids: [removed] });
    r = await call(t.base, 'POST', '/pool/vac/revision/main/vacuum?dryrun=T');
    expect(r.text).toBe(`{object_ids:[${removed}(=ksuid.KSUID)]}(=api.VacuumResponse)\n`);
    r = await call(t.base, 'POST', '/pool/vac/revision/main/vacuum', { headers: json });
    expect(r.json()).toEqual({ object_ids: [removed] });
    r = await call(t.base, 'POST', '/pool/vac/revision/main/vacuum', { headers: json });
    expect(r.json()).toEqual({ object_ids: [] });
    expect(await contents(t.lake, 'vac')).toHaveLength(1);
    await expect(contents(t.lake, 'vac', c2)).rejects.toThrow(/removed by vacuum/);
  });

  test('a bad dryrun value is 400', async () => {
    await createPool(t.base, 'vac-err');
    const r = await call(t.base, 'POST', '/pool/vac-err/revision/main/vacuum?dryrun=Foo');
    expect(r.status).toBe(400);
    expect(errorOf(r).error).toBe(
      'invalid query param "Foo": strconv.ParseBool: parsing "Foo": invalid syntax',
    );
  });
});

describe('compact', () => {
  test('rewrites objects as one sorted object in a commit; the values stay', async () => {
    await createPool(t.base, 'cmp', { keys: [['k']] });
    await load(t.base, 'cmp', '{k:3}{k:1}');
    await load(t.base, 'cmp', '{k:2}{k:4}');
    const ids = await objectIds('cmp');
    expect(ids).toHaveLength(2);
    const r = await postJSON(t.base, '/pool/cmp/branch/main/compact', { object_ids: ids }, json);
    expect(r.status).toBe(200);
    const { commit } = r.json() as { commit: string };
    expect((await t.lake.lookupBranch('cmp', 'main')).commit.toHex()).toBe(commit);
    expect(await objectIds('cmp')).toHaveLength(1);
    expect(await contents(t.lake, 'cmp')).toEqual(['{k:1}', '{k:2}', '{k:3}', '{k:4}']);
  });

  test("bad requests get the reference's errors and commit nothing", async () => {
    await createPool(t.base, 'cmp2', { keys: [['k']] });
    await load(t.base, 'cmp2', '{k:1}');
    const [id] = await objectIds('cmp2');
    const tip = (await t.lake.lookupBranch('cmp2', 'main')).commit.toHex();
    const cases: [string, unknown, number, string, string][] = [
      [
        'cmp2',
        { object_ids: [id] },
        400,
        'invalid operation',
        'compact: two or more source objects required',
      ],
      [
        'cmp2',
        { object_ids: [] },
        400,
        'invalid operation',
        'compact: two or more source objects required',
      ],
      ['cmp2', { object_ids: [id, 'nope'] }, 400, 'invalid operation', 'invalid ID: nope'],
      [
        'cmp2',
        { object_ids: 'x' },
        400,
        'invalid operation',
        'field "object_ids": expected an array of strings',
      ],
      [
        'cmp2',
        { object_ids: [id, '27aaaaaaaaaaaaaaaaaaaaaaaaa'] },
        404,
        'item does not exist',
        '27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found',
      ],
      ['nopool', { object_ids: [id, id] }, 404, 'item does not exist', 'nopool: pool not found'],
    ];
    for (const [pool, body, status, kind, error] of cases) {
      const r = await postJSON(t.base, `/pool/${pool}/branch/main/compact`, body, json);
      expect([r.status, errorOf(r)]).toEqual([status, { type: 'Error', kind, error }]);
    }
    const r = await postJSON(
      t.base,
      '/pool/cmp2/branch/nob/compact',
      { object_ids: [id, id] },
      json,
    );
    expect(r.status).toBe(404);
    expect(errorOf(r).error).toMatch(/branch not found/);
    expect((await t.lake.lookupBranch('cmp2', 'main')).commit.toHex()).toBe(tip);
  });
});
