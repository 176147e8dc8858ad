import { gzipSync } from 'node:zlib';
import { openReader, detectReader, DetectionError } from '../../src/formats/detect';
import { readAll, sourceFromBuffer } from '../../src/formats/io';
import { formatValue } from '../../src/formats/zson';
import { TypeContext } from '../../src/zed';

async function detect(text: string | Buffer, chunk?: number): Promise<string> {
  const buf = typeof text === 'string' ? Buffer.from(text) : text;
  const { format } = await detectReader(sourceFromBuffer(buf, chunk), { ctx: new TypeContext() });
  return format.name;
}

async function values(input: Buffer, format?: string): Promise<string[]> {
  const r = await openReader(sourceFromBuffer(input, 7), { ctx: new TypeContext(), format });
  return (await readAll(r)).map((v) => formatValue(v));
}

describe('format detection', () => {
  test.each([
    ['{"a":1}\n{"a":2}', 'json'],
    ['{a:1}', 'zson'],
    ['1 2 3', 'json'],
    ['{a:1(int32)}', 'zson'],
    ['a,b\n1,2\n', 'csv'],
    ['#separator \\x09\n#fields\ta\n#types\tint\n1\n', 'zeek'],
    ['{"type":{"kind":"primitive","name":"int64"},"value":"1"}', 'zjson'],
  ])('%j is %s', async (input, want) => {
    expect(await detect(input, 3)).toBe(want);
  });

  test('a query response saved with its control messages reads as JSON (curl-query-split.yaml)', async () => {
    const saved =
      '{"type":"QueryChannelSet","value":{"channel_id":0}}\n' +
      '{"type":{"kind":"primitive","name":"int64"},"value":"1"}\n' +
      '{"type":"QueryChannelEnd","value":{"channel_id":0}}\n';
    expect(await detect(saved)).toBe('json');
    expect(await values(Buffer.from(saved))).toEqual([
      '{type:"QueryChannelSet",value:{channel_id:0}}',
      '{type:{kind:"primitive",name:"int64"},value:"1"}',
      '{type:"QueryChannelEnd",value:{channel_id:0}}',
    ]);
  });

  test('the whole input is read after detection, across chunk boundaries', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `{"n":${i}}`).join('\n');
    const got = await values(Buffer.from(lines));
    expect(got.length).toBe(5000);
    expect(got[4999]).toBe('{n:4999}');
  });

  test('gzip input is detected by its magic bytes', async () => {
    expect(await values(gzipSync('{a:1}'))).toEqual(['{a:1}']);
  });

  test('nothing fits: the error lists each format with its reason', async () => {
    const err = await detect('garbage {{{').catch((e) => e);
    expect(err).toBeInstanceOf(DetectionError);
    const lines = (err as Error).message.split('\n\t');
    expect(lines[0]).toBe('format detection error');
    expect(lines.slice(1).map((l) => l.split(':')[0])).toEqual([
      'arrows',
      'csv',
      'json',
      'line',
      'parquet',
      'vng',
      'zeek',
      'zjson',
      'zng',
      'zson',
    ]);
    expect(lines).toContain('csv: line 1: EOF');
    expect(lines).toContain('line: auto-detection not supported');
  });

  // The reasons of the reference's load-garbage and curl-load-error ztests:
  // a first line with a newline but no comma, and one with no newline at
  // all; ZNG sees a compressed frame cut short.
  test.each([
    ['This file contains no records.\n', 'csv: line 1: no comma found'],
    ['This is not a detectable format.', 'csv: line 1: EOF'],
  ])('garbage %j gets the reference reasons', async (input, csv) => {
    const err = await detect(input).catch((e) => e);
    const lines = (err as Error).message.split('\n\t');
    expect(lines).toContain(csv);
    expect(lines).toContain('zng: malformed zng record');
    expect(lines).toContain('arrows: schema message length exceeds 1 MiB');
  });

  test('a named format skips detection', async () => {
    expect(await values(Buffer.from('hello\nworld\n'), 'line')).toEqual(['"hello"', '"world"']);
  });
});
