// Lake commands on a lake directory, without a server (`-lake DIR`, as the
// reference's lake scripts run): init, the lake's own error texts, many
// commands at once, and a directory a server owns.

import { zlakeBin, serveChild, Served } from '../../client/helpers';
import { runScript } from './scripts';

jest.setTimeout(240000);

let bin: string;
beforeAll(async () => {
  bin = await zlakeBin();
});

/** Runs a reference-style script with ZED_LAKE=test, a directory in the script's own. */
function script(text: string, files: Record<string, string> = {}) {
  return runScript(bin, text, { ZED_LAKE: 'test' }, files);
}

test('init, then the commands work on the directory (reference lake scripts)', async () => {
  const r = await script(
    `set -e
zed init
zed create -q -orderby x:asc p
zed load -q -use p 1.zson
zed query -z 'from p | sort x'
zed query 'from p | count()' | zed load -q -use p -
zed query -z 'from p | count()'
zed ls
`,
    { '1.zson': '{x:2}{x:1}' },
  );
  expect(r.stderr).toBe('');
  expect(r.stdout).toMatch(
    /^lake created: test\n\{x:1\}\n\{x:2\}\n3\(uint64\)\np \w{27} key x order asc\n$/,
  );
});

test("errors are the local lake's texts, without a status line", async () => {
  const r = await script(`
zed init -q
zed create -q p1
! zed create -q p1
! zed rename p2 p3
! zed drop -f p2
! zed use p1@nosuch
! zed delete -use p1 -q 27aaaaaaaaaaaaaaaaaaaaaaaaa
! zed delete -use p1 -where 'x > 1'
! zed query 'from nopool'
`);
  expect(r.stderr).toBe(
    [
      'p1: pool already exists',
      'p2: pool not found',
      'p2: pool not found',
      '"nosuch": branch not found',
      '27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found',
      'empty transaction',
      'nopool: pool not found',
      '',
    ].join('\n'),
  );
});

test('init refuses a lake that exists and a service URL; other commands need a lake', async () => {
  const r = await script(`
zed init -q
! zed init
! zed init -lake http://localhost:1
! zed ls -lake nolake
zed init -q other
zed ls -lake other
`);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(
    `file://${r.dir}/test: lake already exists\n` +
      'init command not valid on remote lake\n' +
      `file://${r.dir}/nolake: lake does not exist\n`,
  );
});

test('many commands at once on one directory: every load is kept', async () => {
  const r = await script(`set -e
zed init -q
zed create -q p
for i in $(seq 8); do echo "{n:$i}" | zed load -q -use p - & done
wait
zed query -z 'from p | sort n | yield n' | tr '\\n' ' '
`);
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('1 2 3 4 5 6 7 8 ');
});

describe('a directory that zlake serve owns', () => {
  let srv: Served;
  beforeAll(async () => {
    srv = await serveChild();
  });
  afterAll(async () => {
    await srv.close();
  });

  test('is refused, naming the server, and the served lake is untouched', async () => {
    const r = await runScript(
      bin,
      `
! zed create -q -lake "$LAKE_DIR" p
zed ls
`,
      { ZED_LAKE: srv.url, LAKE_DIR: `${srv.dir}/lake` },
    );
    expect(r.stderr).toMatch(
      new RegExp(
        `^file://${srv.dir}/lake: lake is in use by process \\d+ \\(a zlake serve\\?\\): give its URL with -lake\\n$`,
      ),
    );
    expect(r.stdout).toBe('');
  });
});
