import { expr, prim, primType, str, typeValue } from './build';

describe('primitive literals keep their text and type', () => {
  const cases: [string, string, string][] = [
    ['1', 'int64', '1'],
    ['-12', 'int64', '-12'],
    ['007', 'int64', '007'],
    ['1.5', 'float64', '1.5'],
    ['1.', 'float64', '1.'],
    ['.5', 'float64', '.5'],
    ['-.5e-3', 'float64', '-.5e-3'],
    ['2.5E+10', 'float64', '2.5E+10'],
    ['NaN', 'float64', 'NaN'],
    ['Inf', 'float64', 'Inf'],
    ['+Inf', 'float64', '+Inf'],
    ['-Inf', 'float64', '-Inf'],
    ['1h30m', 'duration', '1h30m'],
    ['-1.5s', 'duration', '-1.5s'],
    ['10ns', 'duration', '10ns'],
    ['3d', 'duration', '3d'],
    ['2y1w', 'duration', '2y1w'],
    ['2023-01-02T03:04:05Z', 'time', '2023-01-02T03:04:05Z'],
    ['2023-01-02T03:04:05.123456789-07:00', 'time', '2023-01-02T03:04:05.123456789-07:00'],
    ['10.0.0.1', 'ip', '10.0.0.1'],
    ['::', 'ip', '::'],
    ['::1', 'ip', '::1'],
    ['fe80::1:2', 'ip', 'fe80::1:2'],
    ['::ffff:1.2.3.4', 'ip', '::ffff:1.2.3.4'],
    ['1:2:3:4:5:6:7:8', 'ip', '1:2:3:4:5:6:7:8'],
    ['10.0.0.0/8', 'net', '10.0.0.0/8'],
    ['10.0.0.0/08', 'net', '10.0.0.0/8'],
    ['fe80::/64', 'net', 'fe80::/64'],
    ['0x', 'bytes', '0x'],
    ['0x0aFF', 'bytes', '0x0aFF'],
    ['true', 'bool', 'true'],
    ['false', 'bool', 'false'],
    ['null', 'null', ''],
  ];
  it.each(cases)('%s', (text, type, want) => {
    expect(expr(text)).toEqual(prim(type as never, want));
  });
});

describe('string literals', () => {
  it('decodes escapes in double- and single-quoted strings', () => {
    expect(expr('"a\\"b\\\\c\\n\\t\\r\\b\\f\\v\'"')).toEqual(str('a"b\\c\n\t\r\b\f\v\''));
    expect(expr("'it\\'s \"x\"'")).toEqual(str('it\'s "x"'));
  });

  it('decodes \\uXXXX and \\u{X..} escapes', () => {
    expect(expr('"\\u00e9\\u{1F600}\\u{41}"')).toEqual(str('é😀A'));
    // Surrogate code points are invalid runes: the reference makes them U+FFFD.
    expect(expr('"\\ud83d"')).toEqual(str('\ufffd'));
  });

  it('keeps non-ASCII characters', () => {
    expect(expr('"日本"')).toEqual(str('日本'));
  });

  it('rejects raw control characters and unknown escapes', () => {
    expect(() => expr('"a\nb"')).toThrow('error parsing Zed at line 1, column 9:');
    expect(() => expr('"\\q"')).toThrow('column 9:');
  });
});

describe('type syntax', () => {
  it('parses every primitive type name', () => {
    const names = [
      'uint8',
      'uint16',
      'uint32',
      'uint64',
      'int8',
      'int16',
      'int32',
      'int64',
      'float16',
      'float32',
      'float64',
      'bool',
      'string',
      'duration',
      'time',
      'bytes',
      'ip',
      'net',
      'type',
      'null',
    ];
    for (const n of names) expect(expr(`<${n}>`)).toEqual(typeValue(primType(n)));
  });

  it('parses records, arrays, sets, maps and unions', () => {
    expect(expr('<{a:int64,"b c":[string],s:|[ip]|,m:|{string:(int64,null)}|}>')).toEqual(
      typeValue({
        kind: 'TypeRecord',
        fields: [
          { name: 'a', type: primType('int64') },
          { name: 'b c', type: { kind: 'TypeArray', type: primType('string') } },
          { name: 's', type: { kind: 'TypeSet', type: primType('ip') } },
          {
            name: 'm',
            type: {
              kind: 'TypeMap',
              keyType: primType('string'),
              valType: { kind: 'TypeUnion', types: [primType('int64'), primType('null')] },
            },
          },
        ],
      }),
    );
    expect(expr('<{}>')).toEqual(typeValue({ kind: 'TypeRecord', fields: [] }));
  });

  it('parses named types and definitions', () => {
    expect(expr('<port>')).toEqual(typeValue({ kind: 'TypeName', name: 'port' }));
    expect(expr('<"my type">')).toEqual(typeValue({ kind: 'TypeName', name: 'my type' }));
    expect(expr('<port=uint16>')).toEqual(
      typeValue({ kind: 'TypeDef', name: 'port', type: primType('uint16') }),
    );
    // A primitive name followed by identifier characters is a type name.
    expect(expr('<int64s>')).toEqual(typeValue({ kind: 'TypeName', name: 'int64s' }));
  });

  it('needs two types in a union and no space before its closing parenthesis', () => {
    expect(() => expr('<(int64)>')).toThrow('column 15:');
    expect(() => expr('<(int64,string )>')).toThrow('column 22:');
  });

  it('has no enum or error type syntax (as in the reference)', () => {
    expect(() => expr('<error(string)>')).toThrow('column 21:');
    expect(() => expr('<enum(a,b)>')).toThrow('column 17:');
  });
});
