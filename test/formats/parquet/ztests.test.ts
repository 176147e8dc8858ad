// The reference's zio/parquetio ztests, ported. read/combine/write-zng use
// the reference's own conn.parquet and dns.parquet (written by Apache NiFi),
// taken from the reference mirror when it is on this machine.

import { execFileSync } from 'child_process';
import * as fs from 'fs';
import { TypeContext } from '../../../src/zed/context';
import { parquetFormat } from '../../../src/formats/parquet';
import { zngFormat } from '../../../src/formats/zng';
import { decode, encode, errorOf, toZson, zson } from '../arrow/zio';

const MIRROR = '/work/.mirror/brimdata+zed/repo';

function referenceFile(path: string): Buffer | undefined {
  if (!fs.existsSync(MIRROR)) return undefined;
  return execFileSync('git', ['-C', MIRROR, 'show', `v1.8.0:${path}`], { maxBuffer: 1 << 26 });
}

function referenceZtest(path: string): string {
  return referenceFile(path)!.toString('utf8');
}

/** The `data` block of the stdout output in a ztest's YAML. */
function expectedStdout(yaml: string): string {
  const m = /- name: stdout\n\s+data: \|\n((?:\s{6}.*\n?)+)/.exec(yaml);
  return m![1]
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => l.slice(6))
    .join('\n')
    .concat('\n');
}

const haveMirror = fs.existsSync(MIRROR);
const withMirror = haveMirror ? test : test.skip;

const typesInput = `{
    u8: 8 (uint8),
    u16: 16 (uint16),
    u32: 32 (uint32),
    u64: 64,
    i8: -8 (int8),
    i16: -16 (int16),
    i32: -32 (int32),
    i64: -64,
    tim: 1970-01-01T00:00:00Z,
    f32: 32. (float32),
    f64: 64.,
    boo: false,
    byt: 0x01020304,
    str: "1234",
    ip: 1.2.3.4,
    net: 5.6.7.0/24,
    typ: <int8>,
    err: error("err"),
    rec: {a:1},
} (=0)
{
    u8: null,
    u16: null,
    u32: null,
    u64: null,
    i8: null,
    i16: null,
    i32: null,
    i64: null,
    tim: null,
    f32: null,
    f64: null,
    boo: null,
    byt: null,
    str: null,
    ip: null,
    net: null,
    typ: null,
    err: null,
    rec: null,
} (0)
`;

const typesOutput = `{
    u8: 8 (uint8),
    u16: 16 (uint16),
    u32: 32 (uint32),
    u64: 64,
    i8: -8 (int8),
    i16: -16 (int16),
    i32: -32 (int32),
    i64: -64,
    tim: 1970-01-01T00:00:00Z,
    f32: 32. (float32),
    f64: 64.,
    boo: false,
    byt: 0x01020304,
    str: "1234",
    ip: "1.2.3.4",
    net: "5.6.7.0/24",
    typ: "int8",
    err: "error(\\"err\\")",
    rec: {
        a: 1
    }
}
{
    u8: null (uint8),
    u16: null (uint16),
    u32: null (uint32),
    u64: null (int64),
    i8: null (int8),
    i16: null (int16),
    i32: null (int32),
    i64: null (int64),
    tim: null (time),
    f32: null (float32),
    f64: null (float64),
    boo: null (bool),
    byt: null (bytes),
    str: null (string),
    ip: null (string),
    net: null (string),
    typ: null (string),
    err: null (string),
    rec: null ({a:int64})
}
`;

describe('parquetio ztests', () => {
  test('types: every Zed type Parquet carries, and how it reads back', async () => {
    const bytes = await encode(parquetFormat, zson(typesInput));
    expect(await toZson(await decode(parquetFormat, bytes), 4)).toBe(typesOutput);
  });

  test('non-record', async () => {
    expect(await errorOf(encode(parquetFormat, zson('1\n2\n')))).toBe('parquetio: not a record: 1');
  });

  test('writer-errors', async () => {
    const cases: [string, string][] = [
      [
        '{a:1} {b:2}',
        "parquetio: encountered multiple types (consider 'fuse'): {a:int64} and {b:int64}",
      ],
      ['1', 'parquetio: not a record: 1'],
      ['{}', 'parquetio: unsupported type: empty record'],
      ['{a:1s}', 'parquetio: unsupported type: not implemented yet'],
      ['{a:1.(float16)}', 'parquetio: unsupported type: not implemented yet'],
    ];
    for (const [input, msg] of cases) {
      expect(await errorOf(encode(parquetFormat, zson(input)))).toBe(msg);
    }
  });

  withMirror('read: a NiFi-written conn.parquet', async () => {
    const conn = referenceFile('zio/parquetio/ztests/conn.parquet')!;
    const want = expectedStdout(referenceZtest('zio/parquetio/ztests/read.yaml'));
    expect(await toZson(await decode(parquetFormat, conn), 0)).toBe(want);
  });

  withMirror('combine: two files with different schemas share a type context', async () => {
    const ctx = new TypeContext();
    const vals = [
      ...(await decode(parquetFormat, referenceFile('zio/parquetio/ztests/conn.parquet')!, ctx)),
      ...(await decode(parquetFormat, referenceFile('zio/parquetio/ztests/dns.parquet')!, ctx)),
    ];
    const zng = await encode(zngFormat, vals);
    const want = expectedStdout(referenceZtest('zio/parquetio/ztests/combine.yaml'));
    expect(await toZson(await decode(zngFormat, zng), 0)).toBe(want);
  });

  withMirror('write-zng: Parquet to ZNG keeps the type IDs straight', async () => {
    const zng = await encode(
      zngFormat,
      await decode(parquetFormat, referenceFile('zio/parquetio/ztests/conn.parquet')!),
    );
    const want = expectedStdout(referenceZtest('zio/parquetio/ztests/write-zng.yaml'));
    expect(await toZson(await decode(zngFormat, zng), 0)).toBe(want);
  });

  test('split: each record type in its own file reads back', async () => {
    // zq -split writes one file per type; the writer for each sees one type.
    const vals = zson('{s:"hello"}\n{x:1}\n');
    const out: string[] = [];
    for (const v of vals)
      out.push(await toZson(await decode(parquetFormat, await encode(parquetFormat, [v])), 0));
    expect(out.sort().join('')).toBe('{s:"hello"}\n{x:1}\n');
  });
});
