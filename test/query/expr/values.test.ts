// Logic with null/missing/errors, field access, indexing, slices,
// container literals with spreads, templates, search, regexps, globs.

import { yieldOne, zq } from '../helpers';

const logicInput = '{t:true,f:false,m:error("missing"),n:null(bool)}';

describe('logic', () => {
  // The reference's truth table (runtime/expr/ztests/logical.yaml).
  const table: [string, string][] = [
    ['t and t', 'true'],
    ['t and f', 'false'],
    ['t and n', 'false'],
    ['missing(t and m)', 'true'],
    ['f and m', 'false'],
    ['n and t', 'false'],
    ['n and m', 'false'],
    ['missing(m and t)', 'true'],
    ['missing(m and f)', 'true'],
    ['t or m', 'true'],
    ['f or t', 'true'],
    ['f or n', 'false'],
    ['missing(f or m)', 'true'],
    ['n or t', 'true'],
    ['missing(n or m)', 'true'],
    ['m or t', 'true'],
    ['m or f', 'false'],
    ['m or n', 'false'],
    ['missing(m or m)', 'true'],
    ['!t', 'false'],
    ['!f', 'true'],
    ['missing(!m)', 'true'],
    ['!n', 'true'],
    ['!!f', 'false'],
  ];
  for (const [e, want] of table) {
    test(e, async () => expect(await yieldOne(e, logicInput)).toBe(want));
  }

  test('non-bool operands are errors', async () => {
    expect(await yieldOne('1 and true')).toBe('error("not type bool: 1")');
    expect(await yieldOne('!"x"')).toBe('error("not type bool: \\"x\\"")');
  });

  test('?: evaluates only the chosen branch', async () => {
    expect(await yieldOne('x == 0 ? "zero" : "not zero"', '{x:1}')).toBe('"not zero"');
    expect(await yieldOne('x == 0 ? y : x', '{x:1}')).toBe('1');
    expect(await yieldOne('x ? "x" : "not x"', '{x:1}')).toBe(
      'error("?-operator: bool predicate required")',
    );
  });
});

describe('errors flow as data', () => {
  test('missing fields propagate through operators', async () => {
    expect(await yieldOne('x + 1')).toBe('error("missing")');
    expect(await yieldOne('x == 1')).toBe('error("missing")');
    expect(await yieldOne('[x, 1]')).toBe('[error("missing"),1]');
    expect(await yieldOne('{a:x}')).toBe('{a:error("missing")}');
  });

  test('quiet drops yields and missing drops filtered values', async () => {
    expect(await zq('yield quiet(x)', '{x:1} {y:2}')).toEqual(['1']);
    expect(await zq('where x == 1', '{x:1} {y:2} {x:2}')).toEqual(['{x:1}']);
    expect(await zq('put y:=quiet(z)', '{x:1}')).toEqual(['{x:1}']);
  });

  test('a filter whose predicate is not a bool outputs the error', async () => {
    expect(await zq('where x', '{x:1} {x:true}')).toEqual([
      'error("not type bool: 1")',
      '{x:true}',
    ]);
  });

  test('error values are values', async () => {
    expect(await zq('yield is_error(this)', 'error("x") 1')).toEqual(['true', 'false']);
    expect(await zq('is_error(this)', 'error("x") 1')).toEqual(['error("x")']);
  });
});

describe('field access, indexing and slices', () => {
  test('paths and index forms', async () => {
    const r = '{rec:{i:5(int32),s:"boo"},a:[1,2,3],"x.y":7,m:|{"a":1,"b":2}|}';
    expect(await yieldOne('rec.i', r)).toBe('5(int32)');
    expect(await yieldOne('rec["s"]', r)).toBe('"boo"');
    expect(await yieldOne('this["x.y"]', r)).toBe('7');
    expect(await yieldOne('a[0]', r)).toBe('1');
    expect(await yieldOne('a[-1]', r)).toBe('3');
    expect(await yieldOne('a[3]', r)).toBe('error("missing")');
    // a["x"] is the path a.x (a constant string index extends a path).
    expect(await yieldOne('a["x"]', r)).toBe('error("missing")');
    expect(await yieldOne('a[rec.s]', r)).toBe('error("array index is not an integer")');
    expect(await yieldOne('m["b"]', r)).toBe('2');
    expect(await yieldOne('m.a', r)).toBe('1');
    expect(await yieldOne('m["z"]', r)).toBe('error("missing")');
    expect(await yieldOne('rec.nope', r)).toBe('error("missing")');
    expect(await yieldOne('rec.i.j', r)).toBe('error("missing")');
  });

  test('named records, null records and union elements', async () => {
    expect(await yieldOne('r.a', '{r:{a:1}(=foo)}')).toBe('1');
    expect(await yieldOne('r.a', '{r:null({a:int64})}')).toBe('null(int64)');
    expect(await yieldOne('a[1]', '{a:[1,"x"]}')).toBe('"x"');
    expect(await yieldOne('t.b', '{t:<{a:int64,b:string}>}')).toBe('<string>');
  });

  test('slices of arrays, strings and bytes', async () => {
    const r = '{a:[1,2,3,4],s:"héllo",b:0x01020304}';
    expect(await yieldOne('a[1:3]', r)).toBe('[2,3]');
    expect(await yieldOne('a[:2]', r)).toBe('[1,2]');
    expect(await yieldOne('a[-2:]', r)).toBe('[3,4]');
    expect(await yieldOne('s[1:3]', r)).toBe('"él"');
    expect(await yieldOne('b[1:3]', r)).toBe('0x0203');
    expect(await yieldOne('r[1:2]', '{r:{x:1}}')).toBe(
      'error({message:"sliced value is not array, bytes, or string",on:{x:1}})',
    );
  });
});

describe('container literals', () => {
  test('records with spreads', async () => {
    expect(await yieldOne('{...this, c:3}', '{a:1,b:2}')).toBe('{a:1,b:2,c:3}');
    expect(await yieldOne('{a:0, ...this}', '{a:1,b:2}')).toBe('{a:1,b:2}');
    expect(await yieldOne('{...x, c:3}', '{a:1}')).toBe('{c:3}');
    expect(await yieldOne('{}')).toBe('{}');
  });

  test('arrays take the union of their element types', async () => {
    expect(await yieldOne('[1, "a", null]')).toBe('[1,"a",null]');
    expect(await yieldOne('[]')).toBe('[]');
    expect(await yieldOne('[...a, 3]', '{a:[1,2]}')).toBe('[1,2,3]');
    expect(await yieldOne('typeof([1, "a"])')).toBe('<[(int64,string)]>');
  });

  test('sets and maps are normalized', async () => {
    expect(await yieldOne('|[3, 1, 2, 1]|')).toBe('|[1,2,3]|');
    expect(await yieldOne('|{"b": 2, "a": 1}|')).toBe('|{"a":1,"b":2}|');
  });

  test('templates and type values', async () => {
    expect(await yieldOne('"x${a}y${b}"', '{a:1,b:"s"}')).toBe('"x1ys"');
    expect(await yieldOne('<{a:int64}>')).toBe('<{a:int64}>');
    expect(await zq('type port=uint16 yield <port>', 'null')).toEqual(['<port=uint16>']);
  });
});

describe('search', () => {
  const input =
    '{a:"Hello World",b:1} {c:"other",n:10} {hello_field:2} {ip:10.1.2.3} {s:"10 items"}';

  test('keywords match strings and field names, case-insensitively', async () => {
    expect(await zq('hello', input)).toEqual(['{a:"Hello World",b:1}', '{hello_field:2}']);
    expect(await zq('WORLD', input)).toEqual(['{a:"Hello World",b:1}']);
  });

  test('values match equal values and strings containing their text', async () => {
    expect(await zq('10', input)).toEqual(['{c:"other",n:10}', '{s:"10 items"}']);
    expect(await zq('10.1.2.3', input)).toEqual(['{ip:10.1.2.3}']);
    expect(await zq('10.0.0.0/8', input)).toEqual(['{ip:10.1.2.3}']);
  });

  test('globs, regexps and boolean combinations', async () => {
    // Globs are case-sensitive: "Hello" does not match, the field name does.
    expect(await zq('hel*', input)).toEqual(['{hello_field:2}']);
    expect(await zq('/^oth/', input)).toEqual(['{c:"other",n:10}']);
    expect(await zq('a ~ /W.rld/', input)).toEqual(['{a:"Hello World",b:1}']);
    expect(await zq('hello and not has(b)', input)).toEqual(['{hello_field:2}']);
    // b==1 is error("missing") where b is absent, and so is its negation.
    expect(await zq('hello and not b==1', input)).toEqual([]);
    expect(await zq('*', '1 2')).toEqual(['1', '2']);
  });

  test('search inside nested values', async () => {
    expect(await zq('foo', '{a:[{b:"xfoo"}]} {a:[{b:"bar"}]} {m:|{"k":"foo"}|}')).toEqual([
      '{a:[{b:"xfoo"}]}',
      '{m:|{"k":"foo"}|}',
    ]);
  });
});
