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

test('small seals share a slab, each keeping its values; a large seal has a buffer of its own', () => {
  const arena = new ValueArena();
  const kept: [Value, string][] = [];
  // Seals of one to three strings, as an over with a lateral body makes
  // them, past one slab's worth (256 KiB) of bytes.
  for (let i = 0; i < 4000; i++) {
    const texts = Array.from({ length: 1 + (i % 3) }, (_, j) => `${'v'.repeat(i % 90)}${i}.${j}`);
    const vals = texts.map((t) => arena.copy(Value.fromBytes(TypeString, Buffer.from(t))));
    arena.seal();
    vals.forEach((v, j) => kept.push([v, texts[j]]));
  }
  for (const [v, t] of kept) expect(v.buf.toString('latin1', v.off, v.off + v.len)).toBe(t);
  const slabs = new Set(kept.map(([v]) => v.buf));
  expect(slabs.size).toBeGreaterThan(1);
  expect(slabs.size).toBeLessThan(10);
  // Values of one seal lie end to end in their slab: a spare byte and the tag before each.
  const [a, b] = [kept[kept.length - 2][0], kept[kept.length - 1][0]];
  if (a.buf === b.buf) expect(b.off).toBe(a.off + a.len + 2);
  // A large seal copies its bytes into a buffer of their own.
  const big = arena.copy(Value.fromBytes(TypeString, Buffer.from('w'.repeat(5000))));
  arena.seal();
  expect(slabs.has(big.buf)).toBe(false);
  expect(big.buf.length).toBe(big.len + 2);
  expect(formatValue(big)).toBe(`"${'w'.repeat(5000)}"`);
});
