// End to end: scripts written for the reference's `zed` client, with the
// command name changed to `zlake`, run by bash against `zlake serve` in a
// separate process. Each checks what the script prints.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { serveChild, Served, tempDir, zlakeBin, zlakeChild } from '../../client/helpers';
import { Run, runScript } from './scripts';

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

/** Runs a reference-style script (zed → zlake) against the shared server. */
function script(text: string, files: Record<string, string> = {}): Promise<Run> {
  return runScript(bin, text, { ZED_LAKE: srv.url }, files);
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
  expect(r.stderr).toBe(
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

describe('compaction and the meta-queries, as the reference scripts have them', () => {
  test('compact (compact.yaml): two loads become one sorted object, values unchanged', async () => {
    const r = await script(`set -e
zed create -q test
zed use -q test
seq 10 | zq '{ts:this-1,s:"val\${this-1}"}' - | zed load -q -
seq 10 | zq '{ts:this-1,s:"val\${this-1}"}' - | zed load -q -
before=$(zed query -z 'sort ts, s' | md5sum)
ids=$(zed query -f text 'from test@main:objects | yield "0x\${hex(id)}"')
zed compact $ids | sed 's/^\\w\\{27\\} /ID /'
zed query -f lake 'from test@main:objects' | sed 's/^\\w\\{27\\} [0-9]*B/ID NB/'
[ "$(zed query -z 'sort ts, s' | md5sum)" = "$before" ] && echo same values
zed log | sed -n 5p
! zed compact $(zed query -f text 'from test@main:objects | yield "0x\${hex(id)}"')
! zed compact 0x00
`);
    expect(r.stdout).toBe(
      'ID compaction committed\n' +
        'ID NB bytes 20 records\n   min 0 max 9\n' +
        'same values\n' +
        '    compacted 2 objects\n',
    );
    expect(r.stderr).toBe(
      'status code 400: compact: two or more source objects required\ninvalid ID: 0x00\n',
    );
    expect(r.code).toBe(0);
  });

  test('manage update (update.yaml): cold small objects are compacted into one', async () => {
    const r = await script(
      `set -e
zed create -S 10KB -q mgr
zed use -q mgr
for i in {1..10}; do
  seq 200 | zq '{ts:this}' - | zed load -q -
done
zed manage update -q -config manage.yaml -log.path manage.log
zed query -z 'from mgr@main:objects | drop id, size'
zq -z 'msg=="compaction completed" | cut runs_found, objects_compacted' manage.log
zq -z 'msg=="updating pool" name=="mgr" | cut branch, config' manage.log
zed manage update -config manage.yaml -log.path manage.log
zq -z 'msg=="compaction completed"' manage.log | wc -l
! zed manage update -config bad.yaml
zed manage 2>&1 | head -2
`,
      {
        'manage.yaml': 'compact:\n  cold_threshold: 0s\n',
        'bad.yaml': 'compact:\n  cold: 1s\n',
      },
    );
    expect(r.stdout).toBe(
      '{min:1,max:200,count:2000(uint64)}\n' +
        '{runs_found:1,objects_compacted:10}\n' +
        '{branch:"main",config:{compact:{enabled:true,cold_threshold:0},index:{enabled:false,cold_threshold:600,rules:[]([null])}}}\n' +
        // The second pass finds nothing to do and logs that at debug level only.
        '0\n' +
        'NAME\n    zlake manage - proper care and feeding of Zed lakes\n',
    );
    expect(r.stderr).toBe('bad.yaml: field cold not found in config\n');
    expect(r.code).toBe(0);
  });

  test('manage update leaves hot objects alone (the default cold threshold is 5m)', async () => {
    const r = await script(`set -e
zed create -q hot
for i in 1 2 3; do echo "{ts:$i}" | zed load -q -use hot -; done
zed manage update -log.path /dev/null
zed query -z 'from hot@main:objects | count()'
`);
    expect(r.stdout).toBe('3(uint64)\n');
  });

  test(':partitions groups overlapping objects (partitions.yaml)', async () => {
    const r = await script(`set -e
zed create -q -orderby k:asc parts
zed use -q parts
for v in '{k:1}' '{k:2}{k:3}' '{k:4}{k:5}' '{k:6}{k:8}' '{k:7}{k:12}' '{k:9}{k:11}' '{k:10}{k:13}'; do
  echo "$v" | zed load -q -
done
zed query -z "from parts" | tr '\\n' ' '
echo
zed query -z "from parts:partitions | over objects => (collect({min,max}))"
zed query -z "from parts:partitions | head 1 | yield nameof(this)"
`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      '{k:1} {k:2} {k:3} {k:4} {k:5} {k:6} {k:7} {k:8} {k:9} {k:10} {k:11} {k:12} {k:13} \n' +
        '[{min:1,max:1}]\n[{min:2,max:3}]\n[{min:4,max:5}]\n' +
        '[{min:6,max:8},{min:7,max:12},{min:9,max:11},{min:10,max:13}]\n' +
        '"meta.Partition"\n',
    );
  });

  test('a tapped :objects filter prunes by key span (pruner.yaml)', async () => {
    const r = await script(`set -e
zed create -q -orderby k:asc prune
zed use -q prune
seq 10 15 | zq '{k:this}' - | zed load -q -
seq 8 12 | zq '{k:this}' - | zed load -q -
seq 20 25 | zq '{k:this}' - | zed load -q -
seq 14 16 | zq '{k:this}' - | zed load -q -
for q in 'k > 18' 'k <= 10' 'k >= 15 and k < 20' 'k <= 9 or k > 24' 'a[k] == "foo" or k >= 20' 'a[k] == "foo" and k >= 20'; do
  zed query "from prune:objects tap | $q" | zq -z "drop id" -
  echo ===
done
zed query -z 'from prune:objects | max > 20 | cut min, max'
zed query -z 'from prune:partitions | max > 20 | cut min, max'
`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        '{min:20,max:25,count:6(uint64),size:34}',
        '===',
        '{min:8,max:12,count:5(uint64),size:30}',
        '{min:10,max:15,count:6(uint64),size:34}',
        '===',
        '{min:10,max:15,count:6(uint64),size:34}',
        '{min:14,max:16,count:3(uint64),size:22}',
        '===',
        '{min:8,max:12,count:5(uint64),size:30}',
        '{min:20,max:25,count:6(uint64),size:34}',
        '===',
        '{min:8,max:12,count:5(uint64),size:30}',
        '{min:10,max:15,count:6(uint64),size:34}',
        '{min:14,max:16,count:3(uint64),size:22}',
        '{min:20,max:25,count:6(uint64),size:34}',
        '===',
        '{min:20,max:25,count:6(uint64),size:34}',
        '===',
        '{min:20,max:25}',
        '{min:20,max:25}',
        '',
      ].join('\n'),
    );
  });

  test('meta-queries of an empty pool say nothing (meta-empty-pool.yaml); :rawlog lists commits', async () => {
    const r = await script(`set -e
zed create -q empty
zed log -use empty
for m in objects partitions rawlog vectors; do zed query "from empty@main:$m"; done
echo '{ts:1}' | zed load -q -use empty -
zed query -z 'from empty@main:rawlog | yield nameof(this)'
! zed query 'from empty@main:nosuch'
! zed query 'from :nosuch'
`);
    // A load's commit adds the columnar copy it wrote, too.
    expect(r.stdout).toBe('"commits.Commit"\n"commits.Add"\n"commits.AddVector"\n');
    expect(r.stderr).toBe(
      'status code 400: unknown metadata type "nosuch" in from operator\n' +
        'status code 400: unknown lake metadata type "nosuch" in from operator\n',
    );
  });

  test('vector add and delete (vector.yaml); a pool created with -vectors=false has none until added', async () => {
    const ref = await script(
      `set -e
zed create -q vpool
zed use -q vpool
zed load -q in.zson
id=$(zed query -f text 'from vpool@main:objects | yield ksuid(id)')
zed vector add -q $id
zed query -Z 'from vpool@main:vectors | drop id'
echo ===
zed vector delete -q $id
zed query -Z 'from vpool@main:vectors | drop id'
echo ===
zed create -q -vectors=false nvpool
echo '{x:1}' | zed load -q -use nvpool -
zed query -z 'from nvpool@main:vectors | count()' # nothing: no input
id=$(zed query -f text 'from nvpool@main:objects | yield ksuid(id)')
zed vector add -use nvpool $id | sed 's/^[0-9A-Za-z]\\{27\\}/ID/'
zed query -z 'from nvpool@main:vectors | count()'
zed vector delete -use nvpool $id | sed 's/^[0-9A-Za-z]\\{27\\}/ID/'
! zed vector delete -use nvpool $id 2>&1 | sed 's/[0-9A-Za-z]\\{27\\}/ID/'
! zed vector nosuch
`,
      { 'in.zson': '{x:1}\n{s:"hello",a:[1,2,3]}\n{s:"world",a:[3,4,5]}\n{x:2}\n{x:3,y:4}\n' },
    );
    expect(ref.stderr).toBe(
      '"zlake vector": no such sub-command "nosuch": options are: add delete\n',
    );
    expect(ref.stdout).toBe(
      [
        '{',
        '    min: null,',
        '    max: null,',
        '    count: 5 (uint64),',
        '    size: 72',
        '}',
        '===',
        '===',
        'ID vectors added',
        '1(uint64)',
        'ID vectors deleted',
        'status code 400: vector ID does not exist: vector delete operation aborted',
        '',
      ].join('\n'),
    );
  });

  // Pool names of their own: the server is shared with the tests above.
  test("the reference service's texts: unknown pools and branches, no lake location", async () => {
    const r = await script(`
zed create -q t1
zed create -q t2
zed rename t2 t3 | sed 's/\\w\\{27\\}/ID/'
zed drop -f t1
! zed rename t1 t4
! zed drop -f t1
! zed use t3@branch
zed ls -lake ''
`);
    expect(r.stdout).toBe('pool ID renamed from t2 to t3\npool deleted: t1\n');
    expect(r.stderr).toBe(
      '"t1": pool not found\n' +
        '"t1": pool not found\n' +
        'branch not found\n' +
        'lake location must be set (either with the -lake flag or ZED_LAKE environment variable)\n',
    );
  });
});
