// Cases from the reference's zson/ztests and zio/zsonio/ztests (and the
// error table of zson/zson_test.go): ZSON in, ZSON out, byte for byte.

import { BufferSink, FormatError, readAll, sourceFromBuffer } from '../../../src/formats/io';
import { formatValue, parseValues, zsonFormat, ZsonWriter } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed';

/** Reads input as a stream and writes it back with the given indent. */
async function roundTrip(input: string, pretty = 0, persist?: RegExp): Promise<string> {
  const ctx = new TypeContext();
  const vals = await readAll(
    zsonFormat.newReader!(sourceFromBuffer(Buffer.from(input), 7), { ctx }),
  );
  const sink = new BufferSink();
  const w = new ZsonWriter(sink, { pretty, persist });
  await w.write(vals);
  await w.close();
  return sink.text();
}

const lines = (...ls: string[]) => ls.join('\n') + '\n';

// [name, input, expected output (same as input when undefined), pretty]
const cases: [string, string, string | undefined, number?][] = [
  [
    'container-types',
    lines(
      'null(|{string:int32}|)',
      'null(|[string]|)',
      'null([string])',
      'null({a:string})',
      'null(string)((string,int32))',
      '|{2:"2",1:"1",3:"3"}|',
      '|[3,2,1,1,2,3]|',
      '1(int32)((int32,string))',
      '""((int32,string))',
      '{n:null(|{string:int32}|)}',
      '{n:null(|[string]|)}',
      '{n:null([string])}',
      '{n:null({a:string})}',
      '{map:|{2:"2",1:"1",3:"3"}|}',
      '{set:|[3,2,1,1,2,3]|}',
    ),
    lines(
      'null(|{string:int32}|)',
      'null(|[string]|)',
      'null([string])',
      'null({a:string})',
      'null(string)((int32,string))',
      '|{1:"1",2:"2",3:"3"}|',
      '|[1,2,3]|',
      '1(int32)((int32,string))',
      '""((int32,string))',
      '{n:null(|{string:int32}|)}',
      '{n:null(|[string]|)}',
      '{n:null([string])}',
      '{n:null({a:string})}',
      '{map:|{1:"1",2:"2",3:"3"}|}',
      '{set:|[1,2,3]|}',
    ),
  ],
  ['dup-fields', lines('{foo:1,bar:3}', '{bar:1,foo:1}', '{foo:1}', '{foo:1,bar:1}'), undefined],
  [
    'dynamic-typedef',
    lines('{x:1}(=foo)', '{x:2}(=foo)', '{x:"hello"}(=foo)', '{x:"world"}(=foo)'),
    undefined,
  ],
  ['empty-array', lines('[]', '[1]', '{version:[]([null])}', '{version:[1]}'), undefined],
  ['empty-string-field', lines('{"":1}'), undefined],
  ['escaped-slash', lines('"1:foo/bar"', '{s:"1:foo/bar"}'), undefined],
  [
    'float',
    lines(
      '{f16:null(float16),f32:null(float32),f64:null(float64)}',
      '{f16:+Inf(float16),f32:+Inf(float32),f64:+Inf}',
      '{f16:-Inf(float16),f32:-Inf(float32),f64:-Inf}',
      '{f16:NaN(float16),f32:NaN(float32),f64:NaN}',
      '{f16:0.(float16),f32:0.(float32),f64:0.}',
      '{f16:1.(float16),f32:1.(float32),f64:1.}',
      '{f16:-1.(float16),f32:-1.(float32),f64:-1.}',
      '{f16:2.1992188(float16),f32:2.2(float32),f64:2.2}',
      '{f16:-2.1992188(float16),f32:-2.2(float32),f64:-2.2}',
      '{f16:5.9604645e-08(float16),f32:1e-45(float32),f64:5e-324}',
      '{f16:-5.9604645e-08(float16),f32:-1e-45(float32),f64:-5e-324}',
      '{f16:65504.(float16),f32:3.4028235e+38(float32),f64:1.7976931348623157e+308}',
      '{f16:-65504.(float16),f32:-3.4028235e+38(float32),f64:-1.7976931348623157e+308}',
    ),
    undefined,
  ],
  [
    'implied-nulls-repeated',
    lines(
      '{a:"hello",b:[{a:"a",b:"b"},{a:"c",b:"d"},{a:"e",b:"f"}]}',
      '{a:"world",b:null([{a:string,b:string}])}',
      '{a:"goodnight",b:null([{a:string,b:string}])}',
    ),
    undefined,
  ],
  [
    'implied-nulls',
    lines(
      '{a:"hello",b:[{a:"a",b:"b"},{a:"c",b:"d"},{a:"e",b:"f"}]}',
      '{a:"world",b:null([{a:string,b:string}])}',
      '{a:"goodnight",b:[{a:"a",b:"b"}(({a:string,b:string},{a:string,b:null})),{a:"c",b:null}(({a:string,b:string},{a:string,b:null})),{a:"e",b:"f"}(({a:string,b:string},{a:string,b:null}))]}',
    ),
    lines(
      '{a:"hello",b:[{a:"a",b:"b"},{a:"c",b:"d"},{a:"e",b:"f"}]}',
      '{a:"world",b:null([{a:string,b:string}])}',
      '{a:"goodnight",b:[{a:"a",b:"b"},{a:"c",b:null},{a:"e",b:"f"}]}',
    ),
  ],
  [
    'issue-2050',
    lines('{a:[[](2=[null])(3=(2,int64)),1(3)](=4)}(=5)'),
    lines('{a:[[]([null]),1]}'),
  ],
  [
    'map',
    lines(
      '|{}|',
      '|{-1:-1,2:2}|',
      '|{1ns:1ns,2us:2us,3ms:3ms,4s:4s,5m:5m,6h:6h,7d:7d,8w:8w,9y:9y}|',
      '|{2006-01-02T15:04:05.123456789Z:2006-01-02T15:04:05.123456789Z}|',
      '|{2006-01-02T15:04:05.123456789+00:00:2006-01-02T15:04:05.123456789+00:00}|',
      '|{-2.2e2:-2.2e2,-3.:-3.,4.:4.,5.5e5:5.5e5}|',
      '|{false:false,true:true}|',
      '|{0x:0x,0x01:0x01}|',
      '|{"":"","s":"s"}|',
      '|{:: :::,::1 :::1,2:: :2::,3.3.3.3:4.4.4.4}|',
      '|{::1/128:::1/128,2::/16:2::/16,3.3.3.0/24:3.3.3.0/24}|',
      '|{<int8>:<int8>}|',
      '|{null:null}|',
      '|{null:null,null(int64):null(int64),null(string):null(string)}|',
      '|{"a":"foo"(named=(int64,string)),"b":1(named=(int64,string))}|',
      '|{"a"((int64,string)):"foo","b"((int64,string)):"bar"}|',
      '{a:|{}|}',
      '{a:|{-1:-1,2:2}|}',
      '{a:|{1ns:1ns,2us:2us,3ms:3ms,4s:4s,5m:5m,6h:6h,7d:7d,8w:8w,9y:9y}|}',
      '{a:|{2006-01-02T15:04:05.123456789Z:2006-01-02T15:04:05.123456789Z}|}',
      '{a:|{2006-01-02T15:04:05.123456789+00:00:2006-01-02T15:04:05.123456789+00:00}|}',
      '{a:|{-2.2e2:-2.2e2,-3.:-3.,4.:4.,5.5e5:5.5e5}|}',
      '{a:|{false:false,true:true}|}',
      '{a:|{0x:0x,0x01:0x01}|}',
      '{a:|{"":"","s":"s"}|}',
      '{a:|{:: :::,::1 :::1,2:: :2::,3.3.3.3:4.4.4.4}|}',
      '{a:|{::1/128:::1/128,2::/16:2::/16,3.3.3.0/24:3.3.3.0/24}|}',
      '{a:|{<int8>:<int8>}|}',
      '{a:|{null:null}|}',
      '|{3:2,"foo":"bar"}|',
    ),
    lines(
      '|{}|',
      '|{-1:-1,2:2}|',
      '|{1ns:1ns,2us:2us,3ms:3ms,4s:4s,5m:5m,6h:6h,7d:7d,56d:56d,9y:9y}|',
      '|{2006-01-02T15:04:05.123456789Z:2006-01-02T15:04:05.123456789Z}|',
      '|{2006-01-02T15:04:05.123456789Z:2006-01-02T15:04:05.123456789Z}|',
      '|{-3.:-3.,4.:4.,-220.:-220.,550000.:550000.}|',
      '|{false:false,true:true}|',
      '|{0x:0x,0x01:0x01}|',
      '|{"":"","s":"s"}|',
      '|{3.3.3.3:4.4.4.4,:: :::,::1 :::1,2:: :2::}|',
      '|{3.3.3.0/24:3.3.3.0/24,::1/128:::1/128,2::/16:2::/16}|',
      '|{<int8>:<int8>}|',
      '|{null:null}|',
      '|{null:null,null(int64):null(int64),null(string):null(string)}|',
      '|{"a":"foo","b":1}|(|{string:named=(int64,string)}|)',
      '|{"a":"foo","b":"bar"}|(|{(int64,string):string}|)',
      '{a:|{}|(|{null:null}|)}',
      '{a:|{-1:-1,2:2}|}',
      '{a:|{1ns:1ns,2us:2us,3ms:3ms,4s:4s,5m:5m,6h:6h,7d:7d,56d:56d,9y:9y}|}',
      '{a:|{2006-01-02T15:04:05.123456789Z:2006-01-02T15:04:05.123456789Z}|}',
      '{a:|{2006-01-02T15:04:05.123456789Z:2006-01-02T15:04:05.123456789Z}|}',
      '{a:|{-3.:-3.,4.:4.,-220.:-220.,550000.:550000.}|}',
      '{a:|{false:false,true:true}|}',
      '{a:|{0x:0x,0x01:0x01}|}',
      '{a:|{"":"","s":"s"}|}',
      '{a:|{3.3.3.3:4.4.4.4,:: :::,::1 :::1,2:: :2::}|}',
      '{a:|{3.3.3.0/24:3.3.3.0/24,::1/128:::1/128,2::/16:2::/16}|}',
      '{a:|{<int8>:<int8>}|}',
      '{a:|{null:null}|}',
      '|{3:2,"foo":"bar"}|',
    ),
  ],
  [
    'mixed-array',
    lines(
      '[1((int64,string)),"b"((int64,string)),2((int64,string))]',
      '[8((int64,string)),3((int64,string))]',
      '["hello"((int64,string)),"goodbye"((int64,string))]',
      '{version:[1((int64,string)),"b"((int64,string)),2((int64,string))]}',
      '{version:[8((int64,string)),3((int64,string))]}',
      '{version:["hello"((int64,string)),"goodbye"((int64,string))]}',
    ),
    lines(
      '[1,"b",2]',
      '[8,3]([(int64,string)])',
      '["hello","goodbye"]([(int64,string)])',
      '{version:[1,"b",2]}',
      '{version:[8,3]([(int64,string)])}',
      '{version:["hello","goodbye"]([(int64,string)])}',
    ),
  ],
  [
    'mixed-null-array',
    lines(
      '[1,null(int64)]',
      '[null(int64),2]',
      '[null,null]',
      '[null((int64,string,null)),"foo"((int64,string,null)),3((int64,string,null))]',
      '[null,null(string),null(int64)]',
      '{version:[1,null(int64)]}',
      '{version:[null(int64),2]}',
      '{version:[null,null]}',
      '{version:[null((int64,string,null)),"foo"((int64,string,null)),3((int64,string,null))]}',
    ),
    lines(
      '[1,null(int64)]',
      '[null(int64),2]',
      '[null,null]',
      '[null,"foo",3]([(int64,string,null)])',
      '[null,null(string),null(int64)]',
      '{version:[1,null(int64)]}',
      '{version:[null(int64),2]}',
      '{version:[null,null]}',
      '{version:[null,"foo",3]([(int64,string,null)])}',
    ),
  ],
  [
    'named-in-union',
    lines(
      '""(=string_named)(union_named=(int64,string_named))',
      '{a:""(=string_named)(union_named=(int64,string_named))}',
    ),
    undefined,
  ],
  [
    'named-primitive',
    lines(
      '0 (myuint8=uint8)',
      '0 (myuint16=uint16)',
      '0 (myuint32=uint32)',
      '0 (myuint64=uint64)',
      '0 (myint8=int8)',
      '0 (myint16=int16)',
      '0 (myint32=int32)',
      '0 (=myint64)',
      '0s (=myduration)',
      '1970-01-01T00:00:00Z (=mytime)',
      '0. (myfloat16=float16)',
      '0. (myfloat32=float32)',
      '0. (=myfloat64)',
      'false (=mybool)',
      '0x00 (=mybytes)',
      '"" (=mystring)',
      '0.0.0.0 (=myip)',
      '0.0.0.0/0 (=mynet)',
      'error("") (=myerror)',
      'null (mynull=null)',
      '{',
      '  u8: 0 (myuint8=uint8),',
      '  u16: 0 (myuint16=uint16),',
      '  u32: 0 (myuint32=uint32),',
      '  u64: 0 (myuint64=uint64),',
      '  i8: 0 (myint8=int8),',
      '  i16: 0 (myint16=int16),',
      '  i32: 0 (myint32=int32),',
      '  i64: 0 (=myint64),',
      '  dur: 0s (=myduration),',
      '  tim: 1970-01-01T00:00:00Z (=mytime),',
      '  f16: 0. (myfloat16=float16),',
      '  f32: 0. (myfloat32=float32),',
      '  f64: 0. (=myfloat64),',
      '  boo: false (=mybool),',
      '  byt: 0x00 (=mybytes),',
      '  str: "" (=mystring),',
      '  ip: 0.0.0.0 (=myip),',
      '  net: 0.0.0.0/0 (=mynet),',
      '  typ: <{}> (=mytype),',
      '  err: error("") (=myerror),',
      '  nul: null (mynull=null)',
      '}',
    ),
    undefined,
    2,
  ],
  ['negative-duration', lines('{duration:-292y171d23h47m16.854775807s}'), undefined],
  [
    'outer-schema',
    lines(
      '{city:"Berkeley",state:"CA",population:121643(uint32)}(=city_schema)',
      '{city:"Broad Cove",state:"ME",population:806(uint32)}(=city_schema)',
      '{city:"Baton Rouge",state:"LA",population:221599(uint32)}(=city_schema)',
    ),
    undefined,
  ],
  [
    'quoted-tv-field',
    lines('{T:<{"":{}}>}', '{T:<{"foo bar":{}}>}', '{T:<{"@foo^":{}}>}'),
    undefined,
  ],
  [
    'set',
    lines(
      '|[1,1,1,5,1]|',
      '|[null,127.0.0.1]|',
      '|[1.5,"foo",1.5]|',
      '|[null,null(string),null(int64)]|',
    ),
    lines(
      '|[1,5]|',
      '|[null(ip),127.0.0.1]|',
      '|["foo",1.5]|',
      '|[null,null(int64),null(string)]|',
    ),
  ],
  [
    'type-name',
    lines(
      '{s:"hello, world"}(="github.com/acme/foo.Bar")',
      '{s:"goodnight, gracie"}(="github.com/acme/foo.Bar")',
      '{x:1}(=foo.bar)',
      '{x:2}(="@foo")',
      '{x:3(uint8)}(=0)',
      '{x:4}(0)',
    ),
    lines(
      '{s:"hello, world"}(="github.com/acme/foo.Bar")',
      '{s:"goodnight, gracie"}(="github.com/acme/foo.Bar")',
      '{x:1}(=foo.bar)',
      '{x:2}(="@foo")',
      '{x:3(uint8)}',
      '{x:4(uint8)}',
    ),
  ],
  ['type-value-empty-record', lines('<{}>', '{typ:<{}>}'), undefined],
  ['type-value', lines('<int64>', '{typ:<int64>}'), undefined],
  [
    'zsonio/enum',
    lines(
      '{flip:%HEADS(enum(HEADS,TAILS))}',
      '{flip:%TAILS(enum(HEADS,TAILS))}',
      '{flip:%HEADS(enum(HEADS,TAILS))}',
    ),
    lines(
      '{',
      '    flip: %HEADS (enum(HEADS,TAILS))',
      '}',
      '{',
      '    flip: %TAILS (enum(HEADS,TAILS))',
      '}',
      '{',
      '    flip: %HEADS (enum(HEADS,TAILS))',
      '}',
    ),
    4,
  ],
  [
    'zsonio/first-test',
    lines(
      '{_path:"conn",ts:2018-03-24T17:15:20.600725Z,id:{orig_h:10.47.1.152,orig_p:49562(port=uint16),resp_h:23.217.103.245,resp_port:80(port)}(=flow),proto:"tcp"(=zenum)}',
      '{flows:[{orig_h:10.47.1.152,orig_p:49562(port=uint16),resp_h:23.217.103.245,resp_port:80(port)}(=flow),{orig_h:10.128.0.207,orig_p:13,resp_h:10.47.19.254,resp_port:14}(flow)]}',
      '{ips:|[10.0.0.1,192.168.1.1]|}',
      '{nums:|[1(uint64),2(uint64),3(uint64)]|}',
      '{u:12(uint64)((uint64,string))}',
      '{u:"foo"((uint64,string))}',
      '{m:|{"a":1(int32),"b":2(int32),"c":3(int32)}|}',
    ),
    lines(
      '{',
      '    _path: "conn",',
      '    ts: 2018-03-24T17:15:20.600725Z,',
      '    id: {',
      '        orig_h: 10.47.1.152,',
      '        orig_p: 49562 (port=uint16),',
      '        resp_h: 23.217.103.245,',
      '        resp_port: 80 (port)',
      '    } (=flow),',
      '    proto: "tcp" (=zenum)',
      '}',
      '{',
      '    flows: [',
      '        {',
      '            orig_h: 10.47.1.152,',
      '            orig_p: 49562 (port=uint16),',
      '            resp_h: 23.217.103.245,',
      '            resp_port: 80 (port)',
      '        } (=flow),',
      '        {',
      '            orig_h: 10.128.0.207,',
      '            orig_p: 13,',
      '            resp_h: 10.47.19.254,',
      '            resp_port: 14',
      '        } (flow)',
      '    ]',
      '}',
      '{',
      '    ips: |[',
      '        10.0.0.1,',
      '        192.168.1.1',
      '    ]|',
      '}',
      '{',
      '    nums: |[',
      '        1 (uint64),',
      '        2 (uint64),',
      '        3 (uint64)',
      '    ]|',
      '}',
      '{',
      '    u: 12 (uint64) ((uint64,string))',
      '}',
      '{',
      '    u: "foo" ((uint64,string))',
      '}',
      '{',
      '    m: |{',
      '        "a": 1 (int32),',
      '        "b": 2 (int32),',
      '        "c": 3 (int32)',
      '    }|',
      '}',
    ),
    4,
  ],
];

describe('reference ztests: ZSON in, ZSON out', () => {
  // (A rest parameter: jest takes a parameter past a row's length as `done`.)
  test.each(cases)('%s', async (...[, input, expected, pretty]) => {
    expect(await roundTrip(input, pretty ?? 0)).toBe(expected ?? input);
  });
});

const specInput = lines(
  '{',
  '    info: "Connection Example",',
  '    src: {',
  '        addr: 10.1.1.2,',
  '        port: 80 (uint16)',
  '    } (=socket),',
  '    dst: {',
  '        addr: 10.0.1.2,',
  '        port: 20130',
  '    } (socket)',
  '} (=conn)',
  '{',
  '    info: "Connection Example 2",',
  '    src: {',
  '        addr: 10.1.1.8,',
  '        port: 80 (uint16)',
  '    } (=socket),',
  '    dst: {',
  '        addr: 10.1.2.88,',
  '        port: 19801',
  '    } (socket)',
  '} (=conn)',
  '{',
  '    info: "Access List Example",',
  '    nets: [',
  '        10.1.1.0/24,',
  '        10.1.2.0/24',
  '    ]',
  '} (=access_list)',
  '{',
  '    metric: "A",',
  '    ts: 2020-11-24T16:44:09.586441Z,',
  '    value: 120',
  '}',
  '{',
  '    metric: "B",',
  '    ts: 2020-11-24T16:44:20.726057Z,',
  '    value: 0.86',
  '}',
  '{',
  '    metric: "C",',
  '    ts: 2020-11-24T16:44:43.547506Z,',
  '    value: {',
  '        x: 10,',
  '        y: 101',
  '    }',
  '}',
);

describe('reference ztests with other outputs', () => {
  test('spec-example: pretty input, compact output', async () => {
    expect(await roundTrip(specInput, 0)).toBe(
      lines(
        '{info:"Connection Example",src:{addr:10.1.1.2,port:80(uint16)}(=socket),dst:{addr:10.0.1.2,port:20130}(socket)}(=conn)',
        '{info:"Connection Example 2",src:{addr:10.1.1.8,port:80(uint16)}(=socket),dst:{addr:10.1.2.88,port:19801}(socket)}(=conn)',
        '{info:"Access List Example",nets:[10.1.1.0/24,10.1.2.0/24]}(=access_list)',
        '{metric:"A",ts:2020-11-24T16:44:09.586441Z,value:120}',
        '{metric:"B",ts:2020-11-24T16:44:20.726057Z,value:0.86}',
        '{metric:"C",ts:2020-11-24T16:44:43.547506Z,value:{x:10,y:101}}',
      ),
    );
    // ... and the pretty form is what the reference wrote.
    expect(await roundTrip(specInput, 4)).toBe(specInput);
  });

  test('typeof: type values of the values read (typeof.yaml, redefined-named-types.yaml)', () => {
    const ctx = new TypeContext();
    const typeofText = (v: { type: Parameters<TypeContext['typeValueOf']>[0] }) =>
      formatValue(ctx.typeValueOf(v.type));
    expect(parseValues(ctx, specInput).map(typeofText)).toEqual([
      '<conn={info:string,src:socket={addr:ip,port:uint16},dst:socket}>',
      '<conn={info:string,src:socket={addr:ip,port:uint16},dst:socket}>',
      '<access_list={info:string,nets:[net]}>',
      '<{metric:string,ts:time,value:int64}>',
      '<{metric:string,ts:time,value:float64}>',
      '<{metric:string,ts:time,value:{x:int64,y:int64}}>',
    ]);
    expect(
      parseValues(ctx, '[{x:{y:63}}(=foo),{x:{abcdef:{x:{y:127}}(foo)}}(=foo)]').map(typeofText),
    ).toEqual(['<[(foo={x:{abcdef:foo={x:{y:int64}}}},foo={x:{y:int64}})]>']);
    expect(parseValues(ctx, '%heads(enum(heads,tails))').map(typeofText)).toEqual([
      '<enum(heads,tails)>',
    ]);
    const union = parseValues(
      ctx,
      '{r:{u:"\\"hello\\"" (sint=(int32,string))}} {r:{v:123 (int32) (sint=(int32,string))}}',
    ).map(typeofText);
    expect(union).toEqual(['<{r:{u:sint=(int32,string)}}>', '<{r:{v:sint=(int32,string)}}>']);
  });

  test('pretty type values (pretty-type-value.yaml, zson-zng.yaml)', () => {
    const ctx = new TypeContext();
    const input = [
      '<({foo:int64},{bar:string},uint64)>',
      '<named=|[({foo:int64},uint64)]|>',
      '<|{{x:string}:{ip:ip,port:uint16}}|>',
      '<|{string:uint64}|>',
      '<[int64]>',
      '<error([string])>',
      '<[[string]]>',
    ].join('\n');
    expect(parseValues(ctx, input).map((v) => formatValue(v, 4))).toEqual([
      '<(\n    uint64,\n    {\n        bar: string\n    },\n    {\n        foo: int64\n    }\n)>',
      '<named=|[\n    (\n        uint64,\n        {\n            foo: int64\n        }\n    )\n]|>',
      '<|{\n    {\n        x: string\n    }: {\n        ip: ip,\n        port: uint16\n    }\n}|>',
      '<|{string: uint64}|>',
      '<[int64]>',
      '<error([string])>',
      '<[\n    [string]\n]>',
    ]);
    const [rec] = parseValues(
      ctx,
      '{a:"hello",b:"world",n:123(int32),f:[1(foo=uint8),2(foo),3(foo)]}',
    );
    expect(formatValue(ctx.typeValueOf(rec.type), 4)).toBe(
      '<{\n    a: string,\n    b: string,\n    n: int32,\n    f: [\n        foo=uint8\n    ]\n}>',
    );
  });

  test('persist.yaml: -persist keeps matching names defined across values', async () => {
    const input = lines(
      '{a:1(baz=int8)}(=foo)',
      '{a:1}(foo)',
      '{a:1}(=fubar)',
      '{a:1}(fubar)',
      '{a:1}(=bar)',
      '{a:1}(bar)',
    );
    expect(await roundTrip(input, 0, /b.*/)).toBe(
      lines(
        '{a:1(baz=int8)}(=foo)',
        '{a:1(baz)}(=foo)',
        '{a:1}(=fubar)',
        '{a:1}(fubar)',
        '{a:1}(=bar)',
        '{a:1}(bar)',
      ),
    );
    expect(await roundTrip(input, 0, /(foo|^bar)/)).toBe(
      lines(
        '{a:1(baz=int8)}(=foo)',
        '{a:1}(foo)',
        '{a:1}(=fubar)',
        '{a:1}(=fubar)',
        '{a:1}(=bar)',
        '{a:1}(bar)',
      ),
    );
  });

  test('no-trailing-newline.yaml: the last value needs no newline', async () => {
    const out = await roundTrip('{\n    c: 23 (int32)\n}\n{\n    c: 42 (int32)\n}');
    expect(out).toBe(lines('{c:23(int32)}', '{c:42(int32)}'));
  });

  test('zeek-to-zson.yaml: the zeek types record reads and writes back unchanged', async () => {
    const zeekTypes = lines(
      '{',
      '    my_bool: true,',
      '    my_count: 123 (uint64),',
      '    my_int: 456,',
      '    my_double: 123.456,',
      '    my_time: 2020-06-18T17:42:31.123456Z,',
      '    my_interval: 2m3.456s,',
      '    my_printable_string: "smile😁smile",',
      '    my_bytes_string: "\\t\\u0007\\u0004",',
      '    my_port: 80 (port=uint16),',
      '    my_addr: 127.0.0.1,',
      '    my_subnet: 10.0.0.0/8,',
      '    my_enum: "tcp" (=zenum),',
      '    my_set: |[',
      '        "a",',
      '        "in",',
      '        "set",',
      '        "things"',
      '    ]|,',
      '    my_vector: [',
      '        "order",',
      '        "is",',
      '        "important"',
      '    ],',
      '    my_record: {',
      '        name: "Jeanne",',
      '        age: 122 (uint64)',
      '    }',
      '}',
    );
    expect(await roundTrip(zeekTypes, 4)).toBe(zeekTypes);
  });
});

async function readError(input: string): Promise<FormatError> {
  const r = zsonFormat.newReader!(sourceFromBuffer(Buffer.from(input), 3), {
    ctx: new TypeContext(),
  });
  try {
    await readAll(r);
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    return e as FormatError;
  }
  throw new Error(`no error reading ${JSON.stringify(input)}`);
}

describe('errors', () => {
  // zson_test.go TestParseValueErrors, and more texts from zson/*.go.
  const errorCases: [string, string][] = [
    [' "\n" ', 'parse error: string literal: unescaped line break'],
    [' "', 'parse error: string literal: EOF'],
    [' "\\', 'parse error: string literal: no end quote'],
    [' "\\u', 'parse error: string literal: EOF'],
    [' "\\u" ', 'parse error: string literal: short \\u escape'],
    [' "\\u0" ', 'parse error: string literal: short \\u escape'],
    [' "\\u00" ', 'parse error: string literal: short \\u escape'],
    [' "\\u000" ', 'parse error: string literal: short \\u escape'],
    [' "\\u000g" ', 'parse error: string literal: invalid hex digits in \\u escape'],
    [' "\\U00000000" ', 'parse error: string literal: illegal escape (\\U)'],
    [' "\\x00" ', 'parse error: string literal: illegal escape (\\x)'],
    [' "\\a" ', 'parse error: string literal: illegal escape (\\a)'],
    [' "\\v" ', 'parse error: string literal: illegal escape (\\v)'],
    ['This is not a detectable format.', 'ZSON syntax error'],
    ['{a:1', 'parse error: mismatched braces while parsing record type'],
    ['{a 1}', 'parse error: no type name found for field "a"'],
    ['{a:foo}', 'ZSON syntax error'],
    ['[1,2', 'parse error: mismatched brackets while parsing array type'],
    ['[foo]', 'parse error: mismatched brackets while parsing array type'],
    ['|[1,2]', 'parse error: mismatched closing bracket while parsing set value'],
    ['|{1:2', 'parse error: mismatched map value brackets'],
    ['|{1 2}|', 'parse error: no colon found after map key while parsing map entry'],
    ['|x', "parse error: no '|[' or '|{' type bracket at '|' character"],
    ['1(int32', 'parse error: mismatched parentheses while parsing type decorator'],
    ['1()', "parse error: couldn't parse type"],
    ['1(=)', 'parse error: bad short-form type definition'],
    ['<int64', 'parse error: mismatched parentheses while parsing type value'],
    ['1((int64))', "parse error: type list not found parsing union type at '('"],
    ['1(port=(uint16))', "parse error: type list not found parsing union type at '('"],
    ['0x123', 'encoding/hex: odd length hex string'],
    ['{a.b:1}', 'malformed identifier'],
    ['1(float32)', 'type mismatch: "int64" cannot be used as "float32"'],
    ['"a"(int32)', 'type mismatch: "string" cannot be used as "int32"'],
    ['-1(uint8)', 'invalid unsigned integer: -1'],
    ['{a:1}({a:int64,b:int64})', 'record decorator fields (2) mismatched with value fields (1)'],
    ['{a:1}([int64])', 'record decorator not of type record: *zed.TypeArray'],
    ['[1]({a:int64})', 'array decorator not of type array'],
    ['|[1]|(int64)', 'set decorator not of type set: *zed.TypeOfInt64'],
    ['|{1:1}|(int64)', 'map decorator not of type map'],
    ['%x', 'identifier "x" must be enum and requires decorator'],
    ['%x(enum(a,b))', 'symbol "x" not a member of type "enum(a,b)"'],
    ['%x(int64)', 'identifier "x" is enum and incompatible with type "int64"'],
    ['1(nosuch)', 'no such type name: "nosuch"'],
    ['1(=string)', 'bad type name "string": primitive type name'],
    ['<{a:int64,a:string}>', 'duplicate field: "a"'],
    ['1(enum())', 'enum body is empty'],
    ['"a"((int64,float64))', 'type "string" is not in union type "(int64,float64)"'],
    ['1(int32)(int64)', 'decorator conflict enclosing context "int64" and decorator cast "int32"'],
    ['<int64>(string)', 'cannot apply decorator ("string") to a type value'],
    ['"x"(enum(a,b))', 'symbol "x" not a member of type "enum(a,b)"'],
    ['"\\ud800"', 'parse error: string literal: short \\u escape'],
    ['`abc', 'parse error: parsing backtick string literal'],
    ['=> x', "no backtick found following '=>'"],
    ['1e400', 'ZSON syntax error'],
    ['1.2.3.256', 'ZSON syntax error'],
    ['error(1', 'ZSON syntax error'],
    ['<error(int64>', 'parse error: mismatched parentheses while parsing error type'],
    ['<enum a>', 'no opening parenthesis in enum type'],
    ['<|{int64 string}|>', 'parse error: value type missing while parsing map type'],
    ['<|[int64}|>', 'parse error: mismatched set-brackets while parsing set type'],
    ['<|[int64]>', 'parse error: mismatched closing bracket while parsing type "set"'],
    [
      '9999-12-17T16:37:21.023179Z',
      'time overflow: 9999-12-17T16:37:21.023179Z (max: 2262-04-11T23:47:16Z)',
    ],
    ['{a:', 'parse error: unexpected end of input'],
  ];
  test.each(errorCases)('%j', async (input, message) => {
    const err = await readError(input);
    expect(err.format).toBe('zson');
    expect(err.message).toBe(message);
  });

  test('errors carry the line and byte offset', async () => {
    const err = await readError('{a:1}\n{b:2}\n{c:\n  [1,2,3\n}\n');
    expect(err.message).toBe('parse error: mismatched brackets while parsing array type');
    expect(err.line).toBe(5);
    expect(err.offset).toBe(25);
    const typeErr = await readError('{a:1}\n\n{b:"x"(int8)}\n');
    expect(typeErr.line).toBe(3);
  });

  test('values before an error are delivered first', async () => {
    const r = zsonFormat.newReader!(sourceFromBuffer(Buffer.from('1 2 3 }')), {
      ctx: new TypeContext(),
    });
    const batch = await r.read();
    expect(batch!.map((v) => formatValue(v))).toEqual(['1', '2', '3']);
    await expect(r.read()).rejects.toThrow('ZSON syntax error');
  });
});

describe('what the reference writes but cannot read, read here', () => {
  test.each([
    ['a map key running into a time value', '|{0(uint8):1970-01-01T00:00:00Z}|'],
    ['a map key running into an IPv6 value', '|{1:::1}|'],
    ['an IPv4-mapped IPv6 address', '{a:::ffff:1.2.3.4,n:::ffff:1.2.3.0/120}'],
    [
      'a union value inside an error decorator',
      'error({a:0(uint8)((uint8,bytes))})(error({a:(uint8,bytes)}))',
    ],
    ['an enum of a named enum type', '%HEADS(flip=enum(HEADS,TAILS))'],
    [
      'names inside error types, each written on its own',
      '{b:error(1)(error(port=uint16)),c:error(2)(error(port=uint16))}',
    ],
  ])('%s', (_name, text) => {
    const [v] = parseValues(new TypeContext(), text);
    expect(formatValue(v)).toBe(text);
  });
});

describe('literals', () => {
  test.each([
    ['+5', '5'],
    ['007', '7'],
    ['-0', '0'],
    ['1e3', '1000.'],
    ['.5', '0.5'],
    ['1E-7', '1e-07'],
    ['1234567.5', '1.2345675e+06'],
    ['nan', 'NaN'],
    ['-inf', '-Inf'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['9223372036854775808', '9223372036854775808(uint64)'],
    ['-9223372036854775808.', '-9223372036854775808.'],
    ['2020-11-24T08:44:09.586441-08:00', '2020-11-24T16:44:09.586441Z'],
    ['2020-02-29T5:04:05.1234567891Z', '2020-02-29T05:04:05.123456789Z'],
    ['1677-09-21T00:12:43.145224192Z', '1677-09-21T00:12:43.145224192Z'],
    ['2262-04-11T23:47:16.854775807Z', '2262-04-11T23:47:16.854775807Z'],
    ['1.5h', '1h30m'],
    ['-1.5us', '-1.5us'],
    ['1w', '7d'],
    ['0x', '0x'],
    ['0xDEADbeef', '0xdeadbeef'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['FE80::1', 'fe80::1'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['"\\u00e9\\ud83d\\ude00\\/"', '"é😀/"'],
    ['"e\\u0301"', '"é"'],
    ['"\\u0041a\\\'b"', '"Aa\'b"'],
    ['"a\\\'b"', "parse error: string literal: illegal escape (\\')"],
    ['`\n  one\n    two`', '"one\\ntwo"'],
    ['=>`\n  one`', '"\\n  one"'],
    ['"\\u0000\\u001f\\u007f"', '"\\u0000\\u001f\u007f"'],
    ['{"a b":1,é:2,$x:3,_1:4}', '{"a b":1,é:2,$x:3,_1:4}'],
    ['1 // comment\n', '1'],
    ['/* a\n comment */ 2', '2'],
    ['\u00a03\u2028', '3'],
    ['<"a b"=int64>', '<a b=int64>'],
    ['{x:1}("a b")'.replace('("a b")', '(="a b")'), '{x:1}(="a b")'],
  ])('%j → %j', (text, out) => {
    if (out.startsWith('parse error')) {
      expect(() => parseValues(new TypeContext(), text)).toThrow(out);
      return;
    }
    const vals = parseValues(new TypeContext(), text);
    expect(vals.map((v) => formatValue(v)).join('\n')).toBe(out);
  });

  test('invalid UTF-8 in a string prints as \\ufffd, a byte at a time', () => {
    const ctx = new TypeContext();
    const [v] = parseValues(ctx, '"x"');
    const bad = new (v.constructor as typeof import('../../../src/zed').Value)(
      v.type,
      Buffer.from([0x61, 0xff, 0xf0, 0x90, 0x80, 0x62, 0xc3, 0xa9]),
      0,
      8,
    );
    expect(formatValue(bad)).toBe('"a\\ufffd\\ufffd\\ufffd\\ufffdbé"');
  });

  test('raw bytes that are not UTF-8 read as U+FFFD', () => {
    const ctx = new TypeContext();
    const vals = parseValues(ctx, Buffer.from([0x22, 0xc3, 0xa9, 0xff, 0x22]).toString('latin1'));
    expect(vals.length).toBe(1);
  });
});
