// End to end: the reference's index scripts (service/ztests/index,
// lake/ztests/index, merge-index.yaml, revert-index.yaml, the index part
// of meta.yaml and of `zed manage`) run by bash with zlake as `zed`,
// each against a lake service of its own (index rules are lake-wide).

import { serveInProcess, Served, zlakeBin } from '../../client/helpers';
import { Run, runScript } from './scripts';

// Many processes on a busy machine: allow time.
jest.setTimeout(240000);

let bin: string;
let srv: Served;

beforeAll(async () => {
  bin = await zlakeBin();
});

beforeEach(async () => {
  srv = await serveInProcess();
});

afterEach(async () => {
  await srv.close();
});

function script(text: string, files: Record<string, string> = {}): Promise<Run> {
  return runScript(bin, `set -e\n${text}`, { ZED_LAKE: srv.url }, files);
}

const ID = /[0-9a-zA-Z]{27}/;

/** The reference's query over rules and index objects (apply.yaml, update.yaml). */
const RULES_BY_OBJECTS = `from (
  pool :index_rules => sort id
  pool test@main:indexes => sort rule.id | cut o:=this
)
| left join on id = o.rule.id o
| count(o) by name, fields
| sort name
`;

test('create, ls, query-rules (ls.yaml, query-rules.yaml)', async () => {
  const r = await script(`zed index create -q indexA type ip field a.b
zed index create -q indexB agg 'count() by bar'
zed index create -q indexB field c
zed index ls
echo ===
zed index create -q IPs type ip
zed index create -q foo.bar field foo.bar
zed index create -q duration.sum agg 'sum(duration)'
zed query -z 'from :index_rules | name!="indexA" and name!="indexB" | sort name | drop id, ts'
`);
  expect(r.stderr).toBe('');
  const [ls, rules] = r.stdout.split('===\n');
  expect(ls).toMatch(
    new RegExp(
      `^indexA\n    rule ${ID.source} type ip\n    rule ${ID.source} field a\\.b\n` +
        `indexB\n    rule ${ID.source} agg "count\\(\\) by bar"\n    rule ${ID.source} field c\n$`,
    ),
  );
  expect(rules).toBe(
    '{name:"IPs",type:"ip"}\n' +
      '{name:"duration.sum",script:"sum(duration)"}\n' +
      '{name:"foo.bar",fields:[["foo","bar"](=field.Path)](=field.List)}\n',
  );
});

test('create-duplicate.yaml: the rule is printed, the duplicate refused', async () => {
  const r = await script(`zed index create IPs type ip
! zed index create IPs type ip
`);
  expect(r.stdout).toMatch(new RegExp(`^IPs\n    rule ${ID.source} type ip\n$`));
  expect(r.stderr).toBe('status code 409: index rule already exists\n');
});

test('drop.yaml: drop by the 0x form of a rule ID', async () => {
  const r = await script(`zed index -q create IPs type ip
zed index -q create DropMe field DropMe
id=$(zed query -f text 'from :index_rules | name == "DropMe" | cut id:=hex(id)')
zed index drop 0x$id
echo ===
zed index ls
echo ===
zed query -z 'from :index_rules | drop id, ts'
`);
  expect(r.stderr).toBe('');
  expect(r.stdout).toMatch(
    new RegExp(
      `^${ID.source} dropped from rule "DropMe"\n===\nIPs\n    rule ${ID.source} type ip\n===\n\\{name:"IPs",type:"ip"\\}\n$`,
    ),
  );
});

test('apply.yaml: apply -r to an object; rules that match no field still index it', async () => {
  const r = await script(
    `zed create -q test
zed use -q test
id=$(zed load in.zson | awk '{print $1}')
zed index create -q paths field _path
zed index create -q srcip field srcip
zed index apply -r srcip -r paths $id | sed -E 's/[0-9a-zA-Z]{27}/xxx/'
echo ===
zed query -z -I query.zed
`,
    { 'in.zson': '{x:127.0.0.1}\n{x:127.0.0.2}\n', 'query.zed': RULES_BY_OBJECTS },
  );
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe(
    'xxx committed\n===\n' +
      '{name:"paths",fields:[["_path"](=field.Path)](=field.List),count:1(uint64)}\n' +
      '{name:"srcip",fields:[["srcip"](=field.Path)](=field.List),count:1(uint64)}\n',
  );
});

test('update.yaml: index update with -use indexes every object', async () => {
  const r = await script(
    `zed create -q test
zed index create -q foo field foo
zed index create -q bar field bar
zed load -q -use test 1.zson
zed load -q -use test 2.zson
zed load -q -use test 3.zson
zed index update -q -use test
zed query -z -I query.zed
`,
    {
      '1.zson': '{foo:1,bar:1}',
      '2.zson': '{foo:2,bar:2}',
      '3.zson': '{foo:3,bar:3}',
      'query.zed': RULES_BY_OBJECTS,
    },
  );
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe(
    '{name:"bar",fields:[["bar"](=field.Path)](=field.List),count:3(uint64)}\n' +
      '{name:"foo",fields:[["foo"](=field.Path)](=field.List),count:3(uint64)}\n',
  );
});

test('curl-apply.yaml: the endpoint with rule IDs and tags', async () => {
  const r = await script(
    `zed create -q test
zed index create -q values field value
ruleid=$(zed query -z "from :index_rules | yield under(id)")
id=$(zed load -use test in.zson | awk '{print $1}')
curl -s -d "{\\"rules\\":[\\"$ruleid\\"],\\"tags\\": [\\"$id\\"]}" \\
     $ZED_LAKE/pool/test/branch/main/index > /dev/null
zed query -z 'from test@main:indexes | count()'
`,
    { 'in.zson': '{ts:0,value:"v1"}' },
  );
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('1(uint64)\n');
});

test('merge-index.yaml and revert-index.yaml: indexes follow merges and reverts', async () => {
  const merged = await script(
    `zed create -q test
zed load -q -use test in.zson
zed branch -q -use test index-test
zed index create -q x field x
zed index update -q -use test@index-test
zed merge -q -use test@index-test main
zed query -z "from test@main:indexes | count() by name:=rule.name"
`,
    { 'in.zson': '{x:"field1"}\n{x:"field2"}\n{x:"field3"}\n{x:"field4"}\n' },
  );
  expect(merged.stderr).toBe('');
  expect(merged.stdout).toBe('{name:"x",count:1(uint64)}\n');

  await srv.close();
  srv = await serveInProcess();
  const reverted = await script(
    `zed create -q test
zed use -q test
zed load -q in.zson
zed index create -q IPs type ip
zed index create -q Ys field y
a=$(zed index update | awk '{print $1}')
zed query -z -I query.zed
echo ===
r=$(zed revert $a | awk '{print $5}')
zed query -z -I query.zed
echo ===
zed revert -q $r
zed query -z -I query.zed
`,
    {
      'in.zson': '{x:127.0.0.1,y:1}\n{x:127.0.0.2,y:2}\n',
      'query.zed': 'from test@main:indexes | count() by name:=rule.name | sort name',
    },
  );
  expect(reverted.stderr).toBe('');
  const both = '{name:"IPs",count:1(uint64)}\n{name:"Ys",count:1(uint64)}\n';
  expect(reverted.stdout).toBe(`${both}===\n===\n${both}`);
});

test('query.yaml: after index update, searches read only the objects that match', async () => {
  const r = await script(
    `zed create -q test
zed use -q test
zed index create -q s field s
zed load -q 1.zson
zed load -q 2.zson
zed load -q 3.zson
zed index update -q
zed query -z -s 's==127.0.0.1'
zed query -z -s 's==1'
zed query -z -s 's=="hello"'
zed query -z -s 's=="hello" or s==1 or s==127.0.0.1 | count()'
zed query -z -s 's=="missing"'
`,
    { '1.zson': '{s:127.0.0.1}', '2.zson': '{s:1}', '3.zson': '{s:"hello"}' },
  );
  // The reference's expected output (its test is skipped there).
  expect(r.stdout).toBe('{s:127.0.0.1}\n{s:1}\n{s:"hello"}\n3(uint64)\n');
  expect(r.stderr).toBe(
    '{bytes_read:5,bytes_matched:5,records_read:1,records_matched:1}\n' +
      '{bytes_read:2,bytes_matched:2,records_read:1,records_matched:1}\n' +
      '{bytes_read:6,bytes_matched:6,records_read:1,records_matched:1}\n' +
      '{bytes_read:13,bytes_matched:13,records_read:3,records_matched:3}\n' +
      '{bytes_read:0,bytes_matched:0,records_read:0,records_matched:0}\n',
  );
});

test('meta.yaml: the rule records are index.FieldRule', async () => {
  const r = await script(`zed index create -q Rule field a
zed query -Z 'from :index_rules | nameof:=nameof(this) | drop ts,id'
`);
  expect(r.stdout).toBe(`{
    name: "Rule",
    fields: [
        [
            "a"
        ] (=field.Path)
    ] (=field.List),
    nameof: "index.FieldRule"
}
`);
});

test('manage index.yaml and config.yaml: rules from the config, indexes for cold objects', async () => {
  const r = await script(
    `zed create -S 10KB -q test
zed use -q test
zed index create -q values field value
for i in {1..10}; do
  seq 200 | zq '{ts:this,value:"\${this}"}' - | zed load -q -
done
zed manage update -q -config manage.yaml -log.path=manage.log
zed query -z 'from test@main:indexes | count()'
zed index create -q foo field foo
zed index create -q bar field bar
zed create -q test1
zed create -q test2
zed branch -use test2 -q live
zed manage update -config=inherit.yaml -log.path=inherit.log
zq -z 'msg == "updating pool" | name=="test1" or name=="test2" | cut name, branch, config | sort name' inherit.log
! zed manage update -config=dupe-rules-error.yaml
`,
    {
      'manage.yaml':
        'compact:\n  disabled: true\nindex:\n  cold_threshold: 0s\n  rules: ["values"]\n',
      'inherit.yaml': `compact:
  cold_threshold: 1s
index:
  cold_threshold: 1s
  rules: ["foo"]
pools:
  - pool: test1
    compact:
      cold_threshold: 2s
    index:
      inherit_rules: true
      rules: ["bar"]
  - pool: test2
    branch: "live"
    index:
      rules: ["bar", "bar"]
`,
      'dupe-rules-error.yaml':
        'pools:\n  - pool: test1\n    index:\n      rules: ["doesnotexist"]\n',
    },
  );
  expect(r.stdout).toBe(
    '10(uint64)\n' +
      '{name:"test1",branch:"main",config:{compact:{enabled:true,cold_threshold:2},index:{enabled:true,cold_threshold:1,rules:["bar","foo"]}}}\n' +
      '{name:"test2",branch:"live",config:{compact:{enabled:true,cold_threshold:1},index:{enabled:true,cold_threshold:1,rules:["bar"]}}}\n',
  );
  expect(r.stderr).toBe('could not find index rule "doesnotexist"\n');
});

test('bad input: the reference texts', async () => {
  const r = await script(
    `zed create -q test
zed use -q test
id=$(zed load in.zson | awk '{print $1}')
zed index create -q values field value
! zed index apply $id
! zed index apply -r values
! zed index apply -r "" $id
! zed index apply -r nope $id
! zed index apply -r values 27aaaaaaaaaaaaaaaaaaaaaaaaa
! zed index apply -r values notanid
! zed index create onlyname
! zed index create x field
! zed index create x bogus y
! zed index drop
! zed index drop 27aaaaaaaaaaaaaaaaaaaaaaaaa
! zed index bogus
zed index update -q
! zed index update
zed query -z 'from test@main:indexes | count()'
`,
    { 'in.zson': '{value:1}' },
  );
  expect(r.stdout).toBe('1(uint64)\n');
  expect(r.stderr).toBe(
    [
      'index apply: at least one index rule must be specified (use the -r flag)',
      'index apply: one or more object IDs must be provided as arguments',
      'invalid value "" for flag -r: rule cannot be an empty string',
      'status code 404: rule "nope" not found',
      'status code 404: 27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found',
      'invalid ID: notanid',
      'a rule name and at least one index pattern must be specified',
      'field index rule requires field(s) argument',
      'unknown index rule type: "bogus"',
      'must specify one or more index tags',
      'status code 404: index 27aaaaaaaaaaaaaaaaaaaaaaaaa not found',
      '"zlake index": no such sub-command "bogus": options are: apply create drop ls update',
      'status code 400: empty transaction',
      '',
    ].join('\n'),
  );
});
