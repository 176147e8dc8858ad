// The text writer: each value on a line, records flattened to
// tab-separated columns, every type formatted as the reference's text
// output shows it.

import fc from 'fast-check';
import { FormatError } from '../../../src/formats/io';
import { parseType, parseValues } from '../../../src/formats/zson';
import { formatTime } from '../../../src/zed/nano';
import { Builder } from '../../../src/zed/zcode';
import { TypeContext } from '../../../src/zed/context';
import { TypeString } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';
import { write, writeWith } from './support';

const text = (zson: string) => write('text', zson);

describe('text writer: records', () => {
  it('tab-separates columns and flattens nested records with their leaves in order', async () => {
    expect(await text('{a:{b:1,c:{d:"x"}},e:true}')).toBe('1\tx\tT\n');
  });

  it('writes time columns in RFC 3339 and a null time as "-"', async () => {
    expect(await text('{t:2015-03-05T14:25:14.419939Z,u:null(time),v:1970-01-01T00:00:00Z}')).toBe(
      '2015-03-05T14:25:14.419939Z\t-\t1970-01-01T00:00:00Z\n',
    );
  });

  it('writes a named time column, and times elsewhere, as Zeek seconds', async () => {
    expect(await text('{t:2015-03-05T14:25:14.419939Z(=stamp),a:[1970-01-01T00:00:01.5Z]}')).toBe(
      '1425565514.419939\t1.500000\n',
    );
    expect(await text('2015-03-05T14:25:14.000000001Z')).toBe('1425565514.000000001\n');
  });

  it('writes nulls and a null nested record as "-"', async () => {
    expect(await text('{a:null,b:null(int64),c:null({x:int64,y:{z:string}})}')).toBe(
      '-\t-\t-\t-\n',
    );
    expect(await text('null({a:int64,t:time})')).toBe('-\t-\n');
  });

  it('writes error("missing") as "-" in a column, as its text on its own', async () => {
    expect(await text('{a:error("missing"),b:error("boom")}')).toBe('-\tboom\n');
    expect(await text('error("missing")')).toBe('missing\n');
  });

  it('writes an empty record as an empty line', async () => {
    expect(await text('{}\n{a:1}')).toBe('\n1\n');
  });
});

describe('text writer: values', () => {
  const cases: [string, string][] = [
    ['1', '1'],
    ['-5(int8)', '-5'],
    ['18446744073709551615(uint64)', '18446744073709551615'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['1.5', '1.5'],
    ['1e100', '1' + '0'.repeat(100)],
    ['1e-7', '0.0000001'],
    ['1.1(float32)', '1.1'],
    ['2.5(float16)', '2.5'],
    ['-0.', '-0'],
    ['+Inf', '+Inf'],
    ['NaN', 'NaN'],
    ['true', 'T'],
    ['false', 'F'],
    ['"hello"', 'hello'],
    ['"-"', '\\x2d'],
    ['"(empty)"', '\\x28empty)'],
    ['"a\\tb\\\\c,d"', 'a\\x09b\\\\c,d'],
    ['"\\u0001é日本"', '\\x01é日本'],
    ['"\\n"', '\\x0a'],
    ['""', ''],
    ['0x0102ff', 'AQL/'],
    ['0x', ''],
    ['1.5s', '1.500000'],
    ['-1ns', '-0.000000001'],
    ['0s', '0.000000'],
    ['10.0.0.1', '10.0.0.1'],
    ['::1', '::1'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['[1,null,3]', '1,-,3'],
    ['[]([int64])', '(empty)'],
    ['["a,b","-"]', 'a\\x2cb,\\x2d'],
    ['[[1,2],[]([int64])]', '1,2,(empty)'],
    ['|[1,2]|', '1,2'],
    ['|["x,y"]|', 'x\\x2cy'],
    ['|{"a":1,"b":2}|', '[a1b2]'],
    ['|{"a,b":null(int64)}|', '[a\\x2cb0]'],
    ['[{x:1,y:null(int64),z:"-"}]', '1,-,\\x2d'],
    ['1((int64,string))', '0:1'],
    ['"x"((int64,string))', '1:x'],
    ['"b"(enum(a,b))', '1'],
    ['<int64>', '<int64>'],
    ['<{a:int64}>', '<{a:int64}>'],
    ['error("boom")', 'boom'],
    ['error({a:1})', 'error({a:1})'],
    ['null', '-'],
    ['null(string)', '-'],
    ['null((int64,string))', '-'],
    ['1(=myint)', '1'],
  ];
  for (const [zson, want] of cases) {
    it(`${zson} → ${want}`, async () => {
      expect(await text(zson)).toBe(want + '\n');
      // The same value in a record column.
      expect(await text(`{v:${zson},w:1}`)).toBe(want + '\t1\n');
    });
  }

  it('passes invalid UTF-8 through as bytes', async () => {
    const v = new Value(TypeString, Buffer.from([0x61, 0xff, 0x5c, 0x62]), 0, 4);
    const { bytes } = await writeWith('text', [v]);
    expect(bytes).toEqual(Buffer.from([0x61, 0xff, 0x5c, 0x5c, 0x62, 10]));
  });
});

describe('text writer: errors', () => {
  it('rejects a record that flattens to a repeated column, keeping earlier lines', async () => {
    const ctx = new TypeContext();
    const { text: out, error } = await writeWith(
      'text',
      parseValues(ctx, '{x:1}\n{a:{b:1},"a.b":2}'),
    );
    expect(error).toBeInstanceOf(FormatError);
    expect(error!.format).toBe('text');
    expect(error!.message).toBe('duplicate field: "a.b"');
    expect(out).toBe('1\n');
  });

  it('rejects a corrupt record body with a FormatError', async () => {
    const ctx = new TypeContext();
    const t = parseType(ctx, '{a:string,b:string}');
    const { error } = await writeWith('text', [new Value(t, Buffer.from([0x05, 0x61]), 0, 2)]);
    expect(error).toBeInstanceOf(FormatError);
  });
});

describe('text writer: time columns', () => {
  it('writes every int64 time as RFC 3339 with nanoseconds, as the reference', async () => {
    const ctx = new TypeContext();
    const [rec] = parseValues(ctx, '{t:null(time)}');
    const b = new Builder();
    const check = async (ns: bigint) => {
      b.reset();
      b.appendInt(ns);
      const body = b.bytes();
      const { text: out } = await writeWith('text', [new Value(rec.type, body, 0, body.length)]);
      expect(out).toBe(formatTime(ns) + '\n');
    };
    for (const ns of [0n, 1n, -1n, 999999999n, -1000000000n, 2n ** 63n - 1n, -(2n ** 63n)]) {
      await check(ns);
    }
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), check),
      { numRuns: 2000 },
    );
  });
});
