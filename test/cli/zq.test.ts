// zlake zq end to end: the built command on real files and stdin.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const root = join(__dirname, '..', '..');
const bin = join(root, 'bin', 'zlake.js');
const samples = join(root, '..', 'shared', 'sample-data');
const sample = (dir: string, name: string) =>
  gunzipSync(readFileSync(join(samples, dir, name + '.gz')));

function zq(args: string[], input?: Buffer | string): { out: Buffer; err: string; code: number } {
  const r = spawnSync('node', [bin, 'zq', ...args], { input, maxBuffer: 1 << 28 });
  return { out: r.stdout, err: r.stderr.toString(), code: r.status ?? -1 };
}

const tmp = mkdtempSync(join(tmpdir(), 'zq-test-'));

describe('zlake zq conversions', () => {
  test('compressed ZNG file → pretty ZSON is the reference output', () => {
    const file = join(tmp, 'ftp.zng');
    writeFileSync(file, sample('zng', 'ftp.zng'));
    const r = zq(['-Z', file]);
    expect(r.err).toBe('');
    expect(r.out.equals(sample('zson', 'ftp.zson'))).toBe(true);
  });

  test('gzipped ZSON on stdin → uncompressed ZNG is the reference output', () => {
    const r = zq(
      ['-f', 'zng', '-zng.compress=false', '-'],
      readFileSync(join(samples, 'zson', 'kerberos.zson.gz')),
    );
    expect(r.out.equals(sample('zng-uncompressed', 'kerberos.zng'))).toBe(true);
  });

  test('Zeek log → -z gives one value per line, -o writes a file', () => {
    const log = join(tmp, 'dpd.log');
    writeFileSync(log, sample('zeek-default', 'dpd.log'));
    const out = join(tmp, 'dpd.zson');
    const r = zq(['-z', '-o', out, log]);
    expect(r.code).toBe(0);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines.length).toBe(77);
    expect(lines[0]).toMatch(/^\{_path:"dpd",ts:2018-03-24T17:15:21\.155638Z,/);
  });

  test('-j writes NDJSON and -pretty 0 -f zson equals -z', () => {
    expect(zq(['-j', '-'], '{a:1,b:"x"}').out.toString()).toBe('{"a":1,"b":"x"}\n');
    expect(zq(['-f', 'zson', '-pretty', '0', '-'], '{a:[1,2]}').out.toString()).toBe('{a:[1,2]}\n');
  });

  test('several inputs of different formats stream into one output', () => {
    const csv = join(tmp, 'a.csv');
    const json = join(tmp, 'b.json');
    writeFileSync(csv, 'a,b\n1,foo\n2,bar\n');
    writeFileSync(json, '{"a":3,"b":"baz"}');
    expect(zq(['-z', csv, json]).out.toString()).toBe(
      '{a:1.,b:"foo"}\n{a:2.,b:"bar"}\n{a:3,b:"baz"}\n',
    );
  });

  test('bad input and bad flags fail with a message, not a crash', () => {
    const r = zq(['-z', '-'], 'garbage {{{');
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/^format detection error/);
    const f = zq(['-nosuchflag', '-']);
    expect(f.code).toBe(2);
    expect(f.err).toMatch(/flag provided but not defined: -nosuchflag/);
    const m = zq(['-z', join(tmp, 'missing.zng')]);
    expect(m.code).not.toBe(0);
  });
});

test('zlake with no command prints the help (on stderr, exit 0, as the reference)', () => {
  const r = spawnSync('node', [bin], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^NAME\n {4}zlake - run Zed commands\n\nUSAGE\n {4}zlake <command>/);
  // Every command is listed with its one-line description.
  for (const cmd of [
    'compact - compact data objects',
    'manage - proper care',
    'serve - ',
    'zq - ',
  ]) {
    expect(r.stderr).toContain(`\n    ${cmd}`);
  }
  expect(r.stderr).toMatch(/\nOPTIONS\n( {4}-\S+ .*\n)+\nCOMMANDS\n/);
});
