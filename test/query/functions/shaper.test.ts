// Shaping: crop, fill, fit, order, shape and cast on records and on
// records inside arrays and sets; union targets; type arguments computed
// per value; and the shaper used directly (shapeValue).

import { parseType, parseValue, formatValue } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed/context';
import {
  Cast,
  Crop,
  Fill,
  Order,
  shapeValue,
  shaperTransforms,
} from '../../../src/query/expr/shaper';
import { each } from './run';

type Row = [string, string, string[]];

function table(name: string, rows: Row[]): void {
  describe(name, () => {
    test.each(rows)('yield %s over %s', async (expr, input, want) => {
      expect(await each(expr, input)).toEqual(want);
    });
  });
}

table('crop', [
  [
    'crop(this, <{a:int64,c:{d:string}}>)',
    '{a:1,b:2,c:{d:"x",e:1}} {b:1} 1 {a:"s",c:1}',
    ['{a:1,c:{d:"x"}}', '{}', '1', '{a:"s",c:1}'],
  ],
  [
    'crop(this, <[{a:int64}]>)',
    '[{a:1,b:2},{a:3,b:4}] |[{a:1,b:2}]|',
    ['[{a:1},{a:3}]', '|[{a:1,b:2}]|'],
  ],
  ['crop(this, <|[{a:int64}]|>)', '|[{a:1,b:2}]|', ['|[{a:1}]|']],
  ['crop(<{a:int64}>)', '{a:1,b:2}', ['{a:1}']],
]);

table('fill', [
  [
    'fill(this, <{a:int64,b:{c:string}}>)',
    '{a:1} {x:1} {b:{}} {b:1}',
    [
      '{a:1,b:null({c:string})}',
      '{x:1,a:null(int64),b:null({c:string})}',
      '{b:{c:null(string)},a:null(int64)}',
      '{b:1,a:null(int64)}',
    ],
  ],
  ['fill(this, <{a:int64}>)', 'null({b:int64}) 1', ['null({b:int64,a:int64})', '1']],
  [
    'fill(this, <[{a:int64,b:int64}]>)',
    '[{a:1},{a:2}]',
    ['[{a:1,b:null(int64)},{a:2,b:null(int64)}]'],
  ],
]);

table('fit', [
  [
    'fit(this, <{a:int64,b:string}>)',
    '{b:"x",c:1} {a:"1"}',
    ['{b:"x",a:null(int64)}', '{a:"1",b:null(string)}'],
  ],
]);

table('order', [
  ['order(this, <{b:int64,a:int64}>)', '{a:1,c:3,b:2,d:4}', ['{b:2,a:1,c:3,d:4}']],
  [
    'order(this, <{}>)',
    '{c:0,a:1,b:"foo"} {z:1,a:{y:1,x:2}}',
    ['{a:1,b:"foo",c:0}', '{a:{y:1,x:2},z:1}'],
  ],
  ['order(this, <[{b:int64,a:int64}]>)', '[{a:1,b:2},{a:3,b:4}]', ['[{b:2,a:1},{b:4,a:3}]']],
  ['order(this, <{a:{x:int64,y:int64}}>)', '{a:{y:1,x:2}}', ['{a:{x:2,y:1}}']],
]);

table('shape', [
  [
    'shape(this, <{a:int64,b:string}>)',
    '{b:1,a:"2"} {c:1} {a:"x"}',
    [
      '{a:2,b:"1"}',
      '{a:null(int64),b:null(string),c:1}',
      '{a:error({message:"cannot cast to int64",on:"x"}),b:null(string)}',
    ],
  ],
  [
    'shape(this, <{a:[int64],b:|[ip]|}>)',
    '{a:["1","2"],b:["10.0.0.1"]} {a:null,b:null}',
    ['{a:[1,2],b:|[10.0.0.1]|}', '{a:null([int64]),b:null(|[ip]|)}'],
  ],
  [
    'shape(this, <{a:[{b:int64}]}>)',
    '{a:[{b:"1"},{b:"x"}]}',
    ['{a:[{b:1},{b:error({message:"cannot cast to int64",on:"x"})}]}'],
  ],
]);

table('cast', [
  ['cast(this, <{b:string}>)', '{a:1,b:2} {a:3} {b:4}', ['{a:1,b:"2"}', '{a:3}', '{b:"4"}']],
  [
    'cast(this, <{a:(int64,string)}>)',
    '{a:1} {a:"x"} {a:1.5} {a:null}',
    ['{a:1((int64,string))}', '{a:"x"((int64,string))}', '{a:1.5}', '{a:null((int64,string))}'],
  ],
  [
    'cast(this, <[(int8,string)]>)',
    '[1,"one"]',
    ['error("createStep: incompatible types (int64,string) and (int8,string)")'],
  ],
  ['cast(this, <{a:|[string]|}>)', '{a:[2,1,2]}', ['{a:|["1","2"]|}']],
]);

table('dynamic types', [
  [
    'cast(this, t)',
    '{t:<{a:string,t:type}>} {t:"named"} {t:1}',
    [
      '{t:<{a:string,t:type}>}',
      '{t:"named"}(=named)',
      'error("shaper type argument is not a type: 1")',
    ],
  ],
  [
    'shape(this, t)',
    '{a:"1",t:<{a:int64}>} {b:2,t:<{a:int64}>}',
    ['{a:1,t:<{a:int64}>}', '{a:null(int64),b:2,t:<{a:int64}>}'],
  ],
  ['crop(x, <int64>)', '{}', ['error("missing")']],
]);

describe('shapeValue', () => {
  const zctx = new TypeContext();
  const shape = (v: string, t: string, tf: number) =>
    formatValue(shapeValue(zctx, parseValue(zctx, v), parseType(zctx, t), tf));

  test('transforms combine', () => {
    expect(shape('{b:"1",c:2}', '{a:int64,b:int64}', Cast | Fill | Order)).toBe(
      '{a:null(int64),b:1,c:2}',
    );
    expect(shape('{b:"1",c:2}', '{a:int64,b:int64}', Crop | Fill)).toBe('{b:"1",a:null(int64)}');
    expect(shape('{b:"1",c:2}', '{a:int64,b:int64}', Cast | Crop)).toBe('{b:1}');
  });

  test('names of the transforms', () => {
    expect(shaperTransforms('shape')).toBe(Cast | Fill | Order);
    expect(shaperTransforms('fit')).toBe(Crop | Fill);
    expect(shaperTransforms('len')).toBe(0);
  });

  test('values of the target type come back as they are', () => {
    const v = parseValue(zctx, '{a:1}');
    const out = shapeValue(zctx, v, parseType(zctx, '{a:int64}'), Cast);
    expect(out.type).toBe(v.type);
    expect(formatValue(out)).toBe('{a:1}');
  });
});
