import fc from 'fast-check';
import {
  BufferSink,
  ControlMessage,
  FormatError,
  readAll,
  sourceFromBuffer,
} from '../../../src/formats/io';
import { zjsonFormat, ZJSONReader, ZJSONWriter } from '../../../src/formats/zjson';
import {
  compareTypes,
  decodeFloat,
  decodeIntExact,
  ID,
  encodeFloat64,
  newBool,
  newInt,
  newInt64,
  newString,
  newUint,
  Type,
  TypeContext,
  TypeFloat64,
  TypeInt32,
  TypeInt64,
  TypeArray,
  TypeEnum,
  TypeErr,
  TypeMap,
  TypePrimitive,
  TypeRecord,
  TypeSet,
  TypeString,
  TypeType,
  TypeUint64,
  TypeUnion,
  Value,
  ZIter,
} from '../../../src/zed';
import { arbValue } from '../../helpers/arbitrary';
import { arr, enumOf, map, named, nullOf, rec, set, union } from '../json/build';
import { errorOf, ndjson, typesOf } from '../json/helpers';

async function write(vals: Value[], controls: [number, ControlMessage][] = []): Promise<string> {
  const sink = new BufferSink();
  const w = new ZJSONWriter(sink);
  for (let i = 0; i <= vals.length; i++) {
    for (const [at, msg] of controls) if (at === i) await w.writeControl(msg);
    if (i < vals.length) await w.write([vals[i]]);
  }
  await w.close();
  return sink.text();
}

async function read(
  text: string,
  ctx = new TypeContext(),
  onControl?: (m: ControlMessage) => void,
  chunk?: number,
): Promise<Value[]> {
  return readAll(new ZJSONReader(sourceFromBuffer(Buffer.from(text), chunk), { ctx, onControl }));
}

function hex(v: Value): string {
  return v.isNull ? 'null' : v.bytes()!.toString('hex');
}

describe('ZJSON writer', () => {
  test('empty-records.yaml: a null field', async () => {
    const ctx = new TypeContext();
    const v = rec(ctx, [['ja3s', nullOf(TypeInt32)]]);
    expect(await write([v])).toBe(
      '{"type":{"kind":"record","id":30,"fields":[{"name":"ja3s","type":{"kind":"primitive","name":"int32"}}]},"value":[null]}\n',
    );
  });

  test('type-value.yaml: type values are type objects, numbered after the value’s type', async () => {
    const ctx = new TypeContext();
    const myrecord = ctx.lookupTypeNamed(
      'myrecord',
      ctx.lookupTypeRecord([{ name: 'a', type: TypeInt64 }]),
    );
    const v = rec(ctx, [
      ['typeof', ctx.typeValueOf(myrecord)],
      ['count', newUint(TypeUint64, 1)],
    ]);
    expect(await write([v])).toBe(
      '{"type":{"kind":"record","id":30,"fields":[{"name":"typeof","type":{"kind":"primitive","name":"type"}},{"name":"count","type":{"kind":"primitive","name":"uint64"}}]},"value":[{"kind":"named","id":32,"name":"myrecord","type":{"kind":"record","id":31,"fields":[{"name":"a","type":{"kind":"primitive","name":"int64"}}]}},"1"]}\n',
    );
  });

  test('the example of docs/formats/zjson.md §4: types sent once, then by ref', async () => {
    const ctx = new TypeContext();
    const u = [TypeInt64, TypeString];
    const r = (s: string, inner: Value) =>
      rec(ctx, [
        ['s', newString(s)],
        ['r', inner],
      ]);
    const vals = [
      r(
        'hello',
        rec(ctx, [
          ['a', newInt64(1)],
          ['b', newInt64(2)],
        ]),
      ),
      r(
        'world',
        rec(ctx, [
          ['a', newInt64(3)],
          ['b', newInt64(4)],
        ]),
      ),
      r('hello', rec(ctx, [['a', arr(ctx, TypeInt64, [newInt64(1), newInt64(2), newInt64(3)])]])),
      r('goodnight', rec(ctx, [['x', rec(ctx, [['u', union(ctx, u, newString('foo'))]])]])),
      r('gracie', rec(ctx, [['x', rec(ctx, [['u', union(ctx, u, newInt64(12))]])]])),
    ];
    const prim = (name: string) => ({ kind: 'primitive', name });
    const field = (name: string, type: unknown) => ({ name, type });
    const lines = (await write(vals))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        type: {
          kind: 'record',
          id: 31,
          fields: [
            field('s', prim('string')),
            field('r', {
              kind: 'record',
              id: 30,
              fields: [field('a', prim('int64')), field('b', prim('int64'))],
            }),
          ],
        },
        value: ['hello', ['1', '2']],
      },
      { type: { kind: 'ref', id: 31 }, value: ['world', ['3', '4']] },
      {
        type: {
          kind: 'record',
          id: 34,
          fields: [
            field('s', prim('string')),
            field('r', {
              kind: 'record',
              id: 33,
              fields: [field('a', { kind: 'array', id: 32, type: prim('int64') })],
            }),
          ],
        },
        value: ['hello', [['1', '2', '3']]],
      },
      {
        type: {
          kind: 'record',
          id: 38,
          fields: [
            field('s', prim('string')),
            field('r', {
              kind: 'record',
              id: 37,
              fields: [
                field('x', {
                  kind: 'record',
                  id: 36,
                  fields: [
                    field('u', { kind: 'union', id: 35, types: [prim('int64'), prim('string')] }),
                  ],
                }),
              ],
            }),
          ],
        },
        value: ['goodnight', [[['1', 'foo']]]],
      },
      { type: { kind: 'ref', id: 38 }, value: ['gracie', [[['0', '12']]]] },
    ]);
  });

  test('a type repeated inside one definition is defined once, then referred to', async () => {
    const ctx = new TypeContext();
    const inner = rec(ctx, [['x', newInt64(1)]]);
    const text = await write([
      rec(ctx, [
        ['a', inner],
        ['b', inner],
      ]),
    ]);
    expect(text).toBe(
      '{"type":{"kind":"record","id":31,"fields":[{"name":"a","type":{"kind":"record","id":30,"fields":[{"name":"x","type":{"kind":"primitive","name":"int64"}}]}},{"name":"b","type":{"kind":"ref","id":30}}]},"value":[["1"],["1"]]}\n',
    );
  });

  test('primitives as ZSON text, strings raw and HTML-escaped as Go’s json.Marshal does', async () => {
    const ctx = new TypeContext();
    const v = rec(ctx, [
      ['s', newString('<a & "b">\u2028')],
      ['f', Value.fromBytes(TypeFloat64, encodeFloat64(2))],
      ['z', Value.fromBytes(TypeFloat64, encodeFloat64(-0))],
      ['n', Value.fromBytes(TypeFloat64, encodeFloat64(NaN))],
      ['e', enumOf(ctx, ['x<y', 'z'], 1)],
      ['m', map(ctx, TypeString, TypeInt64, [])],
      ['st', set(ctx, TypeInt64, [newInt64(1)])],
      ['t', nullOf(TypeType)],
    ]);
    const text = await write([v]);
    expect(text).toContain('"symbols":["x\\u003cy","z"]');
    expect(text).toContain(
      '"value":["\\u003ca \\u0026 \\"b\\"\\u003e\\u2028","2.","0.","NaN","1",null,["1"],null]',
    );
  });

  test('control messages are written as {"type":name,"value":...} lines (api/queryio)', async () => {
    const ctx = new TypeContext();
    const text = await write(
      [rec(ctx, [['x', newInt64(1)]])],
      [
        [0, { type: 'QueryChannelSet', value: { channel_id: 1 } }],
        [1, { type: 'QueryChannelEnd', value: { channel_id: 1 } }],
        [1, { type: 'QueryError', value: { error: 'test.err' } }],
      ],
    );
    expect(text).toBe(
      '{"type":"QueryChannelSet","value":{"channel_id":1}}\n' +
        '{"type":{"kind":"record","id":30,"fields":[{"name":"x","type":{"kind":"primitive","name":"int64"}}]},"value":["1"]}\n' +
        '{"type":"QueryChannelEnd","value":{"channel_id":1}}\n' +
        '{"type":"QueryError","value":{"error":"test.err"}}\n',
    );
  });

  test('a union is written in the reference’s union order, its tags remapped', async () => {
    const ctx = new TypeContext();
    const v = union(ctx, [TypeString, TypeInt64], newString('foo'));
    expect(await write([v])).toBe(
      '{"type":{"kind":"union","id":30,"types":[{"kind":"primitive","name":"int64"},{"kind":"primitive","name":"string"}]},"value":["1","foo"]}\n',
    );
  });

  test('type IDs are the writer’s own: they start at 30 whatever the source context', async () => {
    const ctx = new TypeContext();
    for (let i = 0; i < 5; i++) ctx.lookupTypeArray(ctx.lookupTypeArray(TypeInt64));
    ctx.lookupTypeRecord([{ name: 'unused', type: TypeInt64 }]);
    const text = await write([rec(ctx, [['a', newBool(true)]])]);
    expect(JSON.parse(text).type.id).toBe(30);
  });
});

describe('ZJSON reader', () => {
  test('union-simple.yaml', async () => {
    const vals = await read(
      '{"type":{"kind":"record","id":31,"fields":[{"name":"a","type":{"kind":"union","id":30,"types":[{"kind":"primitive","name":"int32"},{"kind":"primitive","name":"string"}]}}]},"value":[["1","asdfasdf"]]}\n' +
        '{"type":{"kind":"ref","id":31},"value":[["0","1"]]}\n' +
        '{"type":{"kind":"ref","id":31},"value":[null]}\n',
    );
    expect(typesOf(vals)).toEqual([
      '{a:(int32,string)}',
      '{a:(int32,string)}',
      '{a:(int32,string)}',
    ]);
    // A union body is [tag, value], each tagged; the tag is a zcode int.
    expect(vals.map(hex)).toEqual([
      '0c' + '0202' + '096173646661736466',
      '04' + '01' + '0202',
      '00',
    ]);
  });

  test('union-array.yaml', async () => {
    const vals = await read(
      '{"type":{"kind":"record","id":32,"fields":[{"name":"a","type":{"kind":"array","id":31,"type":{"kind":"union","id":30,"types":[{"kind":"primitive","name":"int32"},{"kind":"primitive","name":"string"}]}}}]},"value":[[["1","asdfasdf"],null,["0","100"]]]}\n' +
        '{"type":{"kind":"ref","id":32},"value":[null]}\n',
    );
    expect(typesOf(vals)).toEqual(['{a:[(int32,string)]}', '{a:[(int32,string)]}']);
    expect(await ndjson(vals)).toBe('{"a":["asdfasdf",null,100]}\n{"a":null}\n');
    expect(hex(vals[1])).toBe('00');
  });

  test('union-nested.yaml: union types are put in the reference order, which tags index', async () => {
    const vals = await read(
      '{"type":{"kind":"record","id":34,"fields":[{"name":"a","type":{"kind":"union","id":33,"types":[{"kind":"primitive","name":"string"},{"kind":"array","id":30,"type":{"kind":"primitive","name":"int32"}},{"kind":"array","id":31,"type":{"kind":"primitive","name":"string"}},{"kind":"union","id":32,"types":[{"kind":"primitive","name":"string"},{"kind":"primitive","name":"int32"}]}]}}]},"value":[["0","\\"hello\\""]]}\n' +
        '{"type":{"kind":"ref","id":34},"value":[["1",["1","2"]]]}\n' +
        '{"type":{"kind":"ref","id":34},"value":[["2",["\\"a\\"","\\"b\\""]]]}\n' +
        '{"type":{"kind":"ref","id":34},"value":[["3",["0","123"]]]}\n',
    );
    expect(new Set(typesOf(vals))).toEqual(
      new Set(['{a:(string,[int32],[string],(int32,string))}']),
    );
    expect(await ndjson(vals)).toBe(
      '{"a":"\\"hello\\""}\n{"a":[1,2]}\n{"a":["\\"a\\"","\\"b\\""]}\n{"a":123}\n',
    );
  });

  test('zio/anyio/ztests/zjson.yaml: a Zeek record with named types and nulls', async () => {
    const line =
      '{"type":{"kind":"record","id":33,"fields":[{"name":"_path","type":{"kind":"primitive","name":"string"}},{"name":"ts","type":{"kind":"primitive","name":"time"}},{"name":"uid","type":{"kind":"primitive","name":"string"}},{"name":"id","type":{"kind":"record","id":31,"fields":[{"name":"orig_h","type":{"kind":"primitive","name":"ip"}},{"name":"orig_p","type":{"kind":"named","id":30,"name":"port","type":{"kind":"primitive","name":"uint16"}}},{"name":"resp_h","type":{"kind":"primitive","name":"ip"}},{"name":"resp_p","type":{"kind":"ref","id":30}}]}},{"name":"version","type":{"kind":"primitive","name":"string"}},{"name":"cert_chain_fuids","type":{"kind":"array","id":32,"type":{"kind":"primitive","name":"string"}}},{"name":"client_cert_chain_fuids","type":{"kind":"ref","id":32}},{"name":"resumed","type":{"kind":"primitive","name":"bool"}}]},' +
      '"value":["ssl","2017-03-24T19:59:23.053424Z","CfEBop2hbfJYpjG5Hd",["10.10.7.90","51913","54.230.87.24","443"],"TLSv12",null,null,"true"]}';
    const vals = await read(line + '\n');
    expect(typesOf(vals)).toEqual([
      '{_path:string,ts:time,uid:string,id:{orig_h:ip,orig_p:port=uint16,resp_h:ip,resp_p:port},version:string,cert_chain_fuids:[string],client_cert_chain_fuids:[string],resumed:bool}',
    ]);
    expect(await ndjson(vals)).toBe(
      '{"_path":"ssl","ts":"2017-03-24T19:59:23.053424Z","uid":"CfEBop2hbfJYpjG5Hd","id":{"orig_h":"10.10.7.90","orig_p":51913,"resp_h":"54.230.87.24","resp_p":443},"version":"TLSv12","cert_chain_fuids":null,"client_cert_chain_fuids":null,"resumed":true}\n',
    );
  });

  test('control messages go to the callback, not into the values; blank lines are skipped', async () => {
    const seen: ControlMessage[] = [];
    const vals = await read(
      '{"type":"QueryChannelSet","value":{"channel_id":0}}\n\n' +
        '{"type":{"kind":"primitive","name":"int64"},"value":"7"}\r\n' +
        '{"type":"QueryChannelEnd","value":{"channel_id":0}}\n' +
        '{"type":"QueryStats","value":{"start_time":{"sec":1,"ns":2},"records_read":1}}',
      new TypeContext(),
      (m) => seen.push(m),
    );
    expect(typesOf(vals)).toEqual(['int64']);
    expect(seen.map((m) => m.type)).toEqual(['QueryChannelSet', 'QueryChannelEnd', 'QueryStats']);
    expect(seen[2].value).toEqual({ start_time: { sec: 1, ns: 2 }, records_read: 1 });
  });

  test('sets are put in normal form; enums and maps read back', async () => {
    const vals = await read(
      '{"type":{"kind":"set","id":30,"type":{"kind":"primitive","name":"int64"}},"value":["3","1","3","2"]}\n' +
        '{"type":{"kind":"enum","id":31,"symbols":["foo","bar"]},"value":"1"}\n' +
        '{"type":{"kind":"map","id":32,"key_type":{"kind":"primitive","name":"string"},"val_type":{"kind":"primitive","name":"int64"}},"value":[["a","1"],["b","2"]]}\n',
    );
    expect(typesOf(vals)).toEqual(['|[int64]|', 'enum(foo,bar)', '|{string:int64}|']);
    expect(await ndjson(vals)).toBe('[1,2,3]\n"bar"\n{"a":1,"b":2}\n');
  });

  test('strings are NFC-normalised, as the reference reads them', async () => {
    const [v] = await read(
      '{"type":{"kind":"primitive","name":"string"},"value":"A\\u030a\\u2329"}',
    );
    expect(v.bytes()!.toString('utf8')).toBe('\u00c5\u3008');
  });

  test('any chunking of the input gives the same values', async () => {
    const ctx = new TypeContext();
    const text = await write([
      rec(ctx, [
        ['a', newInt64(1)],
        ['b', arr(ctx, TypeString, [newString('x'.repeat(200))])],
      ]),
      rec(ctx, [
        ['a', newInt64(2)],
        ['b', nullOf(ctx.lookupTypeArray(TypeString))],
      ]),
      newString('é😀'),
    ]);
    const whole = (await read(text)).map(hex);
    for (const size of [1, 3, 17, 100]) {
      expect((await read(text, new TypeContext(), undefined, size)).map(hex)).toEqual(whole);
    }
  });
});

describe('ZJSON reader: errors', () => {
  const int64 = '{"kind":"primitive","name":"int64"}';
  const cases: [string, string][] = [
    [
      'This is not a detectable format.',
      'line 1: malformed ZJSON: bad type object: "This is not a detectable format.": unpacker error parsing JSON: invalid character \'T\' looking for beginning of value',
    ],
    [
      '{"type":' + int64 + ',"value":"1"',
      'line 1: malformed ZJSON: bad type object: "{\\"type\\":{\\"kind\\":\\"primitive\\",\\"name\\":\\"int64\\"},\\"value\\":\\"1\\"": unpacker error parsing JSON: unexpected end of JSON input',
    ],
    [
      '{"type":"QueryChannelEnd","value":{"channel_id":0}}',
      'line 1: malformed ZJSON: bad type object: "{\\"type\\":\\"QueryChannelEnd\\",\\"value\\":{\\"channel_id\\":0}}": JSON field "type" in Go struct type "zjsonio.Object": value of type "string" not assignable to type "zjsonio.zType"',
    ],
    ['{"type":{"kind":"ref","id":31},"value":"1"}', 'ZJSON unknown type reference: 31'],
    ['{"type":{"kind":"primitive","name":"int65"},"value":"1"}', 'ZJSON unknown type: int65'],
    ['{"type":' + int64 + ',"value":"x"}', 'line 1: invalid integer: x'],
    ['{"type":' + int64 + ',"value":1}', 'line 1: ZJSON primitive value is not a JSON string'],
    [
      '{"type":{"kind":"record","id":30,"fields":[{"name":"a","type":' +
        int64 +
        '}]},"value":["1","2"]}',
      'line 1: record with extra field',
    ],
    [
      '{"type":{"kind":"record","id":30,"fields":[{"name":"a","type":' + int64 + '}]},"value":"1"}',
      'line 1: ZJSON record value must be a JSON array',
    ],
    [
      '{"type":{"kind":"union","id":30,"types":[' + int64 + ']},"value":["5","1"]}',
      'line 1: bad tag for ZJSON union value: union type tag out of range',
    ],
    [
      '{"type":{"kind":"union","id":30,"types":[' + int64 + ']},"value":["1"]}',
      'line 1: ZJSON union value not an array of two elements',
    ],
    [
      '{"type":{"kind":"enum","id":30,"symbols":["a"]},"value":"x"}',
      'line 1: ZJSON enum index value is not a string integer',
    ],
    [
      '{"type":{"kind":"map","id":30,"key_type":' +
        int64 +
        ',"val_type":' +
        int64 +
        '},"value":[["1"]]}',
      'line 1: ZJSON map value must be an array of two-element arrays',
    ],
    [
      '{"type":{"kind":"primitive","name":"time"},"value":"9999-12-17T16:37:21.023179Z"}',
      'line 1: time overflow: 9999-12-17T16:37:21.023179Z (max: 2262-04-11T23:47:16Z)',
    ],
  ];
  test.each(cases)('%s', async (input, message) => {
    const err = await errorOf(read(input + '\n'));
    expect(err).toBeInstanceOf(FormatError);
    expect(err.message).toBe(message);
    expect((err as FormatError).format).toBe('zjson');
  });

  test('errors name the line', async () => {
    const good = '{"type":{"kind":"primitive","name":"int64"},"value":"0"}\n';
    const err = (await errorOf(
      read(good + good + '{"type":{"kind":"primitive","name":"int64"},"value":"zz"}\n'),
    )) as FormatError;
    expect(err.message).toBe('line 3: invalid integer: zz');
    expect(err.line).toBe(3);
    expect(err.offset).toBe(good.length * 2);
  });
});

type Node = (type: Type, buf: Buffer, off: number, len: number) => boolean;

/** True if pred holds for the value or any value inside it. */
function some(pred: Node, type: Type, buf: Buffer, off: number, len: number): boolean {
  if (pred(type, buf, off, len)) return true;
  const u = type.under;
  if (len < 0 || u instanceof TypePrimitive || u instanceof TypeEnum) return false;
  const it = new ZIter(buf, off, off + len);
  const kids: Type[] = [];
  if (u instanceof TypeRecord) kids.push(...u.fields.map((f) => f.type));
  else if (u instanceof TypeErr) return some(pred, u.type, buf, off, len);
  else if (u instanceof TypeUnion) {
    it.next();
    const tag = Number(decodeIntExact(buf, it.off, it.len));
    kids.push(u.types[tag]);
  }
  for (let i = 0; !it.done(); i++) {
    it.next();
    let t: Type | undefined = kids[i];
    if (u instanceof TypeArray || u instanceof TypeSet) t = u.type;
    if (u instanceof TypeMap) t = i % 2 === 0 ? u.keyType : u.valType;
    if (t && some(pred, t, buf, it.off, it.len)) return true;
  }
  return false;
}

// What the reference changes on the way: it writes an empty map as null
// and -0 as "0.", and reads strings NFC-normalised.
const emptyMap: Node = (t, _b, _o, len) => t.under instanceof TypeMap && len === 0;
const negZero: Node = (t, buf, off, len) =>
  len > 0 &&
  (t.under.id === ID.Float16 || t.under.id === ID.Float32 || t.under.id === ID.Float64) &&
  Object.is(decodeFloat(buf, off, len), -0);
const typeScratch = new TypeContext();
function unsortedUnion(t: Type): boolean {
  const u = t.under;
  if (u instanceof TypeUnion) {
    for (let i = 1; i < u.types.length; i++)
      if (compareTypes(u.types[i - 1], u.types[i]) > 0) return true;
    return u.types.some(unsortedUnion);
  }
  if (u instanceof TypeRecord) return u.fields.some((f) => unsortedUnion(f.type));
  if (u instanceof TypeArray || u instanceof TypeSet || u instanceof TypeErr)
    return unsortedUnion(u.type);
  if (u instanceof TypeMap) return unsortedUnion(u.keyType) || unsortedUnion(u.valType);
  return false;
}
// Unions not in the reference's order (its context sorts every union it
// makes; ours keeps the order given) come back sorted.
const unsorted: Node = (t, buf, off, len) =>
  unsortedUnion(t) ||
  (t === TypeType && len > 0 && unsortedUnion(typeScratch.lookupByValue(buf, off, len)));
const notNFC: Node = (t, buf, off, len) => {
  if (t.under !== TypeString || len <= 0) return false;
  const s = buf.toString('utf8', off, off + len);
  return s.normalize('NFC') !== s;
};

describe('ZJSON round trips', () => {
  test('vals.yaml, enum.yaml, map.yaml: values of every kind come back the same', async () => {
    const ctx = new TypeContext();
    const inner = (a: number, b: number) =>
      rec(ctx, [
        ['a', newInt(TypeInt32, a)],
        ['b', newInt(TypeInt32, b)],
      ]);
    const vals = [
      newInt64(1),
      newString('hello'),
      arr(ctx, TypeInt64, [newInt64(3), newInt64(4)]),
      rec(ctx, [['a', newInt64(1)]]),
      newBool(false),
      union(ctx, [TypeInt64, TypeString], newInt64(1)),
      union(ctx, [TypeInt64, TypeString], newString('foo')),
      ctx.typeValueOf(TypeInt64),
      set(ctx, TypeInt64, [newInt64(1), newInt64(2), newInt64(3)]),
      nullOf(TypeInt64),
      nullOf(TypeString),
      nullOf(TypeType),
      rec(ctx, [['e', enumOf(ctx, ['foo', 'bar', 'baz'], 2)]]),
      rec(ctx, [
        [
          'm',
          map(ctx, TypeString, inner(0, 0).type, [
            [newString('a'), inner(1, 2)],
            [newString('b'), inner(2, 3)],
          ]),
        ],
      ]),
      named(ctx, 'port', newUint(TypeUint64, 80)),
    ];
    const back = await read(await write(vals));
    expect(typesOf(back)).toEqual(typesOf(vals));
    expect(back.map(hex)).toEqual(vals.map(hex));
  });

  test('random Zed values: ZJSON and back is the identity, types included', async () => {
    const src = new TypeContext();
    await fc.assert(
      fc.asyncProperty(fc.array(arbValue(src), { minLength: 1, maxLength: 4 }), async (vals) => {
        fc.pre(!vals.some((v) => some(emptyMap, v.type, v.buf, v.off, v.len)));
        fc.pre(!vals.some((v) => some(notNFC, v.type, v.buf, v.off, v.len)));
        fc.pre(!vals.some((v) => some(negZero, v.type, v.buf, v.off, v.len)));
        fc.pre(!vals.some((v) => some(unsorted, v.type, v.buf, v.off, v.len)));
        const back = await read(await write(vals));
        expect(typesOf(back)).toEqual(typesOf(vals));
        expect(back.map(hex)).toEqual(vals.map(hex));
      }),
      { numRuns: 400 },
    );
  });

  test('an empty map is written as null, as the reference writes it', async () => {
    const ctx = new TypeContext();
    const v = map(ctx, TypeString, TypeInt64, []);
    const text = await write([v]);
    expect(JSON.parse(text).value).toBeNull();
    const [back] = await read(text);
    expect(back.isNull).toBe(true);
    expect(back.type).toBeInstanceOf(TypeMap);
  });
});

test('zjsonFormat names and media type', () => {
  expect(zjsonFormat.name).toBe('zjson');
  expect(zjsonFormat.mimeTypes[0]).toBe('application/x-zjson');
});
