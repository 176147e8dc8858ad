import {
  AggregateError,
  Aggregator,
  aggregateNames,
  isAggregate,
  lookupAggregate,
  newAggregatorExpr,
} from '../../../src/query/aggregates';
import { Schema } from '../../../src/query/aggregates/schema';
import { formatValue, parseType, parseValues } from '../../../src/formats/zson';
import { fieldPath } from '../../../src/query/expr/path';
import { TypeContext } from '../../../src/zed/context';
import { formatType } from '../../../src/zed/typestring';
import { TypeBool } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';

const zctx = new TypeContext();
const vals = (text: string) => parseValues(zctx, text);
const self = fieldPath(zctx, []);

/** The aggregate of the values of a ZSON text, as ZSON. */
function agg(name: string, text: string, arg = true): string {
  const a = new Aggregator(name, arg ? self : null);
  const f = a.newFunction();
  for (const v of vals(text)) a.apply(f, v);
  return formatValue(f.result(zctx));
}

/** The same through partials: each value in its own instance, merged. */
function aggPartials(name: string, text: string): string {
  const a = new Aggregator(name, self);
  const merged = a.newFunction();
  for (const v of vals(text)) {
    const f = a.newFunction();
    a.apply(f, v);
    merged.consumePartial(f.resultPartial(zctx).copy());
  }
  merged.consumePartial(a.newFunction().resultPartial(zctx).copy());
  return formatValue(merged.result(zctx));
}

describe('registry', () => {
  test('names, lookups and the reference errors', () => {
    expect(aggregateNames().sort()).toEqual(expect.arrayContaining(['any', 'count', 'sum']));
    expect(isAggregate('count')).toBe(true);
    expect(isAggregate('len')).toBe(false);
    expect(lookupAggregate('sum')!.needsArg).toBe(true);
    expect(() => new Aggregator('nope', null)).toThrow(
      new AggregateError('unknown aggregation function: nope'),
    );
    expect(() => new Aggregator('sum', null)).toThrow(new AggregateError('sum: argument required'));
    expect(() => new Aggregator('any', null)).toThrow('any: argument required');
    expect(() => new Aggregator('count', null)).not.toThrow();
  });
});

describe('count', () => {
  test('count() counts every value; count(x) the non-missing ones, nulls included', () => {
    expect(agg('count', '1 null "a" {}', false)).toBe('4(uint64)');
    const a = new Aggregator('count', fieldPath(zctx, ['x']));
    const f = a.newFunction();
    for (const v of vals('{x:1} {y:2} {x:null} {x:"s"}')) a.apply(f, v);
    expect(formatValue(f.result(zctx))).toBe('3(uint64)');
  });
  test('no values: 0', () => {
    expect(agg('count', '', false)).toBe('0(uint64)');
  });
  test('partials add up', () => {
    expect(aggPartials('count', '1 2 3')).toBe('3(uint64)');
  });
  test('a partial that is not uint64 is rejected', () => {
    const f = new Aggregator('count', null).newFunction();
    expect(() => f.consumePartial(vals('1')[0])).toThrow('count: partial not uint64');
  });
});

describe('sum', () => {
  test('documented and reference examples', () => {
    expect(agg('sum', '1 2 3 4')).toBe('10');
    expect(agg('sum', '2 2.5')).toBe('4.5');
    expect(agg('sum', '2.5 2')).toBe('4.5');
    expect(agg('sum', '1(int32) 10(int32)')).toBe('11');
  });
  test('result kinds: int64, uint64, float64, duration, time', () => {
    expect(agg('sum', '1(int8) 2(int16)')).toBe('3');
    expect(agg('sum', '1(uint8) 2(uint64)')).toBe('3(uint64)');
    expect(agg('sum', '1.5(float32) 1.(float16)')).toBe('2.5');
    expect(agg('sum', '1s 2s')).toBe('3s');
    expect(agg('sum', '1970-01-01T00:00:01Z 1970-01-01T00:00:02Z')).toBe('1970-01-01T00:00:03Z');
    expect(agg('sum', '1(=myint) 2(=myint)')).toBe('3');
  });
  test('mixed kinds follow the coercion of (state, value)', () => {
    // uint state meets a signed value: signed.
    expect(agg('sum', '1(uint8) -3(int8)')).toBe('-2');
    // A signed state meets a uint64 beyond int64: unsigned (wrapping).
    expect(agg('sum', '1 18446744073709551615(uint64)')).toBe('0(uint64)');
    // Integers added to a duration count seconds.
    expect(agg('sum', '1s 5')).toBe('6s');
    // Time beats duration and int64.
    expect(agg('sum', '1 1970-01-01T00:00:00.000000002Z')).toBe('1970-01-01T00:00:00.000000003Z');
    // A duration meeting an unsigned value goes signed (int64).
    expect(agg('sum', '1s 2(uint64)')).toBe('1000000002');
  });
  test("a negative state meeting a huge uint64 is the reference's internal error", () => {
    expect(() => agg('sum', '-1 18446744073709551615(uint64)')).toThrow(
      'internal aggregation error: cannot coerce int64 to uint64',
    );
  });
  test('64-bit wraparound', () => {
    expect(agg('sum', '9223372036854775807 1')).toBe('-9223372036854775808');
    expect(agg('sum', '9007199254740991 9007199254740991 -9007199254740991')).toBe(
      '9007199254740991',
    );
    expect(agg('sum', '18446744073709551615(uint64) 2(uint64)')).toBe('1(uint64)');
  });
  test('non-numbers are skipped; nulls set the kind only', () => {
    expect(agg('sum', '"a" 1 "b" 2')).toBe('3');
    expect(agg('sum', '"a"')).toBe('null');
    expect(agg('sum', '')).toBe('null');
    expect(agg('sum', 'null(int64)')).toBe('null(int64)');
    expect(agg('sum', 'null(uint64) null(float64) null(int64) null(duration) null(time)')).toBe(
      'null(float64)',
    );
    expect(agg('sum', 'null 3')).toBe('3');
  });
  test('partials merge to the same result', () => {
    expect(aggPartials('sum', '1 2 3.5')).toBe('6.5');
    expect(aggPartials('sum', '1s 2s')).toBe('3s');
    expect(aggPartials('sum', '"x"')).toBe('null');
  });
});

describe('any', () => {
  test('the first value, unless null and a non-null one follows', () => {
    expect(agg('any', '1 2')).toBe('1');
    expect(agg('any', 'null(int64) "a" "b"')).toBe('"a"');
    expect(agg('any', 'null(int64)')).toBe('null(int64)');
    expect(agg('any', '')).toBe('null');
    expect(aggPartials('any', 'null(string) 3(int32)')).toBe('3(int32)');
  });
});

describe('the Aggregator: where and missing', () => {
  test('where passes only true bools', () => {
    const t = Value.fromBytes(TypeBool, Buffer.from([1]));
    const f = Value.fromBytes(TypeBool, Buffer.from([0]));
    const n = Value.null(TypeBool);
    const results = [t, f, n, zctx.newError('x'), vals('1')[0]];
    let i = 0;
    const where = { eval: () => results[i++ % results.length] };
    const a = new Aggregator('count', null, where);
    const fn = a.newFunction();
    for (let k = 0; k < 5; k++) a.apply(fn, vals('1')[0]);
    expect(formatValue(fn.result(zctx))).toBe('1(uint64)');
  });
});

describe('running aggregates in expressions (put x:=sum(y))', () => {
  test('each eval returns the aggregate so far', () => {
    const e = newAggregatorExpr(zctx, new Aggregator('sum', fieldPath(zctx, ['y'])));
    const out = vals('{y:1} {y:2} {z:0} {y:3}').map((v) => formatValue(e.eval(v)));
    expect(out).toEqual(['1', '3', '3', '6']);
    const c = newAggregatorExpr(zctx, new Aggregator('count', null));
    expect(vals('1 2 3').map((v) => formatValue(c.eval(v)))).toEqual([
      '1(uint64)',
      '2(uint64)',
      '3(uint64)',
    ]);
  });
  test("results live in the expression's own memory", () => {
    const s = newAggregatorExpr(zctx, new Aggregator('sum', self));
    const c = newAggregatorExpr(zctx, new Aggregator('count', null));
    const v = vals('5')[0];
    const r1 = s.eval(v);
    c.eval(v);
    expect(formatValue(r1)).toBe('5');
  });
});

describe('type fusion (Schema)', () => {
  const fuse = (...types: string[]) => {
    const s = new Schema(zctx);
    for (const t of types) s.mixin(parseType(zctx, t));
    return formatType(s.type()!);
  };
  test('records merge fields in order of appearance', () => {
    expect(fuse('{a:string,b:string}', '{b:string,c:string}')).toBe('{a:string,b:string,c:string}');
    expect(fuse('{a:int64}', '{a:string}')).toBe('{a:(int64,string)}');
    expect(fuse('{r:{x:int32,y:int32}}', '{r:{y:int32,z:int32},s:string}')).toBe(
      '{r:{x:int32,y:int32,z:int32},s:string}',
    );
  });
  test('containers, nulls and unions', () => {
    expect(fuse('[int64]', '[string]')).toBe('[(int64,string)]');
    expect(fuse('|[int64]|', '[string]')).toBe('[(int64,string)]');
    // As in the reference, equal element types still fuse to a union (of two
    // identical members): there is no shortcut for equal types.
    expect(fuse('|[int64]|', '[int64]')).toBe('[(int64,int64)]');
    expect(fuse('|{string:int64}|', '|{string:string}|')).toBe(
      '|{(string,string):(int64,string)}|',
    );
    expect(fuse('null', 'int64')).toBe('int64');
    expect(fuse('int64', 'null')).toBe('int64');
    expect(fuse('string', 'int64')).toBe('(int64,string)');
    expect(fuse('{a:int64}', '{a:string}', 'int64', 'string', '[int64]', '[string]')).toBe(
      '(int64,string,{a:(int64,string)},[int64],[string])',
    );
    expect(fuse('(int64,{a:int64})', '{b:string}')).toBe('(int64,{a:int64,b:string})');
  });
});
