import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FormatError } from '../../../src/formats/io';
import { MAX_DEPTH } from '../../../src/formats/json/reader';
import {
  decodeFloat,
  decodeIntBig,
  formatType,
  TypeContext,
  TypeFloat64,
  TypeInt64,
  TypeNull,
  TypeString,
  Value,
} from '../../../src/zed';
import { errorOf, ndjson, readJSON, typesOf } from './helpers';

const sampleDir = join(__dirname, '../../../../shared/sample-data/zeek-json');

function body(v: Value): string {
  return v.isNull ? 'null' : v.bytes()!.toString('hex');
}

describe('JSON reader: the reference ztests (zio/jsonio/ztests)', () => {
  test('json.yaml: objects become records in key order, whitespace and blank lines ignored', async () => {
    const vals = await readJSON(
      '{ "string1": "value1", "string2": "value1", "int1": 4, "bool1": true }\n' +
        '{ "int1": 4, "bool1": true, "string2": "value2", "string1": "value2" }\n\n' +
        '{ "obj1": { "null1": null } }\n',
    );
    expect(typesOf(vals)).toEqual([
      '{string1:string,string2:string,int1:int64,bool1:bool}',
      '{int1:int64,bool1:bool,string2:string,string1:string}',
      '{obj1:{null1:null}}',
    ]);
    expect(await ndjson(vals)).toBe(
      '{"string1":"value1","string2":"value1","int1":4,"bool1":true}\n' +
        '{"int1":4,"bool1":true,"string2":"value2","string1":"value2"}\n' +
        '{"obj1":{"null1":null}}\n',
    );
  });

  test('reader.yaml: values spanning lines, big integers exact, arrays of records', async () => {
    const vals = await readJSON(
      '{\n  "ts": 1521911721.926018012,\n  "a": "hello, world",\n  "b": {\n' +
        '    "z": "&, <, and > should not be escaped",\n    "x": 4611686018427387904,\n' +
        '    "y": "127.0.0.1"\n  }\n}\n' +
        '[ {"a":1}, {"b":"hello"}, {"c":true} ]\n[ "foo", 1, {"a":1} ]\n',
    );
    expect(typesOf(vals)).toEqual([
      '{ts:float64,a:string,b:{z:string,x:int64,y:string}}',
      '[({a:int64},{b:string},{c:bool})]',
      '[(int64,string,{a:int64})]',
    ]);
    expect(await ndjson(vals)).toBe(
      '{"ts":1521911721.926018,"a":"hello, world","b":{"z":"&, <, and > should not be escaped","x":4611686018427387904,"y":"127.0.0.1"}}\n' +
        '[{"a":1},{"b":"hello"},{"c":true}]\n' +
        '["foo",1,{"a":1}]\n',
    );
    // 4611686018427387904 = 2^62: exact, not rounded through a double.
    const b = vals[0];
    expect(decodeFloat(b.buf, b.off + 1, 8)).toBe(1521911721.926018);
  });

  test('duplicate-field.yaml: a repeated key keeps its first position and its last value', async () => {
    const text = '{"b":null,"a":1,"a":2,"b":"3"}\n';
    const vals = await readJSON(text + text + '{"x":{"k":1,"k":[true]},"y":[{"k":1,"k":2}]}');
    expect(typesOf(vals)).toEqual([
      '{b:string,a:int64}',
      '{b:string,a:int64}',
      '{x:{k:[bool]},y:[{k:int64}]}',
    ]);
    expect(await ndjson(vals)).toBe(
      '{"b":"3","a":2}\n{"b":"3","a":2}\n{"x":{"k":[true]},"y":[{"k":2}]}\n',
    );
  });

  test('empty-objects.yaml, first-token-is-empty-string.yaml, hyphen.yaml', async () => {
    const vals = await readJSON('{}\n{"ja3s":{}}\n""\n{"Hyphen":"-"}\n');
    expect(typesOf(vals)).toEqual(['{}', '{ja3s:{}}', 'string', '{Hyphen:string}']);
    expect(await ndjson(vals)).toBe('{}\n{"ja3s":{}}\n""\n{"Hyphen":"-"}\n');
  });

  test('nested-empties.yaml: null fields have the null type', async () => {
    const vals = await readJSON('{"san":{"dns":["google.com"],"email":null,"ip":null,"uri":null}}');
    expect(typesOf(vals)).toEqual(['{san:{dns:[string],email:null,ip:null,uri:null}}']);
    expect(await ndjson(vals)).toBe(
      '{"san":{"dns":["google.com"],"email":null,"ip":null,"uri":null}}\n',
    );
  });

  test('html-escaping-disabled.yaml', async () => {
    const text = '"<>&"\n{"<>&":"<>&"}\n';
    expect(await ndjson(await readJSON(text))).toBe(text);
  });

  test('union-array.yaml: arrays of mixed types are arrays of unions in the reference union order', async () => {
    const vals = await readJSON(
      [
        '[]',
        '[null]',
        '["a", null]',
        '["b", 2]',
        '["c", 100, 200]',
        '["d", null, 200]',
        '["e", [1, 2]]',
        '["f", false, ["foo", 2], {"dd": ["foo", 2, true]}]',
        '["g", false, ["foo", 2], {"d.d": ["foo", 2, true]}]',
      ].join('\n'),
    );
    expect(typesOf(vals)).toEqual([
      '[null]',
      '[null]',
      '[string]',
      '[(int64,string)]',
      '[(int64,string)]',
      '[(int64,string)]',
      '[(string,[int64])]',
      // Records sort before arrays in the reference's union order.
      '[(bool,string,{dd:[(int64,bool,string)]},[(int64,string)])]',
      '[(bool,string,{"d.d":[(int64,bool,string)]},[(int64,string)])]',
    ]);
    // ["b", 2]: union values [tag, value], tag a zcode int: string is tag 1, int64 tag 0.
    expect(body(vals[3])).toBe('05' + '0202' + '0262' + '04' + '01' + '0204');
    // ["a", null]: one non-null type, so no union; the null stays null.
    expect(body(vals[2])).toBe('026100');
    // ["d", null, 200]: a null element of a union array is a plain null.
    expect(body(vals[5]).slice(10, 12)).toBe('00');
  });

  test('unicode-nfc.yaml: strings are NFC-normalised', async () => {
    const vals = await readJSON('"Å"\n"\\u00c5"\n"\\u212b"\n"A\\u030a"\n');
    expect(vals.map(body)).toEqual(['c385', 'c385', 'c385', 'c385']);
  });
});

describe('JSON reader: typing', () => {
  test('integers are int64 exactly, to the ends of the range; beyond, float64', async () => {
    const vals = await readJSON(
      '9223372036854775807 -9223372036854775808 9223372036854775808 12345678901234567 -0 007 123456789012345',
    );
    expect(vals.map((v) => v.type)).toEqual([
      TypeInt64,
      TypeInt64,
      TypeFloat64,
      TypeInt64,
      TypeInt64,
      TypeInt64,
      TypeInt64,
    ]);
    expect(decodeIntBig(vals[0].buf, vals[0].off, vals[0].len)).toBe(9223372036854775807n);
    expect(decodeIntBig(vals[1].buf, vals[1].off, vals[1].len)).toBe(-9223372036854775808n);
    expect(decodeFloat(vals[2].buf, vals[2].off, 8)).toBe(9223372036854775808);
    expect(decodeIntBig(vals[3].buf, vals[3].off, vals[3].len)).toBe(12345678901234567n);
    expect(vals[4].len).toBe(0); // zero is the empty body
    expect(decodeIntBig(vals[5].buf, vals[5].off, vals[5].len)).toBe(7n);
    expect(decodeIntBig(vals[6].buf, vals[6].off, vals[6].len)).toBe(123456789012345n);
  });

  test('other numbers are float64, as Go parses them', async () => {
    const vals = await readJSON('1.0 1e2 -2.5E-3 5. -.5 0.1 1e-400');
    expect(vals.every((v) => v.type === TypeFloat64 && v.len === 8)).toBe(true);
    expect(vals.map((v) => decodeFloat(v.buf, v.off, 8))).toEqual([
      1, 100, -0.0025, 5, -0.5, 0.1, 0,
    ]);
  });

  test('true, false, null and top-level scalars', async () => {
    const vals = await readJSON('true false null "x" 1');
    expect(typesOf(vals)).toEqual(['bool', 'bool', 'null', 'string', 'int64']);
    expect(vals[2].isNull).toBe(true);
    expect(vals[2].type).toBe(TypeNull);
    expect(await ndjson(vals)).toBe('true\nfalse\nnull\n"x"\n1\n');
  });

  test('escapes, surrogate pairs, lone surrogates', async () => {
    const vals = await readJSON(
      String.raw`"\"\\\/\b\f\n\r\t\'" "\u00e9" "\ud83d\ude00" "\ud83d" "\ude00\ud83d\ude00" "\ud83dx"`,
    );
    const strs = vals.map((v) => v.bytes()!.toString('utf8'));
    expect(strs).toEqual(['"\\/\b\f\n\r\t\'', 'é', '😀', '\ufffd', '\ufffd😀', '\ufffdx']);
    expect(vals.every((v) => v.type === TypeString)).toBe(true);
  });

  test("invalid UTF-8 becomes U+FFFD a byte at a time, as Go's decoder does", async () => {
    const input = Buffer.concat([
      Buffer.from('"a'),
      Buffer.from([0xe2, 0x82]),
      Buffer.from('b'),
      Buffer.from([0xff]),
      Buffer.from('"'),
    ]);
    const [v] = await readJSON(input);
    expect(v.bytes()!.toString('hex')).toBe('61' + 'efbfbd'.repeat(2) + '62' + 'efbfbd');
  });

  test('keys are unescaped but not normalised; dotted keys stay whole', async () => {
    const vals = await readJSON(String.raw`{"a\u0041":1,"A\u030a":2,"id.orig_h":3}`);
    expect(typesOf(vals)).toEqual(['{aA:int64,"A\u030a":int64,"id.orig_h":int64}']);
    expect((vals[0].type as unknown as { fields: { name: string }[] }).fields[1].name).toBe(
      'A\u030a',
    );
  });

  test('types are interned in the given context, and same-shaped records share a type', async () => {
    const ctx = new TypeContext();
    const vals = await readJSON(
      '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n{"a":"s","b":"y"}\n{"b":1,"a":2}',
      ctx,
    );
    expect(vals[0].type).toBe(vals[1].type);
    expect(vals[2].type).not.toBe(vals[0].type);
    expect(ctx.lookupType(vals[0].type.id)).toBe(vals[0].type);
    expect(typesOf(vals)).toEqual([
      '{a:int64,b:string}',
      '{a:int64,b:string}',
      '{a:string,b:string}',
      '{b:int64,a:int64}',
    ]);
  });

  test('long strings and containers over 127 bytes get multi-byte tags', async () => {
    const long = 'x'.repeat(300);
    const text = JSON.stringify({ s: long, r: { a: [long, long] }, n: 1 });
    const vals = await readJSON(text);
    expect(await ndjson(vals)).toBe(text + '\n');
  });
});

describe('JSON reader: streaming', () => {
  const mixed =
    '{"a":1,"b":[1,"x",null,{"c":true}],"d":"\\u00e9\\ud83d\\ude00","e":-12.5e3,"f":9223372036854775807}\n' +
    '[] [null] "str" 42 true false null {"a":1,"a":{"b":2}} {"x":[[1],[2,"y"]]}\n' +
    '{"s":"' +
    'long '.repeat(100) +
    '"}';

  test('any chunking of the input gives the same values', async () => {
    const whole = await readJSON(mixed);
    const want = (await ndjson(whole)) + typesOf(whole).join('|');
    for (const size of [1, 2, 3, 5, 7, 13, 64, 1000]) {
      const vals = await readJSON(mixed, new TypeContext(), size);
      expect((await ndjson(vals)) + typesOf(vals).join('|')).toBe(want);
    }
  });

  test('values may be separated by any JSON whitespace or nothing', async () => {
    const vals = await readJSON('{}{}\t[1]\r\n"a""b"1 2');
    expect(typesOf(vals)).toEqual(['{}', '{}', '[int64]', 'string', 'string', 'int64', 'int64']);
  });

  test('a large stream is read in several batches', async () => {
    const line =
      '{"ts":"2018-03-24T17:15:25.396014Z","id.orig_p":36643,"rtt":0.00043,"name":"abc"}\n';
    const n = 20000;
    const { JSONReader } = await import('../../../src/formats/json/reader');
    const { sourceFromBuffer } = await import('../../../src/formats/io');
    const r = new JSONReader(sourceFromBuffer(Buffer.from(line.repeat(n)), 4096), {
      ctx: new TypeContext(),
    });
    let batches = 0;
    let count = 0;
    for (;;) {
      const b = await r.read();
      if (!b) break;
      batches++;
      count += b.length;
    }
    expect(count).toBe(n);
    expect(batches).toBeGreaterThan(1);
  });
});

describe('JSON reader: errors', () => {
  const cases: [string, string, number][] = [
    ['{"a":1', 'unexpected EOF', 1],
    ['{"a" 1}', "invalid character '1' after object key", 1],
    ['{"a":1 "b":2}', `invalid character '"' after object key`, 1],
    ['{"a":1 true}', "invalid character 't' after object key", 1],
    ['{"a":1 trux}', 'bad literal name', 1],
    ['{1:2}', "invalid character '1' looking for beginning of object key string", 1],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string", 1],
    ['{"a":}', "invalid character '}' looking for beginning of value", 1],
    ['[1,]', "invalid character ']' looking for beginning of value", 1],
    ['[1 2]', "invalid character '2' after array value", 1],
    ['[1 x]', "invalid character 'x' looking for beginning of value", 1],
    ['[1,,2]', "invalid character ',' looking for beginning of value", 1],
    ['tru ', 'bad literal name', 1],
    ['truex', 'bad literal name', 1],
    ['nul', 'unexpected EOF', 1],
    ['"abc', 'unexpected EOF', 1],
    ['"a\\x"', String.raw`invalid JSON string "\"a\\x\""`, 1],
    ['"a\tb"', String.raw`invalid JSON string "\"a\tb\""`, 1],
    ['"a\\u12"', String.raw`invalid JSON string "\"a\\u12\""`, 1],
    ['{"a\\x":1}', String.raw`invalid string "\"a\\x\""`, 1],
    ['1e', 'strconv.ParseFloat: parsing "1e": invalid syntax', 1],
    ['-', 'strconv.ParseFloat: parsing "-": invalid syntax', 1],
    ['1.2.3', 'strconv.ParseFloat: parsing "1.2.3": invalid syntax', 1],
    ['1e400', 'strconv.ParseFloat: parsing "1e400": value out of range', 1],
    ['@', "invalid character '@' looking for beginning of value", 1],
    ['{"a":1}}', "invalid character '}' looking for beginning of value", 1],
    ['{}\n{}\n{"a":\n}', "invalid character '}' looking for beginning of value", 4],
    ['\n\n  x', "invalid character 'x' looking for beginning of value", 3],
    ['\u00ff', "invalid character 'Ã' looking for beginning of value", 1],
  ];
  test.each(cases)('%j → %s', async (input, message, line) => {
    const err = await errorOf(readJSON(input));
    expect(err).toBeInstanceOf(FormatError);
    expect(err.message).toBe(message);
    expect((err as FormatError).format).toBe('json');
    expect((err as FormatError).line).toBe(line);
  });

  test('the error offset points into the stream, across chunks', async () => {
    const input = '{"a":1}\n'.repeat(100) + '{"a":?}';
    const err = (await errorOf(readJSON(input, new TypeContext(), 16))) as FormatError;
    expect(err.offset).toBe(800 + 5);
    expect(err.line).toBe(101);
  });

  test('nesting deeper than the limit is an error, not a stack overflow', async () => {
    const deep = '['.repeat(MAX_DEPTH + 5) + ']'.repeat(MAX_DEPTH + 5);
    const err = await errorOf(readJSON(deep));
    expect(err).toBeInstanceOf(FormatError);
    expect(err.message).toBe(`JSON value nested more than ${MAX_DEPTH} deep`);
    const ok = '['.repeat(MAX_DEPTH - 1) + ']'.repeat(MAX_DEPTH - 1);
    expect(await readJSON(ok)).toHaveLength(1);
  });
});

describe('JSON reader: the zeek-json sample data', () => {
  const files = readdirSync(sampleDir).filter((f) => f.endsWith('.json.gz'));

  test.each(files)('%s loads, one record per line', async (file) => {
    const data = gunzipSync(readFileSync(join(sampleDir, file)));
    const lines = data
      .toString('utf8')
      .split('\n')
      .filter((l) => l.length > 0);
    const vals = await readJSON(data, new TypeContext(), 65536);
    expect(vals).toHaveLength(lines.length);
    // Every record reads back as the same JSON (numbers in shortest form).
    const out = (await ndjson(vals)).split('\n');
    for (let i = 0; i < lines.length; i += Math.max(1, Math.floor(lines.length / 50))) {
      expect(JSON.parse(out[i])).toEqual(JSON.parse(lines[i]));
    }
  });

  test('field types: times stay strings, ports int64, durations float64', async () => {
    const data = gunzipSync(readFileSync(join(sampleDir, 'dce_rpc.json.gz')));
    const [first] = await readJSON(data);
    expect(formatType(first.type)).toBe(
      '{_path:string,_write_ts:string,ts:string,uid:string,"id.orig_h":string,"id.orig_p":int64,' +
        '"id.resp_h":string,"id.resp_p":int64,rtt:float64,named_pipe:string,endpoint:string,operation:string}',
    );
    const notice = await readJSON(gunzipSync(readFileSync(join(sampleDir, 'notice.json.gz'))));
    const types = new Set(typesOf(notice));
    // Empty arrays are arrays of null; suppress_for (3600.0) is float64.
    expect(
      [...types].some((t) => t.includes('email_dest:[null]') && t.includes('suppress_for:float64')),
    ).toBe(true);
  });
});
