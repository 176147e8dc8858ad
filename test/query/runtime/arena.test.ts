// The value arena lays out each value it builds as a ZNG value (a spare
// byte and the tag before the body, end to end), so that the ZNG writer
// copies its values in runs; values with longer tags, and values built
// inside others, are still whole and right.

import { BufferSink } from '../../../src/formats/io';
import { decodeZng, newWriter } from '../../../src/formats/zng';
import { formatValue, parseValues } from '../../../src/formats/zson';
import { ValueArena } from '../../../src/query/runtime/arena';
import { TypeContext } from '../../../src/zed/context';
import { TypeString } from '../../../src/zed/types';
import { Value } from '../../../src/zed/value';

test('arena values are laid out as ZNG values and write as the same bytes as copies', async () => {
  const ctx = new TypeContext();
  const arena = new ValueArena();
  const src = parseValues(ctx, '{a:1,b:"x"} "short" {a:2,b:"yy"} 7');
  const long = Value.fromBytes(TypeString, Buffer.from('z'.repeat(300)));
  const vals = [...src, long, src[0]].map((v) => arena.copy(v));
  // A value built inside another's building is part of the outer body.
  arena.begin();
  const inner = arena.copy(src[1]);
  const outer = arena.end(TypeString);
  arena.seal();
  for (const v of vals.filter((x) => x.len < 0x7f)) {
    expect(v.buf[v.off - 1]).toBe(v.len + 1);
  }
  // Consecutive short values lie end to end: each after a spare byte and its tag.
  expect(vals[1].off).toBe(vals[0].off + vals[0].len + 2);
  expect(formatValue(inner)).toBe('"short"');
  expect(outer.len).toBe(inner.len);
  const write = async (vs: Value[]) => {
    const sink = new BufferSink();
    const w = newWriter(sink, { compress: false });
    await w.write(vs);
    await w.close();
    return sink.bytes();
  };
  const bytes = await write(vals);
  expect(bytes).toEqual(await write(vals.map((v) => v.copy())));
  expect([...decodeZng(bytes, { ctx: new TypeContext() })].map(formatValue)).toEqual(
    [...src, long, src[0]].map(formatValue),
  );
});
