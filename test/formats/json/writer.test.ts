import fc from 'fast-check';
import { JSONMarshalError } from '../../../src/formats/json/marshal';
import { formatJSONFloat } from '../../../src/formats/json/text';
import {
  encodeFloat16,
  encodeFloat32,
  encodeFloat64,
  newBool,
  newBytes,
  newDuration,
  newFloat64,
  newInt,
  newInt64,
  newString,
  newTime,
  newUint,
  parseIP,
  parseNet,
  TypeBool,
  TypeBytes,
  TypeContext,
  TypeDuration,
  TypeFloat16,
  TypeFloat32,
  TypeFloat64,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  TypeIP,
  TypeNet,
  TypeNull,
  TypeString,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeUint8,
  Value,
} from '../../../src/zed';
import { arbValue } from '../../helpers/arbitrary';
import { arr, enumOf, errorOfValue, map, named, nullOf, rec, set, union } from './build';
import { errorOf, jsonArray, ndjson, readJSON } from './helpers';

const ip = (s: string) => Value.fromBytes(TypeIP, Buffer.from(parseIP(s)!));
const net = (s: string) => Value.fromBytes(TypeNet, Buffer.from(parseNet(s)!));
const f64 = (v: number) => Value.fromBytes(TypeFloat64, encodeFloat64(v));
const f32 = (v: number) => Value.fromBytes(TypeFloat32, encodeFloat32(v));
const f16 = (v: number) => Value.fromBytes(TypeFloat16, encodeFloat16(v));

describe('JSON writer: the reference ztests (zio/jsonio/ztests)', () => {
  const ctx = new TypeContext();

  test('types.yaml: every primitive type', async () => {
    const v = rec(ctx, [
      ['a', ip('10.1.1.1')],
      ['a2', ip('fe80::eef4:bbff:fe51:89ec')],
      ['b', newBool(true)],
      ['c', newUint(TypeUint64, 517)],
      ['f', newFloat64(3.14159)],
      ['i', newInt(TypeInt32, 18)],
      ['interval', newDuration(60_000_000_000n)],
      ['p', newUint(TypeUint16, 443)],
      ['s', newString('Hello, world!')],
      ['t', newTime(1578407783487000000n)],
      ['type', ctx.typeValueOf(TypeInt64)],
    ]);
    expect(await ndjson([v])).toBe(
      '{"a":"10.1.1.1","a2":"fe80::eef4:bbff:fe51:89ec","b":true,"c":517,"f":3.14159,"i":18,"interval":"1m","p":443,"s":"Hello, world!","t":"2020-01-07T14:36:23.487Z","type":"<int64>"}\n',
    );
  });

  test('time.yaml: times in RFC 3339, durations in Zed units', async () => {
    const rows: [bigint, bigint][] = [
      [1000000000000000000n, 1000000000000000000n],
      [1000000000n, -1000000000n],
      [1000000000n, 1000000000n],
      [112300000000000000n, 112300000000000000n],
      [10n, 10n],
    ];
    const vals = rows.map(([t, d]) =>
      rec(ctx, [
        ['_path', newString('conn')],
        ['ts', newTime(t)],
        ['d', newDuration(d)],
      ]),
    );
    expect(await ndjson(vals)).toBe(
      '{"_path":"conn","ts":"2001-09-09T01:46:40Z","d":"31y259d1h46m40s"}\n' +
        '{"_path":"conn","ts":"1970-01-01T00:00:01Z","d":"-1s"}\n' +
        '{"_path":"conn","ts":"1970-01-01T00:00:01Z","d":"1s"}\n' +
        '{"_path":"conn","ts":"1973-07-23T18:26:40Z","d":"3y204d18h26m40s"}\n' +
        '{"_path":"conn","ts":"1970-01-01T00:00:00.00000001Z","d":"10ns"}\n',
    );
  });

  test('empty-containers.yaml, null-containers.yaml, nested-nulls.yaml', async () => {
    const strArr = ctx.lookupTypeArray(TypeString);
    const empty = rec(ctx, [
      ['dns', arr(ctx, TypeString, [newString('google.com')])],
      ['uri', arr(ctx, TypeString, [])],
      ['email', set(ctx, TypeString, [])],
      ['ip', nullOf(ctx.lookupTypeArray(TypeIP))],
    ]);
    const nulls = rec(ctx, [
      ['dns', arr(ctx, TypeString, [newString('google.com')])],
      ['uri', nullOf(strArr)],
      ['email', nullOf(ctx.lookupTypeSet(TypeString))],
      ['ip', nullOf(ctx.lookupTypeArray(TypeIP))],
    ]);
    expect(await ndjson([empty, nulls, rec(ctx, [['san', nulls]])])).toBe(
      '{"dns":["google.com"],"uri":[],"email":[],"ip":null}\n' +
        '{"dns":["google.com"],"uri":null,"email":null,"ip":null}\n' +
        '{"san":{"dns":["google.com"],"uri":null,"email":null,"ip":null}}\n',
    );
  });

  test('typedef.yaml, union-output.yaml, error.yaml: names, unions and errors', async () => {
    const u = [TypeInt64, TypeString];
    const vals = [
      named(ctx, 'custom', rec(ctx, [['a', newInt64(1)]])),
      rec(ctx, [['b', newInt64(2)]]),
      union(ctx, u, newInt64(1)),
      union(ctx, u, newString('one')),
      rec(ctx, [
        ['a', newInt64(1)],
        ['b', newInt64(0)],
        ['x', ctx.newError('divide by zero')],
      ]),
      errorOfValue(ctx, rec(ctx, [['code', newInt64(3)]])),
    ];
    expect(await ndjson(vals)).toBe(
      '{"a":1}\n{"b":2}\n1\n"one"\n{"a":1,"b":0,"x":{"error":"divide by zero"}}\n{"error":{"code":3}}\n',
    );
  });

  test('map-output.yaml: maps are objects keyed by the key text', async () => {
    const one = newInt64(1);
    const m = (k: Value) => map(ctx, k.type, TypeInt64, [[k, one]]);
    const vals = [
      map(ctx, TypeString, TypeInt64, []),
      m(newUint(TypeUint8, 8)),
      m(newUint(TypeUint16, 16)),
      m(newUint(TypeUint32, 32)),
      m(newInt64(64)),
      m(newInt(TypeInt8, -8)),
      m(newInt(TypeInt16, -16)),
      m(newInt(TypeInt32, -32)),
      m(newInt64(-64)),
      m(newDuration(1_000_000_000)),
      m(newTime(0)),
      m(f16(16)),
      m(f32(32)),
      m(f64(64)),
      m(newBool(false)),
      m(newBytes(Buffer.from([1, 2, 3, 4]))),
      m(newString('string')),
      m(ip('1.2.3.4')),
      m(net('5.6.7.0/24')),
      m(ctx.typeValueOf(TypeUint8)),
      m(nullOf(TypeNull)),
      m(enumOf(ctx, ['e0'], 0)),
      m(named(ctx, 't', newString('named'))),
    ];
    expect((await ndjson(vals)).split('\n')).toEqual([
      '{}',
      '{"8":1}',
      '{"16":1}',
      '{"32":1}',
      '{"64":1}',
      '{"-8":1}',
      '{"-16":1}',
      '{"-32":1}',
      '{"-64":1}',
      '{"1s":1}',
      '{"1970-01-01T00:00:00Z":1}',
      '{"16.":1}',
      '{"32.":1}',
      '{"64.":1}',
      '{"false":1}',
      '{"0x01020304":1}',
      '{"string":1}',
      '{"1.2.3.4":1}',
      '{"5.6.7.0/24":1}',
      '{"<uint8>":1}',
      '{"null":1}',
      '{"e0":1}',
      '{"named":1}',
      '',
    ]);
  });

  test('map-output.yaml: union keys are decorated so that equal texts stay apart', async () => {
    const t = ctx.lookupTypeNamed('t', TypeInt64);
    const types = [TypeUint64, TypeInt64, t, TypeString];
    const k = (v: Value) => union(ctx, types, v);
    const v = map(ctx, ctx.lookupTypeUnion(types), TypeInt64, [
      [k(newUint(TypeUint64, 0)), newInt64(2)],
      [k(newInt64(0)), newInt64(1)],
      [k(Value.fromBytes(t, Buffer.alloc(0))), newInt64(3)],
      [k(newString('0')), newInt64(4)],
    ]);
    expect(await ndjson([v])).toBe('{"0(uint64)":2,"0":1,"0(=t)":3,"\\"0\\"":4}\n');
  });

  test('html-escaping-disabled.yaml and string escapes as Go writes them', async () => {
    const s = Buffer.concat([
      Buffer.from('<>&"\\\n\r\t\b\f\x01\x7f/é\u2028\u2029😀'),
      Buffer.from([0xff, 0xe2, 0x82]),
    ]);
    const v = Value.fromBytes(TypeString, s);
    expect(await ndjson([v])).toBe(
      '"<>&\\"\\\\\\n\\r\\t\\u0008\\u000c\\u0001\x7f/é\\u2028\\u2029😀\\ufffd\\ufffd\\ufffd"\n',
    );
  });
});

describe('JSON writer: numbers', () => {
  test('float64 as Go: %f between 1e-6 and 1e21, shortest %e outside', async () => {
    const xs = [1e21, 1e20, 1e-7, 1e-6, 0.1, -0, 0, 1.5e300, -2.5e-10, 123456789.125, 3];
    const vals = xs.map(f64);
    expect((await ndjson(vals)).trim().split('\n')).toEqual([
      '1e+21',
      '100000000000000000000',
      '1e-7',
      '0.000001',
      '0.1',
      '-0',
      '0',
      '1.5e+300',
      '-2.5e-10',
      '123456789.125',
      '3',
    ]);
  });

  test('float32 and float16 print their own shortest digits', async () => {
    const vals = [
      f32(0.1),
      f32(1e-7),
      f32(3.4028234663852886e38),
      f32(16777216),
      f16(0.1),
      f16(65504),
      f32(-0),
    ];
    expect((await ndjson(vals)).trim().split('\n')).toEqual([
      '0.1',
      '1e-7',
      '3.4028235e+38',
      '16777216',
      '0.099975586',
      '65504',
      '-0',
    ]);
    expect(formatJSONFloat(Math.fround(1e21), 32)).toBe('1e+21');
    expect(formatJSONFloat(Math.fround(1e-6), 32)).toBe('0.000001');
  });

  test('integers of every width, exact to 64 bits', async () => {
    const vals = [
      newUint(TypeUint64, 18446744073709551615n),
      newInt64(-9223372036854775808n),
      newInt64(9007199254740993n),
      newUint(TypeUint8, 255),
      newInt(TypeInt8, -128),
    ];
    expect(await ndjson(vals)).toBe(
      '18446744073709551615\n-9223372036854775808\n9007199254740993\n255\n-128\n',
    );
  });

  test('NaN and infinities are an error, with the text of Go’s encoder', async () => {
    const ctx = new TypeContext();
    const inner = rec(ctx, [['x', f64(NaN)]]);
    const cases: [Value, string][] = [
      [f64(NaN), 'json: unsupported value: NaN'],
      [f64(Infinity), 'json: unsupported value: +Inf'],
      [f32(-Infinity), 'json: unsupported value: -Inf'],
      [arr(ctx, TypeFloat64, [f64(NaN)]), 'json: unsupported value: NaN'],
      [
        inner,
        'json: error calling MarshalJSON for type jsonio.record: json: unsupported value: NaN',
      ],
      [
        rec(ctx, [['r', inner]]),
        'json: error calling MarshalJSON for type jsonio.record: json: error calling MarshalJSON for type jsonio.record: json: unsupported value: NaN',
      ],
    ];
    for (const [v, message] of cases) {
      const err = await errorOf(ndjson([v]));
      expect(err).toBeInstanceOf(JSONMarshalError);
      expect(err.message).toBe(message);
    }
  });

  test('values before a refused one are still written', async () => {
    const { BufferSink } = await import('../../../src/formats/io');
    const { NDJSONWriter } = await import('../../../src/formats/json/writer');
    const sink = new BufferSink();
    const w = new NDJSONWriter(sink);
    await expect(w.write([newInt64(1), f64(NaN), newInt64(2)])).rejects.toThrow(
      'unsupported value',
    );
    await w.close();
    expect(sink.text()).toBe('1\n');
  });
});

describe('JSON writer: containers', () => {
  test('sets as arrays, enums as symbols, a bad enum index as <bad enum>', async () => {
    const ctx = new TypeContext();
    const vals = [
      set(ctx, TypeInt64, [newInt64(1), newInt64(2)]),
      enumOf(ctx, ['red', 'green'], 1),
      enumOf(ctx, ['red', 'green'], 7),
      map(ctx, TypeString, ctx.lookupTypeArray(TypeBool), [
        [newString('k'), arr(ctx, TypeBool, [newBool(true)])],
      ]),
      Value.fromBytes(TypeBytes, Buffer.alloc(0)),
    ];
    expect(await ndjson(vals)).toBe('[1,2]\n"green"\n"<bad enum>"\n{"k":[true]}\n"0x"\n');
  });

  test('the array writer writes the whole result as one JSON array', async () => {
    const ctx = new TypeContext();
    expect(await jsonArray([])).toBe('[]\n');
    expect(
      await jsonArray([newInt64(1), rec(ctx, [['a', newString('x')]]), nullOf(TypeDuration)]),
    ).toBe('[1,{"a":"x"},null]\n');
  });
});

/** JSON as the reader sees it: strings NFC-normalised, -0 an integer 0. */
function nfc(j: unknown): unknown {
  if (typeof j === 'string') return j.normalize('NFC');
  if (Object.is(j, -0)) return 0;
  if (Array.isArray(j)) return j.map(nfc);
  if (typeof j === 'object' && j !== null) {
    return Object.fromEntries(Object.entries(j).map(([k, v]) => [k, nfc(v)]));
  }
  return j;
}

describe('JSON round trips', () => {
  test('reading what the writer wrote gives the same JSON (any Zed value JSON can hold)', async () => {
    await fc.assert(
      fc.asyncProperty(arbValue(new TypeContext()), async (v) => {
        let t1: string;
        try {
          t1 = await ndjson([v]);
        } catch (e) {
          if (e instanceof JSONMarshalError) return; // NaN or ±Inf
          throw e;
        }
        const v2 = await readJSON(t1);
        expect(v2).toHaveLength(1);
        const t2 = await ndjson(v2);
        expect(JSON.parse(t2)).toEqual(nfc(JSON.parse(t1)));
        // After one trip the text is a fixed point.
        expect(await ndjson(await readJSON(t2))).toBe(t2);
      }),
      { numRuns: 500 },
    );
  });

  test('JSON values read and written again are the same JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (j) => {
        const text = JSON.stringify(j);
        const vals = await readJSON(text);
        expect(vals).toHaveLength(1);
        expect(JSON.parse(await ndjson(vals))).toEqual(JSON.parse(text));
      }),
      { numRuns: 1000 },
    );
  });

  test('JSON-shaped Zed values survive writing and reading with types and bytes intact', async () => {
    // Records and non-empty arrays of one type, over int64, non-integral
    // float64, string and bool, with no nulls: exactly what JSON carries.
    const ctx = new TypeContext();
    const prim = fc.oneof(
      fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n).map((i) => newInt64(i)),
      fc
        .double({ noNaN: true, noDefaultInfinity: true })
        .filter((d) => !Number.isInteger(d))
        .map(f64),
      fc.string({ unit: 'grapheme' }).map((s) => newString(s.normalize('NFC'))),
      fc.boolean().map(newBool),
    );
    const names = fc.constantFrom('a', 'b', 'ts', 'id.orig_h', 'with space', 'é', '');
    const { value } = fc.letrec<{ value: Value }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        prim,
        fc
          .uniqueArray(fc.tuple(names, tie('value')), { selector: (f) => f[0], maxLength: 4 })
          .map((fs) => rec(ctx, fs)),
        fc.tuple(tie('value'), fc.nat({ max: 3 })).map(([v, n]) =>
          arr(
            ctx,
            v.type,
            Array.from({ length: n + 1 }, () => v),
          ),
        ),
      ),
    }));
    await fc.assert(
      fc.asyncProperty(value, async (v) => {
        const [back] = await readJSON(await ndjson([v]), ctx);
        expect(back.type).toBe(v.type);
        expect(back.bytes()!.equals(v.bytes()!)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
