// What every lake command shares: the lake location, root flags before
// the command name, flag errors, help, version and status, and transport
// errors worded as the reference's client words them.

import * as path from 'node:path';
import { lakeSession, zlake } from '../../client/helpers';

const session = lakeSession();
const srv = {
  get url() {
    return session.srv().url;
  },
};

test('the lake location: -lake over ZED_LAKE, a trailing slash dropped, empty is an error', async () => {
  let r = await zlake(['create', 'where1'], { ...session.env(), ZED_LAKE: srv.url + '/' });
  expect(r.stdout).toMatch(/^pool created: where1 \w{27}\n$/);
  r = await zlake(['ls', '-lake', srv.url], { ZED_LAKE: 'http://127.0.0.1:1' });
  expect(r.stdout).toMatch(/^where1 /m);
  r = await zlake(['ls', '-lake', ''], session.env());
  expect(r).toEqual({
    code: 1,
    stdout: '',
    stderr:
      'lake location must be set (either with the -lake flag or ZED_LAKE environment variable)\n',
  });
  r = await zlake(['ls'], { ...session.env(), ZED_LAKE: './lakedir' });
  expect(r.code).toBe(1);
  // A storage path is a lake the command opens itself (test/cli/lake/local.test.ts).
  expect(r.stderr).toBe(`file://${path.resolve('./lakedir')}: lake does not exist\n`);
});

test('a service that is not there: Go url.Error text', async () => {
  const r = await zlake(['drop', '-lake', 'http://127.0.0.1:1', 'p3'], session.env());
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(
    'Post "http://127.0.0.1:1/query?ctrl=T": dial tcp 127.0.0.1:1: connect: connection refused\n',
  );
  const s = await zlake(['status', '-lake', 'http://127.0.0.1:1'], session.env());
  expect(s.code).toBe(1);
  expect(s.stderr).toBe(
    'Get "http://127.0.0.1:1/status": dial tcp 127.0.0.1:1: connect: connection refused\n',
  );
});

test('root flags may come before the command name', async () => {
  let r = await zlake(['-lake', srv.url, '-q', 'create', 'root1'], {});
  expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
  r = await zlake(['-lake=' + srv.url, 'ls'], {});
  expect(r.stdout).toMatch(/^root1 \w{27} key ts order desc$/m);
  r = await zlake(['-lake', srv.url, '-nosuch', 'ls'], {});
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/^flag provided but not defined: -nosuch\n/);
  // Flags and no command: the help, as the reference's charm gives it.
  r = await zlake(['-lake', srv.url], {});
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/^NAME\n {4}zlake - run Zed commands\n\nUSAGE\n/);
  r = await zlake(['-q', 'nosuchcommand'], {});
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(
    /^"zlake": no such sub-command "nosuchcommand": options are: auth branch compact create .* zq\n$/,
  );
});

test('flag errors, as Go and charm report them', async () => {
  const r = await zlake(['create', '-x', 'p'], session.env());
  expect(r).toEqual({
    code: 1,
    stdout: '',
    stderr:
      'flag provided but not defined: -x\nat flag: "-x p": flag provided but not defined: -x\n',
  });
  const b = await zlake(['vacuum', '-dryrun=maybe'], session.env());
  expect(b.code).toBe(1);
  expect(b.stderr).toMatch(/^invalid boolean value "maybe" for -dryrun\n/);
});

test('-h prints help on stderr; hidden flags need -hidden', async () => {
  const r = await zlake(['create', '-h'], session.env());
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(
    /^NAME\n {4}zlake create - create a new data pool\n\nUSAGE\n {4}zlake create /,
  );
  expect(r.stderr).toContain('    -orderby ');
  expect(r.stderr).not.toContain('-seekstride');
  expect((await zlake(['create', '-hidden'], session.env())).stderr).toContain('-seekstride');
});

test('version and status', async () => {
  expect(await zlake(['-version'], {})).toEqual({
    code: 0,
    stdout: expect.stringMatching(/^Version: v\d+\.\d+\.\d+\n$/),
    stderr: '',
  });
  expect((await zlake(['version'], {})).stdout).toMatch(/^Version: v\d/);
  expect((await zlake(['ls', '-version'], session.env())).stdout).toMatch(/^Version: v\d/);
  const s = await zlake(['status'], session.env());
  expect(s.stdout).toBe(`${srv.url}: ok, version ${s.stdout.split(' ').pop()}`);
  expect(s.stdout).toMatch(/: ok, version v\d/);
});
