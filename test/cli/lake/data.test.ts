// The data commands against a real service: load, query, delete, merge,
// revert, vacuum and log — the output a user sees, commit metadata, time
// travel, and the errors.

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { lakeSession, tempDir, writeTemp, zlake } from '../../client/helpers';

const session = lakeSession();
const { ok, fails } = session;

/** The commit ID a load prints ("<id> committed"). */
async function load(...args: string[]): Promise<string> {
  const out = await ok('load', ...args);
  expect(out).toMatch(/^\w{27} committed\n$/);
  return out.split(' ')[0];
}

const sample = path.resolve(__dirname, '../../../../shared/sample-data');

describe('load', () => {
  test('several files of different formats in one commit; gzip; -i', async () => {
    await ok('create', '-q', '-orderby', 'k:asc', 'L1');
    await ok('use', '-q', 'L1');
    const id = await load(
      writeTemp('{k:3,s:"zson"}'),
      writeTemp('{"k":1,"s":"json"}\n', 'json'),
      writeTemp('k,s\n2,csv\n', 'csv'),
      writeTemp(gzipSync('{k:4,s:"gz"}'), 'gz'),
    );
    expect(await ok('query', '-z', 'from L1 | sort k | yield s')).toBe(
      '"json"\n"csv"\n"zson"\n"gz"\n',
    );
    // One commit holds all four inputs.
    const log = await ok('log');
    expect(log.match(/^commit /gm)).toHaveLength(1);
    expect(log).toMatch(new RegExp(`^commit ${id} \\(HEAD -> main\\)\n`));
    expect(await ok('query', '-z', 'from L1@main:objects | yield count')).toBe('4(uint64)\n');
    await load('-i', 'line', writeTemp('hello\n', 'txt'));
    expect(await ok('query', '-z', 'from L1 | has(k)==false')).toBe('"hello"\n');
    await load('-i', 'csv', '-csv.delim', ';', writeTemp('k;s\n5;semi\n', 'csv'));
    expect(await ok('query', '-z', 'from L1 | k==5 | yield s')).toBe('"semi"\n');
  });

  test('commit metadata: -user, -message, -meta', async () => {
    await ok('create', '-q', 'L2');
    await load(
      '-use',
      'L2',
      '-user',
      'someone@example.com',
      '-message',
      'first load',
      '-meta',
      '"v1"',
      writeTemp('{x:1}'),
    );
    const out = await ok('query', '-z', 'from L2:log | yield {author,message,meta}');
    expect(out).toContain('{author:"someone@example.com",message:"first load",meta:"v1"}\n');
    // The default author is $ZED_USER; the server writes a message.
    await load('-use', 'L2', writeTemp('{x:2}'));
    const log = await ok('log', '-use', 'L2');
    expect(log).toMatch(/^commit \w{27} \(HEAD -> main\)\nAuthor: tester\n/);
    expect(log).toMatch(/\nAuthor: someone@example.com\nDate: +\S+\n\n {4}first load\n\n$/);
  });

  test('unreadable inputs are reported and skipped; nothing left is an error', async () => {
    await ok('create', '-q', 'L3');
    const missing = path.join(tempDir('zlake-none-'), 'nope.zson');
    let r = await zlake(['load', '-use', 'L3', missing, writeTemp('{x:1}')], session.env());
    expect(r.stderr).toBe(`${missing}: file does not exist\n`);
    expect(r.stdout).toMatch(/^\w{27} committed\n$/);
    r = await zlake(
      ['load', '-use', 'L3', writeTemp('This file contains no records.\n', 'txt')],
      session.env(),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /: format detection error\n\tarrows: [^\n]*\n\tcsv: line 1: no comma found\n/,
    );
    expect(r.stderr).toMatch(/\nstatus code 400: no records in request\n$/);
  });

  test('a bad value in the middle of an input fails the load and commits nothing', async () => {
    await ok('create', '-q', 'L4');
    const bad = writeTemp('{x:1}\n{x:2}\n{x:\n');
    const stderr = await fails('load', '-use', 'L4', '-i', 'zson', bad);
    expect(stderr.startsWith(`${bad}: `)).toBe(true);
    expect(await ok('query', '-z', 'from L4')).toBe('');
  });

  test('load errors', async () => {
    expect(await fails('load', writeTemp('{x:1}'))).toBe('empty pool and branch\n');
    expect(await fails('load', '-use', 'nosuch', writeTemp('{x:1}'))).toBe(
      '"nosuch": pool not found\n',
    );
    expect(await fails('load', '-use', 'x')).toBe(
      'zlake load: at least one input file must be specified (- for stdin)\n',
    );
    await ok('create', '-q', 'L5');
    expect(await fails('load', '-use', 'L5@nobranch', writeTemp('{x:1}'))).toMatch(
      /^status code 404: /,
    );
    expect(await fails('load', '-use', 'L5', '-csv.delim', '::', writeTemp('{x:1}'))).toBe(
      'CSV field delimiter must be exactly one character\n',
    );
  });

  test('the sample Zeek logs load in each encoding with the same count', async () => {
    await ok('create', '-q', 'zeek');
    const counts: string[] = [];
    for (const enc of ['zeek-default/rdp.log.gz', 'zng/rdp.zng.gz', 'zson/rdp.zson.gz']) {
      const name = enc.split('/')[0];
      await ok('create', '-q', name);
      await load('-use', name, path.join(sample, enc));
      counts.push(await ok('query', '-z', `from '${name}'`));
    }
    expect(counts[1]).toBe(counts[0]);
    expect(counts[2]).toBe(counts[0]);
    expect(counts[0].split('\n').length).toBeGreaterThan(1000);
  });
});

describe('query', () => {
  beforeAll(async () => {
    const env = { ZED_LAKE: session.srv().url, ZED_HEAD_DIR: tempDir('zlake-head-') };
    await zlake(['create', '-q', '-orderby', 'ts:asc', 'Q'], env);
    const data = writeTemp('{ts:1,a:"hello",b:"world"}\n{ts:2,a:"goodnight",b:"gracie"}\n');
    expect((await zlake(['load', '-use', 'Q', data], env)).code).toBe(0);
  });

  test('output formats: -z, -Z, -j, -f json/csv/zng, -o', async () => {
    expect(await ok('query', '-z', 'from Q | cut a')).toBe('{a:"hello"}\n{a:"goodnight"}\n');
    expect(await ok('query', '-Z', 'from Q | head 1 | cut a')).toBe('{\n    a: "hello"\n}\n');
    expect(await ok('query', '-j', 'from Q | cut a,b')).toBe(
      '{"a":"hello","b":"world"}\n{"a":"goodnight","b":"gracie"}\n',
    );
    expect(await ok('query', '-f', 'csv', 'from Q | cut a,b')).toBe(
      'a,b\nhello,world\ngoodnight,gracie\n',
    );
    // ZNG by default when stdout is not a terminal.
    const zng = await zlake(['query', 'from Q | yield ts'], session.env());
    expect(Buffer.from(zng.stdout, 'latin1').length).toBeGreaterThan(0);
    expect(zng.stdout).not.toContain('\n');
    const out = path.join(tempDir('zlake-out-'), 'out.zson');
    expect(await ok('query', '-z', '-o', out, 'from Q | yield ts')).toBe('');
    expect(readFileSync(out, 'utf8')).toBe('1\n2\n');
  });

  test('the working branch is the default source; -s prints stats', async () => {
    await ok('use', '-q', 'Q');
    expect(await ok('query', '-z', 'yield ts')).toBe('1\n2\n');
    const r = await zlake(['query', '-s', '-z', 'from Q | yield ts'], session.env());
    expect(r.stdout).toBe('1\n2\n');
    expect(r.stderr).toMatch(
      /^\{bytes_read:\d+,bytes_matched:\d+,records_read:2,records_matched:2\}\n$/,
    );
  });

  test('-I files come before the query', async () => {
    const inc = writeTemp('from Q\n', 'zed');
    expect(await ok('query', '-z', '-I', inc, '| yield ts')).toBe('1\n2\n');
    expect(await ok('query', '-z', '-I', writeTemp('from Q | yield ts', 'zed'))).toBe('1\n2\n');
  });

  test('errors: parse errors positioned as the reference shows them, unknown pool and branch', async () => {
    expect(await fails('query', '-z', 'from test \\ count()')).toBe(
      'error parsing Zed at column 11:\nfrom test \\ count()\n      === ^ ===\n',
    );
    expect(await fails('query', '-z', 'from\ntest \\ count()')).toBe(
      'error parsing Zed at line 2, column 6:\ntest \\ count()\n === ^ ===\n',
    );
    const bad = writeTemp('from test \\ count()\n', 'zed');
    expect(await fails('query', '-z', '-I', bad)).toBe(
      `error parsing Zed in ${bad} at line 1, column 11:\nfrom test \\ count()\n      === ^ ===\n`,
    );
    expect(await fails('query', 'from doesnotexit')).toBe(
      'status code 404: doesnotexit: pool not found\n',
    );
    expect(await fails('query', 'from Q@doesnotexist')).toMatch(
      /^status code 404: .*doesnotexist.*not found\n$/,
    );
  });

  test('no query prints help', async () => {
    const r = await zlake(['query'], session.env());
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^NAME\n {4}zlake query - /);
    expect(r.stdout).toBe('');
  });
});

describe('delete, merge, revert, vacuum, log', () => {
  test('delete by object ID and by -where', async () => {
    await ok('create', '-q', '-orderby', 'x:desc', 'D');
    await ok('use', '-q', 'D');
    await load(writeTemp('{x:1}'));
    const objects = await ok('query', '-f', 'lake', 'from D@main:objects');
    expect(objects).toMatch(/^\w{27} \d+B bytes 1 records\n {3}min 1 max 1\n$/);
    const objID = objects.split(' ')[0];
    await load(writeTemp('{x:2}'));
    expect(await ok('query', '-z', '*')).toBe('{x:2}\n{x:1}\n');
    expect(await ok('delete', objID)).toMatch(/^\w{27} delete committed\n$/);
    expect(await ok('query', '-z', '*')).toBe('{x:2}\n');
    expect(await fails('delete', '-q', '27aaaaaaaaaaaaaaaaaaaaaaaaa')).toBe(
      'status code 404: 27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found\n',
    );
    await load(writeTemp('{x:3}{x:4}{x:5}'));
    expect(await ok('delete', '-q', '-where', 'x >= 4')).toBe('');
    expect(await ok('query', '-z', '*')).toBe('{x:3}\n{x:2}\n');
    expect(await fails('delete')).toBe('no data object IDs specified\n');
    expect(await fails('delete', 'notanid')).toBe('invalid ID: notanid\n');
    expect(await fails('delete', '-where', 'x==1', objID)).toBe('too many arguments\n');
  });

  test('merge a child branch into main', async () => {
    await ok('create', '-q', '-orderby', 'k', 'M');
    await ok('use', '-q', 'M');
    await load('-message', 'initial load of a', writeTemp('{k:0,a:1}'));
    await ok('branch', '-q', 'child');
    await ok('use', '-q', '@child');
    await load(writeTemp('{k:1,b:1}'));
    expect(await ok('query', '-z', 'from M')).toBe('{k:0,a:1}\n');
    expect(await ok('query', '-z', 'from M@child')).toBe('{k:0,a:1}\n{k:1,b:1}\n');
    expect(await ok('merge', 'main')).toBe('"child": merged into branch "main"\n');
    expect(await ok('query', '-z', 'from M')).toBe('{k:0,a:1}\n{k:1,b:1}\n');
    await ok('use', '-q', '@main');
    expect(await fails('merge', 'child')).toBe(
      'merging the main branch into another branch is unusual; use -f to force\n',
    );
    expect(await fails('merge')).toBe('merge target branch must be given\n');
    expect(await fails('merge', 'a', 'b')).toBe('too many arguments\n');
  });

  test('revert, revert the revert, and time travel', async () => {
    await ok('create', '-q', 'R');
    await ok('use', '-q', 'R');
    const a = await load(writeTemp('{a:1}'));
    const b = await load(writeTemp('{b:1}'));
    const out = await ok('revert', a);
    const m = out.match(/^"main": (\w{27}) reverted in (\w{27})\n$/)!;
    expect(m[1]).toBe(a);
    expect(await ok('query', '-z', 'sort this')).toBe('{b:1}\n');
    expect(await ok('query', '-z', `from R@${b} | sort this`)).toBe('{a:1}\n{b:1}\n');
    expect(await ok('query', '-z', `from R@${a}`)).toBe('{a:1}\n');
    await ok('revert', '-q', m[2]);
    expect(await ok('query', '-z', 'sort this')).toBe('{a:1}\n{b:1}\n');
    // A commit as the working head: queries see it, the log marks it.
    await ok('use', '-q', `R@${a}`);
    expect(await ok('query', '-z', 'sort this')).toBe('{a:1}\n');
    expect(await ok('log')).toMatch(new RegExp(`^commit ${a} \\(HEAD\\)\n`));
    await ok('use', '-q', 'R@main');
    expect(await fails('use', 'R@27aaaaaaaaaaaaaaaaaaaaaaaaa')).toMatch(
      /^status code 404: .*not found\n$/,
    );
    expect(await ok('use')).toBe('HEAD at R@main\n');
    expect(await fails('revert')).toBe('commit ID must be specified\n');
    expect(await fails('revert', '-use', `R@${b}`, a)).toBe('branch must be named\n');
  });

  test('vacuum after a revert; the old commit can no longer be read', async () => {
    await ok('create', '-q', '-orderby', 'x:asc', 'V');
    await ok('use', '-q', 'V');
    await load(writeTemp('{x:1}'));
    const r = await load(writeTemp('{x:2}'));
    const rev = (await ok('revert', r)).split(' ').pop()!.trim();
    expect(await ok('vacuum', '-dryrun')).toBe('would vacuum 1 object\n');
    const asked = await zlake(['vacuum'], session.env(), 'no\n');
    expect(asked.stdout).toBe(
      'Are you sure you want to vacuum data objects from "V@main"? There is no going back... [y|n]\n',
    );
    expect(asked.stderr).toBe('operation canceled\n');
    expect(await ok('vacuum', '-f')).toBe('vacuumed 1 object\n');
    expect(await ok('vacuum', '-f')).toBe('vacuumed 0 objects\n');
    await ok('revert', '-q', rev);
    const gone = await zlake(['query', '-z', '*'], session.env());
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/does not exist|not found/);
  });

  test('log: the reference text, HEAD on the working branch', async () => {
    await ok('create', '-q', 'G');
    await ok('use', '-q', 'G');
    await load('-user', 'testuser', writeTemp('{x:1}'));
    await load('-user', 'testuser', writeTemp('{x:2}'));
    const commit = (head: string) =>
      `commit \\w{27}${head}\nAuthor: testuser\nDate:   [0-9TZ:\\-]+\n\n    loaded 1 data object\n\n    \\w{27} 1 record in 14 data bytes\n\n`;
    expect(await ok('log')).toMatch(new RegExp(`^${commit(' \\(HEAD -> main\\)')}${commit('')}$`));
    // -f zng gives records for tools.
    expect(await ok('log', '-f', 'zson', '-use', 'G')).toContain('(=lake.BranchTip)');
    expect(await fails('log', 'x')).toBe('no arguments allowed\n');
    expect(await fails('log', '-use', 'nosuch')).toMatch(/nosuch.*not found\n$/);
  });
});
