// The pool and branch commands against a real service: create, ls,
// rename, drop, use, branch — their output, quiet mode, and errors.

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { lakeSession, writeTemp, zlake } from '../../client/helpers';

const session = lakeSession();
const { ok, fails } = session;

const ID = '\\w{27}';

describe('create and ls', () => {
  test('create prints the pool and its ID; ls lists pools as the reference does', async () => {
    expect(await ok('create', 'ls1')).toMatch(new RegExp(`^pool created: ls1 ${ID}\n$`));
    expect(await ok('create', '-q', '-orderby', 'k.a,j:asc', 'ls2')).toBe('');
    const lines = (await ok('ls')).split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^ls1 ${ID} key ts order desc$`)),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^ls2 ${ID} key k.a,j order asc$`)),
    );
  });

  test('ls -f zson gives the pool records; -S sets the threshold', async () => {
    await ok('create', '-q', '-S', '1KB', 'ls3');
    const out = await ok('ls', '-f', 'zson');
    const rec = out.split(/\n(?=\{)/).find((r) => r.includes('"ls3"'))!;
    expect(rec).toContain('order: "desc" (=order.Which)');
    expect(rec).toContain('threshold: 1000');
    expect(rec).toContain('seek_stride: 65536');
  });

  test('ls of a pool lists its branches', async () => {
    const created = await ok('create', 'ls4');
    const id = created.trim().split(' ').pop()!;
    expect(await ok('ls', 'ls4')).toBe(`ls4@main commit 000000000000000000000000000 (HEAD)\n`);
    // By ID too.
    expect(await ok('ls', id)).toBe(`ls4@main commit 000000000000000000000000000 (HEAD)\n`);
  });

  test('create and ls errors', async () => {
    await ok('create', '-q', 'dup');
    expect(await fails('create', 'dup')).toBe('pool exists\n');
    expect(await fails('create')).toBe('create requires one argument\n');
    expect(await fails('create', '-S', '10', 'x')).toBe(
      'invalid value "10" for flag -S: units: unknown unit  in 10\n',
    );
    expect(await fails('create', '-orderby', 'a:b:c', 'x')).toBe(
      'only one order clause allowed in sortkey description\n',
    );
    expect(await fails('create', '-orderby', 'a:up', 'x')).toBe('unknown order: up\n');
    expect(await fails('ls', 'a', 'b')).toBe('too many arguments\n');
    expect(await fails('ls', "it's")).toBe('pool name may not contain quote characters\n');
  });
});

describe('rename and drop', () => {
  test('rename by name, then the old name is gone', async () => {
    await ok('create', '-q', 'r1');
    expect(await ok('rename', 'r1', 'r2')).toMatch(
      new RegExp(`^pool ${ID} renamed from r1 to r2\n$`),
    );
    expect(await fails('rename', 'r1', 'r3')).toBe('"r1": pool not found\n');
    expect(await fails('rename', 'r2')).toBe('two pool names must be provided\n');
  });

  test('drop -f; drop asks first without -f', async () => {
    await ok('create', '-q', 'd1');
    await ok('create', '-q', 'd2');
    expect(await ok('drop', '-f', 'd1')).toBe('pool deleted: d1\n');
    expect(await fails('drop', 'd1')).toBe('"d1": pool not found\n');

    let r = await zlake(['drop', 'd2'], session.env(), 'n\n');
    expect(r.stdout).toBe(
      'Are you sure you want to delete pool "d2"? There is no going back... [y|n]\n',
    );
    expect(r.stderr).toBe('operation canceled\n');
    r = await zlake(['drop', 'd2'], session.env(), '');
    expect(r.stderr).toBe('EOF\n');
    r = await zlake(['drop', 'd2'], session.env(), 'YES\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\[y\|n\]\npool deleted: d2\n$/);
    expect(await fails('drop')).toBe('a single pool name must be specified\n');
  });
});

describe('use and branch', () => {
  test('use sets and shows HEAD, kept in $ZED_HEAD_DIR/.zed_head', async () => {
    expect(await fails('use')).toBe('default pool and branch unset\n');
    expect(await fails('use', '@main')).toBe('default pool unset\n');
    await ok('create', '-q', 'POOL');
    expect(await fails('use', 'POOL@branch')).toBe('branch not found\n');
    expect(await ok('use', 'POOL')).toBe('Switched to branch "main" on pool "POOL"\n');
    expect(readFileSync(path.join(session.env().ZED_HEAD_DIR!, '.zed_head'), 'utf8')).toBe(
      'POOL@main\n',
    );
    expect(await ok('use')).toBe('HEAD at POOL@main\n');
    await ok('branch', '-q', 'b1');
    expect(await ok('use', '@b1')).toBe('Switched to branch "b1" on pool "POOL"\n');
    await ok('branch', '-q', 'b2');
    expect(await ok('use', '-q', 'POOL@b2')).toBe('');
    expect(await ok('use')).toBe('HEAD at POOL@b2\n');
    expect(await fails('use', 'a', 'b')).toBe('too many arguments\n');
    expect(await fails('use', "it's")).toBe(
      'pool and branch names may not contain single quote characters\n',
    );
  });

  test('branch creates, lists with HEAD marked, and deletes', async () => {
    await ok('create', '-q', 'B');
    await ok('load', '-q', '-use', 'B', writeTemp('{x:1}'));
    expect(await ok('branch', '-use', 'B', 'dev')).toBe('"dev": branch created\n');
    expect(await fails('branch', '-use', 'B', 'dev')).toBe('branch exists\n');
    const list = await ok('branch', '-use', 'B@dev');
    const tip = list.match(/^B@dev commit (\w{27}) \(HEAD\)$/m)![1];
    expect(list).toMatch(new RegExp(`^B@main commit ${tip}$`, 'm'));
    expect(await ok('branch', '-use', 'B', '-d', 'dev')).toBe('branch deleted: dev\n');
    expect(await ok('branch', '-use', 'B')).toBe(`B@main commit ${tip} (HEAD)\n`);
    // A branch from a commit ID.
    expect(await ok('branch', '-use', `B@${tip}`, 'old')).toBe('"old": branch created\n');
    expect(await fails('branch', '-use', 'B', 'x', 'y')).toBe('too many arguments\n');
    expect(await fails('branch', 'x')).toBe('empty pool and branch\n');
    expect(await fails('branch', '-use', 'B@nope', 'x')).toBe('branch not found\n');
  });
});
