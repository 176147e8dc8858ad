// End to end: scripts written for the reference's `zed` client, with the
// command name changed to `zlake`, run by bash against `zlake serve` in a
// separate process. Each checks what the script prints.

import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { serveChild, Served, tempDir, zlakeBin, zlakeChild } from '../../client/helpers';

// Many processes on a busy machine: allow time.
jest.setTimeout(240000);

let srv: Served;
let bin: string;

beforeAll(async () => {
  [srv, bin] = await Promise.all([serveChild(), zlakeBin()]);
});

afterAll(async () => {
  await srv.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a reference-style script (zed → zlake) in a new directory with the given files. */
async function script(text: string, files: Record<string, string> = {}): Promise<Run> {
  const dir = tempDir('zlake-script-');
  for (const [name, data] of Object.entries(files)) await fsp.writeFile(path.join(dir, name), data);
  const body = text.replace(/\bzed /g, 'zlake ');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', body], {
      cwd: dir,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        ZED_LAKE: srv.url,
        ZED_HEAD_DIR: dir,
        ZED_USER: 'testuser',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

test('load, query, delete by ID and by filter (delete.yaml, delete-where.yaml)', async () => {
  const r = await script(
    `set -e
zed create -q -orderby x:desc del
zed use -q del
zed load -q 1.zson
id=$(zed query -f lake "from del@main:objects" | head -1 | awk '{print $1}')
zed load -q 2.zson
zed query -z "*"
echo ===; echo === >&2
zed delete -q $id
zed query -z "*"
echo ===; echo === >&2
! zed delete -q 27aaaaaaaaaaaaaaaaaaaaaaaaa
seq 10 | awk '{print "{x:"$1"}"}' | zed load -q -
zed delete -q -where 'x > 7'
zed query -z "*" | tr '\\n' ' '
echo
`,
    { '1.zson': '{x:1}', '2.zson': '{x:2}' },
  );
  expect(r.stderr).toBe(
    '===\n===\nstatus code 404: 27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found\n',
  );
  expect(r.stdout).toBe(
    '{x:2}\n{x:1}\n===\n{x:2}\n===\n{x:7} {x:6} {x:5} {x:4} {x:3} {x:2} {x:2} {x:1} \n',
  );
  expect(r.code).toBe(0);
});

test('branch, merge, revert and time travel (merge.yaml, revert.yaml, time-travel.yaml)', async () => {
  const r = await script(
    `set -e
zed create -q POOL
zed load -q -use POOL a.zson
zed branch -q -use POOL child
zed load -q -use POOL@child b.zson
zed query -z "from POOL | sort this"
echo ===
zed merge -q -use POOL@child main
zed query -z "from POOL | sort this"
echo ===
zed create -q rev
a=$(zed load -use rev a.zson | head -1 | awk '{print $1}')
b=$(zed load -use rev b.zson | head -1 | awk '{print $1}')
r=$(zed revert -use rev $a | awk '{print $5}')
zed query -z "from rev | sort this"
echo === AT b
zed query -z "from rev@$b | sort this"
zed revert -q -use rev $r
echo ===
zed query -z "from rev | sort this"
`,
    { 'a.zson': '{a:1}', 'b.zson': '{b:1}' },
  );
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe(
    '{a:1}\n===\n{a:1}\n{b:1}\n===\n{b:1}\n=== AT b\n{a:1}\n{b:1}\n===\n{a:1}\n{b:1}\n',
  );
});

test('vacuum (vacuum.yaml): then the reverted-away data is gone for good', async () => {
  const r = await script(`
zed create -q -orderby x:asc vac
zed use -q vac
echo {x:1} | zed load -q -
r=$(echo {x:2} | zed load - | head -1 | awk '{print $1}')
r=$(zed revert $r | awk '{print $5}')
zed vacuum -dryrun
zed vacuum -f
zed revert -q $r
! zed query -z '*'
`);
  expect(r.stdout).toBe('would vacuum 1 object\nvacuumed 1 object\n');
  expect(r.stderr).toMatch(/does not exist|not found/);
  expect(r.code).toBe(0);
});

test('log (log.yaml) and ls (ls-pools.yaml)', async () => {
  const r = await script(
    `set -e
zed create p1
zed create p2
zed ls | grep -E '^p[12] ' | sort
echo ===
zed use -q p1
zed load -user testuser -q 1.zson
zed load -user testuser -q 2.zson
zed log
`,
    { '1.zson': '{x:1}\n', '2.zson': '{x:2}\n' },
  );
  expect(r.stderr).toBe('');
  const commit = (head: string) =>
    `commit \\w{27}${head}\nAuthor: testuser\nDate:   [0-9TZ:\\-]+\n\n    loaded 1 data object\n\n    \\w{27} 1 record in 14 data bytes\n\n`;
  expect(r.stdout).toMatch(
    new RegExp(
      '^pool created: p1 \\w{27}\npool created: p2 \\w{27}\n' +
        'p1 \\w{27} key ts order desc\np2 \\w{27} key ts order desc\n===\n' +
        commit(' \\(HEAD -> main\\)') +
        commit('') +
        '$',
    ),
  );
});

test('errors (load-empty, load-garbage, query-error-nopool, drop.yaml)', async () => {
  const r = await script(`
zed create -q errs
echo -n | zed load -q -use errs -
echo 'This file contains no records.' | zed load -q -use errs -
zed query "from doesnotexit"
zed drop -f errs
zed drop errs
zed drop -lake http://127.0.0.1:1 p3
echo done
`);
  expect(r.stdout).toBe('pool deleted: errs\ndone\n');
  // (zlake's ZNG reader words the zng line differently: not checked here.)
  expect(r.stderr.replace(/\tzng: [^\n]*\n/, '\tzng: malformed zng record\n')).toBe(
    'status code 400: no records in request\n' +
      'stdio:stdin: format detection error\n' +
      '\tarrows: schema message length exceeds 1 MiB\n' +
      '\tcsv: line 1: no comma found\n' +
      "\tjson: invalid character 'T' looking for beginning of value\n" +
      '\tline: auto-detection not supported\n' +
      '\tparquet: auto-detection requires seekable input\n' +
      '\tvng: auto-detection requires seekable input\n' +
      '\tzeek: line 1: bad types/fields definition in zeek header\n' +
      '\tzjson: line 1: malformed ZJSON: bad type object: "This file contains no records.": unpacker error parsing JSON: invalid character \'T\' looking for beginning of value\n' +
      '\tzng: malformed zng record\n' +
      '\tzson: ZSON syntax error\n' +
      'status code 400: no records in request\n' +
      'status code 404: doesnotexit: pool not found\n' +
      '"errs": pool not found\n' +
      'Post "http://127.0.0.1:1/query?ctrl=T": dial tcp 127.0.0.1:1: connect: connection refused\n',
  );
});

test('a query cut short by its reader exits quietly', async () => {
  const r = await script(`set -o pipefail
zed create -q big
seq 200000 | zed load -q -use big -
zed query -z 'from big' | head -2
echo "status $?"
`);
  expect(r.stderr).toBe('');
  expect(r.stdout).toMatch(/^\d+\n\d+\nstatus (0|141)\n$/);
});

test('load shows progress on stderr when asked (-progress), and none otherwise', async () => {
  const env = { ZED_LAKE: srv.url, ZED_HEAD_DIR: tempDir('zlake-head-') };
  await zlakeChild(['create', '-q', 'prog'], { env });
  const input = Array.from({ length: 50000 }, (_, i) => `{n:${i},s:"${'x'.repeat(50)}"}`).join(
    '\n',
  );
  const file = path.join(tempDir('zlake-prog-'), 'in.zson');
  await fsp.writeFile(file, input);
  const size = Buffer.byteLength(input);
  let r = await zlakeChild(['load', '-use', 'prog', '-progress', file], { env });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^\w{27} committed\n$/);
  // The last update shows the whole file read.
  const last = r.stderr.split('\u001b[1A\u001b[2K').pop()!;
  const m = last.match(/^\(1\/1\) (\S+)\/(\S+) \S+\/s 100\.00%\n$/)!;
  expect(m[1]).toBe(m[2]);
  expect(m[1]).toBe(`${(size / 1e6).toFixed(2)}MB`);
  // From stdin the total is unknown.
  r = await zlakeChild(['load', '-use', 'prog', '-progress', '-'], { env, stdin: input });
  expect(r.stderr.split('\u001b[1A\u001b[2K').pop()).toBe(
    `(1/1) ${(size / 1e6).toFixed(2)}MB ${r.stderr.split(' ').pop()!.trim().replace(/\/s$/, '')}/s\n`,
  );
  // Not a terminal, not asked: nothing; -q: nothing.
  r = await zlakeChild(['load', '-use', 'prog', file], { env });
  expect(r.stderr).toBe('');
  r = await zlakeChild(['load', '-q', '-progress', '-use', 'prog', file], { env });
  expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
});
