import { Fuse } from '../../../src/query/runtime/ops/fuse';
import { lines, newCtx, run, spillTmp, src } from './helpers';

async function fuse(input: string, ctxOpts = {}) {
  const ctx = newCtx(ctxOpts);
  return run(new Fuse(ctx, src(ctx, input, 1)));
}

describe('fuse', () => {
  test('documented: fuse two records', async () => {
    expect(await fuse('{a:1}{b:2}')).toEqual(['{a:1,b:null(int64)}', '{a:null(int64),b:2}']);
  });
  test('documented: type variation makes a union', async () => {
    expect(await fuse('{a:1}{a:"foo"}')).toEqual([
      '{a:1((int64,string))}',
      '{a:"foo"((int64,string))}',
    ]);
  });
  test('documented: complex type variation', async () => {
    expect(await fuse('{a:[1,2]}{a:["foo","bar"],b:10.0.0.1}')).toEqual([
      '{a:[1,2]([(int64,string)]),b:null(ip)}',
      '{a:["foo","bar"]([(int64,string)]),b:10.0.0.1}',
    ]);
  });
  test('reference ztest: basic', async () => {
    expect(await fuse('{a:"hello",b:"world"} {b:"goodnight",c:"gracie"}')).toEqual([
      '{a:"hello",b:"world",c:null(string)}',
      '{a:null(string),b:"goodnight",c:"gracie"}',
    ]);
  });
  test('reference ztest: container', async () => {
    expect(
      await fuse(
        '{a:"hello",r:{x:1(int32),y:2(int32)}} {r:{y:4(int32),z:5(int32)},s:"world",r2:{x:6(int32)}}',
      ),
    ).toEqual(
      lines(`{a:"hello",r:{x:1(int32),y:2(int32),z:null(int32)},s:null(string),r2:null({x:int32})}
             {a:null(string),r:{x:null(int32),y:4(int32),z:5(int32)},s:"world",r2:{x:6(int32)}}`),
    );
  });
  test('reference ztest: dup', async () => {
    expect(await fuse('{a:"hello",b:"world"} {a:"goodnight",b:123(int32)}')).toEqual([
      '{a:"hello",b:"world"((int32,string))}',
      '{a:"goodnight",b:123(int32)((int32,string))}',
    ]);
  });
  test('reference ztest: array of record', async () => {
    expect(await fuse('[{a:1}] [{b:2}] [{a:3},{b:3}] [{a:3,b:3}]')).toEqual([
      '[{a:1,b:null(int64)}]',
      '[{a:null(int64),b:2}]',
      '[{a:3,b:null(int64)},{a:null(int64),b:3}]',
      '[{a:3,b:3}]',
    ]);
  });
  test('reference ztest: mixed (records are not shaped into the union)', async () => {
    expect(await fuse('{a:1} {a:"s"} 1 "s" [1] ["s"]')).toEqual([
      '{a:1}',
      '{a:"s"}',
      '1((int64,string,{a:(int64,string)},[int64],[string]))',
      '"s"((int64,string,{a:(int64,string)},[int64],[string]))',
      '[1]((int64,string,{a:(int64,string)},[int64],[string]))',
      '["s"]((int64,string,{a:(int64,string)},[int64],[string]))',
    ]);
  });
  test('sets stay sets and are normalised in the union', async () => {
    expect(await fuse('{s:|[2,1]|} {s:|["a"]|}')).toEqual([
      '{s:|[1,2]|(|[(int64,string)]|)}',
      '{s:|["a"]|(|[(int64,string)]|)}',
    ]);
  });
  test("maps of different types cannot be shaped (the reference's error)", async () => {
    expect(await fuse('{m:|{"a":1}|} {m:|{"b":"x"}|}')).toEqual([
      'error("cannot yet use maps in shaping functions (issue #2894)")',
      'error("cannot yet use maps in shaping functions (issue #2894)")',
    ]);
  });
  test('reference ztest: spill (a tiny memory limit)', async () => {
    const tmp = spillTmp();
    try {
      expect(
        await fuse('{a:"hello",b:"world"} {b:"goodnight",c:"gracie"}', {
          memoryLimit: 70,
          tmpDir: tmp.dir,
        }),
      ).toEqual([
        '{a:"hello",b:"world",c:null(string)}',
        '{a:null(string),b:"goodnight",c:"gracie"}',
      ]);
      expect(tmp.leftovers()).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
  test('empty input', async () => {
    expect(await fuse('')).toEqual([]);
  });
});
