// Expression semantics against the reference's coercion rules: comparisons
// across numeric types, incompatible types, arithmetic result types, casts.

import { yieldOne, zq } from '../helpers';

describe('comparisons of numbers', () => {
  const numericTypes = [
    'uint8',
    'int16',
    'uint16',
    'int32',
    'uint32',
    'int64',
    'uint64',
    'float16',
    'float32',
    'float64',
  ];
  const intFields = ['u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64'];
  for (const typ of numericTypes) {
    const one = typ.startsWith('float') ? '1.' : '1';
    const rec = `{x:${one}(${typ}),u8:0(uint8),i16:0(int16),u16:0(uint16),i32:0(int32),u32:0(uint32),i64:0,u64:0(uint64)}`;
    test(`${typ} against constants`, async () => {
      const cases: [string, boolean][] = [
        ['x == 1', true],
        ['x == 0', false],
        ['x != 0', true],
        ['x != 1', false],
        ['x < 2', true],
        ['x < 1', false],
        ['x <= 1', true],
        ['x <= 0', false],
        ['x > 0', true],
        ['x > 1', false],
        ['x >= 1', true],
        ['x >= 2', false],
      ];
      for (const [e, want] of cases) expect([e, await yieldOne(e, rec)]).toEqual([e, String(want)]);
    });
    test(`${typ} against every integer type`, async () => {
      for (const f of intFields) {
        for (const [op, want] of [
          ['==', false],
          ['!=', true],
          ['<', false],
          ['<=', false],
          ['>', true],
          ['>=', true],
        ] as const) {
          const e = `x ${op} ${f}`;
          expect([e, await yieldOne(e, rec)]).toEqual([e, String(want)]);
        }
      }
    });
    test(`${typ} against strings, addresses and networks is false`, async () => {
      const r = `{x:${one}(${typ}),s:"hello",i:10.1.1.1,n:10.1.0.0/16}`;
      for (const other of ['s', 'i', 'n']) {
        for (const op of ['==', '!=', '<', '<=', '>', '>=']) {
          expect(await yieldOne(`x ${op} ${other}`, r)).toBe('false');
        }
      }
    });
  }

  test('signed against unsigned beyond int64', async () => {
    const rec = '{i:-1,u:18446744073709551615(uint64),f:-1.}';
    const cases: [string, boolean][] = [
      ['i == u', false],
      ['i != u', true],
      ['i < u', true],
      ['i <= u', true],
      ['i > u', false],
      ['i >= u', false],
      ['u == i', false],
      ['u != i', true],
      ['u < i', false],
      ['u > i', true],
      ['f < u', true],
      ['u > f', true],
      ['f == u', false],
    ];
    for (const [e, want] of cases) expect([e, await yieldOne(e, rec)]).toEqual([e, String(want)]);
  });

  test('integers against ports, times and durations', async () => {
    const rec = '{x:1,p:80(port=uint16),t:2020-03-09T22:54:12Z,d:16m40s}';
    expect(await yieldOne('x < p', rec)).toBe('true');
    expect(await yieldOne('p > x', rec)).toBe('true');
    expect(await yieldOne('x == t', rec)).toBe('false');
    expect(await yieldOne('t > x', rec)).toBe('true');
    expect(await yieldOne('x < d', rec)).toBe('true');
    expect(await yieldOne('d >= x', rec)).toBe('true');
  });
});

describe('comparisons of other types', () => {
  const rec = '{b:true,s:"hello",i:10.1.1.1,p:443(port=uint16),net:10.1.0.0/16}';

  test('same-type equality', async () => {
    expect(await yieldOne('b == true', rec)).toBe('true');
    expect(await yieldOne('b != true', rec)).toBe('false');
    expect(await yieldOne('s == "hello"', rec)).toBe('true');
    expect(await yieldOne('s != "world"', rec)).toBe('true');
    expect(await yieldOne('i == 10.1.1.1', rec)).toBe('true');
    expect(await yieldOne('i == 1.1.1.10', rec)).toBe('false');
    expect(await yieldOne('i == i', rec)).toBe('true');
    expect(await yieldOne('p == 443', rec)).toBe('true');
    expect(await yieldOne('net == 10.1.0.0/16', rec)).toBe('true');
    expect(await yieldOne('net == 10.1.0.0/24', rec)).toBe('false');
  });

  test('mixed types are never equal, less or greater', async () => {
    const fields = ['b', 's', 'i', 'p', 'net'];
    for (const a of fields) {
      for (const c of fields) {
        if (a === c) continue;
        for (const op of ['==', '!=', '<', '<=', '>', '>=']) {
          expect([a, op, c, await yieldOne(`${a} ${op} ${c}`, rec)]).toEqual([a, op, c, 'false']);
        }
      }
    }
  });

  test('strings order bytewise', async () => {
    const r = '{s:"abc"}';
    expect(await yieldOne('s < "brim"', r)).toBe('true');
    expect(await yieldOne('s < "abc"', r)).toBe('false');
    expect(await yieldOne('s <= "abc"', r)).toBe('true');
    expect(await yieldOne('s > "aaa"', r)).toBe('true');
    expect(await yieldOne('s >= "brim"', r)).toBe('false');
  });

  test('null against values (not a constant comparison)', async () => {
    const r = '{a:1,b:null(int64),c:null}';
    for (const b of ['b', 'c']) {
      expect(await yieldOne(`a == ${b}`, r)).toBe('false');
      expect(await yieldOne(`a != ${b}`, r)).toBe('true');
      expect(await yieldOne(`a < ${b}`, r)).toBe('false');
      expect(await yieldOne(`a >= ${b}`, r)).toBe('false');
    }
    expect(await yieldOne('b == null', r)).toBe('true');
    expect(await yieldOne('a == null', r)).toBe('false');
  });

  test('containment', async () => {
    const r = '{a:[1(int32),2(int32),3(int32)],s:|[4(int32),5(int32),6(int32)]|}';
    expect(await yieldOne('1 in a', r)).toBe('true');
    expect(await yieldOne('0 in a', r)).toBe('false');
    expect(await yieldOne('1 in s', r)).toBe('false');
    expect(await yieldOne('4 in s', r)).toBe('true');
    expect(await yieldOne('"boo" in a', r)).toBe('false');
    expect(await yieldOne('x in a', '{x:2,a:[1,2]}')).toBe('true');
    expect(await yieldOne('x in a', '{x:3,a:[1,2]}')).toBe('false');
    expect(await yieldOne('10.1.1.1 in 192.168.0.0/16')).toBe('false');
  });
});

describe('arithmetic', () => {
  const rec = '{x:10(int32),f:2.5}';

  test('integers and floats', async () => {
    const cases: [string, string][] = [
      ['100 + 23', '123'],
      ['x + 5', '15'],
      ['5 + x', '15'],
      ['x - 5', '5'],
      ['0 - x', '-10'],
      ['x * 2', '20'],
      ['x / 3', '3'],
      ['20 / x', '2'],
      ['x + 1 * 10', '20'],
      ['(x + 1) * 10', '110'],
      ['f + 1.0', '3.5'],
      ['f - 1.0', '1.5'],
      ['0.0 - f', '-2.5'],
      ['f * 1.5', '3.75'],
      ['5.0 / f', '2.'],
      ['f + x', '12.5'],
      ['x / f', '4.'],
    ];
    for (const [e, want] of cases) expect([e, await yieldOne(e, rec)]).toEqual([e, want]);
  });

  test('the result type of integer pairs', async () => {
    const types = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];
    const width = (t: string) => Number(t.replace(/\D/g, ''));
    for (const t1 of types) {
      for (const t2 of types) {
        const signed = t1.startsWith('u') === t2.startsWith('u') ? !t1.startsWith('u') : true;
        const w = Math.max(width(t1), width(t2));
        const rt = `${signed ? 'int' : 'uint'}${w}`;
        const deco = rt === 'int64' ? '' : `(${rt})`;
        const r = `{a:4(${t1}),b:2(${t2})}`;
        expect([t1, t2, await yieldOne('a + b', r)]).toEqual([t1, t2, `6${deco}`]);
        expect([t1, t2, await yieldOne('a * b', r)]).toEqual([t1, t2, `8${deco}`]);
        expect([t1, t2, await yieldOne('b / a', r)]).toEqual([t1, t2, `0${deco}`]);
      }
    }
  });

  test('64-bit integers wrap around', async () => {
    expect(await yieldOne('9223372036854775807 + 1')).toBe('-9223372036854775808');
    expect(await yieldOne('a - b', '{a:1(uint64),b:2(uint64)}')).toBe(
      '18446744073709551615(uint64)',
    );
    expect(await yieldOne('4611686018427387904 * 4')).toBe('0');
  });

  test('times and durations', async () => {
    expect(await yieldOne('a - b', '{a:2022-09-22T00:00:01Z,b:2022-09-22T00:00:00Z}')).toBe('1s');
    expect(await yieldOne('t + 1h', '{t:2022-09-22T00:00:00Z}')).toBe('2022-09-22T01:00:00Z');
    expect(await yieldOne('d * 2', '{d:90s}')).toBe('3m');
  });

  test('strings concatenate with + only', async () => {
    expect(await yieldOne('"hello" + " world"')).toBe('"hello world"');
    expect(await yieldOne('"hello" - " world"')).toBe(
      `error("type string incompatible with '-' operator")`,
    );
    expect(await yieldOne('"hello" * " world"')).toBe(
      `error("type string incompatible with '*' operator")`,
    );
    expect(await yieldOne('"hello" / " world"')).toBe(
      `error("type string incompatible with '/' operator")`,
    );
  });

  test('incompatible types, division by zero and modulo', async () => {
    expect(await yieldOne('10.1.1.1 + 1')).toBe('error("incompatible types")');
    expect(await yieldOne('10.1.1.1 + "foo"')).toBe('error("incompatible types")');
    expect(await yieldOne('1 / 0')).toBe('error("divide by zero")');
    expect(await yieldOne('1. / 0')).toBe('error("divide by zero")');
    expect(await yieldOne('5 % 2')).toBe('1');
    expect(await yieldOne('5 % -2')).toBe('1');
    expect(await yieldOne('-5 % 2')).toBe('-1');
    expect(await yieldOne('5. % 2')).toBe(`error("type float64 incompatible with '%' operator")`);
  });

  test('mixed signedness overflow', async () => {
    expect(await yieldOne('a + b', '{a:-1,b:18446744073709551615(uint64)}')).toBe(
      'error("integer overflow: uint64 value too large for int64")',
    );
  });

  test('unary minus', async () => {
    expect(await yieldOne('-this', '1(int8)')).toBe('-1(int8)');
    expect(await yieldOne('-this', '-128(int8)')).toBe(`error("unary '-' underflow: int8(-128)")`);
    expect(await yieldOne('-this', '1(uint16)')).toBe('-1(int16)');
    expect(await yieldOne('-this', '-9223372036854775808')).toBe(
      `error("unary '-' underflow: int64(-9223372036854775808)")`,
    );
    expect(await yieldOne('-this', '1.(float32)')).toBe('-1.(float32)');
    expect(await yieldOne('-this', 'null(uint8)')).toBe('null(uint8)');
    expect(await yieldOne('-this', '"foo"')).toBe(
      `error({message:"type incompatible with unary '-' operator",on:"foo"})`,
    );
  });
});

describe('casts', () => {
  test('integers', async () => {
    const cases: [string, string][] = [
      ['uint8(10)', '10(uint8)'],
      ['uint8(-1)', 'error({message:"cannot cast to uint8",on:-1})'],
      ['uint8(300)', 'error({message:"cannot cast to uint8",on:300})'],
      ['uint8("foo")', 'error({message:"cannot cast to uint8",on:"foo"})'],
      ['int16(-33000)', 'error({message:"cannot cast to int16",on:-33000})'],
      ['int32(2200000000)', 'error({message:"cannot cast to int32",on:2200000000})'],
      ['uint64(-1)', 'error({message:"cannot cast to uint64",on:-1})'],
      ['int64("-1")', '-1'],
      ['int64("abc")', 'error({message:"cannot cast to int64",on:"abc"})'],
      ['int64(1.9)', '1'],
    ];
    for (const [e, want] of cases) expect([e, await yieldOne(e)]).toEqual([e, want]);
  });

  test('floats, addresses, strings, bools', async () => {
    const cases: [string, string][] = [
      ['float16(10)', '10.(float16)'],
      ['float32("5.5")', '5.5(float32)'],
      ['float64("abc")', 'error({message:"cannot cast to float64",on:"abc"})'],
      ['ip("1.2.3.4")', '1.2.3.4'],
      ['ip(1234)', 'error({message:"cannot cast to ip",on:1234})'],
      ['net("1.2.3.0/24")', '1.2.3.0/24'],
      ['net(1.2.3.4)', 'error({message:"cannot cast to net",on:1.2.3.4})'],
      ['string(1.2)', '"1.2"'],
      ['string(1.2.3.4)', '"1.2.3.4"'],
      ['string(null)', 'null(string)'],
      ['bool("T")', 'true'],
      ['bool(0)', 'false'],
      ['bool(2)', 'true'],
    ];
    for (const [e, want] of cases) expect([e, await yieldOne(e)]).toEqual([e, want]);
  });

  test('times and durations', async () => {
    expect(await yieldOne('time(1589126400000000000)')).toBe('2020-05-10T16:00:00Z');
    expect(await yieldOne('time("1589126400000000000")')).toBe('2020-05-10T16:00:00Z');
    expect(await yieldOne('time("2015-03-05T16:07:13.154566+0100")')).toBe(
      '2015-03-05T15:07:13.154566Z',
    );
    expect(await yieldOne('time("1/2/2020")')).toBe('2020-01-02T00:00:00Z');
    expect(await yieldOne('time("12 Feb 2006 19:17")')).toBe('2006-02-12T19:17:00Z');
    expect(await yieldOne('time("1")')).toBe('1970-01-01T00:00:00.000000001Z');
    expect(await yieldOne('duration("1")')).toBe('1ns');
    expect(await yieldOne('duration("1h30m")')).toBe('1h30m');
    expect(await yieldOne('duration(this)', '2022-02-12T15:48:36.761595Z')).toBe(
      '52y55d15h48m36.761595s',
    );
    expect(await yieldOne('uint64(this)', '2022-02-12T15:48:36.761595Z')).toBe(
      '1644680916761595000(uint64)',
    );
  });

  test('named types and errors pass through', async () => {
    // An undefined type name is looked up in the data: missing here.
    expect(await yieldOne('cast(this, <foo>)', '{x:123}')).toBe('error("missing")');
    expect(await zq('type foo={x:int64} yield cast(this, <foo>)', 'null {x:123}')).toEqual([
      'null(foo={x:int64})',
      '{x:123}(=foo)',
    ]);
    expect(await yieldOne('int64(x)', '{}')).toBe('error("missing")');
  });
});
