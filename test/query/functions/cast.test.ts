// Casts: `T(x)`, `<T>(x)` and cast(x, <T>) from every primitive type and
// from strings (the reference's parsing rules), range checks and their
// error values, named types, and casts of complex values.

import { each, run } from './run';

type Row = [string, string, string[]];

function table(name: string, rows: Row[]): void {
  describe(name, () => {
    test.each(rows)('yield %s over %s', async (expr, input, want) => {
      expect(await each(expr, input)).toEqual(want);
    });
  });
}

const bad = (type: string, on: string) => `error({message:"cannot cast to ${type}",on:${on}})`;

table('integers', [
  [
    'int8(this)',
    '"127" "-128" 127 1.9 -1.9 null',
    ['127(int8)', '-128(int8)', '127(int8)', '1(int8)', '-1(int8)', 'null(int8)'],
  ],
  [
    'int8(this)',
    '"128" 200 -129 1s true "1e3" " 1" "0x10"',
    [
      bad('int8', '"128"'),
      bad('int8', '200'),
      bad('int8', '-129'),
      bad('int8', '1s'),
      bad('int8', 'true'),
      bad('int8', '"1e3"'),
      bad('int8', '" 1"'),
      bad('int8', '"0x10"'),
    ],
  ],
  ['int16(this), int32(this)', '32768', [bad('int16', '32768'), '32768(int32)']],
  [
    'int64(this)',
    '"-9223372036854775808" "9223372036854775808" 1s 2020-01-01T00:00:00Z 1e19',
    [
      '-9223372036854775808',
      bad('int64', '"9223372036854775808"'),
      '1000000000',
      '1577836800000000000',
      '-9223372036854775808',
    ],
  ],
  [
    'uint8(this)',
    '"255" 255 1.9 "-1" -1 "256"',
    [
      '255(uint8)',
      '255(uint8)',
      '1(uint8)',
      bad('uint8', '"-1"'),
      bad('uint8', '-1'),
      bad('uint8', '"256"'),
    ],
  ],
  ['uint16(this), uint32(this)', '65536', [bad('uint16', '65536'), '65536(uint32)']],
  [
    'uint64(this)',
    '"18446744073709551615" -1.9 1s',
    ['18446744073709551615(uint64)', '18446744073709551615(uint64)', '1000000000(uint64)'],
  ],
]);

table('floats', [
  [
    'float64(this)',
    '"1.5" "NaN" "-inf" "+Inf" "1e-3" "0x1p-2" "1_0" 1 1s',
    ['1.5', 'NaN', '-Inf', '+Inf', '0.001', '0.25', bad('float64', '"1_0"'), '1.', '1000000000.'],
  ],
  [
    'float64(this)',
    '"1e400" "x" true',
    [bad('float64', '"1e400"'), bad('float64', '"x"'), bad('float64', 'true')],
  ],
  [
    'float32(this), float16(this)',
    '1.1 1e9',
    ['1.1(float32)', '1.0996094(float16)', '1000000000.(float32)', '+Inf(float16)'],
  ],
]);

table('bool', [
  [
    'bool(this)',
    '"true" "T" "1" "False" 0 2.5 0.5 1s',
    ['true', 'true', 'true', 'false', 'false', 'true', 'false', 'true'],
  ],
  ['bool(this)', '"yes" 10.0.0.1', [bad('bool', '"yes"'), bad('bool', '10.0.0.1')]],
]);

table('ip and net', [
  [
    'ip(this)',
    '"10.0.0.1" "::ffff:1.2.3.4" "fe80::1" 10.0.0.1',
    ['10.0.0.1', '::ffff:1.2.3.4', 'fe80::1', '10.0.0.1'],
  ],
  [
    'ip(this)',
    '" 10.0.0.1" "10.0.0.1/8" 1 10.0.0.0/8',
    [bad('ip', '" 10.0.0.1"'), bad('ip', '"10.0.0.1/8"'), bad('ip', '1'), bad('ip', '10.0.0.0/8')],
  ],
  [
    'net(this)',
    '"10.1.2.3/8" "2001:db8::1/32" 10.0.0.0/8',
    ['10.0.0.0/8', '2001:db8::/32', '10.0.0.0/8'],
  ],
  [
    'net(this)',
    '"1.2.3.4/33" "10.0.0.1" 10.0.0.1',
    [bad('net', '"1.2.3.4/33"'), bad('net', '"10.0.0.1"'), bad('net', '10.0.0.1')],
  ],
]);

table('duration', [
  [
    'duration(this)',
    '"1h30m" "2d" "-1.5s" "1.5" 1.5 1 1s',
    ['1h30m', '2d', '-1.5s', '1ns', '1ns', '1ns', '1s'],
  ],
  ['duration(this)', '2020-01-01T00:00:00Z', ['50y12d']],
  ['duration(this)', '"x" true', [bad('duration', '"x"'), bad('duration', 'true')]],
]);

table('time', [
  [
    'time(this)',
    '"2020-01-01" "2020-05-26T15:27:47.5+01:00" "5/26/2020 3:27pm" "1521911720" "1"',
    [
      '2020-01-01T00:00:00Z',
      '2020-05-26T14:27:47.5Z',
      '2020-05-26T15:27:00Z',
      '2018-03-24T17:15:20Z',
      '1970-01-01T00:00:00.000000001Z',
    ],
  ],
  [
    'time(this)',
    '1.5e9 1 1s 0(uint64) 2020-01-01T00:00:00Z',
    [
      '1970-01-01T00:00:01.5Z',
      '1970-01-01T00:00:00.000000001Z',
      '1970-01-01T00:00:01Z',
      '1970-01-01T00:00:00Z',
      '2020-01-01T00:00:00Z',
    ],
  ],
  ['time(this)', '"x" true', [bad('time', '"x"'), bad('time', 'true')]],
]);

table('string and bytes', [
  [
    'string(this)',
    '1 1.5 10.0.0.1 0x6869 %a(enum(a,b)) <int64> 1s "x"(=foo) 1((int64,string))',
    ['"1"', '"1.5"', '"10.0.0.1"', '"hi"', '"a"', '"<int64>"', '"1s"', '"x"', '"1"'],
  ],
  // A named value formats with its type name, unless a value of its
  // underlying type came first: the reference plans casts per underlying type.
  ['string(this)', '1(=n)', ['"1(=n)"']],
  ['string(this)', '1 1(=n)', ['"1"', '"1"']],
  ['string(this)', '{a:1} [1,2] null', ['{a:1}', '[1,2]', 'null(string)']],
  ['string(this)', '0xff', ['error({message:"cannot cast to string: invalid UTF-8",on:0xff})']],
  ['bytes(this)', '"hi" 1 null 0x01', ['0x6869', '0x02', 'null(bytes)', '0x01']],
]);

table('errors and nulls pass', [
  ['int64(this), string(this)', 'error("x")', ['error("x")', 'error("x")']],
  ['int64(x)', '{}', ['error("missing")']],
  [
    'int64(this), ip(this)',
    'null null(string)',
    ['null(int64)', 'null(ip)', 'null(int64)', 'null(ip)'],
  ],
]);

table('named types', [
  ['uint16(this)', '80', ['80(uint16)']],
  ['uint16(this)', '70000', ['error({message:"cannot cast to uint16",on:70000})']],
  ['cast(this, "point")', '{x:1,y:2} 1', ['{x:1,y:2}(=point)', '1(=point)']],
]);

describe('named types in queries', () => {
  test.each([
    [
      'type port=uint16 yield <port>(this), cast(this, <port>)',
      '80 "81"',
      '80(port=uint16)\n80(port=uint16)\n81(port=uint16)\n81(port=uint16)\n',
    ],
    [
      'type port=uint16 yield <port>(this)',
      '70000',
      'error({message:"cannot cast to uint16",on:70000})\n',
    ],
    ['type foo={a:int64} yield cast(this, <foo>)', '{a:"1",b:2} {a:1}', '{a:1,b:2}\n{a:1}(=foo)\n'],
    ['type foo={a:int64} yield cast(this, <foo>)', 'null', 'null(foo={a:int64})\n'],
  ])('%s over %s', async (query, input, want) => {
    expect(await run(query, input)).toBe(want);
  });
});

table('complex values', [
  ['cast(this, <[string]>)', '[1,2] |[3,1]| 1', ['["1","2"]', '["1","3"]', '1']],
  ['cast(this, <|[int64]|>)', '["2","1","2"]', ['|[1,2]|']],
  [
    'cast(this, <{a:int64}>)',
    '{a:"1",b:2} {b:1} {a:[1]} 1',
    ['{a:1,b:2}', '{b:1}', '{a:[1]}', '1'],
  ],
  [
    'cast(this, <(int64,string)>)',
    '1 "x" 1.5',
    ['1((int64,string))', '"x"((int64,string))', '1.5'],
  ],
  [
    'cast(this, <|{string:string}|>)',
    '1',
    ['error("cannot yet use maps in shaping functions (issue #2894)")'],
  ],
  [
    'cast(this, <type>), cast(this, <null>)',
    '1 |{1:2}|',
    [
      'error("cast to type not implemented")',
      'error("cast to null not implemented")',
      '|{1:2}|',
      '|{1:2}|',
    ],
  ],
  ['cast(this, 2)', '1', ['error("shaper type argument is not a type: 2")']],
]);
