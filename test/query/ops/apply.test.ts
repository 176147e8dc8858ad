// The per-value operators: where, yield, put, cut, drop, rename, pass,
// head, tail, and the inline filter of sources.

import { Value } from '../../../src/zed/value';
import { compileQuery, QueryContext } from '../../../src/query';
import { Operator, pullAll } from '../../../src/query/runtime/operator';
import { Head } from '../../../src/query/runtime/ops/head';
import { parseValues } from '../../../src/formats/zson';
import { zq } from '../helpers';

describe('where', () => {
  test('keeps values whose predicate is true, drops missing', async () => {
    expect(await zq('where a > 1', '{a:1} {a:2} {b:3} {a:3}')).toEqual(['{a:2}', '{a:3}']);
    expect(await zq('a==1 | b==2', '{a:1,b:2} {a:1,b:3} {a:2,b:2}')).toEqual(['{a:1,b:2}']);
  });

  test('comparisons with constants decode null as zero, as the reference', async () => {
    expect(await zq('x == 0', '{x:null(int64)} {x:1}')).toEqual(['{x:null(int64)}']);
    expect(await zq('s == null', '{s:"a"} {s:null(string)} {s:""}')).toEqual(['{s:null(string)}']);
  });
});

describe('yield', () => {
  test('each expression for each value, errors included, quiet dropped', async () => {
    expect(await zq('yield a, a+1', '{a:1} {a:10}')).toEqual(['1', '2', '10', '11']);
    expect(await zq('yield b', '{a:1}')).toEqual(['error("missing")']);
    expect(await zq('yield quiet(b)', '{a:1}')).toEqual([]);
    expect(await zq('yield this', '1 "a" [1]')).toEqual(['1', '"a"', '[1]']);
  });
});

describe('put', () => {
  test('replaces in place and appends in order', async () => {
    expect(await zq('put c:=3, a:=0', '{a:1,b:2}')).toEqual(['{a:0,b:2,c:3}']);
    expect(await zq('c:=a+b', '{a:1,b:2}')).toEqual(['{a:1,b:2,c:3}']);
  });

  test('nested paths create and extend records', async () => {
    expect(await zq('put r.y:=2', '{r:{x:1}}')).toEqual(['{r:{x:1,y:2}}']);
    expect(await zq('put n.a:=1, n.b:=2', '{x:0}')).toEqual(['{x:0,n:{a:1,b:2}}']);
    expect(await zq('put x.y:=1', '{x:5}')).toEqual(['{x:{y:1}}']);
  });

  test('values computed from the input, not from each other', async () => {
    expect(await zq('put a:=b, b:=a', '{a:1,b:2}')).toEqual(['{a:2,b:1}']);
  });

  test('non-records are errors; errors pass', async () => {
    expect(await zq('b:=2', '{a:1} 1')).toEqual(['{a:1,b:2}', 'error("put: not a record: 1")']);
    expect(await zq('put b:=x', '{a:1}')).toEqual(['{a:1,b:error("missing")}']);
    expect(await zq('put b:=quiet(x)', '{a:1}')).toEqual(['{a:1}']);
  });

  test('layouts follow changing input and result types', async () => {
    expect(await zq('put y:=x', '{x:1} {x:"a"} {z:1,x:2} {x:1}')).toEqual([
      '{x:1,y:1}',
      '{x:"a",y:"a"}',
      '{z:1,x:2,y:2}',
      '{x:1,y:1}',
    ]);
  });
});

describe('cut', () => {
  test('the fields in order, missing ones as errors', async () => {
    expect(await zq('cut a,c', '{a:1,b:2,c:3}')).toEqual(['{a:1,c:3}']);
    expect(await zq('cut c,a', '{a:1,b:2,c:3}')).toEqual(['{c:3,a:1}']);
    expect(await zq('cut a,d', '{a:1,b:2,c:3}')).toEqual(['{a:1,d:error("missing")}']);
    expect(await zq('cut a,b', '1 {a:1,b:2,c:3}')).toEqual([
      '{a:error("missing"),b:error("missing")}',
      '{a:1,b:2}',
    ]);
  });

  test('quiet fields are left out; all-quiet values dropped', async () => {
    expect(await zq('cut a:=quiet(a),d:=quiet(d)', '{a:1,b:2,c:3}')).toEqual(['{a:1}']);
    expect(await zq('cut d:=quiet(d)', '{a:1}')).toEqual([]);
  });

  test('nested output paths and computed fields', async () => {
    expect(await zq('cut id.orig_h, x:=1', '{id:{orig_h:1.2.3.4,resp_h:5.6.7.8},y:2}')).toEqual([
      '{id:{orig_h:1.2.3.4},x:1}',
    ]);
    expect(await zq('cut a.b:=x, a.c:=y', '{x:1,y:2}')).toEqual(['{a:{b:1,c:2}}']);
  });
});

describe('drop', () => {
  test('removes fields, nested ones too; other values pass', async () => {
    expect(await zq('drop b', '{a:1,b:2} {c:3} 7')).toEqual(['{a:1}', '{c:3}', '7']);
    expect(await zq('drop r.x', '{r:{x:1,y:2},z:3}')).toEqual(['{r:{y:2},z:3}']);
    expect(await zq('drop r.x', '{r:{x:1},z:3}')).toEqual(['{z:3}']);
    expect(await zq('drop a,b', '{a:1,b:2} {a:1,c:2}')).toEqual(['{c:2}']);
  });

  test('top-level fields dropped anywhere in a record, of any value, the rest kept as they were', async () => {
    const input = [
      '{a:1,b:"x",c:null(int64),d:[1,2],e:{f:"long string ' + 'y'.repeat(200) + '"},g:""}',
      '{a:null(int64),b:null(string),c:3,d:null([int64]),e:null({f:string}),g:"z"}',
      'null({a:int64,b:string})',
    ].join(' ');
    const long = '"long string ' + 'y'.repeat(200) + '"';
    expect(await zq('drop a', input)).toEqual([
      `{b:"x",c:null(int64),d:[1,2],e:{f:${long}},g:""}`,
      '{b:null(string),c:3,d:null([int64]),e:null({f:string}),g:"z"}',
      '{b:null(string)}',
    ]);
    expect(await zq('drop b,e', input)).toEqual([
      '{a:1,c:null(int64),d:[1,2],g:""}',
      '{a:null(int64),c:3,d:null([int64]),g:"z"}',
      '{a:null(int64)}',
    ]);
    expect(await zq('drop g,c', input)).toEqual([
      `{a:1,b:"x",d:[1,2],e:{f:${long}}}`,
      '{a:null(int64),b:null(string),d:null([int64]),e:null({f:string})}',
      // The record's type has neither: it passes as it is.
      'null({a:int64,b:string})',
    ]);
  });

  test('fields of records within records, the rest of each kept as it was', async () => {
    const input = [
      '{id:{o:1,r:{h:"x",p:2},s:"s"},e:{},t:3}',
      '{id:{o:null(int64),r:null({h:string,p:int64}),s:"s"},e:{},t:3}',
      '{id:null({o:int64,r:{h:string,p:int64},s:string}),e:{},t:null(int64)}',
      '{id:{o:1,r:{h:"x"},s:"s"},e:{},t:3}',
    ].join(' ');
    expect(await zq('drop id.r.h, e.x', input)).toEqual([
      '{id:{o:1,r:{p:2},s:"s"},e:{},t:3}',
      '{id:{o:null(int64),r:{p:null(int64)},s:"s"},e:{},t:3}',
      '{id:{o:null(int64),r:{p:null(int64)},s:null(string)},e:{},t:null(int64)}',
      // A record left with no fields goes.
      '{id:{o:1,s:"s"},e:{},t:3}',
    ]);
    expect(await zq('drop id.o, t', input)).toEqual([
      '{id:{r:{h:"x",p:2},s:"s"},e:{}}',
      '{id:{r:null({h:string,p:int64}),s:"s"},e:{}}',
      '{id:{r:null({h:string,p:int64}),s:null(string)},e:{}}',
      '{id:{r:{h:"x"},s:"s"},e:{}}',
    ]);
  });
});

describe('rename', () => {
  test('renames in place, nested within their record', async () => {
    expect(await zq('rename x:=a', '{a:1,b:2} {b:3}')).toEqual(['{x:1,b:2}', '{b:3}']);
    expect(await zq('rename id.src:=id.orig_h', '{id:{orig_h:1,resp_h:2}}')).toEqual([
      '{id:{src:1,resp_h:2}}',
    ]);
    expect(await zq('rename a:=b, c:=a', '{b:1}')).toEqual(['{c:1}']);
  });

  test('a rename onto an existing field is an error value', async () => {
    expect(await zq('rename a:=b', '{a:1,b:2}')).toEqual([
      'error({message:"rename: duplicate field: \\"a\\"",on:{a:1,b:2}})',
    ]);
  });
});

describe('head and tail', () => {
  const input = Array.from({ length: 10 }, (_, i) => `{n:${i}}`).join(' ');

  test('head N and tail N', async () => {
    expect(await zq('head', input)).toEqual(['{n:0}']);
    expect(await zq('head 3', input)).toEqual(['{n:0}', '{n:1}', '{n:2}']);
    expect(await zq('tail 2', input)).toEqual(['{n:8}', '{n:9}']);
    expect(await zq('tail 20', input)).toEqual(Array.from({ length: 10 }, (_, i) => `{n:${i}}`));
    expect(await zq('head 1+1', input)).toEqual(['{n:0}', '{n:1}']);
  });

  test('head closes its input once it has enough', async () => {
    const ctx = new QueryContext();
    const vals = parseValues(ctx.zctx, input);
    let pulls = 0;
    let closed = false;
    const counting: Operator = {
      pull: async () => {
        const b = vals.slice(pulls * 2, pulls * 2 + 2);
        pulls++;
        return b.length === 0 ? null : b;
      },
      close: async () => {
        closed = true;
      },
    };
    const out = await pullAll(new Head(counting, 3));
    expect(out.length).toBe(3);
    expect(closed).toBe(true);
    expect(pulls).toBe(2);
  });

  test('head stops reading an endless source', async () => {
    const ctx = new QueryContext();
    const one = parseValues(ctx.zctx, '{x:1}')[0];
    let reads = 0;
    const endless = {
      read: async (): Promise<Value[]> => {
        reads++;
        return [one, one];
      },
    };
    const q = await compileQuery('x==1 | head 5', { ctx, inputs: [endless] });
    expect((await q.all()).length).toBe(5);
    expect(reads).toBe(3);
  });
});

describe('pass and implied filter *', () => {
  test('everything through', async () => {
    expect(await zq('pass', '1 2')).toEqual(['1', '2']);
    expect(await zq('*', '1 2')).toEqual(['1', '2']);
    expect(await zq('', '1 2')).toEqual(['1', '2']);
  });
});

describe('stats', () => {
  test('records read and matched by a source with a pushed-down filter', async () => {
    const ctx = new QueryContext();
    await zq('a > 1', '{a:1} {a:2} {a:3}', { ctx });
    expect(ctx.stats.recordsRead).toBe(3);
    expect(ctx.stats.recordsMatched).toBe(2);
  });
});

describe('over and lateral expressions', () => {
  test('over traverses arrays, records and maps', async () => {
    // A null container yields nothing; a null of a primitive type yields itself.
    expect(await zq('over a', '{a:[1,2]} {a:null([int64])} {a:null} {b:1}')).toEqual([
      '1',
      '2',
      'null',
    ]);
    expect(await zq('over this', '{x:1,y:"s"}')).toEqual([
      '{key:["x"],value:1}',
      '{key:["y"],value:"s"}',
    ]);
  });

  test('with locals are visible in the lateral query', async () => {
    expect(
      await zq('over b with w=a => ( yield {x:w,y:this} )', '{a:1,b:[2,3]} {a:4,b:[5]}'),
    ).toEqual(['{x:1,y:2}', '{x:1,y:3}', '{x:4,y:5}']);
    expect(await zq('over a => (sort -r this | head 1)', '{a:[3,9,4]} {a:[1]}')).toEqual([
      '9',
      '1',
    ]);
  });

  test('a lateral expression yields null, a value, or an array', async () => {
    expect(await zq('yield (over a | sum(this))', '{a:[1,2]} {a:null} {a:[5,6]}')).toEqual([
      '3',
      'null',
      '11',
    ]);
    expect(await zq('yield (over a | this > 1)', '{a:[1,2,3]}')).toEqual(['[2,3]']);
    expect(await zq('yield (over a | yield this)', '{a:[1,"x"]}')).toEqual(['[1,"x"]']);
    expect(
      await zq('over a => ( {y,s:(over x | sum(this))} )', '{a:[{x:[1,2],y:2},{x:[3],y:4}]}'),
    ).toEqual(['{y:2,s:3}', '{y:4,s:3}']);
    expect(await zq('yield (over a with k=b | yield {k,v:this})', '{a:[1],b:"q"}')).toEqual([
      '{k:"q",v:1}',
    ]);
  });
});
