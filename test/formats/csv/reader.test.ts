// The CSV reader: the reference's typing of fields, its quote handling
// (preprocess pass plus Go's csv rules), delimiters, and its errors.

import { csvFormat, detectDelimited } from '../../../src/formats/csv';
import { FormatError, sourceFromBuffer } from '../../../src/formats/io';
import { TypeContext } from '../../../src/zed/context';
import { readWith, zson } from '../zeek/support';

async function read(text: string, csvDelim?: string, chunk?: number): Promise<string> {
  return zson(await readWith('csv', text, new TypeContext(), { csvDelim, chunk }));
}

async function failure(text: string, csvDelim?: string): Promise<FormatError> {
  try {
    await readWith('csv', text, new TypeContext(), { csvDelim });
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).format).toBe('csv');
    return e as FormatError;
  }
  throw new Error('no error');
}

describe('csv reader: typing', () => {
  it('types fields as null, float64, bool or string', async () => {
    const fields = [
      ['', 'null'],
      ['1', '1.'],
      ['-2.5', '-2.5'],
      ['+3', '3.'],
      ['.5', '0.5'],
      ['1e3', '1000.'],
      ['1_000', '1000.'],
      ['0x1p-2', '0.25'],
      ['Inf', '+Inf'],
      ['-infinity', '-Inf'],
      ['nan', 'NaN'],
      ['true', 'true'],
      ['F', 'false'],
      ['TRUE', 'true'],
      ['yes', '"yes"'],
      // Out of range for a float64: a string, as Go's ParseFloat fails.
      ['1e400', '"1e400"'],
      ['0x10', '"0x10"'],
      ['1__0', '"1__0"'],
      ['12ab', '"12ab"'],
    ];
    const text = 'v\n' + fields.map((f) => f[0]).join('\n') + '\n';
    // The empty field is a blank line, which CSV skips; read it in a
    // two-column file instead.
    const got = (await read(text)).split('\n');
    expect(got.slice(0, -1)).toEqual(fields.slice(1).map((f) => `{v:${f[1]}}`));
    expect(await read('a,b\n,x\n')).toBe('{a:null,b:"x"}\n');
  });

  it('gives each shape of record its own type', async () => {
    const vals = await readWith('csv', 'a,b\n1,x\n,true\n');
    expect(vals[0].type).not.toBe(vals[1].type);
    expect(await zson(vals)).toBe('{a:1.,b:"x"}\n{a:null,b:true}\n');
  });
});

describe('csv reader: quoting', () => {
  it('rewrites partly quoted fields as the reference preprocess does', async () => {
    const text =
      'a,b,c\n' +
      '"","",""\n' +
      '"""","""",""""\n' +
      'field1,"field"2,field"3" my friend\n' +
      '""",""",""" has a couple "" embedded quotes and a , comma",""" """\n' +
      'x,"hello,\n"" world , " foo,y\n';
    expect(await read(text)).toBe(
      '{a:null,b:null,c:null}\n' +
        '{a:"\\"",b:"\\"",c:"\\""}\n' +
        '{a:"field1",b:"field2",c:"field3 my friend"}\n' +
        '{a:"\\",\\"",b:"\\" has a couple \\" embedded quotes and a , comma",c:"\\" \\""}\n' +
        '{a:"x",b:"hello,\\n\\" world ,  foo",c:"y"}\n',
    );
  });

  it('trims white space around quoted fields and before unquoted ones', async () => {
    expect(await read('a,b\n  "x "  ,  y  \n')).toBe('{a:"x",b:"y  "}\n');
  });

  it('takes CRLF, skips empty lines, and keeps newlines inside quotes', async () => {
    expect(await read('a,b\r\n\r\n"1\r\n2",x\r\n\n3,y')).toBe('{a:"1\\n2",b:"x"}\n{a:3.,b:"y"}\n');
  });

  it('fails on a final quoted field without newline, as the reference does', async () => {
    const e = await failure('a,b\n1,"x"');
    expect(e.message).toBe('parse error on line 2, column 4: bare " in non-quoted-field');
    expect(e.line).toBe(2);
  });

  it('reads an unterminated quote to the end of input as unquoted text', async () => {
    expect(await read('a,b\n1,"x\n')).toBe('{a:1.,b:"x"}\n');
    // Its newlines then end records again.
    expect((await failure('a,b\n1,"x\ny\n')).message).toBe(
      'record on line 3: wrong number of fields',
    );
  });

  it('reports a quote error with the record start line', async () => {
    // At end of input the preprocess pass leaves `""x` unwrapped.
    const e = await failure('a\n"""x');
    expect(e.message).toBe(
      'parse error on line 2, column 2: extraneous or missing " in quoted-field',
    );
  });
});

describe('csv reader: delimiters', () => {
  it('reads another single-character delimiter', async () => {
    expect(await read('a;b\n1;"x;y"\n', ';')).toBe('{a:1.,b:"x;y"}\n');
  });

  it('rejects delimiters that are not one character when the reader is made', () => {
    for (const d of ['', ';;', 'é']) {
      let err: unknown;
      try {
        csvFormat.newReader!(sourceFromBuffer(Buffer.from('a\n1\n')), {
          ctx: new TypeContext(),
          csvDelim: d,
        });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FormatError);
      expect((err as FormatError).format).toBe('csv');
      expect((err as FormatError).message).toBe(
        'CSV field delimiter must be exactly one character',
      );
    }
  });

  it("rejects delimiters Go's csv reader refuses", async () => {
    const e = await failure('a\n1\n', '"');
    expect(e.message).toBe('csv: invalid field or comment delimiter');
  });
});

describe('csv reader: errors', () => {
  it('rejects a record with the wrong number of fields', async () => {
    const e = await failure('a,b\n1,2\n3\n');
    expect(e.message).toBe('record on line 3: wrong number of fields');
    expect(e.line).toBe(3);
  });

  it('counts a line of white space as a record', async () => {
    expect((await failure('a,b\n  \n')).message).toBe('record on line 2: wrong number of fields');
  });

  it('rejects input without data records', async () => {
    expect((await failure('')).message).toBe('empty csv file');
    expect((await failure('a,b\n')).message).toBe('empty csv file');
  });

  it('rejects duplicate column names', async () => {
    expect((await failure('a,a\n1,2\n')).message).toBe('duplicate field: "a"');
  });
});

describe('csv detection', () => {
  const src = (s: string) => sourceFromBuffer(Buffer.from(s), 2);
  it('matches CSV and leaves the input readable', async () => {
    expect(await detectDelimited(src('a,b\n1,2\n'), 'csv', 44)).toBeNull();
  });
  it('gives the reference reasons otherwise', async () => {
    expect(await detectDelimited(src('a,b'), 'csv', 44)).toBe('csv: line 1: EOF');
    expect(await detectDelimited(src('ab\n1\n'), 'csv', 44)).toBe('csv: line 1: no comma found');
    expect(await detectDelimited(src('a,b\n1\n'), 'csv', 44)).toBe(
      'csv: record on line 2: wrong number of fields',
    );
    expect(await detectDelimited(src('a b\n1\n'), 'tsv', 9)).toBe(
      "tsv: line 1: delimiter '\\t' not found",
    );
  });
});
