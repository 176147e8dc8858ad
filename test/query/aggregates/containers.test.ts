// collect, union and map: the aggregates that build containers.

import fc from 'fast-check';
import { formatValue, parseValues } from '../../../src/formats/zson';
import { lookupAggregate, newFunction } from '../../../src/query/aggregates';
import { ByteSet } from '../../../src/query/aggregates/byteset';
import { valueLimit } from '../../../src/query/aggregates/values';
import { TypeContext } from '../../../src/zed/context';
import { agg, agg1, zq } from './run';

/** A query's value and type, as `yield this, typeof(this)` prints them. */
async function valueAndType(query: string, input: string): Promise<string[]> {
  return agg(`${query} | yield this, typeof(this)`, input);
}

// Values of a union type, of other types, and a second group, so that
// spilled partials (with -limit 1) carry arrays and sets of unions.
const MIXED = `{k:1,x:1((int64,string))} {k:2,x:"a"((int64,string))} {k:1,x:"b"((int64,string))}
  {k:2,x:2.5} {k:1,x:2} {k:3,x:null(int64)} {k:3,x:3(=myint)} {k:3,x:3}`;

describe('collect', () => {
  test('documented examples', async () => {
    expect(await agg1('collect(this)', '1 2 3 4')).toBe('[1,2,3,4]');
    expect(await zq('yield collect(this)', '1 2 3 4')).toEqual([
      '[1]',
      '[1,2]',
      '[1,2,3]',
      '[1,2,3,4]',
    ]);
    expect(await valueAndType('collect(this)', '1 2 3 4 "foo"')).toEqual([
      '[1,2,3,4,"foo"]',
      '<[(int64,string)]>',
    ]);
  });
  test('the reference ztests', async () => {
    expect(await agg1('collect(this)', '{a:1} {b:1.5} {a:2}')).toBe('[{a:1},{b:1.5},{a:2}]');
    const input = `{key:"a",x:1(int32)} {key:"a",x:-1(int32)} {key:"b",x:2(int32)}
      {key:"b",x:1(int32)} {key:"a",x:8(int32)} {key:"b",x:1(int32)} {key:"a"} {key:"a"}`;
    expect(await agg('collect(x) by key with -limit 1 | sort key', input)).toEqual([
      '{key:"a",collect:[1(int32),-1(int32),8(int32)]}',
      '{key:"b",collect:[2(int32),1(int32),1(int32)]}',
    ]);
  });
  test('nulls and missing are skipped; errors are values', async () => {
    expect(await valueAndType('collect(x)', '{x:null(int64)} {x:1} {y:2} {x:error("e")}')).toEqual([
      '[1,error("e")]',
      '<[(int64,error(string))]>',
    ]);
    expect(await agg1('collect(x)', '{x:null(int64)} {y:1}')).toBe('null');
    expect(await agg1('c:=collect(x) where false', '{x:1}')).toBe('{c:null}');
  });
  test('named types stay apart from their underlying types', async () => {
    expect(await valueAndType('collect(this)', '1(=myint) 2 3(=myint)')).toEqual([
      '[1(=myint),2,3(myint)]',
      '<[(myint=int64,int64)]>',
    ]);
  });
  test('values of a union type: an array of it, or a union holding it', async () => {
    expect(
      await valueAndType('collect(x)', '{x:1((int64,string))} {x:"a"((int64,string))}'),
    ).toEqual(['[1,"a"]', '<[(int64,string)]>']);
    expect(await valueAndType('collect(x)', '{x:1((int64,string))} {x:2.5}')).toEqual([
      '[1((int64,string)),2.5]',
      '<[(float64,(int64,string))]>',
    ]);
  });
  test('grouped results are the same through partials', async () => {
    const want = [
      '{k:1,c:[1((int64,string)),"b"((int64,string)),2]}',
      '{k:2,c:["a"((int64,string)),2.5]}',
      '{k:3,c:[3(=myint),3]}',
    ];
    expect(await agg('c:=collect(x) by k | sort k', MIXED)).toEqual(want);
    expect(await agg('c:=collect(x) by k with -limit 1 | sort k', MIXED)).toEqual(want);
  });
  test('a partial that is not an array is the reference error', () => {
    const zctx = new TypeContext();
    const f = newFunction(lookupAggregate('collect')!);
    f.consumePartial(parseValues(zctx, 'null')[0]);
    expect(() => f.consumePartial(parseValues(zctx, '|[1]|')[0])).toThrow(
      'collect partial: partial not an array type: |[1]|',
    );
    expect(formatValue(f.result(zctx))).toBe('null');
  });
  test('past the size limit the oldest values are dropped, and their types with them', async () => {
    const limit = valueLimit.bytes;
    valueLimit.bytes = 10;
    try {
      // "abcdef" and 2.5 (8 bytes) go as the ints (1 byte each) arrive.
      const ints = Array.from({ length: 40 }, (_, i) => i + 1);
      expect(await valueAndType('collect(this)', `"abcdef" 2.5 ${ints.join(' ')}`)).toEqual([
        `[${ints.slice(30).join(',')}]`,
        '<[int64]>',
      ]);
      // Many values kept, moved as the buffer is compacted: after each
      // value, the newest that fit in the limit.
      valueLimit.bytes = 100;
      const zctx = new TypeContext();
      const text = Array.from({ length: 300 }, (_, i) =>
        i % 5 === 0 ? `${i}` : `"${'x'.repeat(i % 7)}${i}"`,
      );
      const vals = parseValues(zctx, text.join(' '));
      const collect = lookupAggregate('collect')!;
      const f = newFunction(collect);
      let from = 0;
      let size = 0;
      for (let i = 0; i < vals.length; i++) {
        f.consume(vals[i]);
        size += vals[i].len;
        while (size > valueLimit.bytes) size -= vals[from++].len;
        // What collect makes of those values alone.
        const fresh = newFunction(collect);
        for (const v of vals.slice(from, i + 1)) fresh.consume(v);
        expect(formatValue(f.result(zctx))).toBe(formatValue(fresh.result(zctx)));
      }
      expect(formatValue(f.result(zctx))).toMatch(/^\["xx282",.*,285,.*,"xxxxx299"\]$/);
    } finally {
      valueLimit.bytes = limit;
    }
  });
});

describe('union', () => {
  test('documented examples', async () => {
    expect(await agg1('union(this)', '1 2 3 3')).toBe('|[1,2,3]|');
    expect(await zq('yield union(this)', '1 2 3 3')).toEqual([
      '|[1]|',
      '|[1,2]|',
      '|[1,2,3]|',
      '|[1,2,3]|',
    ]);
    expect(await agg('set:=union(this) | yield this,typeof(set)', '1 2 3 "foo"')).toEqual([
      '{set:|[1,2,3,"foo"]|}',
      '<|[(int64,string)]|>',
    ]);
    expect(await agg1('summarize count(),union(this)', '"foo" "bar" "baz"')).toBe(
      '{count:3(uint64),union:|["bar","baz","foo"]|}',
    );
  });
  test('the reference ztests', async () => {
    expect(await agg1('union(this)', '1((int64,string)) 1((int64,string))')).toBe(
      '|[1]|(|[(int64,string)]|)',
    );
    expect(
      await agg(
        'over this => (union(this))',
        `[{x:1,s:"a"},{x:2,s:"b"},{x:1,s:"a"},{x:3,s:"e"}] [1,"1",1] [[]([string]),null([string])]`,
      ),
    ).toEqual(['|[{x:1,s:"a"},{x:2,s:"b"},{x:3,s:"e"}]|', '|[1,"1"]|', '|[[]([string])]|']);
  });
  test('elements in set order (by their encoding); equal bytes of other types stay apart', async () => {
    expect(await valueAndType('union(this)', '"b" 1 "a" 1 2.5 null "b" 1(uint8)')).toEqual([
      '|[1(uint8),1,"a","b",2.5]|',
      '<|[(uint8,int64,float64,string)]|>',
    ]);
  });
  test('nulls and missing are skipped; errors are values; no values: null', async () => {
    expect(await agg1('union(x)', '{x:null(int64)} {y:1} {x:error("e")} {x:error("e")}')).toBe(
      '|[error("e")]|',
    );
    expect(await agg1('union(x)', '{x:null(int64)}')).toBe('null');
  });
  test('grouped results are the same through partials', async () => {
    const want = [
      '{k:1,u:|[2,1((int64,string)),"b"((int64,string))]|}',
      '{k:2,u:|["a"((int64,string)),2.5]|}',
      '{k:3,u:|[3(=myint),3]|}',
    ];
    expect(await agg('u:=union(x) by k | sort k', MIXED)).toEqual(want);
    expect(await agg('u:=union(x) by k with -limit 1 | sort k', MIXED)).toEqual(want);
  });
  test('a partial that is not a set is the reference error', () => {
    const zctx = new TypeContext();
    const f = newFunction(lookupAggregate('union')!);
    expect(() => f.consumePartial(parseValues(zctx, '[1]')[0])).toThrow(
      'union: partial not a set type',
    );
  });
  test('past the size limit the oldest values of the first type are dropped', async () => {
    const limit = valueLimit.bytes;
    valueLimit.bytes = 6;
    try {
      // 1..9 (1 byte each), "ab" and "cd" after: the ints go first, oldest first.
      expect(await zq('union(this)', '1 2 "ab" 3 1 4 5 "cd" 6')).toEqual(['|[5,6,"ab","cd"]|']);
      // A value dropped and seen again is new again: 2 goes, not 1.
      expect(await zq('union(this)', '1 2 3 4 5 6 7 1')).toEqual(['|[1,3,4,5,6,7]|']);
    } finally {
      valueLimit.bytes = limit;
    }
  });
});

describe('ByteSet', () => {
  test('adds, finds and drops as an insertion-ordered set of strings does', () => {
    const op = fc.oneof(
      { weight: 5, arbitrary: fc.stringMatching(/^[ab]{0,40}$/).map((s) => ({ add: s })) },
      { weight: 1, arbitrary: fc.constant({ add: null }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const set = new ByteSet();
        const model = new Map<string, true>();
        for (const o of ops) {
          if (o.add === null) {
            const oldest = model.keys().next();
            const len = set.deleteOldest();
            if (oldest.done) expect(len).toBe(-1);
            else {
              expect(len).toBe(oldest.value.length);
              model.delete(oldest.value);
            }
            continue;
          }
          const b = Buffer.from(`..${o.add}`);
          expect(set.add(b, 2, b.length - 2)).toBe(!model.has(o.add));
          model.set(o.add, true);
        }
        const got: string[] = [];
        set.forEach((buf, off, len) => got.push(buf.toString('latin1', off, off + len)));
        expect(got).toEqual([...model.keys()]);
        expect(set.size).toBe(model.size);
      }),
      { numRuns: 300 },
    );
  });
});

describe('map', () => {
  test('documented examples', async () => {
    expect(
      await agg1('map(|{stock:price}|)', '{stock:"APPL",price:145.03} {stock:"GOOG",price:87.07}'),
    ).toBe('|{"APPL":145.03,"GOOG":87.07}|');
    expect(
      await zq('yield map(this)', '|{"APPL":145.03}| |{"GOOG":87.07}| |{"APPL":150.13}|'),
    ).toEqual([
      '|{"APPL":145.03}|',
      '|{"APPL":145.03,"GOOG":87.07}|',
      '|{"APPL":150.13,"GOOG":87.07}|',
    ]);
  });
  test('the reference ztests: entries in map order, newest value kept', async () => {
    expect(
      await agg1(
        'map(|{stock: price}|)',
        `{stock:"APPL",price:150.94} {stock:"GOOG",price:91.22} {stock:"APPL",price:160.94}
         {stock:"SBUX",price:87.30} {stock:"NKE",price:94.12} {stock:"TMUS",price:152.22}`,
      ),
    ).toBe('|{"NKE":94.12,"APPL":160.94,"GOOG":91.22,"SBUX":87.3,"TMUS":152.22}|');
  });
  test('union keys and values are untagged (names stripped); named types are kept', async () => {
    expect(
      await valueAndType(
        'map(|{k:v}|)',
        `{k:"foo"(=my_string),v:"bar"((int64,string))} {k:1(my_union=(int32,int64)),v:1}
         {k:127.0.0.1,v:127.0.0.1} {k:2.,v:2.} {k:["bar","baz"],v:["bar","baz"]}`,
      ),
    ).toEqual([
      '|{1:1,"foo"(=my_string):"bar",127.0.0.1:127.0.0.1,2.:2.,["bar","baz"]:["bar","baz"]}|',
      '<|{(int64,float64,my_string=string,ip,[string]):(int64,float64,string,ip,[string])}|>',
    ]);
  });
  test('non-maps and nulls are skipped; no entries: null', async () => {
    expect(await agg1('map(this)', '1 null |{}| "x"')).toBe('null');
    expect(await agg1('map(x)', '{x:|{1:null(string)}|} {y:1} {x:error("e")}')).toBe(
      '|{1:null(string)}|',
    );
  });
  test('grouped results are the same through partials', async () => {
    const input = `{k:1,x:|{"a":1}|} {k:2,x:|{"b":"x"}|} {k:1,x:|{1:2}|}
      {k:1,x:|{"c"(=s):3(=n)}|} {k:2,x:|{"b":"y"}|}`;
    const want = ['{k:1,m:|{1:2,"a":1,"c"(=s):3(=n)}|}', '{k:2,m:|{"b":"y"}|}'];
    expect(await agg('m:=map(x) by k | sort k', input)).toEqual(want);
    expect(await agg('m:=map(x) by k with -limit 1 | sort k', input)).toEqual(want);
  });
  test('map with two arguments is still the function over arrays', async () => {
    expect(await zq('yield map(this, upper)', '["a","b"]')).toEqual(['["A","B"]']);
  });
});
