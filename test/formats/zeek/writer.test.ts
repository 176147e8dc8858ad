// The Zeek writer: headers, value text, escaping and errors.

import { BufferSink, FormatError } from '../../../src/formats/io';
import { zeekFormat } from '../../../src/formats/zeek';
import { formatZeekTime } from '../../../src/formats/zeek/time';
import { readWith, writeWith } from './support';

const preamble = '#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n';

async function zeekOf(zsonText: string): Promise<string> {
  return writeWith('zeek', await readWith('zson', zsonText));
}

async function failure(zsonText: string): Promise<string> {
  try {
    await zeekOf(zsonText);
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).format).toBe('zeek');
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('zeek writer: headers', () => {
  it('writes the preamble once, #path on change, #fields/#types on change', async () => {
    const out = await zeekOf(
      '{_path:"a",x:1} {_path:"a",x:2} {_path:"b",x:3} {_path:"b",y:"s"} {x:4} {_path:"b",x:5}',
    );
    expect(out).toBe(
      preamble +
        '#path\ta\n#fields\tx\n#types\tint\n1\n2\n' +
        '#path\tb\n3\n' +
        '#fields\ty\n#types\tstring\ns\n' +
        '#path\t-\n#fields\tx\n#types\tint\n4\n' +
        '#path\tb\n#fields\tx\n#types\tint\n5\n',
    );
  });

  it('does not start a header for records of another type with the same flat shape', async () => {
    const out = await zeekOf('{a:{b:1}} {a:{b:2}(=named)}');
    expect(out).toBe(preamble + '#fields\ta.b\n#types\tint\n1\n2\n');
  });

  it('maps Zed types to Zeek types', async () => {
    const out = await zeekOf(
      '{a:1(uint8),b:1(int32),c:1(uint32),d:1(uint64),e:1.(float32),f:1.(float16),g:"x"(=zenum),' +
        'h:80(port=uint16),i:"n"(=other),j:|[1(int8)]|,k:[[1]],l:1s,m:1.2.3.4/32,n:true}',
    );
    expect(out.split('\n').slice(4, 6)).toEqual([
      '#fields\ta\tb\tc\td\te\tf\tg\th\ti\tj\tk\tl\tm\tn',
      '#types\tint\tint\tint\tcount\tdouble\tdouble\tenum\tport\tstring\tset[int]\tvector[vector[int]]\tinterval\tsubnet\tbool',
    ]);
    expect(out.split('\n')[6]).toBe('1\t1\t1\t1\t1\t1\tx\t80\tn\t1\t1\t1.000000\t1.2.3.4/32\tT');
  });
});

describe('zeek writer: values', () => {
  it('writes times with 6 digits, or 9 when needed', () => {
    expect(formatZeekTime(0n)).toBe('0.000000');
    expect(formatZeekTime(-1n)).toBe('-0.000000001');
    expect(formatZeekTime(1500000000n)).toBe('1.500000');
    expect(formatZeekTime(-(2n ** 63n))).toBe('-9223372036.854775808');
    expect(formatZeekTime(2n ** 63n - 1n)).toBe('9223372036.854775807');
  });

  it('writes times from their encoded bodies the same way', async () => {
    const out = await zeekOf(
      '{t:1970-01-01T00:00:00Z} {t:1677-09-21T00:12:43.145224192Z} {t:2262-04-11T23:47:16.854775807Z} {t:1969-12-31T23:59:59.999999999Z}',
    );
    expect(out.split('\n').slice(6, 10)).toEqual([
      '0.000000',
      '-9223372036.854775808',
      '9223372036.854775807',
      '-0.000000001',
    ]);
  });

  it("writes floats in Go's shortest 'f' form", async () => {
    const out = await zeekOf('{f:1e21} {f:0.1} {f:NaN} {f:-Inf} {f:1e-7}');
    expect(out.split('\n').slice(6, 11)).toEqual([
      '1000000000000000000000',
      '0.1',
      'NaN',
      '-Inf',
      '0.0000001',
    ]);
  });

  it('escapes strings as the reference does', async () => {
    const out = await zeekOf(
      String.raw`{s:"-"} {s:"(empty)"} {s:"a\\b"} {s:"tab\there"} {s:"a,b"} {s:"\u0085\u2028é"} {s:""}`,
    );
    expect(out.split('\n').slice(6, 13)).toEqual([
      '\\x2d',
      '\\x28empty)',
      'a\\\\b',
      'tab\\x09here',
      'a,b',
      '\\x85\\x20\\x28é',
      '',
    ]);
  });

  it('escapes commas inside sets and vectors, and writes empty and null containers', async () => {
    const out = await zeekOf(
      '{v:["a,b","-"]} {v:[]([string])} {v:null([string])} {v:[null(string),"x"]}',
    );
    expect(out.split('\n').slice(6, 10)).toEqual(['a\\x2cb,\\x2d', '(empty)', '-', '-,x']);
  });

  it('writes null set elements as zero values, as the reference does', async () => {
    const out = await zeekOf(
      '{s:|[null(string),"a"]|} {i:|[null(int64),1]|} {p:|[null(ip),1.2.3.4]|} {t:|[null(time)]|}',
    );
    const lines = out.split('\n').filter((l) => !l.startsWith('#'));
    expect(lines.slice(0, 4)).toEqual([',a', '0,1', 'invalid IP,1.2.3.4', '0.000000']);
  });

  it('passes invalid UTF-8 through unchanged', async () => {
    const vals = await readWith('zson', '{s:"x"}');
    const v = vals[0];
    // Replace the body "x" by the bytes 0xff 0x41.
    v.buf = Buffer.from([3, 0xff, 0x41]);
    v.off = 0;
    v.len = 3;
    const sink = new BufferSink();
    const w = zeekFormat.newWriter!(sink, {});
    await w.write([v]);
    await w.close();
    const out = sink.bytes();
    expect([...out.subarray(out.length - 3)]).toEqual([0xff, 0x41, 0x0a]);
  });
});

describe('zeek writer: errors', () => {
  it('rejects types Zeek cannot carry', async () => {
    expect(await failure('{a:[{s:"foo"}]}')).toBe(
      'type {s:string}: type cannot be represented in zeek format',
    );
    expect(await failure('{u:"foo"((string,int32))}')).toBe(
      'type (int32,string): type cannot be represented in zeek format',
    );
    expect(await failure('{b:0x00}')).toBe('type bytes: type cannot be represented in zeek format');
    expect(await failure('{m:|{1:2}|}')).toBe(
      'type |{int64:int64}|: type cannot be represented in zeek format',
    );
  });

  it('rejects non-records', async () => {
    expect(await failure('1')).toBe('Zeek output encountered non-record value: 1');
  });

  it('rejects records whose flat columns repeat', async () => {
    expect(await failure('{"a.b":1,a:{b:2}}')).toBe('duplicate field: "a.b"');
  });
});
