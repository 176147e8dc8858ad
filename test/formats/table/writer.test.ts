// The table writer: a header of flattened column names, rows aligned by
// Go's tabwriter rules, a new header (and a new alignment) when the flat
// shape changes and after every 1000 rows.

import { FormatError } from '../../../src/formats/io';
import { parseValues } from '../../../src/formats/zson';
import { TypeContext } from '../../../src/zed/context';
import { Value } from '../../../src/zed/value';
import { write, writeWith } from '../text/support';

const table = (zson: string) => write('table', zson);

describe('table writer', () => {
  it('pads each column to its widest cell plus one space; the last column is not padded', async () => {
    expect(await table('{a:1,bb:"xyz",c:"last"}\n{a:100,bb:"q",c:"l"}')).toBe(
      'a   bb  c\n1   xyz last\n100 q   l\n',
    );
  });

  it('measures widths in runes, not bytes', async () => {
    expect(await table('{a:"日本",b:1}\n{a:"abc",b:2}')).toBe('a   b\n日本  1\nabc 2\n');
  });

  it('flattens nested records to dotted names', async () => {
    expect(await table('{a:{b:1,c:{d:"x"}},e:true}')).toBe('a.b a.c.d e\n1   x     T\n');
  });

  it('starts a new header, aligned apart, when the shape changes', async () => {
    expect(await table('{a:1}\n{a:22}\n{b:"x",c:1}\n{b:"yyyy",c:2}\n{a:3}')).toBe(
      'a\n1\n22\nb    c\nx    1\nyyyy 2\na\n3\n',
    );
  });

  it('takes a change of leaf type as a change of shape', async () => {
    expect(await table('{a:1}\n{a:"x"}')).toBe('a\n1\na\nx\n');
  });

  it('keeps one header across types with the same flat shape', async () => {
    expect(await table('{a:{b:1}}\n{"a.b":2}\n{a:{b:3}}(=named)')).toBe('a.b\n1\n2\n3\n');
  });

  it('writes a null time as an empty cell, other nulls as "-"', async () => {
    expect(await table('{t:null(time),x:null(int64)}\n{t:1970-01-01T00:00:01Z,x:2}')).toBe(
      't                    x\n                     -\n1970-01-01T00:00:01Z 2\n',
    );
    // An empty last cell leaves the padding of the column before it.
    expect(await table('{x:1,t:null(time)}')).toBe('x t\n1 \n');
  });

  it('repeats the header after every 1000 rows and aligns each block alone', async () => {
    let input = '';
    for (let i = 0; i <= 1000; i++) input += `{a:${i},b:1}\n`;
    let want = 'a   b\n';
    for (let i = 0; i < 1000; i++) want += `${String(i).padEnd(4)}1\n`;
    want += 'a    b\n1000 1\n';
    expect(await table(input)).toBe(want);
  });

  it('fails on a value that is not a record, after writing the rows before it', async () => {
    const ctx = new TypeContext();
    const { text, error } = await writeWith(
      'table',
      parseValues(ctx, '{a:1}\n{a:22}\n[1,2]\n{a:3}'),
    );
    expect(error).toBeInstanceOf(FormatError);
    expect(error!.format).toBe('table');
    expect(error!.message).toBe('table output encountered non-record value: [1,2]');
    expect(text).toBe('a\n1\n22\n');
  });

  it('rejects a record that flattens to a repeated column', async () => {
    const ctx = new TypeContext();
    const { text, error } = await writeWith('table', parseValues(ctx, '{x:1}\n{a:{b:1},"a.b":2}'));
    expect(error?.message).toBe('duplicate field: "a.b"');
    expect(text).toBe('x\n1\n');
  });

  it('writes an empty record as empty lines', async () => {
    expect(await table('{}\n{}')).toBe('\n\n\n');
  });

  it('lets a 0xff byte in a string escape the alignment until the next one, as Go does', async () => {
    const ctx = new TypeContext();
    const [rec] = parseValues(ctx, '{s:"",n:1}');
    const t = rec.type;
    // {s:"a\xff",n:1} and {s:"b",n:2}, built by hand (ZSON strings are UTF-8).
    const body = (s: number[], n: number) => Buffer.from([s.length + 1, ...s, 2, n * 2]);
    const vals = [new Value(t, body([0x61, 0xff], 1), 0, 6), new Value(t, body([0x62], 2), 0, 5)];
    const { bytes } = await writeWith('table', vals);
    expect(bytes).toEqual(Buffer.from('s n\na\xff\t1\nb\t2\n', 'latin1'));
  });

  it('gives the same bytes however the values are batched', async () => {
    const ctx = new TypeContext();
    const vals = parseValues(
      ctx,
      Array.from({ length: 50 }, (_, i) =>
        i % 7 === 0 ? `{b:"${'x'.repeat(i)}"}` : `{a:${i * 37}}`,
      ).join('\n'),
    );
    const whole = (await writeWith('table', vals)).text;
    expect((await writeWith('table', vals, 1)).text).toBe(whole);
    expect((await writeWith('table', vals, 3)).text).toBe(whole);
  });
});
