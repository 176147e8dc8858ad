import { parseValues } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed/context';
import { Value } from '../../../src/zed/value';
import '../../../src/query/functions';
import { lookupFunction } from '../../../src/query/functions';
import { Expr } from '../../../src/query/expr/expr';
import { Literal } from '../../../src/query/expr/literal';
import { fieldPath } from '../../../src/query/expr/path';

test('perf', () => {
  const zctx = new TypeContext();
  const recs = parseValues(
    zctx,
    Array.from(
      { length: 1000 },
      (_, i) =>
        `{s:"Hello World ${i}",n:${i},f:${i}.5,t:"${i * 7}",u:" padded ${i} ",ts:2020-01-01T00:00:${String(i % 60).padStart(2, '0')}Z}`,
    ).join('\n'),
  );
  const env = { zctx, constant: (e: Expr) => (e instanceof Literal ? e.value : undefined) };
  const call = (name: string, args: Expr[]) => lookupFunction(name)!.build(args, env);
  const f = (p: string) => fieldPath(zctx, [p]);
  const lit = (s: string) => new Literal(parseValues(zctx, s)[0]);
  const cases: [string, Expr][] = [
    ['lower(s)', call('lower', [f('s')])],
    ['upper(s)', call('upper', [f('s')])],
    ['len(s)', call('len', [f('s')])],
    ['trim(u)', call('trim', [f('u')])],
    ['split(s," ")', call('split', [f('s'), lit('" "')])],
    ['has(s)', call('has', [f('s')])],
    ['abs(n)', call('abs', [f('n')])],
    ['int64(t)', call('cast', [f('t'), lit('<int64>')])],
    ['int64(f)', call('cast', [f('f'), lit('<int64>')])],
    ['float64(n)', call('cast', [f('n'), lit('<float64>')])],
    ['string(n)', call('cast', [f('n'), lit('<string>')])],
    ['time(t)', call('cast', [f('t'), lit('<time>')])],
    ['bucket(ts,1h)', call('bucket', [f('ts'), lit('1h')])],
    ['shape', call('shape', [fieldPath(zctx, []), lit('<{n:string,s:string,x:int64}>')])],
    ['crop', call('crop', [fieldPath(zctx, []), lit('<{n:int64}>')])],
    ['replace', call('replace', [f('s'), lit('"o"'), lit('"0"')])],
  ];
  const lines: string[] = [];
  for (const [name, e] of cases) {
    let sink = 0;
    for (let w = 0; w < 200; w++) for (const r of recs) sink += (e.eval(r) as Value).len;
    const N = 2000;
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < N; k++) for (const r of recs) sink += (e.eval(r) as Value).len;
    const ns = Number(process.hrtime.bigint() - t0) / (N * recs.length);
    lines.push(`${name.padEnd(16)} ${ns.toFixed(1)} ns/call ${sink > 0 ? '' : ''}`);
  }
  console.log(lines.join('\n'));
}, 300000);
