import { parseValues } from '../../../src/formats/zson';
import { lookupAggregate, newFunction } from '../../../src/query/aggregates';
import { TypeContext } from '../../../src/zed/context';
import { agg, agg1, zq } from './run';

describe('fuse', () => {
  test('documented examples', async () => {
    expect(await agg1('fuse(this)', '{a:1,b:2}{a:2,b:"foo"}')).toBe('<{a:int64,b:(int64,string)}>');
    expect(
      await agg('fuse(this) by b | sort', '{a:1,b:"bar"}{a:2.1,b:"foo"}{a:3,b:"bar"}'),
    ).toEqual(['{b:"bar",fuse:<{a:int64,b:string}>}', '{b:"foo",fuse:<{a:float64,b:string}>}']);
    // The type fusion section of the language overview.
    const input = '{x:1} {x:"foo",y:"foo"} {x:2,y:"bar"}';
    expect(await agg1('fuse(this)', input)).toBe('<{x:(int64,string),y:string}>');
    expect(await agg('fuse(this) by len(this) | sort len', input)).toEqual([
      '{len:1,fuse:<{x:int64}>}',
      '{len:2,fuse:<{x:(int64,string),y:string}>}',
    ]);
  });
  test('the reference ztests', async () => {
    expect(
      await agg1(
        'all:=fuse(this),r:=fuse(r)',
        `{a:"hello",r:{x:1(int32),y:2(int32)}}
         {r:{y:4(int32),z:5(int32)},s:"world",r2:{x:6(int32)}}`,
      ),
    ).toBe(
      '{all:<{a:string,r:{x:int32,y:int32,z:int32},s:string,r2:{x:int32}}>,r:<{x:int32,y:int32,z:int32}>}',
    );
    expect(await agg1('fuse(this)', '{a:"hello",b:"world"} {a:"goodnight",b:123(int32)}')).toBe(
      '<{a:string,b:(int32,string)}>',
    );
    expect(await agg1('t:=fuse(r) by a', '{a:1,r:{a:1}} {a:1,r:{a:2}}')).toBe(
      '{a:1,t:<{a:int64}>}',
    );
  });
  test('grouped results are the same through partials (fields in order of appearance)', async () => {
    const rec = (key: string) => `{a:"hello",r:{x:1(int32),y:2(int32)},key:"${key}"}`;
    const rec2 = (key: string) =>
      `{r:{y:4(int32),z:5(int32)},s:"world",r2:{x:6(int32)},key:"${key}"}`;
    const input = ['a', 'b', 'c'].map(rec).concat(['a', 'b', 'c'].map(rec2)).join(' ');
    const fused = '<{a:string,r:{x:int32,y:int32,z:int32},key:string,s:string,r2:{x:int32}}>';
    const want = ['a', 'b', 'c'].map((k) => `{key:"${k}",fuse:${fused}}`);
    expect(await agg('fuse(this) by key | sort key', input)).toEqual(want);
    expect(await agg('fuse(this) by key with -limit 1 | sort key', input)).toEqual(want);
  });
  test('mixed types make unions; nulls and errors are types too', async () => {
    expect(await agg1('fuse(this)', '1 "a" 2 null')).toBe('<(int64,string)>');
    expect(await agg1('fuse(x)', '{x:[1]} {x:|["a"]|} {x:error("e")} {y:1}')).toBe(
      '<([(int64,string)],error(string))>',
    );
  });
  test('running fuse, and no values: null(type)', async () => {
    expect(await zq('yield fuse(this)', '{a:1} {b:2} {a:"x"}')).toEqual([
      '<{a:int64}>',
      '<{a:int64,b:int64}>',
      '<{a:(int64,string),b:int64}>',
    ]);
    expect(await agg1('fuse(x) where false', '{x:1}')).toBe('null(type)');
  });
  test('a partial that is not a type value is the reference error', () => {
    const zctx = new TypeContext();
    const f = newFunction(lookupAggregate('fuse')!);
    expect(() => f.consumePartial(parseValues(zctx, '1')[0])).toThrow(
      'fuse: partial not a type value',
    );
  });
});
