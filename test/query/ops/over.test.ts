import { Over } from '../../../src/query/runtime/ops/over';
import { Summarize } from '../../../src/query/runtime/ops/summarize';
import { Sort } from '../../../src/query/runtime/ops/sort';
import { Aggregator } from '../../../src/query/aggregates';
import { Frame, VarExpr } from '../../../src/query/expr/vars';
import { Expr } from '../../../src/query/expr/expr';
import { RecordBuilder } from '../../../src/query/expr/recordbuilder';
import { Operator } from '../../../src/query/runtime/operator';
import { QueryContext } from '../../../src/query/runtime/context';
import { Type } from '../../../src/zed/types';
import { ValueArena } from '../../../src/query/runtime/arena';
import { field, head, lines, lit, newCtx, run, src } from './helpers';
import { compileQuery } from '../../../src/query';
import { formatValue, parseValues } from '../../../src/formats/zson';
import { arrayReader } from '../../../src/query/runtime/ops/scan';

/** `yield {name:expr, ...}` as a test stand-in. */
function yieldRecord(ctx: QueryContext, parent: Operator, fields: [string, Expr][]): Operator {
  const rb = new RecordBuilder(
    ctx.zctx,
    fields.map(([n]) => [n]),
  );
  const arena = new ValueArena();
  return {
    async pull() {
      const b = await parent.pull();
      if (b === null) return null;
      const out = b.map((v) => {
        arena.begin();
        rb.into(arena.b);
        const types: Type[] = [];
        for (const [, e] of fields) {
          const x = e.eval(v);
          types.push(x.type);
          rb.append(x.buf, x.off, x.len);
        }
        return arena.end(rb.type(types));
      });
      arena.seal();
      return out;
    },
    close: () => parent.close(),
  };
}

function sumOf(
  ctx: QueryContext,
  source: Operator,
  keys: { lhs: string[]; expr: Expr }[] = [],
): Operator {
  return new Summarize(ctx, source, {
    keys,
    aggs: [{ lhs: ['sum'], agg: new Aggregator('sum', field(ctx, 'this')) }],
  });
}

describe('over without a lateral body', () => {
  test('documented: evaluates each expression and emits it, once per input value', async () => {
    const ctx = newCtx();
    const exprs = [lit(ctx, '1'), lit(ctx, '2'), lit(ctx, '"foo"')];
    expect(await run(new Over(ctx, src(ctx, 'null'), { exprs }))).toEqual(['1', '2', '"foo"']);
    expect(await run(new Over(ctx, src(ctx, 'null null'), { exprs: exprs.slice(0, 2) }))).toEqual([
      '1',
      '2',
      '1',
      '2',
    ]);
  });
  test('documented: array elements are enumerated', async () => {
    const ctx = newCtx();
    expect(
      await run(
        new Over(ctx, src(ctx, 'null'), { exprs: [lit(ctx, '[1,2]'), lit(ctx, '[3,4,5]')] }),
      ),
    ).toEqual(['1', '2', '3', '4', '5']);
    expect(await run(new Over(ctx, src(ctx, '{a:[1,2,3]}'), { exprs: [field(ctx, 'a')] }))).toEqual(
      ['1', '2', '3'],
    );
  });
  test('reference ztest: over-map', async () => {
    const ctx = newCtx();
    expect(
      await run(
        new Over(ctx, src(ctx, '|{"amzn":1900,"goog":1120,"fb":180}|'), {
          exprs: [field(ctx, 'this')],
        }),
      ),
    ).toEqual(['{key:"fb",value:180}', '{key:"amzn",value:1900}', '{key:"goog",value:1120}']);
  });
  test('records yield {key:[name],value}', async () => {
    const ctx = newCtx();
    expect(
      await run(new Over(ctx, src(ctx, '{a:1,b:"x"}'), { exprs: [field(ctx, 'this')] })),
    ).toEqual(['{key:["a"],value:1}', '{key:["b"],value:"x"}']);
  });
  test('reference ztest: over-union (elements and values unwrapped)', async () => {
    const ctx = newCtx();
    const input = '[1,"foo"]([(int64,string)]) [3,4](([int64],ip)) "bar"((int64,string))';
    expect(await run(new Over(ctx, src(ctx, input), { exprs: [field(ctx, 'this')] }))).toEqual([
      '1',
      '"foo"',
      '3',
      '4',
      '"bar"',
    ]);
  });
  test('reference ztest: over-null (null elements keep their type; null containers yield nothing)', async () => {
    const ctx = newCtx();
    expect(
      await run(
        new Over(ctx, src(ctx, '[null,0] [null,""] null([int64])'), {
          exprs: [field(ctx, 'this')],
        }),
      ),
    ).toEqual(['null(int64)', '0', 'null(string)', '""']);
  });
  test('missing yields nothing, errors yield themselves, named types are stripped', async () => {
    const ctx = newCtx();
    const input = '{a:[1(=n),2(=n)]} {b:1} {a:error("e")}';
    expect(await run(new Over(ctx, src(ctx, input), { exprs: [field(ctx, 'a')] }))).toEqual([
      '1',
      '2',
      'error("e")',
    ]);
  });
});

describe('over with a lateral body', () => {
  test('documented/ztest bare-scoped: aggregate per input value; null arrays skip the body', async () => {
    const ctx = newCtx();
    const op = new Over(ctx, src(ctx, '{a:null([int64])} {a:[6,5,4]} {a:[3,2,1]} {a:[]}'), {
      exprs: [field(ctx, 'a')],
      scope: { frame: new Frame(), locals: [], body: (s) => sumOf(ctx, s) },
    });
    expect(await run(op)).toEqual(['{sum:15}', '{sum:6}']);
  });
  test('documented: access outer values through with', async () => {
    const ctx = newCtx();
    const frame = new Frame();
    const s = new VarExpr(frame, 0, 's');
    const op = new Over(ctx, src(ctx, '{a:[1,2],s:"foo"} {a:[3,4,5],s:"bar"}'), {
      exprs: [field(ctx, 'a')],
      scope: {
        frame,
        locals: [{ slot: 0, expr: field(ctx, 's') }],
        body: (src0) =>
          yieldRecord(ctx, sumOf(ctx, src0), [
            ['s', s],
            ['sum', field(ctx, 'sum')],
          ]),
      },
    });
    expect(await run(op)).toEqual(['{s:"foo",sum:3}', '{s:"bar",sum:12}']);
  });
  test('reference ztest: scope-lets (later locals see earlier ones)', async () => {
    const ctx = newCtx();
    const frame = new Frame();
    const v = new VarExpr(frame, 0, 'v');
    const w = new VarExpr(frame, 1, 'w');
    const op = new Over(ctx, src(ctx, '{a:1,b:[10,11],c:"foo"} {a:2,b:[12,13],c:123}'), {
      exprs: [field(ctx, 'b')],
      scope: {
        frame,
        locals: [
          { slot: 0, expr: field(ctx, 'c') },
          { slot: 1, expr: field(ctx, 'a') },
        ],
        body: (s) =>
          yieldRecord(ctx, s, [
            ['x', w],
            ['y', field(ctx, 'this')],
            ['z', v],
          ]),
      },
    });
    expect(await run(op)).toEqual(
      lines(`{x:1,y:10,z:"foo"}
      {x:1,y:11,z:"foo"}
      {x:2,y:12,z:123}
      {x:2,y:13,z:123}`),
    );
  });
  test('reference ztest: scope-groupby-key', async () => {
    const ctx = newCtx();
    const frame = new Frame();
    const s = new VarExpr(frame, 0, 's');
    const op = new Over(
      ctx,
      src(ctx, '{s:"a",x:[1,2]} {s:"a",x:[3]} {s:"b",x:[4,5]} {s:"b",x:[6,7]}'),
      {
        exprs: [field(ctx, 'x')],
        scope: {
          frame,
          locals: [{ slot: 0, expr: field(ctx, 's') }],
          body: (src0) => sumOf(ctx, src0, [{ lhs: ['s'], expr: s }]),
        },
      },
    );
    expect(await run(op)).toEqual([
      '{s:"a",sum:3}',
      '{s:"a",sum:3}',
      '{s:"b",sum:9}',
      '{s:"b",sum:13}',
    ]);
  });
  test('reference ztests: head-scoped and sort inside the body', async () => {
    const ctx = newCtx();
    const op = new Over(ctx, src(ctx, '{a:[7,6,1]} {a:[8]} {a:[3,2,1,0]}'), {
      exprs: [field(ctx, 'a')],
      scope: { frame: new Frame(), locals: [], body: (s) => head(s, 2) },
    });
    expect(await run(op)).toEqual(['7', '6', '8', '3', '2']);
    const sorted = new Over(ctx, src(ctx, '{a:[10,9,11]} {a:[3,2,1]} {a:|[6,9]|}'), {
      exprs: [field(ctx, 'a')],
      scope: {
        frame: new Frame(),
        locals: [],
        body: (s) => new Sort(ctx, s, { keys: [field(ctx, 'this')] }),
      },
    });
    expect(await run(sorted)).toEqual(['9', '10', '11', '1', '2', '3', '6', '9']);
  });
  test('reference ztest: nested scopes', async () => {
    const ctx = newCtx();
    const frame = new Frame();
    const TOP = new VarExpr(frame, 0, 'TOP');
    const BOTTOM = new VarExpr(frame, 1, 'BOTTOM');
    const input = `{outer:[{inner:[1,2,3],b:"hello"},{inner:[3,4],b:"world"}],top:888}
      {outer:[{inner:[5,6],b:"goodnight"},{inner:[7,8,9],b:"gracie"}],top:999}`;
    const op = new Over(ctx, src(ctx, input), {
      exprs: [field(ctx, 'outer')],
      scope: {
        frame,
        locals: [{ slot: 0, expr: field(ctx, 'top') }],
        body: (s) =>
          new Over(ctx, s, {
            exprs: [field(ctx, 'inner')],
            scope: {
              frame,
              locals: [{ slot: 1, expr: field(ctx, 'b') }],
              body: (s2) =>
                yieldRecord(ctx, s2, [
                  ['top', TOP],
                  ['bottom', BOTTOM],
                  ['elem', field(ctx, 'this')],
                ]),
            },
          }),
      },
    });
    const out = await run(op);
    expect(out.length).toBe(10);
    expect(out[0]).toBe('{top:888,bottom:"hello",elem:1}');
    expect(out[4]).toBe('{top:888,bottom:"world",elem:4}');
    expect(out[9]).toBe('{top:999,bottom:"gracie",elem:9}');
  });
  test('close() closes the running body and the input', async () => {
    const ctx = newCtx();
    const source = src(ctx, '{a:[1,2,3]} {a:[4]}', 1);
    let bodyClosed = 0;
    const op = new Over(ctx, source, {
      exprs: [field(ctx, 'a')],
      scope: {
        frame: new Frame(),
        locals: [],
        body: (s) => {
          const h = head(s, 1);
          return {
            pull: () => h.pull(),
            close: async () => {
              bodyClosed++;
              await h.close();
            },
          };
        },
      },
    });
    expect(await op.pull()).not.toBeNull();
    await op.close();
    expect(bodyClosed).toBe(1);
    expect(source.closed).toBe(true);
  });
});

describe('a lateral body of steps', () => {
  test('runs per input value, its results gathered into whole batches in order', async () => {
    const input = Array.from({ length: 3000 }, (_, i) => `{q:${i},a:["x${i}","y${i}"]}`);
    const queries = {
      steps: 'over a with q=q => (yield {q, v:this})',
      // sort is run as a step too; the same answer in the same order.
      sorted: 'over a with q=q => (sort -r this | yield {q, v:this} | sort v)',
    };
    for (const [name, query] of Object.entries(queries)) {
      const ctx = new QueryContext();
      const inputs = [arrayReader(parseValues(ctx.zctx, input.join('\n')), 1500)];
      const q = await compileQuery(query, { ctx, inputs });
      const sizes: number[] = [];
      const out: string[] = [];
      for (let b = await q.pull(); b; b = await q.pull()) {
        sizes.push(b.length);
        for (const v of b) out.push(formatValue(v));
      }
      const want = input.flatMap((_, i) => [`{q:${i},v:"x${i}"}`, `{q:${i},v:"y${i}"}`]);
      expect({ name, out }).toEqual({ name, out: want });
      // Batches of up to 1024 values, not one per input value.
      expect(Math.max(...sizes)).toBeLessThanOrEqual(1024);
      expect(sizes.length).toBeLessThan(12);
    }
  });
});

describe('what over traverses', () => {
  test('elements of input values are views of them; of computed arrays, copies that last until the output is read', async () => {
    const input = Array.from({ length: 3000 }, (_, i) => `{s:"a${i},b${i}",a:[${i},${i + 1}]}`);
    const queries = {
      // The arrays lie in the input values.
      input: 'over a',
      // Each array is computed into memory the next input value reuses.
      computed: 'over split(s, ",")',
      lateral: 'over split(s, ","), a with s=s => (yield {s, v:this})',
      expression: 'yield (over split(s, ",") | yield this + "!")',
    };
    const wants: Record<string, string[]> = {
      input: input.flatMap((_, i) => [`${i}`, `${i + 1}`]),
      computed: input.flatMap((_, i) => [`"a${i}"`, `"b${i}"`]),
      lateral: input.flatMap((_, i) => [
        `{s:"a${i},b${i}",v:"a${i}"}`,
        `{s:"a${i},b${i}",v:"b${i}"}`,
        `{s:"a${i},b${i}",v:${i}}`,
        `{s:"a${i},b${i}",v:${i + 1}}`,
      ]),
      expression: input.map((_, i) => `["a${i}!","b${i}!"]`),
    };
    for (const [name, query] of Object.entries(queries)) {
      const ctx = new QueryContext();
      const inputs = [arrayReader(parseValues(ctx.zctx, input.join('\n')), 1000)];
      const q = await compileQuery(query, { ctx, inputs });
      // Every batch read out before any is formatted.
      const batches: Operator['pull'] extends () => Promise<infer B> ? NonNullable<B>[] : never =
        [];
      for (let b = await q.pull(); b; b = await q.pull()) batches.push(b);
      const out = batches.flat().map((v) => formatValue(v));
      expect({ name, out }).toEqual({ name, out: wants[name] });
    }
  });
});
