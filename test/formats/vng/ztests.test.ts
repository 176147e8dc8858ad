// The reference's vng/ztests and zio/vngio/ztests, ported: ZSON in,
// VNG in between, ZSON out (zq -z).

import { vngFormat } from '../../../src/formats/vng';
import { decode, encode, errorOf, toZson, zson } from '../arrow/zio';

async function viaVng(input: string): Promise<string> {
  return toZson(await decode(vngFormat, await encode(vngFormat, zson(input))), 0);
}

const sameOut: Record<string, string> = {
  array: `{a:"hello",b:[{a:"a",b:"b"},{a:"c",b:"d"},{a:"e",b:"f"}]}
{a:"world",b:null([{a:string,b:string}])}
{a:"goodnight",b:[{a:"a",b:"b"},{a:"c",b:null(string)},{a:"e",b:"f"}]}
`,
  create: `{a:"hello",b:1(int32)}
{a:"world",b:2(int32)}
`,
  'issue-4074': `{a:{aa:0}}
{a:{aa:0},b:[{bb:0}]}
`,
  map: `{m:|{"foo":"bar","hello":"goodby"}|}
{m:|{"foo":"bar2","hello2":"goodby"}|}
{m:|{1:"goodbye","foo":null(string)}|}
{m:null(|{int64:string}|)}
{m:|{2:"goodbye","bar":null(string)}|}
`,
  'type-change': `{a:"hello",b:1}(=foo)
{a:"there",c:2}(=foo)
{a:"goodbye",b:3}
{a:"world",d:4}(=foo)
`,
  union: `{a:"hello",b:"foo"((float64,string))}
{a:"world",b:1.((float64,string))}
`,
  vals: `1
2
"hello"
[3,4]
{a:1}
true
false
1((int64,string))
"foo"((int64,string))
<int64>
|[1,2,3]|
|{1:"a",2:"b"}|
null(int64)
null(string)
null(type)
null([int64])
null(|[int64]|)
null(|{int64:string}|)
`,
};

describe('vng ztests', () => {
  for (const [name, input] of Object.entries(sameOut)) {
    test(name, async () => {
      expect(await viaVng(input)).toBe(input);
    });
  }

  test('typedef', async () => {
    const input = `{a:"hello",b:1}(=foo)
{a:"there",b:2}(foo)
{a:"goodbye",b:3}
{a:"world",b:4}(=bar)
`;
    expect(await viaVng(input)).toBe(`{a:"hello",b:1}(=foo)
{a:"there",b:2}(=foo)
{a:"goodbye",b:3}
{a:"world",b:4}(=bar)
`);
  });

  test('presence: runs of nulls and values in every arrangement', async () => {
    const n = (k: number) => '{s:null(string)}\n'.repeat(k);
    const x = (k: number) => '{s:"x"}\n'.repeat(k);
    for (const input of [n(1), n(5) + x(1) + n(5), n(10) + x(1), x(10) + n(1)]) {
      expect(await viaVng(input)).toBe(input);
    }
  });

  test('empty-file', async () => {
    expect(await errorOf(decode(vngFormat, Buffer.alloc(0)))).toMatch(/trailer not found$/);
  });

  test('stdin-error: zlake buffers its input, so a stream reads (the reference refuses one)', async () => {
    const input = `["hello"(=bar),"world"(bar)]
{a:["hello"(=bar),"world"(bar)]}
`;
    const bytes = await encode(vngFormat, zson(input));
    expect(await toZson(await decode(vngFormat, bytes, undefined, 7), 0))
      .toBe(`["hello"(=bar),"world"(bar)]
{a:["hello"(=bar),"world"(bar)]}
`);
  });
});
